//! wirespeed classify (work in progress).
