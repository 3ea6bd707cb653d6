//! Prometheus metrics of a live or inline run (`--metrics ADDR:PORT`): the run's counters in
//! the OpenMetrics text format, served at `/metrics` by a small HTTP/1.1 server on a thread of
//! its own.
//!
//! - [`RunStats`]: what a run shares with the endpoint. The workers publish a snapshot of their
//!   counters and per-label totals about twice a second ([`wirespeed_engine::runtime::Published`],
//!   off the packet path, folding their per-rule counters into the policy's totals inline); the
//!   kernel's ring counters (live), the queue counters (inline) and the output's losses are
//!   atomics the run keeps anyway. A scrape adds them up on the server's thread: nothing is
//!   locked or allocated per packet for it.
//! - [`Exposition`]: the text format (families, `_total` counters, escaped label values,
//!   `# EOF`).
//! - The live page (`--http`, the same server): `/` a self-contained HTML page that redraws
//!   every second from `/live.json` ([`RunStats::live_json`]): throughput by application,
//!   active flows, drops, the newest risky flows ([`RiskTap`]), inline rules' counters.
//! - [`MetricsServer`]: the endpoint. One request per connection, at most [`Limits::max_request`]
//!   bytes of it read within [`Limits::request_timeout`], at most [`Limits::max_connections`]
//!   served at once (more are answered 503 and closed); `GET` or `HEAD` only (other methods 405), of
//!   `/metrics` (and `/`, `/live.json` when it serves the page; other paths 404). A slow, huge or garbled request costs one connection slot for
//!   a bounded time, never the packet path.

mod encode;
mod page;
mod render;
mod server;

pub use encode::{escape, Exposition, Type, CONTENT_TYPE};
pub use page::{html_escape, json_string, RiskTap, RISKY_KEPT, TOP_APPS};
pub use render::{OutputCounters, RunStats};
pub use server::{Limits, MetricsServer, Page};
