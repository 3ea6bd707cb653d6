//! Flow classifiers and the arbiter that orders them.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod port;
