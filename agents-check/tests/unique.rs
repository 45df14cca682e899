//! `uniqueItems` on arrays short and long (a short one is compared pairwise, a long one by a
//! text per item), judged by the `jsonschema` crate: equal numbers written differently, objects
//! with their keys in another order, nested arrays.

use agents_check::Schema;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};

/// One of a few values, so that long arrays hold repeats and short ones sometimes do.
fn item(rng: &mut StdRng, depth: u32) -> Value {
    match rng.random_range(0..if depth > 1 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => json!(rng.random_bool(0.5)),
        2 => json!(rng.random_range(0..4)),
        // The same numbers as floats: 1.0 equals 1.
        3 => json!(f64::from(rng.random_range(0..4_u8))),
        4 => json!(["a", "b", "c", "é"][rng.random_range(0..4)]),
        5 => json!(format!("s{}", rng.random_range(0..200))),
        6 => Value::Array(
            (0..rng.random_range(0..3))
                .map(|_| item(rng, depth + 1))
                .collect(),
        ),
        _ => {
            // Keys written in either order.
            let (a, b) = (item(rng, depth + 1), item(rng, depth + 1));
            if rng.random_bool(0.5) {
                json!({ "x": a, "y": b })
            } else {
                json!({ "y": b, "x": a })
            }
        }
    }
}

/// The same value spelled another way where JSON allows it: an integer as a float, an object's
/// keys in the other order.
fn respelled(value: &Value) -> Value {
    match value {
        Value::Number(n) if n.is_i64() => json!(n.as_f64()),
        Value::Object(map) => Value::Object(
            map.iter()
                .rev()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[test]
fn unique_items_agrees_with_a_validator_nobody_here_wrote() {
    let schema = json!({ "uniqueItems": true });
    let ours = Schema::compile(&schema);
    let judge = jsonschema::validator_for(&schema).expect("the schema compiles");
    let mut rng = StdRng::seed_from_u64(7);
    let (mut unique, mut repeated) = (0, 0);
    for round in 0..3_000 {
        let len = rng.random_range(0..40);
        let mut items: Vec<Value> = (0..len).map(|_| item(&mut rng, 0)).collect();
        if round % 2 == 1 {
            // Distinct items, then at most one repeat, anywhere (late ones too).
            items = (0..len)
                .map(|i| match i % 3 {
                    0 => json!(i),
                    1 => json!(format!("t{i}")),
                    _ => json!({ "x": i, "y": [i] }),
                })
                .collect();
            if len > 1 && rng.random_bool(0.5) {
                let from = rng.random_range(0..len);
                let to = rng.random_range(0..=len);
                let copy = respelled(&items[from]);
                items.insert(to, copy);
            }
        }
        let array = Value::Array(items);
        let verdict = judge.is_valid(&array);
        assert_eq!(ours.is_valid(&array), verdict, "{array}");
        if verdict {
            unique += 1;
        } else {
            repeated += 1;
        }
    }
    // Both verdicts were met often enough to mean something.
    assert!(
        unique > 300 && repeated > 300,
        "{unique} unique, {repeated} repeated"
    );
}
