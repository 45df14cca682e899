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

/// An integer a field's type cannot hold exactly (an `f64` past 2^53 bits of digits, an `i64`
/// past its range: an ID, a hash) is not rounded into it: the field is left empty, the number
/// is kept in `unknown_fields` as sent and written back so, and a mismatch says why, though
/// the schema allows the value. One a double holds is the field's value.
#[test]
fn an_integer_past_what_the_field_holds_is_kept_as_sent_and_said() {
    use agents_tests_generated::json_schema::Review;
    let integers = prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        (0u64..1 << 12).prop_map(|n| ((1u64 << 53) + n).to_string()),
    ];
    runner()
        .run(&integers, |text| {
            let body = format!(r#"{{"web_price": {text}, "stars": 3, "helpful_votes": {text}}}"#);
            let sent: Value = serde_json::from_str(&body).unwrap();
            let price: RetailerAPdp = from_slice(body.as_bytes()).unwrap();
            let votes: Review = from_slice(body.as_bytes()).unwrap();
            let wide: i128 = text.parse().unwrap();
            let holds = (wide as f64) as i128 == wide;
            prop_assert_eq!(price.web_price.is_some(), holds, "{}", text);
            prop_assert_eq!(votes.helpful_votes.is_some(), i64::try_from(wide).is_ok());
            for (field, said, kept) in [
                ("web_price", price.mismatches(), &price.unknown_fields),
                ("helpful_votes", votes.mismatches(), &votes.unknown_fields),
            ] {
                match said {
                    [] => prop_assert!(!kept.contains_key(field), "{}", text),
                    [one] => {
                        prop_assert!(one.past_the_type().is_some(), "{}", one);
                        prop_assert!(one.kept, "{}", one);
                        prop_assert_eq!(&kept[&one.path], &sent[&one.path]);
                    }
                    more => prop_assert!(false, "{:?}", more),
                }
            }
            for written in [
                serde_json::to_value(&price).unwrap(),
                serde_json::to_value(&votes).unwrap(),
            ] {
                for (key, value) in written.as_object().unwrap() {
                    let as_sent = value == &sent[key];
                    let same_double = value.as_f64() == sent[key].as_f64() && holds;
                    prop_assert!(as_sent || same_double, "{}: {} for {}", key, value, text);
                }
            }
            Ok(())
        })
        .unwrap();
}

/// Every spelling of a whole number is read as that number, exactly, and a fraction is never
/// taken for one: an `i64` written with its point moved and the move undone by an exponent
/// (`1234` as `12.34e2`, `1234000e-3`), and the same digits with a point and no exponent, which
/// are whole only when what follows the point is zeros.
#[test]
fn integer_text_reads_whole_numbers_exactly_however_spelled() {
    use agents_runtime::decode::integer_text;
    let spelled = (any::<i64>(), 0usize..22, 0usize..4);
    runner()
        .run(&spelled, |(n, point, zeros)| {
            let digits = format!("{}{}", n.unsigned_abs(), "0".repeat(zeros));
            let sign = if n < 0 { "-" } else { "" };
            let point = point.min(digits.len());
            let (int, frac) = digits.split_at(digits.len() - point);
            let moved = format!("{sign}{int}.{frac}e{}", point as i64 - zeros as i64);
            prop_assert_eq!(integer_text(&moved), Some(n), "{}", moved);
            let plain = format!("{sign}{int}.{frac}");
            let whole = frac.bytes().all(|b| b == b'0');
            let want = whole
                .then(|| format!("{sign}{int}").parse::<i64>().ok())
                .flatten();
            let want = want.or((whole && int.is_empty()).then_some(0));
            prop_assert_eq!(integer_text(&plain), want, "{}", plain);
            Ok(())
        })
        .unwrap();
}
