//! The command line's integration tests, one binary (one link of the whole program's
//! dependencies instead of one a file: on 2 cores that was most of the tests' build time).
//! Each module is what was a file of its own; they run in parallel threads of one process, so
//! each test names its own files (`common::temp` keeps a directory per module) and its own
//! network namespaces. Run one module with `cargo test -p wirespeed --release --test it -- risks::`.

mod common;

mod cli;
mod columns;
mod community;
mod contract;
mod dist;
mod events;
mod heavy;
mod inline;
mod inputs;
mod ipfix;
mod kafka;
mod kafka_absent;
mod labels;
mod live_page;
mod matches;
mod metrics;
mod options;
mod parquet;
mod report;
mod risks;
mod stats;
mod tcp;
mod tunnels;
mod veth;
mod workers;
