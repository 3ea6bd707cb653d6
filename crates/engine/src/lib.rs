//! wirespeed engine (work in progress).
