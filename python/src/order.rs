//! `classify`'s rows in `flow_id` order: the workers end flows in their own order, and a
//! table in the order the flows began reads the same whatever the number of workers.
//!
//! Done here, after the run and without the GIL, rather than by pyarrow's `sort_by`: it needs
//! no `flow_id` column (a `columns=` selection may leave it out: each batch comes with its rows'
//! ids), and no import of pyarrow.compute (~50 ms of a process).

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::UInt32Array;
use arrow_array::{Array, ArrayRef, DictionaryArray, Int32Array, RecordBatch, StringArray};
use arrow_buffer::NullBufferBuilder;
use arrow_schema::ArrowError;
use std::sync::Arc;

/// The rows of `batches` (each with the `flow_id` of each of its rows) in `flow_id` order,
/// stable (a flow's interim records stay before its final one), in batches of `rows` at most,
/// each dictionary column with one dictionary.
pub(crate) fn in_flow_order(
    batches: Vec<(RecordBatch, Vec<u64>)>,
    rows: usize,
) -> Result<Vec<RecordBatch>, ArrowError> {
    if batches.is_empty() {
        return Ok(Vec::new());
    }
    for (b, ids) in &batches {
        if ids.len() != b.num_rows() {
            return Err(ArrowError::InvalidArgumentError(format!(
                "{} flow ids for {} rows",
                ids.len(),
                b.num_rows()
            )));
        }
    }
    let total: usize = batches.iter().map(|(b, _)| b.num_rows()).sum();
    if u32::try_from(total).is_err() {
        return Err(ArrowError::InvalidArgumentError(format!(
            "{total} rows: more than a table of 2^32"
        )));
    }
    let ids: Vec<u64> = batches
        .iter()
        .flat_map(|(_, ids)| ids.iter().copied())
        .collect();
    // Row numbers of the whole run, sorted by id (stable); none when already in order.
    let perm = (!ids.windows(2).all(|w| w[0] <= w[1])).then(|| {
        let mut perm: Vec<u32> = (0..total as u32).collect();
        perm.sort_by_key(|&r| ids[r as usize]);
        UInt32Array::from(perm)
    });
    let batches: Vec<RecordBatch> = batches.into_iter().map(|(b, _)| b).collect();
    let schema = batches[0].schema();
    let column = |k: usize| -> Result<ArrayRef, ArrowError> {
        let parts: Vec<&dyn Array> = batches.iter().map(|b| b.column(k).as_ref()).collect();
        let whole = match parts[0].as_dictionary_opt::<Int32Type>() {
            Some(_) => one_dictionary(&parts)?,
            None => arrow_select::concat::concat(&parts)?,
        };
        match &perm {
            Some(perm) => arrow_select::take::take(whole.as_ref(), perm, None),
            None => Ok(whole),
        }
    };
    // The run is over and its workers gone: the columns are put in order on two threads (the
    // second half of them on a thread of its own), half the wait on a table of ~70 columns.
    let n = schema.fields().len();
    let half = n / 2;
    let (first, second) = std::thread::scope(|s| {
        let second = s.spawn(|| (half..n).map(column).collect::<Result<Vec<_>, _>>());
        let first = (0..half).map(column).collect::<Result<Vec<_>, _>>();
        (first, second.join())
    });
    let mut columns = first?;
    match second {
        Ok(cols) => columns.extend(cols?),
        Err(_) => {
            return Err(ArrowError::ComputeError(
                "putting rows in order: a thread panicked".into(),
            ))
        }
    }
    let all = RecordBatch::try_new(schema, columns)?;
    let rows = rows.max(1);
    Ok((0..total)
        .step_by(rows)
        .map(|at| all.slice(at, rows.min(total - at)))
        .collect())
}

/// Dictionary-encoded `parts` as one array whose dictionary holds each distinct value once,
/// sorted (so the table is the same whatever order the workers' batches came in, and pandas'
/// categories come sorted), keys remapped: pandas needs its categories unique, and arrow's
/// concatenation would repeat the values every part holds.
fn one_dictionary(parts: &[&dyn Array]) -> Result<ArrayRef, ArrowError> {
    let dicts: Vec<_> = parts
        .iter()
        .map(|p| p.as_dictionary::<Int32Type>())
        .collect();
    let mut values: Vec<&str> = dicts
        .iter()
        .flat_map(|d| d.values().as_string::<i32>().iter().flatten())
        .collect();
    values.sort_unstable();
    values.dedup();
    let total = parts.iter().map(|p| p.len()).sum();
    let mut keys: Vec<i32> = Vec::with_capacity(total);
    let mut nulls = NullBufferBuilder::new(total);
    for d in dicts {
        // Each of this part's keys into the one dictionary's.
        let map: Vec<i32> = d
            .values()
            .as_string::<i32>()
            .iter()
            .map(|v| values.binary_search(&v.unwrap_or("")).unwrap_or(0) as i32)
            .collect();
        // A null key's slot holds any number: read through `get`, never indexed blindly.
        keys.extend(
            d.keys()
                .values()
                .iter()
                .map(|&k| map.get(k as usize).copied().unwrap_or(0)),
        );
        match d.nulls() {
            Some(n) => nulls.append_buffer(n),
            None => nulls.append_n_non_nulls(d.len()),
        }
    }
    let keys = Int32Array::new(keys.into(), nulls.finish());
    let values: ArrayRef = Arc::new(StringArray::from(values));
    Ok(Arc::new(DictionaryArray::<Int32Type>::try_new(
        keys, values,
    )?))
}
