//! `anyOf` and `oneOf` over branches of every kind of keyword that says what a value may be
//! (`type`, `const`, `enum`, `$ref`, `allOf`, `true`/`false`): the check skips a branch that a
//! value's kind cannot pass, and what it decides is judged by the `jsonschema` crate on random
//! schemas and a value of each kind.

use agents_check::Schema;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};

const TYPES: [&str; 7] = [
    "null", "boolean", "integer", "number", "string", "array", "object",
];

fn values() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(0),
        json!(1),
        json!(1.0),
        json!(1.5),
        json!("a"),
        json!("b"),
        json!([]),
        json!([1]),
        json!({}),
        json!({ "a": 1 }),
    ]
}

fn pick(rng: &mut StdRng) -> Value {
    let all = values();
    all[rng.random_range(0..all.len())].clone()
}

/// A branch; `defs` of the definitions it may refer to (`#/$defs/dN`, N ≥ `from`).
fn branch(rng: &mut StdRng, depth: u32, from: usize) -> Value {
    let leaf = depth > 2;
    match rng.random_range(0..if leaf { 6 } else { 9 }) {
        0 => json!({ "type": TYPES[rng.random_range(0..TYPES.len())] }),
        1 => {
            let a = rng.random_range(0..TYPES.len());
            let b = (a + rng.random_range(1..TYPES.len())) % TYPES.len();
            json!({ "type": [TYPES[a], TYPES[b]] })
        }
        2 => json!({ "const": pick(rng) }),
        3 => json!({ "enum": [pick(rng), pick(rng)] }),
        4 => json!(rng.random_bool(0.5)),
        5 => json!({}),
        6 if from < 4 => {
            let to = rng.random_range(from..4);
            let mut b = json!({ "$ref": format!("#/$defs/d{to}") });
            if rng.random_bool(0.5) {
                b["type"] = json!(TYPES[rng.random_range(0..TYPES.len())]);
            }
            b
        }
        7 => json!({ "allOf": [branch(rng, depth + 1, from), branch(rng, depth + 1, from)] }),
        _ => {
            let key = if rng.random_bool(0.5) {
                "anyOf"
            } else {
                "oneOf"
            };
            let n = rng.random_range(1..4);
            json!({ key: (0..n).map(|_| branch(rng, depth + 1, from)).collect::<Vec<_>>() })
        }
    }
}

#[test]
fn branches_a_kind_cannot_pass_are_skipped_without_changing_a_verdict() {
    let mut rng = StdRng::seed_from_u64(11);
    let (mut valid, mut invalid) = (0, 0);
    for _ in 0..2_000 {
        // Definitions refer only to later ones: no cycle, which a validator could not end.
        let defs: serde_json::Map<String, Value> = (0..4)
            .map(|i| (format!("d{i}"), branch(&mut rng, 1, i + 1)))
            .collect();
        let key = if rng.random_bool(0.5) {
            "anyOf"
        } else {
            "oneOf"
        };
        let n = rng.random_range(1..5);
        let branches: Vec<Value> = (0..n).map(|_| branch(&mut rng, 0, 0)).collect();
        let schema = json!({ key: branches, "$defs": defs });
        let ours = Schema::compile(&schema);
        assert!(
            ours.problems().is_empty(),
            "{schema}: {:?}",
            ours.problems()
        );
        let judge = jsonschema::validator_for(&schema).expect("the schema compiles");
        for value in values() {
            let verdict = judge.is_valid(&value);
            assert_eq!(ours.is_valid(&value), verdict, "{value} against {schema}");
            assert_eq!(
                ours.check(&value).is_empty(),
                verdict,
                "{value} against {schema}"
            );
            if verdict {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
    }
    assert!(
        valid > 2_000 && invalid > 2_000,
        "{valid} valid, {invalid} invalid"
    );
}
