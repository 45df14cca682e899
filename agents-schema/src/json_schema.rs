//! A `/v1` agent record as the JSON Schema documents of a `/v2` template version: the
//! `input_schema` (an object whose properties are the inputs, with `required`, defaults,
//! examples and the rules the generator understands as JSON Schema keywords) and the
//! `output_schema` (an object whose properties are the output descriptors, which are already
//! JSON Schema). What has no JSON Schema keyword is kept under an `x-` key, so nothing in the
//! record is lost, and [`record`] reads the documents back into a record.

use indexmap::IndexMap;
use serde_json::{Value, json};

use crate::inputs::{ParamTy, param_type};
use crate::{AgentRecord, AsRead, InputProperty, Json};

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
/// let schema = agents_schema::json_schema::input_schema(&record).to_value();
/// assert_eq!(schema["required"], serde_json::json!(["sku"]));
/// assert_eq!(schema["properties"]["sku"]["minLength"], 3);
/// ```
pub fn input_schema(record: &AgentRecord) -> Json {
    if let Some(written) = &record.written.input
        && crate::load::document_from_json(written).is_ok_and(|doc| {
            Some(crate::inputs::from_json_schema(&doc)) == record.input_properties
                && doc.extra.get("x-feature-flags").cloned()
                    == record
                        .feature_flags
                        .as_ref()
                        .and_then(|f| serde_json::to_value(f).ok())
        })
    {
        return Json::clone(written);
    }
    let mut properties = IndexMap::new();
    let mut required = Vec::new();
    for input in record.input_properties.iter().flatten() {
        if properties.contains_key(&input.name) {
            continue;
        }
        if input.required {
            required.push(Json::String(input.name.clone()));
        }
        properties.insert(input.name.clone(), Json::Object(input_property(input)));
    }
    let mut schema = IndexMap::new();
    schema.insert("$schema".into(), Json::String(DIALECT.into()));
    schema.insert("type".into(), Json::String("object".into()));
    schema.insert("properties".into(), Json::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Json::Array(required));
    }
    if let Some(flags) = &record.feature_flags {
        schema.insert(
            "x-feature-flags".into(),
            Json::of(flags).unwrap_or(Json::Null),
        );
    }
    Json::Object(schema)
}

fn input_property(input: &InputProperty) -> IndexMap<String, Json> {
    let (ty, _) = param_type(input, input.is_pagination_param);
    let mut p = IndexMap::new();
    match input.ty.as_deref() {
        Some(name) => {
            p.insert("type".into(), Json::String(name.into()));
        }
        None if ty == ParamTy::Page => {
            p.insert("type".into(), Json::String("integer".into()));
        }
        None => {}
    }
    if let Some(d) = &input.description {
        p.insert("description".into(), Json::String(d.clone()));
    }
    if let Some(d) = &input.default {
        p.insert("default".into(), Json::from(d));
    }
    if let Some(e) = &input.examples {
        p.insert(
            "examples".into(),
            Json::Array(e.iter().map(Json::from).collect()),
        );
    }
    let mut unread = Vec::new();
    for rule in &input.rules {
        match rule.check(ty) {
            Ok(rule) => {
                let (key, value) = rule.keyword();
                p.insert(key.into(), Json::from(value));
            }
            Err(_) => unread.push(Json::String(rule.text.clone())),
        }
    }
    if !unread.is_empty() {
        p.insert("x-rules".into(), Json::Array(unread));
    }
    if input.is_localization_param {
        p.insert("x-localization".into(), Json::Bool(true));
    }
    if input.is_pagination_param {
        p.insert("x-pagination".into(), Json::Bool(true));
    }
    for (k, v) in &input.extra {
        p.entry(k.clone()).or_insert_with(|| Json::from(v));
    }
    p
}

/// The record's output descriptors as one JSON Schema object (each descriptor is already a
/// JSON Schema; unknown keys such as `unit` are kept as they were sent), the descriptors in the
/// record's order. A record read from JSON Schema gives its own document back as written,
/// `$defs`, key order and all; a descriptor that changed since (or was added) is written from
/// the record.
pub fn output_schema(record: &AgentRecord) -> Json {
    let written = record.written.output.as_deref().and_then(Json::as_object);
    let written_properties = written
        .and_then(|w| w.get("properties"))
        .and_then(Json::as_object);
    // What the record said when it was read: a part it still says is given back as written.
    // The reader keeps it; a `Written` made without it is read here.
    let read: Option<std::borrow::Cow<'_, AsRead>> = match &record.written.output_read {
        Some(read) => Some(std::borrow::Cow::Borrowed(read)),
        None => written.map(|w| std::borrow::Cow::Owned(AsRead::of(w))),
    };
    let read = read.as_deref();
    let read_properties = read.and_then(|r| r.properties.as_ref());
    let properties: IndexMap<String, Json> = record
        .output_schema
        .iter()
        .flatten()
        .map(|(name, field)| {
            let as_written = written_properties
                .and_then(|p| p.get(name))
                .filter(|_| read_properties.and_then(|p| p.get(name)) == Some(field));
            let value = match as_written {
                Some(w) => w.clone(),
                None => Json::of(field).unwrap_or(Json::Null),
            };
            (name.clone(), value)
        })
        .collect();
    // The written document with its `properties` in the place they were written.
    let as_written = written.filter(|_| read.is_some_and(|r| r.rest == record.output_document));
    let mut doc = match as_written {
        Some(w) => w.clone(),
        None => {
            let rest = match record.output_document.as_deref().map(Json::of) {
                Some(Ok(Json::Object(rest))) => rest,
                _ => IndexMap::new(),
            };
            let mut doc = IndexMap::new();
            if written.is_none() {
                doc.insert("$schema".into(), Json::String(DIALECT.into()));
                doc.insert("type".into(), Json::String("object".into()));
            }
            doc.extend(rest);
            doc
        }
    };
    if record.output_schema.is_some() || written_properties.is_some() {
        doc.insert("properties".into(), Json::Object(properties));
    } else {
        doc.shift_remove("properties");
    }
    Json::Object(doc)
}

