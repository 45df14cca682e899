#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! A JSON Schema document whose root declares no properties of its own still gives the agent a
//! record with fields: through its `$ref`, its `allOf`, or its union of objects.

use agents_codegen::{Options, generate};
use agents_schema::AgentRecord;
use serde_json::{Value, json};

/// The source and warnings generated for an agent whose output is `output`.
fn generated(output: Value) -> (String, Vec<String>) {
    let record = AgentRecord::from_value(&json!({
        "name": "doc",
        "input_schema": {"type": "object", "properties": {}},
        "output_schema": output,
    }))
    .unwrap();
    let out = generate(&[record], &Options::default()).unwrap();
    let warnings = out.warnings.iter().map(ToString::to_string).collect();
    (out.to_source().unwrap(), warnings)
}

/// The lines of `source` declaring the schema's fields of struct `name` (`json!` sorts keys, so
/// in name order).
fn fields_of(source: &str, name: &str) -> Vec<String> {
    let start = source
        .find(&format!("pub struct {name} {{"))
        .unwrap_or_else(|| panic!("no struct {name} in:\n{source}"));
    source[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('}'))
        .filter(|l| l.trim_start().starts_with("pub "))
        .filter(|l| !l.contains("pub unknown_fields:") && !l.contains("pub mismatches:"))
        .map(|l| l.trim().to_owned())
        .collect()
}

#[test]
fn a_root_reference_is_the_record_and_references_back_box_it() {
    let (source, warnings) = generated(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$ref": "#/definitions/pipeline",
        "definitions": {
            "pipeline": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string"},
                    "child": {"$ref": "#/definitions/pipeline"},
                },
            },
        },
    }));
    assert_eq!(
        fields_of(&source, "Doc"),
        ["pub child: Option<Box<Doc>>,", "pub name: Option<String>,",]
    );
    assert!(!source.contains("pub struct DocPipeline"), "{source}");
    assert!(warnings.is_empty(), "{warnings:#?}");
}

#[test]
fn a_root_all_of_is_merged_and_required_alternatives_do_not_make_a_union() {
    let (source, warnings) = generated(json!({
        "allOf": [{
            "type": "object",
            "required": ["version"],
            "properties": {
                "version": {"type": "string"},
                "tasks": {"type": "object", "additionalProperties": {"type": "string"}},
                "includes": {"type": "array", "items": {"type": "string"}},
            },
            "anyOf": [{"required": ["includes"]}, {"required": ["tasks"]}],
        }],
    }));
    assert_eq!(
        fields_of(&source, "Doc"),
        [
            "pub includes: Option<Vec<String>>,",
            "pub tasks: Option<::std::collections::BTreeMap<String, String>>,",
            "pub version: Option<String>,",
        ]
    );
    assert!(warnings.is_empty(), "{warnings:#?}");
}

#[test]
fn a_root_union_of_objects_holds_every_branchs_fields() {
    let (source, warnings) = generated(json!({
        "$defs": {
            "app": {
                "type": "object",
                "required": ["type", "name"],
                "properties": {
                    "type": {"enum": ["app"]},
                    "name": {"type": "string"},
                    "size": {"type": "integer"},
                },
            },
            "base": {
                "type": "object",
                "required": ["type"],
                "properties": {
                    "type": {"enum": ["base", "kernel"]},
                    "size": {"type": "string"},
                    "base": {"type": "boolean"},
                },
            },
        },
        "oneOf": [{"$ref": "#/$defs/app"}, {"$ref": "#/$defs/base"}, {"type": "string"}],
    }));
    assert_eq!(
        fields_of(&source, "Doc"),
        [
            "pub name: Option<String>,",
            "pub size: Option<::agents_runtime::Value>,",
            "pub r#type: Option<DocType>,",
            "pub base: Option<bool>,",
        ]
    );
    // Every branch's values, and `type` is required because every branch requires it.
    for variant in ["App = \"app\"", "Base = \"base\"", "Kernel = \"kernel\""] {
        assert!(source.contains(variant), "{variant} in {source}");
    }
    let required = source.find("#[json(required = true)]").unwrap();
    assert!(
        source[required..]
            .trim_start_matches("#[json(required = true)]")
            .trim_start()
            .starts_with("pub r#type"),
        "{source}"
    );
    assert_eq!(
        source.matches("#[json(required = true)]").count(),
        1,
        "{source}"
    );
    assert!(warnings.is_empty(), "{warnings:#?}");
}

#[test]
fn a_root_that_is_no_object_is_a_warning_naming_where() {
    let (source, warnings) = generated(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "array",
        "items": {"type": "string"},
    }));
    assert!(fields_of(&source, "Doc").is_empty());
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains("output_schema")
            && warnings[0].contains("describes no object with properties"),
        "{warnings:#?}"
    );
    let (_, warnings) = generated(json!({"$ref": "#/$defs/missing"}));
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains("output_schema#/$ref") && warnings[0].contains("points nowhere"),
        "{warnings:#?}"
    );
}
