//! The engine's integration tests, one binary (one link of the engine and its dependencies
//! instead of one a file). Each module is what was a file of its own; they run in parallel
//! threads of one process, each with files of its own. Run one module with
//! `cargo test -p wirespeed-engine --release --test it -- corpus::`.

mod after_open;
mod corpus;
mod demo;
mod dpi_corpus;
mod dpi_subscribe;
mod learned;
mod parallel;
mod rules;
mod session;
mod stats_corpus;
