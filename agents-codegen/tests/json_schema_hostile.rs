#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Hostile JSON Schemas: reference cycles, references to nowhere, 10,000 properties, nesting
//! 500 deep. Each generates code that parses (the printer parses what it prints) or a
//! diagnostic, quickly and without a panic, and every problem names its JSON pointer. The names
//! and depths that must also compile are in `tests/generated` (built under `deny(warnings)`).

use agents_codegen::{Options, generate};
use agents_schema::AgentRecord;
use serde_json::{Map, Value, json};

/// The source and the warnings generated for an agent whose output is `output`.
fn generated(output: Value) -> (String, Vec<String>) {
    let record = AgentRecord::from_value(&json!({
        "name": "hostile",
        "input_schema": {"type": "object", "properties": {}},
        "output_schema": output,
    }))
    .unwrap();
    let out = generate(&[record], &Options::default()).unwrap();
    let warnings = out.warnings.iter().map(ToString::to_string).collect();
    (out.to_source().unwrap(), warnings)
}

#[test]
fn reference_cycles_end_in_raw_json_with_a_warning() {
    let (source, warnings) = generated(json!({
        "type": "object",
        "properties": {
            "ping": {"$ref": "#/$defs/ping"},
            "merged": {"$ref": "#/$defs/merged"},
            "me": {"$ref": "#"},
        },
        "$defs": {
            "ping": {"$ref": "#/$defs/pong"},
            "pong": {"$ref": "#/$defs/ping"},
            "merged": {"allOf": [{"$ref": "#/$defs/merged"}]},
        },
    }));
    assert!(
        source.contains("pub ping: Option<::agents_runtime::Value>"),
        "{source}"
    );
    assert!(
        source.contains("pub merged: Option<::agents_runtime::Value>"),
        "{source}"
    );
    // A reference to the whole document is the record itself.
    assert!(source.contains("pub me: Option<Box<Hostile>>"), "{source}");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("output_schema#/$defs/pong/$ref") && w.contains("recursion")),
        "{warnings:#?}"
    );
}

#[test]
fn a_root_that_refers_to_itself_or_fans_out_into_a_cycle_ends() {
    let (source, _) = generated(json!({"$ref": "#"}));
    assert!(source.contains("pub struct Hostile"), "{source}");
    // Ten branches that each lead back to the union: walked once, not 10^16 times.
    let branches: Vec<Value> = (0..10).map(|_| json!({"$ref": "#/$defs/u"})).collect();
    let (source, _) = generated(json!({
        "$ref": "#/$defs/u",
        "$defs": {"u": {"oneOf": branches}},
    }));
    assert!(source.contains("pub struct Hostile"), "{source}");
    let mut branches: Vec<Value> = (0..10).map(|_| json!({"$ref": "#/$defs/u"})).collect();
    branches.push(json!({"type": "object", "properties": {"leaf": {"type": "string"}}}));
    let (source, _) = generated(json!({
        "$ref": "#/$defs/u",
        "$defs": {"u": {"anyOf": branches}},
    }));
    assert!(source.contains("pub leaf: Option<String>"), "{source}");
}

#[test]
fn references_to_nowhere_are_raw_json_with_their_pointer() {
    let (source, warnings) = generated(json!({
        "type": "object",
        "properties": {
            "missing": {"$ref": "#/$defs/missing"},
            "remote": {"$ref": "https://example.com/other.json#/x"},
            "bad_pointer": {"$ref": "#/properties/nothing/items"},
        },
    }));
    for field in ["missing", "remote", "bad_pointer"] {
        assert!(
            source.contains(&format!("pub {field}: Option<::agents_runtime::Value>")),
            "{field}: {source}"
        );
        assert!(
            warnings.iter().any(
                |w| w.contains(&format!("output_schema#/properties/{field}/$ref"))
                    && w.contains("points nowhere")
            ),
            "{field}: {warnings:#?}"
        );
    }
}

#[test]
fn ten_thousand_properties_give_ten_thousand_fields() {
    let properties: Map<String, Value> = (0..10_000)
        .map(|i| {
            let ty = ["string", "number", "boolean", "integer"][i % 4];
            (format!("field_{i}"), json!({"type": ty}))
        })
        .collect();
    let (source, warnings) = generated(json!({"type": "object", "properties": properties}));
    assert_eq!(source.matches("pub field_").count(), 10_000);
    assert!(warnings.is_empty(), "{warnings:#?}");
}

#[test]
fn nesting_five_hundred_deep_is_typed_to_thirty_two_levels_then_raw() {
    let mut schema = json!({"type": "string"});
    for _ in 0..500 {
        schema = json!({"type": "object", "properties": {"inner": schema}});
    }
    // On a thread with the stack a build script's main thread has (rustc runs proc macros on a
    // thread with a larger one).
    let (source, warnings) = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || generated(schema))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(
        source.matches("pub struct Hostile").count(),
        33,
        "the record and 32 levels"
    );
    assert_eq!(
        source
            .matches("pub inner: Option<::agents_runtime::Value>")
            .count(),
        1
    );
    let deepest = "output_schema#".to_owned() + &"/properties/inner".repeat(32);
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains(&format!("{deepest}: objects nested more than 32 deep")),
        "{warnings:#?}"
    );
}
