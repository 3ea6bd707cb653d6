//! wirespeed flow (work in progress).
