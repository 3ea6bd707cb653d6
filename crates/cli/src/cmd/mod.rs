//! The commands, one file each: its arguments and what it does.

pub(crate) mod bench;
pub(crate) mod classify;
pub(crate) mod gen;
pub(crate) mod inline;
pub(crate) mod list;
pub(crate) mod live;
pub(crate) mod replay;
pub(crate) mod report;
pub(crate) mod train;
