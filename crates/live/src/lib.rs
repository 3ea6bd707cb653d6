//! Live links: capture on AF_PACKET TPACKET_V3 rings spread over workers by the kernel's fanout
//! hash ([`capture`]) or on XDP sockets ([`xsk`]), a replayer that drives an interface with a capture file ([`mod@replay`]),
//! and the inline half: packets from NFQUEUE answered by a policy ([`inline`], [`nfqueue`]).
//! Either run serves its counters to Prometheus with `--metrics` ([`metrics`]).
//! Linux only. All system calls, and all `unsafe` code, are in [`sys`].
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod bpf;
pub mod capture;
pub mod copies;
pub mod inline;
pub mod link;
pub mod metrics;
pub mod nfqueue;
pub mod replay;
pub mod sys;
pub mod xsk;

pub use capture::{
    block_packets, run, CaptureAct, CopyFilter, FeedMaker, LiveConfig, LiveOutcome, SourceStats,
};
pub use replay::{replay, Pace, ReplayStats};
