//! wirespeed export (work in progress).
