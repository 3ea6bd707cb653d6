//! `--format parquet` for `classify`: one Parquet file that every worker writes row groups to
//! (`wirespeed_export::parquet`). Built only with the cargo feature `parquet`; without it the
//! format is a clear error saying how to build it.

use crate::args::Format;
use std::path::Path;
use wirespeed_export::{Columns, RecordSink};

/// What `--format parquet` needs: a file name (Parquet is not written to standard output).
#[cfg(feature = "parquet")]
fn target(output: Option<&Path>) -> Result<&Path, String> {
    match crate::outputs::stdout_path(output) {
        Some(p) => Ok(p),
        None => Err(
            "--format parquet needs -o FILE: a Parquet file is not written to standard output"
                .into(),
        ),
    }
}

#[cfg(feature = "parquet")]
pub(crate) type ParquetOut = Option<wirespeed_export::parquet::ParquetFile>;

/// Without the feature there is never a Parquet output.
#[cfg(not(feature = "parquet"))]
pub(crate) type ParquetOut = Option<std::convert::Infallible>;

/// Open the Parquet file when the format asks for one (None for the other formats).
#[cfg(feature = "parquet")]
pub(crate) fn open(
    format: Format,
    output: Option<&Path>,
    cols: Columns,
    rows_per_group: usize,
) -> Result<ParquetOut, String> {
    if format != Format::Parquet {
        return Ok(None);
    }
    let p = target(output)?;
    if rows_per_group == 0 {
        return Err("--parquet-row-group must be at least 1".into());
    }
    wirespeed_export::parquet::ParquetFile::create(p, cols, rows_per_group)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// Without the feature: `--format parquet` is an error saying how to build it.
#[cfg(not(feature = "parquet"))]
pub(crate) fn open(
    format: Format,
    output: Option<&Path>,
    _cols: Columns,
    _rows_per_group: usize,
) -> Result<ParquetOut, String> {
    let _ = output;
    if format != Format::Parquet {
        return Ok(None);
    }
    Err(NOT_BUILT.into())
}

/// The error of `--format parquet` in a build without it.
#[cfg(not(feature = "parquet"))]
const NOT_BUILT: &str = "--format parquet: this wirespeed was built without Parquet support; \
     build it with `cargo build --release --features parquet`";

/// A worker's sink into the Parquet file, if there is one.
#[cfg(feature = "parquet")]
pub(crate) fn sink(out: &ParquetOut) -> Option<Box<dyn RecordSink + Send>> {
    out.as_ref()
        .map(|f| Box::new(f.sink()) as Box<dyn RecordSink + Send>)
}

/// Without the feature there is no Parquet sink.
#[cfg(not(feature = "parquet"))]
pub(crate) fn sink(out: &ParquetOut) -> Option<Box<dyn RecordSink + Send>> {
    out.as_ref().map(|never| match *never {})
}

/// Write the footer and give the file its name (every worker's sink finished and dropped
/// first); says what was written unless `quiet`.
#[cfg(feature = "parquet")]
pub(crate) fn finish(out: ParquetOut, quiet: bool) -> Result<(), String> {
    let Some(f) = out else { return Ok(()) };
    let w = f.finish().map_err(|e| format!("writing records: {e}"))?;
    if !quiet {
        eprintln!(
            "parquet: {} records in {} row groups, {} bytes: {}",
            w.records,
            w.row_groups,
            w.bytes,
            w.path.display()
        );
    }
    Ok(())
}

/// Without the feature there is nothing to finish.
#[cfg(not(feature = "parquet"))]
pub(crate) fn finish(_out: ParquetOut, _quiet: bool) -> Result<(), String> {
    Ok(())
}
