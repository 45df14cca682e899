//! JSON Schema as typify 0.8 takes it, shared by the benchmark runner (generation timed) and the
//! build script (typify's types compiled for the decoding comparison): typify reads schemas
//! through schemars 0.8, which knows draft-07's `definitions` but not 2020-12's `$defs`, so
//! definitions move there and references follow; and typify makes no type for a root without a
//! `title`, so such a root gets the title `Root`. Nothing else changes.

use serde_json::{Value, json};

/// A record's output schema as an equivalent draft-07 JSON Schema. The service's field schemas
/// already use JSON Schema keywords (`type`, `description`, `format`, `minimum`, `maximum`,
/// `items`, `properties`) and no field is required, so the output schema (`properties`, the
/// record's JSON as is) becomes the root's `properties` unchanged.
pub fn record_schema(properties: Value, title: &str) -> Value {
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": title,
        "type": "object",
        "properties": properties,
    })
}

/// The corpus schemas typify 0.8 turns into code (of 26, six give a root type; citation_file_format's needs chrono, which this crate does not link), in
/// the order of the benchmark table.
pub const TYPIFY_CORPUS: [&str; 5] = [
    "changie",
    "cloudbuild",
    "github_discussion",
    "github_issue_config",
    "snapcraft",
];

/// `schema` with `$defs` written `definitions`, everywhere, and a title.
pub fn for_typify(schema: &Value) -> Value {
    let mut out = renamed(schema);
    if let Value::Object(m) = &mut out {
        m.entry("title").or_insert_with(|| Value::from("Root"));
    }
    out
}

fn renamed(schema: &Value) -> Value {
    match schema {
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| {
                let key = if k == "$defs" { "definitions" } else { k };
                let value = match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => {
                        Value::String(r.replacen("#/$defs/", "#/definitions/", 1))
                    }
                    _ => renamed(v),
                };
                (key.to_owned(), value)
            })
            .collect(),
        Value::Array(items) => items.iter().map(renamed).collect(),
        other => other.clone(),
    }
}
