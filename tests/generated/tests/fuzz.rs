#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Fuzzing with proptest: arbitrary bytes, mutated records and arbitrary JSON decoded into
//! generated types, and random agent records run through the generator. Nothing may panic.
//!
//! Each target runs `AGENTS_FUZZ_CASES` cases (default 500, which `cargo test` runs). The long run
//! behind the figure in BENCHMARKS.md:
//!
//! ```text
//! AGENTS_FUZZ_CASES=250000 cargo test --release -p agents-tests-generated --test fuzz
//! ```

use std::sync::OnceLock;

use agents_codegen::{Options, generate};
use agents_runtime::catalog::RetailerAPdp;
use agents_runtime::decode::{Parsing, from_slice, strict};
use agents_runtime::{Record, RunResult};
use agents_test_support::{arb_record, schemas_dir};
use agents_tests_generated::hostile::{EveryType, Type};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;

fn cases() -> u32 {
    std::env::var("AGENTS_FUZZ_CASES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(500)
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    })
}

/// A full retailer_a_pdp run result as the service sends it, as JSON text.
fn sample() -> &'static [u8] {
    static SAMPLE: OnceLock<Vec<u8>> = OnceLock::new();
    SAMPLE.get_or_init(|| {
        let text = std::fs::read_to_string(schemas_dir().join("retailer_a_pdp.json")).unwrap();
        let record = agents_schema::AgentRecord::from_json(&text).unwrap();
        let parsing = agents_schema::sample::record(record.output_schema.as_ref().unwrap(), 7);
        let result = serde_json::json!({
            "url": "https://x.example/p/1", "task_id": "t", "status": "success",
            "status_code": 200, "data": {"parsing": parsing},
            "metadata": {"agent": "retailer_a_pdp", "driver": "vx6"}
        });
        serde_json::to_vec(&result).unwrap()
    })
}

/// Decodes `bytes` into every generated type the way the client does; recorded drift is turned
/// into errors too, and whatever decoded is written back and read again.
fn decode_everything(bytes: &[u8]) {
    if let Ok(r) = from_slice::<RunResult<RetailerAPdp>>(bytes) {
        for record in r.data.parsing.into_records() {
            // Written back, a record reads back the same: coerced values are written as their
            // conversion, and what no field could hold is written as sent (so it is reported
            // again, as kept).
            let again = serde_json::to_vec(&record).unwrap();
            let back: RetailerAPdp = from_slice(&again).unwrap();
            assert_eq!(
                serde_json::to_vec(&back).unwrap(),
                again,
                "writing is stable"
            );
            assert!(
                back.mismatches().iter().all(|m| m.kept),
                "only values kept as sent are reported again: {:?}",
                back.mismatches()
            );
            let _ = strict(record);
        }
    }
    if let Ok(p) = from_slice::<Parsing<RetailerAPdp>>(bytes) {
        let _ = p.into_records();
    }
    if let Ok(e) = from_slice::<EveryType>(bytes) {
        let _ = strict(e);
    }
    let _ = from_slice::<Type>(bytes);
    let _ = from_slice::<Value>(bytes);
}

/// A mutation of the sample: (position as a fraction of its length, what to do, a byte).
fn arb_mutations() -> impl Strategy<Value = Vec<(f64, u8, u8)>> {
    prop::collection::vec((0.0..1.0f64, 0u8..4, any::<u8>()), 1..8)
}

fn mutate(mutations: &[(f64, u8, u8)]) -> Vec<u8> {
    let mut bytes = sample().to_vec();
    for &(at, op, byte) in mutations {
        let i = ((bytes.len() as f64) * at) as usize;
        let i = i.min(bytes.len().saturating_sub(1));
        match op {
            0 => bytes[i] = byte,
            1 => bytes.insert(i, byte),
            2 => {
                bytes.remove(i);
            }
            _ => {
                // Splice a JSON token that changes a value's type.
                let token: &[u8] = [
                    b"null".as_slice(),
                    b"1e400",
                    b"-0",
                    b"\"$1,299.00\"",
                    b"[]",
                    b"{}",
                    b"\"\\ud800\"",
                    b"18446744073709551616",
                ][usize::from(byte) % 8];
                bytes.splice(i..i, token.iter().copied());
            }
        }
    }
    bytes
}

/// JSON values keyed by the names generated types declare, nested up to 4 levels.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[$0-9., a-z]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        let keys = prop::sample::select(&[
            "data",
            "parsing",
            "url",
            "status",
            "web_price",
            "top_reviews",
            "stars",
            "product_title",
            "reviews_statistics_percentage_five_to_zero",
            "frequently_bought_with",
            "products",
            "text",
            "amount",
            "count",
            "flag",
            "tags",
            "matrix",
            "grid",
            "rows",
            "obj",
            "inner",
            "type",
            "unknown_fields",
            "mismatches",
        ]);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((keys, inner), 0..8).prop_map(|kv| Value::Object(
                kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
            )),
        ]
    })
}

#[test]
fn arbitrary_bytes_decode_or_fail_without_panicking() {
    runner()
        .run(&prop::collection::vec(any::<u8>(), 0..512), |bytes| {
            decode_everything(&bytes);
            Ok(())
        })
        .unwrap();
}

#[test]
fn mutated_records_decode_or_fail_without_panicking() {
    decode_everything(sample());
    runner()
        .run(&arb_mutations(), |m| {
            decode_everything(&mutate(&m));
            Ok(())
        })
        .unwrap();
}

#[test]
fn arbitrary_json_decodes_or_fails_without_panicking() {
    runner()
        .run(&arb_json(), |v| {
            decode_everything(&serde_json::to_vec(&v).unwrap());
            let wrapped = serde_json::json!({"data": {"parsing": v}});
            decode_everything(&serde_json::to_vec(&wrapped).unwrap());
            Ok(())
        })
        .unwrap();
}

#[test]
fn random_records_generate_code_or_diagnostics_without_panicking() {
    runner()
        .run(&arb_record(), |record| {
            match generate(std::slice::from_ref(&record), &Options::default()) {
                Ok(out) => {
                    prop_assert!(out.tokens().is_ok());
                }
                Err(d) => prop_assert!(!d.0.is_empty()),
            }
            Ok(())
        })
        .unwrap();
}
