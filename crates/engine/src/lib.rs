//! The wirespeed runtime.
//!
//! A [`Worker`] owns one flow table and runs the per-packet pipeline over batches:
//! decode ([`wirespeed_wire`]) → fragment mapping → hash and prefetch → flow lookup/update
//! ([`wirespeed_flow`]) → classification ([`wirespeed_classify`]) → records to a sink
//! ([`wirespeed_export`]) when flows end. [`run_file`] feeds a capture file through a worker.
//! [`gen`] writes synthetic captures. [`Pool`] runs several workers that share one input (taking
//! turns scanning it, or fed by a reader thread), flows spread by a symmetric hash keyed per run
//! ([`rss::DispatchKey`]). [`Session`] is the facade over both, [`Rules`] what a run knows, [`classify`] the
//! classifiers' contract.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod classify;
mod config;
pub mod events;
pub mod expect;
pub mod gen;
mod input;
pub mod learn;
mod observe;
pub mod ordered;
mod record;
pub mod rss;
mod rules;
pub mod runtime;
mod spin;
mod summary;
pub mod train;
mod tunnels;
mod worker;

pub use classify::{FlowExt, DPI_CONFIDENCE};
pub use rules::{ModelSource, RuleSources, Rules, RulesError};
pub use runtime::{reserved_bytes, DispatchStats, ParallelConfig, Pool, Session};
pub use summary::{
    app_categories, method_slot, AppStats, Counters, LabelHasher, LearnedOutcome, RiskCounts,
    Summary, METHOD_SLOTS,
};
pub use worker::{
    memory_available, run_file, stats_families, EngineConfig, FileOutcome, Stamp, Worker,
};
