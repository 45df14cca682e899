#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! A number the service sends is the number a record holds: the nearest `f64` to its text, as
//! Rust's own float parser (correctly rounded) reads it, wherever the number lands — a typed
//! field, a kept unknown field, an untyped `Value` — and written back it is the same number.
//!
//! serde_json's default reader is approximate past 15 significant digits: about one in eleven
//! of the shortest texts of doubles between 0 and 100,000 (what Python's `repr`, JavaScript and
//! ryu write for a coordinate or a computed score) read one unit in the last place off. The
//! SDK turns serde_json's `float_roundtrip` feature on. In this workspace the `jsonschema`
//! crate turns it on for every test build too, so the build a user has, with nothing but the
//! SDK, is checked by `tests/outside` (CI runs it); these tests keep the SDK's own paths exact:
//! a typed field, a kept unknown field, an untyped value, and writing each back.

use agents_runtime::Record;
use agents_runtime::catalog::RetailerAPdp;
use agents_runtime::decode::from_slice;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: 4000,
        failure_persistence: None,
        ..Config::default()
    })
}

/// Decimal texts a service writes: the shortest text of any double, and of one between 0 and
/// 100,000; up to 19 significant digits at any exponent (more than a double holds).
fn arb_number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(|x| Value::from(x).to_string()),
        (0.0..100_000.0f64).prop_map(|x| Value::from(x).to_string()),
        (1u64..10_000_000_000_000_000_000, 1usize..19, -30i32..30).prop_map(
            |(digits, point, exp)| {
                let digits = digits.to_string();
                let point = point.min(digits.len());
                format!("{}.{}e{exp}", &digits[..point], &digits[point..]).replace(".e", ".0e")
            }
        ),
    ]
}

/// The number `text` names, read by `core`'s correctly rounded parser.
fn exact(text: &str) -> f64 {
    text.parse().unwrap()
}

/// The one number in `written` under `key`, read back by `core`'s parser.
fn written(written: &[u8], key: &str) -> f64 {
    let text = std::str::from_utf8(written).unwrap();
    let start = text.find(&format!("\"{key}\":")).unwrap() + key.len() + 3;
    let rest = &text[start..];
    let end = rest.find([',', '}']).unwrap();
    exact(&rest[..end])
}

#[test]
fn a_typed_field_holds_the_number_sent_and_writes_it_back() {
    runner()
        .run(&arb_number_text(), |text| {
            let body = format!(r#"{{"web_price": {text}, "colour_code": {text}}}"#);
            let record: RetailerAPdp = from_slice(body.as_bytes()).unwrap();
            let want = exact(&text);
            prop_assert!(record.mismatches().is_empty(), "{text}");
            prop_assert_eq!(
                record.web_price.map(f64::to_bits),
                Some(want.to_bits()),
                "{}",
                text
            );
            let kept = record.unknown_fields["colour_code"].as_f64().unwrap();
            prop_assert_eq!(kept.to_bits(), want.to_bits(), "kept: {}", text);
            let again = serde_json::to_vec(&record).unwrap();
            prop_assert_eq!(written(&again, "web_price").to_bits(), want.to_bits());
            prop_assert_eq!(written(&again, "colour_code").to_bits(), want.to_bits());
            Ok(())
        })
        .unwrap();
}

#[test]
fn an_untyped_value_holds_the_number_sent() {
    runner()
        .run(&arb_number_text(), |text| {
            let value: Value = from_slice(format!("[{text}]").as_bytes()).unwrap();
            prop_assert_eq!(
                value[0].as_f64().map(f64::to_bits),
                Some(exact(&text).to_bits())
            );
            Ok(())
        })
        .unwrap();
}
