//! Typed records → Arrow: the generated columns against the route every other client of the
//! service leaves its users, `serde_json::Value` records through arrow-json (its schema inferred
//! from the values, as there is nothing else to take it from, and then with the schema given).

use std::sync::Arc;
use std::time::Duration;

use agents_runtime::catalog::RetailerAPdp;
use agents_runtime::columnar;
use arrow_json::reader::infer_json_schema_from_iterator;
use serde_json::Value;

use crate::measure::{Row, interleaved, median_of, median_ratio, row};

/// Records per conversion.
const RECORDS: usize = 1_000;

/// `RECORDS` retailer_a_pdp records (3 items per array), as JSON values and as typed records.
fn inputs() -> (Vec<Value>, Vec<RetailerAPdp>) {
    let pdp = crate::pdp();
    let schema = pdp.output_schema.clone().unwrap_or_default();
    let values: Vec<Value> = (0..RECORDS as u64)
        .map(|seed| agents_schema::sample::record_with_arrays(&schema, seed, 3))
        .collect();
    let typed = values
        .iter()
        .map(|v| match serde_json::from_value(v.clone()) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        })
        .collect();
    (values, typed)
}

fn typed_batch(records: &[RetailerAPdp]) -> usize {
    match columnar::record_batch(records) {
        Ok(b) => b.num_rows(),
        Err(e) => panic!("{e}"),
    }
}

fn arrow_json_batch(values: &[Value], schema: Option<&arrow_schema::SchemaRef>) -> usize {
    let schema = match schema {
        Some(s) => s.clone(),
        None => match infer_json_schema_from_iterator(values.iter().map(|v| Ok(v.clone()))) {
            Ok(s) => Arc::new(s),
            Err(e) => panic!("{e}"),
        },
    };
    let mut decoder = match arrow_json::ReaderBuilder::new(schema)
        .with_batch_size(values.len())
        .build_decoder()
    {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    };
    if let Err(e) = decoder.serialize(values) {
        panic!("{e}");
    }
    match decoder.flush() {
        Ok(Some(b)) => b.num_rows(),
        Ok(None) => 0,
        Err(e) => panic!("{e}"),
    }
}

/// The rows of the group.
pub fn bench(rows: &mut Vec<Row>, group: &str) {
    let (values, typed) = inputs();
    let inferred = match infer_json_schema_from_iterator(values.iter().map(|v| Ok(v.clone()))) {
        Ok(s) => Arc::new(s),
        Err(e) => panic!("{e}"),
    };
    let rounds = 15;
    let times: Vec<Vec<Duration>> = interleaved(
        rounds,
        &mut [
            &mut || {
                std::hint::black_box(typed_batch(&typed));
            },
            &mut || {
                std::hint::black_box(arrow_json_batch(&values, None));
            },
            &mut || {
                std::hint::black_box(arrow_json_batch(&values, Some(&inferred)));
            },
        ],
    );
    let per_s = |d: &[Duration]| RECORDS as f64 / median_of(d).as_secs_f64();
    let note = format!(
        "{RECORDS} retailer_a_pdp records, 3 items per array; median of {rounds} interleaved rounds"
    );
    rows.push(row(
        group,
        "typed records → RecordBatch (generated columns)",
        format!("{:.0} records/s", per_s(&times[0])),
        note.clone(),
    ));
    rows.push(row(
        group,
        "serde_json::Value → arrow-json (schema inferred, then decoded)",
        format!("{:.0} records/s", per_s(&times[1])),
        note.clone(),
    ));
    rows.push(row(
        group,
        "serde_json::Value → arrow-json (schema given)",
        format!("{:.0} records/s", per_s(&times[2])),
        note,
    ));
    rows.push(row(
        group,
        "throughput typed ÷ Value through arrow-json",
        format!(
            "{:.2}× (inferred), {:.2}× (schema given)",
            median_ratio(&times[1], &times[0]),
            median_ratio(&times[2], &times[0])
        ),
        "target ≥ 2× (median of per-round ratios)".to_owned(),
    ));
}
