//! The decoding group: the generated drift-tolerant type against the strict derive and
//! `serde_json::Value`, all decoded as the client decodes.

use std::hint::black_box;
use std::time::Duration;

use agents_runtime::Record as _;
use agents_runtime::catalog::RetailerAPdp;
use serde_json::Value;

use crate::measure::{Row, interleaved, median_of, median_ratio, row};
use crate::plain;

/// The decoding group: retailer_a_pdp's full record at the size and at the emulator's,
/// rows under `group` (the runner's allocator is glibc's; `agents-bench-mimalloc` runs it under
/// mimalloc).
pub fn bench(rows: &mut Vec<Row>, group: &str) {
    let pdp = crate::pdp();
    // The size (arrays of 11: about 26 KB) first, then the emulator's sample (arrays of
    // 3): the ratios depend on the shape (see BENCHMARKS.md).
    for (array_len, label) in [
        (crate::FULL_ARRAY_LEN, "arrays of 11"),
        (agents_schema::sample::ARRAY_LEN, "arrays of 3"),
    ] {
        let (bytes, drifted_bytes) = crate::pdp_inputs(&pdp, array_len);
        decode_rows(rows, group, &bytes, &drifted_bytes, label);
    }
}

/// Decoding rows for one input: the generated type, the strict derive, `Value` and drift, each
/// decoded as the client does (`agents_runtime::decode::from_slice`: UTF-8 checked once), and the generated type
/// through `serde_json::from_slice` (UTF-8 checked string by string).
fn decode_rows(rows: &mut Vec<Row>, group: &str, bytes: &[u8], drifted_bytes: &[u8], label: &str) {
    // 40 rounds of 250 decodes per variant, interleaved.
    let iters = 250;
    let per = |d: Duration| d / iters;
    fn batch(n: u32, f: &mut dyn FnMut()) -> impl FnMut() + '_ {
        move || {
            for _ in 0..n {
                f();
            }
        }
    }
    let mut gen_one = || {
        let r: RetailerAPdp =
            agents_runtime::decode::from_slice(black_box(bytes)).unwrap_or_default();
        black_box(r);
    };
    let mut strict_one = || {
        let r: Result<plain::Plain, _> = agents_runtime::decode::from_slice(black_box(bytes));
        black_box(r.is_ok());
    };
    let mut value_one = || {
        let r: Result<Value, _> = agents_runtime::decode::from_slice(black_box(bytes));
        black_box(r.is_ok());
    };
    let mut drift_one = || {
        let r: RetailerAPdp =
            agents_runtime::decode::from_slice(black_box(drifted_bytes)).unwrap_or_default();
        black_box(r);
    };
    let mut slice_one = || {
        let r: RetailerAPdp = serde_json::from_slice(black_box(bytes)).unwrap_or_default();
        black_box(r);
    };
    // What a user would do instead of the generated checks: the strict derive of the same
    // bytes, and the `jsonschema` crate validating them against the record's schema, with every
    // error's path collected as the generated type records every breach. Each is read twice: as
    // the client reads (UTF-8 checked once for the body), and as reqwest's `Response::json`
    // reads (`serde_json::from_slice`, UTF-8 checked string by string).
    let schema = RetailerAPdp::schema().map_or(Value::Bool(true), |s| s.document().clone());
    let validator = jsonschema::validator_for(&schema).ok();
    let checked_derive = |read: fn(&[u8]) -> serde_json::Result<Value>| {
        let validator = validator.as_ref();
        move || {
            let value: Value = read(black_box(bytes)).unwrap_or_default();
            let errors: Vec<String> = validator
                .iter()
                .flat_map(|v| v.iter_errors(&value))
                .map(|e| e.instance_path().to_string())
                .collect();
            let r: Result<plain::Plain, _> = serde_json::from_value(value);
            black_box((errors.len(), r.is_ok()));
        }
    };
    let mut checked_derive_one = checked_derive(agents_runtime::decode::from_slice);
    let mut checked_derive_json = checked_derive(|b| serde_json::from_slice(b));
    let mut strict_json = || {
        let r: Result<plain::Plain, _> = serde_json::from_slice(black_box(bytes));
        black_box(r.is_ok());
    };
    let samples = interleaved(
        40,
        &mut [
            &mut batch(iters, &mut gen_one),
            &mut batch(iters, &mut strict_one),
            &mut batch(iters, &mut value_one),
            &mut batch(iters, &mut drift_one),
            &mut batch(iters, &mut slice_one),
            &mut batch(iters, &mut checked_derive_one),
            &mut batch(iters, &mut strict_json),
            &mut batch(iters, &mut checked_derive_json),
        ],
    );
    let [generated, strict, value, drift, slice, checked_derive, _, _] =
        [0, 1, 2, 3, 4, 5, 6, 7].map(|k| median_of(&samples[k]));
    let vs_checked_derive = median_ratio(&samples[5], &samples[0]);
    let vs_strict = median_ratio(&samples[1], &samples[0]);
    let vs_value = median_ratio(&samples[2], &samples[0]);
    let vs_slice = median_ratio(&samples[4], &samples[0]);
    let vs_strict_json = median_ratio(&samples[6], &samples[0]);
    let vs_checked_derive_json = median_ratio(&samples[7], &samples[0]);
    let mb = |d: Duration| bytes.len() as f64 / d.as_secs_f64() / 1e6;
    let timed = |d: Duration| {
        format!(
            "{:.1} µs ({:.0} MB/s)",
            per(d).as_secs_f64() * 1e6,
            mb(per(d))
        )
    };
    let size = format!("{:.1} KB record, {label}", bytes.len() as f64 / 1024.0);
    rows.push(row(
        group,
        "generated drift-tolerant type, every rule of its schema checked",
        timed(generated),
        size,
    ));
    rows.push(row(
        group,
        "#[derive(Deserialize)] + jsonschema validating the same bytes",
        timed(checked_derive),
        format!("{label}; Value, every error's path, then from_value"),
    ));
    rows.push(row(
        group,
        "plain #[derive(Deserialize)] with Option fields",
        timed(strict),
        format!("{label}; strict baseline"),
    ));
    rows.push(row(group, "serde_json::Value", timed(value), label));
    rows.push(row(
        group,
        "generated, 10% of fields drifted",
        format!("{:.1} µs", per(drift).as_secs_f64() * 1e6),
        format!("{label}; mismatches recorded"),
    ));
    rows.push(row(
        group,
        "generated, through serde_json::from_slice",
        timed(slice),
        format!("{label}; UTF-8 checked string by string; the rows above check it once for the body, as the client does"),
    ));
    rows.push(row(
        group,
        "throughput generated (checks) ÷ derive + jsonschema",
        format!("{vs_checked_derive:.2}×"),
        format!("{label}; target ≥ 2× (median of 40 interleaved rounds)"),
    ));
    rows.push(row(
        group,
        "throughput generated ÷ strict baseline",
        format!("{vs_strict:.2}×"),
        format!("{label}; target ≥ 1.0× with every check (median of 40 interleaved rounds)"),
    ));
    rows.push(row(
        group,
        "throughput generated (checks) ÷ derive + jsonschema, read as reqwest's `json()` reads",
        format!("{vs_checked_derive_json:.2}×"),
        format!("{label}; the baseline's `Value` through `serde_json::from_slice`"),
    ));
    rows.push(row(
        group,
        "throughput generated ÷ strict baseline, read as reqwest's `json()` reads",
        format!("{vs_strict_json:.2}×"),
        format!("{label}; the derive through `serde_json::from_slice`"),
    ));
    rows.push(row(
        group,
        "throughput generated ÷ Value",
        format!("{vs_value:.2}×"),
        format!("{label}; target ≥ 1.4×"),
    ));
    rows.push(row(
        group,
        "throughput UTF-8 checked once ÷ from_slice",
        format!("{vs_slice:.2}×"),
        format!("{label}; generated type"),
    ));
}
