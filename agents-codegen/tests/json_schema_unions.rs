#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Unions of kinds of value (`anyOf` / `oneOf`) become enums with a variant per kind; branches
//! of one kind merge; a branch of no single kind keeps the value raw, with a note.

use agents_codegen::{Options, generate};
use agents_schema::AgentRecord;
use serde_json::{Value, json};

fn source(output: Value) -> String {
    let record = AgentRecord::from_value(&json!({
        "name": "u",
        "input_schema": {"type": "object", "properties": {}},
        "output_schema": {"type": "object", "properties": output},
    }))
    .unwrap();
    generate(&[record], &Options::default())
        .unwrap()
        .to_source()
        .unwrap()
}

/// The variant lines of enum `name` in `source`.
fn variants(source: &str, name: &str) -> Vec<String> {
    let start = source
        .find(&format!("pub enum {name} {{"))
        .unwrap_or_else(|| panic!("no enum {name} in:\n{source}"));
    source[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.trim() != "}")
        .filter(|l| !l.trim_start().starts_with("///"))
        .map(|l| l.trim().to_owned())
        .collect()
}

#[test]
fn a_union_of_kinds_is_an_enum_named_after_its_field() {
    let src = source(json!({
        "on": {"oneOf": [
            {"type": "string", "enum": ["push", "pull"]},
            {"type": "array", "items": {"type": "string"}},
            {"type": "null"},
        ]},
        "size": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
    }));
    // The string variant's listed values took the field's name.
    assert!(src.contains("pub on: Option<UOnUnion>,"), "{src}");
    assert_eq!(
        variants(&src, "UOnUnion"),
        ["String(UOn),", "List(Vec<String>),"]
    );
    assert_eq!(variants(&src, "USize"), ["Integer(i64),", "Boolean(bool),"]);
    assert!(src.contains("::agents_runtime::union_enum! {"), "{src}");
    assert!(src.contains("/// When the value is a list."), "{src}");
}

#[test]
fn an_object_variant_keeps_the_fields_name_and_the_union_is_named_union() {
    let src = source(json!({
        "runs-on": {"oneOf": [
            {"type": "string"},
            {"type": "object", "properties": {"group": {"type": "string"}}},
            {"type": "object", "properties": {"labels": {"type": "array", "items": {"type": "string"}}}},
        ]},
    }));
    assert!(src.contains("pub runs_on: Option<URunsOnUnion>,"), "{src}");
    assert_eq!(
        variants(&src, "URunsOnUnion"),
        ["String(String),", "Object(URunsOn),"]
    );
    assert!(src.contains("pub group: Option<String>,"), "{src}");
    assert!(src.contains("pub labels: Option<Vec<String>>,"), "{src}");
}

#[test]
fn one_kind_after_merging_is_no_enum_and_an_untyped_branch_keeps_raw_json() {
    let src = source(json!({
        "count": {"anyOf": [{"type": "integer"}, {"type": "number"}]},
        "name": {"oneOf": [{"type": "string"}, {"enum": ["a", "b"]}]},
        "free": {"oneOf": [{"type": "string"}, {"description": "anything"}]},
    }));
    assert!(src.contains("pub count: Option<f64>,"), "{src}");
    assert!(src.contains("pub name: Option<String>,"), "{src}");
    assert!(
        src.contains("pub free: Option<::agents_runtime::Value>,"),
        "{src}"
    );
    assert!(
        src.contains("the kind of value of branch 1 cannot be told"),
        "{src}"
    );
    assert!(!src.contains("union_enum!"), "{src}");
}