/// A record from the documents [`input_schema`], [`output_schema`] and [`metadata`] make (a
/// template version edited as JSON, a user's schema files), read as a `/v2` version record is:
/// each input property becomes an input (see [`crate::inputs::from_json_schema`]), the output's
/// properties are the descriptors, and the documents are kept as written
/// ([`crate::Written`]). A document left out is absent from the record. Every problem is
/// reported with its path, as when a record is read.
pub fn record(
    name: &str,
    input: Option<&Json>,
    output: Option<&Json>,
    metadata: Option<&Value>,
) -> Result<AgentRecord, crate::RecordError> {
    let mut version = IndexMap::new();
    version.insert("name".into(), Json::String(name.into()));
    for (key, doc) in [("input_schema", input), ("output_schema", output)] {
        if let Some(doc) = doc {
            version.insert(key.into(), doc.clone());
        }
    }
    if let Some(metadata) = metadata {
        version.insert("metadata".into(), Json::from(metadata));
    }
    crate::load::version_from_json(&Json::Object(version))
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
    fn every_catalog_record_reads_back_the_same() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            let original =
                AgentRecord::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let back = record(
                &original.name,
                Some(&input_schema(&original)),
                Some(&output_schema(&original)),
                Some(&metadata(&original)),
            )
            .unwrap();
            assert_eq!(
                back.output_schema,
                original.output_schema,
                "{}",
                path.display()
            );
            assert_eq!(
                back.feature_flags,
                original.feature_flags,
                "{}",
                path.display()
            );
            let names = |r: &AgentRecord| -> Vec<(String, bool, bool, bool)> {
                r.inputs()
                    .iter()
                    .map(|i| {
                        (
                            i.name.clone(),
                            i.required,
                            i.is_localization_param,
                            i.is_pagination_param,
                        )
                    })
                    .collect()
            };
            // A JSON object's keys carry no order, so inputs are compared by name; the first
            // of a repeated name is the one kept.
            let mut want = names(&original);
            want.dedup_by(|a, b| a.0 == b.0);
            want.sort();
            let mut got = names(&back);
            got.sort();
            assert_eq!(got, want, "{}", path.display());
            // The rules the generator reads are the same rules.
            for a in original.inputs() {
                let b = back.inputs().iter().find(|b| b.name == a.name).unwrap();
                let ty = param_type(a, a.is_pagination_param).0;
                let checked = |r: &InputProperty| -> Vec<crate::rules::Rule> {
                    r.rules
                        .iter()
                        .filter_map(|rule| rule.check(ty).ok().cloned())
                        .collect()
                };
                if std::ptr::eq(
                    a,
                    original.inputs().iter().find(|x| x.name == a.name).unwrap(),
                ) {
                    assert_eq!(checked(a), checked(b), "{} {}", path.display(), a.name);
                }
            }
            seen += 1;
        }
        assert!(seen >= 18, "{seen}");
    }

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
        let names: Vec<&String> = input
            .get("properties")
            .and_then(Json::as_object)
            .map(|p| p.keys().collect())
            .unwrap_or_default();
        assert_eq!(names, ["q", "page", "zip_code"], "in the record's order");
        let input = input.to_value();
        assert_eq!(input["required"], json!(["q"]));
        let q = &input["properties"]["q"];
        assert_eq!(q["type"], "string", "the first declaration wins");
        assert_eq!(q["maxLength"], 20);
        assert_eq!(q["x-rules"], json!(["must look nice"]));
        assert_eq!(q["examples"], json!(["shoes"]));
        assert_eq!(input["properties"]["page"]["type"], "integer");
        assert_eq!(input["properties"]["page"]["x-pagination"], true);
        assert_eq!(input["properties"]["zip_code"]["x-localization"], true);
        let output = output_schema(&record).to_value();
        assert_eq!(
            output["properties"]["price"],
            json!({"type": "number", "unit": "USD"})
        );
    }
}
