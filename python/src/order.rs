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
use arrow_schema::ArrowError;
use std::collections::HashMap;
use std::sync::Arc;

/// The rows of `batches` (each with the `flow_id` of each of its rows) in `flow_id` order,
/// stable (a flow's interim records stay before its final one), in batches of `rows` at most.
/// Batches already in order are handed back as they are.
pub(crate) fn in_flow_order(
    batches: Vec<(RecordBatch, Vec<u64>)>,
    rows: usize,
) -> Result<Vec<RecordBatch>, ArrowError> {
    let ids: Vec<u64> = batches
        .iter()
        .flat_map(|(_, ids)| ids.iter().copied())
        .collect();
    let batches: Vec<RecordBatch> = batches.into_iter().map(|(b, _)| b).collect();
    if ids.windows(2).all(|w| w[0] <= w[1]) || batches.is_empty() {
        return Ok(batches);
    }
    let total: usize = batches.iter().map(RecordBatch::num_rows).sum();
    if ids.len() != total || u32::try_from(total).is_err() {
        return Err(ArrowError::InvalidArgumentError(format!(
            "{} flow ids for {total} rows",
            ids.len()
        )));
    }
    // Row numbers of the whole run, sorted by id; stable.
    let mut perm: Vec<u32> = (0..total as u32).collect();
    perm.sort_by_key(|&r| ids[r as usize]);
    let perm = UInt32Array::from(perm);
    let schema = batches[0].schema();
    let column = |k: usize| -> Result<ArrayRef, ArrowError> {
        let parts: Vec<&ArrayRef> = batches.iter().map(|b| b.column(k)).collect();
        let whole = match parts[0].as_dictionary_opt::<Int32Type>() {
            Some(_) => one_dictionary(&parts)?,
            None => {
                let parts: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
                arrow_select::concat::concat(&parts)?
            }
        };
        arrow_select::take::take(whole.as_ref(), &perm, None)
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

/// Dictionary-encoded `parts` as one array whose dictionary holds each distinct value once (in
/// order of first appearance), keys remapped: pandas needs its categories unique, and arrow's
/// concatenation would repeat the values every part holds.
fn one_dictionary(parts: &[&ArrayRef]) -> Result<ArrayRef, ArrowError> {
    let mut key: HashMap<&str, i32> = HashMap::new();
    let mut values: Vec<&str> = Vec::new();
    let mut keys: Vec<i32> = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
    let mut valid: Vec<bool> = Vec::new();
    let any_null = parts.iter().any(|p| p.logical_null_count() > 0);
    for p in parts {
        let d = p.as_dictionary::<Int32Type>();
        let vals = d.values().as_string::<i32>();
        let map: Vec<i32> = (0..vals.len())
            .map(|i| {
                let v = vals.value(i);
                *key.entry(v).or_insert_with(|| {
                    values.push(v);
                    (values.len() - 1) as i32
                })
            })
            .collect();
        // A null key's slot holds any number: read through `get`, never indexed blindly.
        keys.extend(
            d.keys()
                .values()
                .iter()
                .map(|&k| map.get(k as usize).copied().unwrap_or(0)),
        );
        if any_null {
            valid.extend((0..d.len()).map(|i| d.is_valid(i)));
        }
    }
    let keys = if any_null {
        let keys: Vec<Option<i32>> = keys
            .into_iter()
            .zip(valid)
            .map(|(k, v)| v.then_some(k))
            .collect();
        Int32Array::from(keys)
    } else {
        Int32Array::from(keys)
    };
    let values: ArrayRef = Arc::new(StringArray::from(values));
    Ok(Arc::new(DictionaryArray::<Int32Type>::try_new(
        keys, values,
    )?))
}
