//! Instances of JSON Schemas nobody here wrote, for the tests and benchmarks that check the
//! generated types against them: `noson` (a JSON Schema instance generator) draws them, and the
//! `jsonschema` crate says which are valid. Behind the feature `instances`.

use std::path::PathBuf;

use rand::rngs::StdRng;
use serde_json::Value;

/// The corpus of real-world JSON Schemas, `tests/json-schema/corpus/schemas/`.
pub fn corpus_dir() -> PathBuf {
    crate::workspace_root().join("tests/json-schema/corpus/schemas")
}

/// The corpus schema `NAME.output.schema.json`, read.
///
/// # Panics
/// When the file is missing or not JSON (a broken checkout).
pub fn corpus_schema(name: &str) -> Value {
    let file = corpus_dir().join(format!("{name}.output.schema.json"));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// Draws instances of one JSON Schema document and validates them.
pub struct Drawer {
    /// `None` for a schema that points into another document (drone_ci into Kubernetes'
    /// definitions): it has no validator offline.
    validator: Option<jsonschema::Validator>,
    drawn_from: Value,
}

impl Drawer {
    /// A drawer for `doc`.
    pub fn new(doc: &Value) -> Drawer {
        let validator = jsonschema::options()
            .with_retriever(Offline)
            .build(doc)
            .ok();
        let mut drawn_from = doc.clone();
        as_read(&mut drawn_from);
        Drawer {
            validator,
            drawn_from,
        }
    }

    /// Whether instances are checked by a validator (see [`Drawer::new`]).
    pub fn validates(&self) -> bool {
        self.validator.is_some()
    }

    /// Whether `v` is valid (always, for a schema without a validator).
    pub fn is_valid(&self, v: &Value) -> bool {
        self.validator.as_ref().is_none_or(|val| val.is_valid(v))
    }

    /// A valid instance that is an object (the generated types are records; a schema whose
    /// root allows other JSON is drawn as such now and then), or `None` when noson could not
    /// draw one or drew one that is not.
    pub fn draw(&self, rng: &mut StdRng) -> Option<Value> {
        let instance = noson::generate(&self.drawn_from, rng).ok()?;
        (instance.is_object() && self.is_valid(&instance)).then_some(instance)
    }
}

/// The schema as the generator reads it, for drawing instances: a schema with object keywords
/// (`properties`, `additionalProperties`, `patternProperties`) and no `type` is an object, one with
/// `items` or `prefixItems` an array (the documented inference; JSON Schema itself would allow
/// any value there, and the generated struct records such a value as a mismatch). Arrays are
/// drawn short, and annotations are left out.
pub fn as_read(schema: &mut Value) {
    let Some(m) = schema.as_object_mut() else {
        return;
    };
    // Annotations say nothing about validity, and noson refuses to merge two that differ.
    for key in [
        "title",
        "description",
        "markdownDescription",
        "examples",
        "example",
        "default",
        "$comment",
        "deprecationMessage",
        "enumDescriptions",
        "markdownEnumDescriptions",
    ] {
        m.remove(key);
    }
    // Arrays of at most two items (or the least the schema allows): recursive schemas drawn to
    // noson's depth of 16 with longer arrays make instances of tens of megabytes.
    if m.contains_key("items")
        || m.contains_key("prefixItems")
        || m.get("type") == Some(&Value::String("array".into()))
    {
        let least = m.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let most = m
            .get("maxItems")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX);
        m.insert("maxItems".into(), Value::from(most.min(least.max(2))));
    }
    let combined = ["$ref", "anyOf", "oneOf", "allOf", "enum", "const", "type"]
        .iter()
        .any(|k| m.contains_key(*k));
    if !combined {
        if ["properties", "additionalProperties", "patternProperties"]
            .iter()
            .any(|k| m.get(*k).is_some_and(Value::is_object))
        {
            m.insert("type".into(), Value::String("object".into()));
        } else if m.contains_key("items") || m.contains_key("prefixItems") {
            m.insert("type".into(), Value::String("array".into()));
        }
    }
    for key in [
        "additionalProperties",
        "items",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedProperties",
        "unevaluatedItems",
        "additionalItems",
    ] {
        if let Some(sub) = m.get_mut(key) {
            as_read(sub);
        }
    }
    for key in [
        "properties",
        "patternProperties",
        "$defs",
        "definitions",
        "dependentSchemas",
    ] {
        if let Some(Value::Object(subs)) = m.get_mut(key) {
            subs.values_mut().for_each(as_read);
        }
    }
    for key in ["allOf", "anyOf", "oneOf", "prefixItems", "items"] {
        if let Some(Value::Array(subs)) = m.get_mut(key) {
            subs.iter_mut().for_each(as_read);
        }
    }
}

/// Nothing leaves loopback: a schema that refers to another document on the web gets the schema
/// that allows anything in its place (noson cannot follow it either, and says so).
pub struct Offline;

impl jsonschema::Retrieve for Offline {
    fn retrieve(
        &self,
        _uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Ok(Value::Bool(true))
    }
}
