//! `path_at` against serde_path_to_error, which tracks the path as it decodes: on documents
//! shaped like a type with one value of the wrong kind here and there, or a field left out,
//! laid out compact and pretty (so errors fall on other lines than the first), the path found
//! from an error's position is the path serde_path_to_error reports.

use std::collections::BTreeMap;

use agents_wire::json::path_at;
use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Map, Value, json};

#[allow(dead_code)]
#[derive(Debug, Deserialize)]
struct Doc {
    name: String,
    items: Vec<Item>,
    tags: BTreeMap<String, u8>,
    nested: Option<Box<Doc>>,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize)]
struct Item {
    n: u32,
    kind: Kind,
    grid: Vec<Vec<bool>>,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize)]
enum Kind {
    A,
    B(u8),
    C { x: String },
}

/// A value of the wrong kind for most slots.
fn wrong() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!(true)),
        Just(json!(-1)),
        Just(json!(300)),
        Just(json!(1.5)),
        Just(json!("text")),
        Just(json!("a \"quoted\" key: [x]")),
        Just(json!([1, [2]])),
        Just(json!({"k": {"k": 1}})),
    ]
}

/// `valid` most of the time, else a wrong value.
fn mostly(valid: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Value> {
    prop_oneof![12 => valid, 1 => wrong()].boxed()
}

fn kind() -> BoxedStrategy<Value> {
    mostly(prop_oneof![
        Just(json!("A")),
        any::<u8>().prop_map(|n| json!({"B": n})),
        "[a-z]{0,3}".prop_map(|x| json!({"C": {"x": x}})),
    ])
}

fn item() -> BoxedStrategy<Value> {
    let grid = prop::collection::vec(
        prop::collection::vec(mostly(any::<bool>().prop_map(Value::from)), 0..3)
            .prop_map(Value::from),
        0..3,
    );
    mostly(
        (
            mostly(any::<u32>().prop_map(Value::from)),
            kind(),
            mostly(grid.prop_map(Value::from)),
        )
            .prop_map(|(n, kind, grid)| object([("n", n), ("kind", kind), ("grid", grid)])),
    )
}

fn doc(depth: u32) -> BoxedStrategy<Value> {
    let tags = prop::collection::btree_map(
        "[a-z\"\\\\ .]{0,4}",
        mostly(any::<u8>().prop_map(Value::from)),
        0..3,
    )
    .prop_map(|m| Value::Object(m.into_iter().collect()));
    let nested = if depth == 0 {
        Just(Value::Null).boxed()
    } else {
        prop_oneof![Just(Value::Null), doc(depth - 1)].boxed()
    };
    mostly(
        (
            mostly("[a-z]{0,4}".prop_map(Value::from)),
            mostly(prop::collection::vec(item(), 0..3).prop_map(Value::from)),
            mostly(tags),
            nested,
        )
            .prop_map(|(name, items, tags, nested)| {
                object([
                    ("name", name),
                    ("items", items),
                    ("tags", tags),
                    ("nested", nested),
                ])
            }),
    )
}

fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect::<Map<_, _>>(),
    )
}

/// Leaves one field out of one object, at the `choice`th object met (none when there are
/// fewer).
fn leave_out(value: &mut Value, choice: &mut usize) {
    match value {
        Value::Object(map) => {
            if *choice == 0 {
                if let Some(key) = map.keys().next().cloned() {
                    map.remove(&key);
                }
                *choice = usize::MAX;
                return;
            }
            *choice -= 1;
            for v in map.values_mut() {
                leave_out(v, choice);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| leave_out(v, choice)),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn the_path_at_an_error_is_the_path_serde_path_to_error_tracks(
        mut value in doc(2),
        drop in prop::option::of(0usize..12),
        pretty in any::<bool>(),
    ) {
        if let Some(mut choice) = drop {
            leave_out(&mut value, &mut choice);
        }
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        if let Err(e) = serde_json::from_str::<Doc>(&text) {
            let tracked = serde_path_to_error::deserialize::<_, Doc>(
                &mut serde_json::Deserializer::from_str(&text),
            )
            .unwrap_err();
            prop_assert_eq!(
                path_at(text.as_bytes(), e.line(), e.column()),
                tracked.path().to_string(),
                "{} in {}", e, text
            );
        }
    }
}

#[test]
fn paths_of_hand_picked_errors() {
    let cases: [(&str, &str); 7] = [
        (r#"{"inner":[{"n":1},{"n":"x"}]}"#, "inner[1].n"),
        (r#"{"inner":[{"n":1},{}]}"#, "inner[1]"),
        (r#"{"inner":[{"n":1}, {"n": {"deep": [1]}}]}"#, "inner[1].n"),
        (r#"{"inner":[1]}"#, "inner[0]"),
        (r#"{"inner":[{"n":1}]} x"#, "."),
        ("{\n  \"inner\": [\n    {\"n\": true}\n  ]\n}", "inner[0].n"),
        (r#"{"inner":"no"}"#, "inner"),
    ];
    #[allow(dead_code)]
    #[derive(Debug, Deserialize)]
    struct Outer {
        inner: Vec<Inner>,
    }
    #[allow(dead_code)]
    #[derive(Debug, Deserialize)]
    struct Inner {
        n: u32,
    }
    for (text, want) in cases {
        let e = serde_json::from_str::<Outer>(text).unwrap_err();
        assert_eq!(
            path_at(text.as_bytes(), e.line(), e.column()),
            want,
            "{e} in {text}"
        );
    }
}
