//! A `/v1` agent record as the JSON Schema documents of a `/v2` template version: the
//! `input_schema` (an object whose properties are the inputs, with `required`, defaults,
//! examples and the rules the generator understands as JSON Schema keywords) and the
//! `output_schema` (an object whose properties are the output descriptors, which are already
//! JSON Schema). What has no JSON Schema keyword is kept under an `x-` key, so nothing in the
//! record is lost.

use serde_json::{Map, Value, json};

use crate::inputs::{ParamTy, param_type};
use crate::rules::{self, Parsed, Rule};
use crate::{AgentRecord, InputProperty};

/// The JSON Schema dialect both documents declare.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The record's inputs as one JSON Schema object.
///
/// ```
/// let record = agents_schema::AgentRecord::from_json(
///     r#"{"name": "shop", "input_properties": [
///         {"name": "sku", "type": "string", "required": true, "rules": ["minimum length 3"]}
///     ]}"#,
/// ).unwrap();
/// let schema = agents_schema::json_schema::input_schema(&record);
/// assert_eq!(schema["required"], serde_json::json!(["sku"]));
/// assert_eq!(schema["properties"]["sku"]["minLength"], 3);
/// ```
pub fn input_schema(record: &AgentRecord) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for input in record.input_properties.iter().flatten() {
        if properties.contains_key(&input.name) {
            continue;
        }
        if input.required {
            required.push(Value::String(input.name.clone()));
        }
        properties.insert(input.name.clone(), Value::Object(input_property(input)));
    }
    let mut schema = Map::new();
    schema.insert("$schema".into(), json!(DIALECT));
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    Value::Object(schema)
}

fn input_property(input: &InputProperty) -> Map<String, Value> {
    let (ty, _) = param_type(input, input.is_pagination_param);
    let mut p = Map::new();
    match input.ty.as_deref() {
        Some(name) => {
            p.insert("type".into(), json!(name));
        }
        None if ty == ParamTy::Page => {
            p.insert("type".into(), json!("integer"));
        }
        None => {}
    }
    if let Some(d) = &input.description {
        p.insert("description".into(), json!(d));
    }
    if let Some(d) = &input.default {
        p.insert("default".into(), d.clone());
    }
    if let Some(e) = &input.examples {
        p.insert("examples".into(), Value::Array(e.clone()));
    }
    let mut unread = Vec::new();
    for text in &input.rules {
        match rules::parse(text, ty) {
            Parsed::Checked(rule) => {
                let (key, value) = match rule {
                    Rule::MinLength(n) => ("minLength", json!(n)),
                    Rule::MaxLength(n) => ("maxLength", json!(n)),
                    Rule::Minimum(n) => ("minimum", json!(n)),
                    Rule::Maximum(n) => ("maximum", json!(n)),
                    Rule::Pattern(re) => ("pattern", json!(re)),
                    Rule::OneOf(values) => ("enum", json!(values)),
                };
                p.insert(key.into(), value);
            }
            Parsed::DocOnly(_) => unread.push(Value::String(text.clone())),
        }
    }
    if !unread.is_empty() {
        p.insert("x-rules".into(), Value::Array(unread));
    }
    if input.is_localization_param {
        p.insert("x-localization".into(), json!(true));
    }
    if input.is_pagination_param {
        p.insert("x-pagination".into(), json!(true));
    }
    for (k, v) in &input.extra {
        p.entry(k.clone()).or_insert_with(|| v.clone());
    }
    p
}

/// The record's output descriptors as one JSON Schema object (each descriptor is already a
/// JSON Schema; unknown keys such as `unit` are kept as they were sent).
pub fn output_schema(record: &AgentRecord) -> Value {
    let properties: Map<String, Value> = record
        .output_schema
        .iter()
        .flatten()
        .map(|(name, field)| {
            let value = serde_json::to_value(field).unwrap_or(Value::Null);
            (name.clone(), value)
        })
        .collect();
    json!({
        "$schema": DIALECT,
        "type": "object",
        "properties": properties,
    })
}

/// The record's catalog facts as `/v2` version metadata: `display_name`, `description`,
/// `domain`, `entity_type`, `vertical`, and `tags` (none in `/v1`, so empty).
pub fn metadata(record: &AgentRecord) -> Value {
    json!({
        "display_name": record.display_name,
        "description": record.description,
        "domain": record.domain,
        "entity_type": record.entity_type,
        "vertical": record.vertical,
        "tags": [],
        "data_source": record.managed_by,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_input_fact_has_a_place() {
        let record = AgentRecord::from_json(
            r#"{"name": "a", "input_properties": [
                {"name": "q", "type": "string", "required": true, "description": "What to find",
                 "default": "x", "examples": ["shoes"],
                 "rules": ["maximum length 20", "must look nice"]},
                {"name": "page", "is_pagination_param": true},
                {"name": "zip_code", "type": "string", "is_localization_param": true},
                {"name": "q", "type": "number"}
            ], "output_schema": {"price": {"type": "number", "unit": "USD"}}}"#,
        )
        .unwrap();
        let input = input_schema(&record);
        assert_eq!(input["required"], json!(["q"]));
        let q = &input["properties"]["q"];
        assert_eq!(q["type"], "string", "the first declaration wins");
        assert_eq!(q["maxLength"], 20);
        assert_eq!(q["x-rules"], json!(["must look nice"]));
        assert_eq!(q["examples"], json!(["shoes"]));
        assert_eq!(input["properties"]["page"]["type"], "integer");
        assert_eq!(input["properties"]["page"]["x-pagination"], true);
        assert_eq!(input["properties"]["zip_code"]["x-localization"], true);
        let output = output_schema(&record);
        assert_eq!(
            output["properties"]["price"],
            json!({"type": "number", "unit": "USD"})
        );
    }
}
