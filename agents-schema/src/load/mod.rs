//! Reading an agent record from JSON: one walk over the parsed value (`reader.rs`, over the
//! ordered tree of `crate::json`) that builds the model, tracks the JSON path, and collects every
//! problem (`error.rs`) instead of stopping at the first.

mod duplicates;
mod error;
mod reader;

use serde_json::Value;

pub use duplicates::duplicate_keys;
pub use error::{FieldError, RecordError, join_path};
use reader::Reader;

use crate::json::Json;
use crate::{AgentRecord, AsRead, FieldSchema};

pub(crate) fn record_from_json(text: &str) -> Result<AgentRecord, RecordError> {
    let tree = tree_of(text)?;
    with_duplicates(text, read(&tree, Reader::any))
}

/// The ordered tree of `text`, or where it is not JSON.
fn tree_of(text: &str) -> Result<Json, RecordError> {
    agents_wire::json::from_slice(text.as_bytes()).map_err(|e| match e {
        agents_wire::json::DeepError::Json {
            message,
            line,
            column,
        } => RecordError::Syntax {
            line,
            column,
            message,
        },
        too_deep => RecordError::Syntax {
            line: 1,
            column: 1,
            message: too_deep.to_string(),
        },
    })
}

/// What `text` read as, with the keys it gives twice in one object reported with the rest:
/// text is what a user writes (a schema file, a record in the schema directory), and the tree
/// keeps only one of the two.
fn with_duplicates<T>(text: &str, read: Result<T, RecordError>) -> Result<T, RecordError> {
    let twice = duplicates::duplicate_keys(text);
    match read {
        Ok(made) if twice.is_empty() => Ok(made),
        Ok(_) => Err(RecordError::Invalid(twice)),
        Err(RecordError::Invalid(errors)) => Err(RecordError::Invalid(
            twice.into_iter().chain(errors).collect(),
        )),
        Err(e) => Err(e),
    }
}

pub(crate) fn record_from_value(value: &Value) -> Result<AgentRecord, RecordError> {
    read(&Json::from(value), Reader::any)
}

/// A record from any serde deserializer, read into the loader's own tree (not a `Value`, whose
/// map sorts the keys): its fields keep the order they were sent in, as from a file.
impl<'de> serde::Deserialize<'de> for AgentRecord {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let tree = <Json as serde::Deserialize>::deserialize(deserializer)?;
        read(&tree, Reader::any).map_err(serde::de::Error::custom)
    }
}

/// Reads `tree` with `how`: what it makes when no problem was found, else every problem.
fn read<T>(
    tree: &Json,
    how: impl FnOnce(&mut Reader, &Json) -> Option<T>,
) -> Result<T, RecordError> {
    let mut reader = Reader::default();
    match how(&mut reader, tree) {
        Some(made) if reader.errors.is_empty() => Ok(made),
        _ => Err(RecordError::Invalid(reader.errors)),
    }
}

impl AgentRecord {
    /// Reads one record from JSON text, reporting every problem with its JSON path.
    ///
    /// Syntax errors carry line and column; shape errors (a missing `name`, a `type` that is not
    /// a string, a descriptor that is not an object) are all collected before returning.
    pub fn from_json(text: &str) -> Result<Self, RecordError> {
        record_from_json(text)
    }

    /// Reads one record from an already parsed JSON value, with the same checks as
    /// [`AgentRecord::from_json`].
    pub fn from_value(value: &Value) -> Result<Self, RecordError> {
        record_from_value(value)
    }
}

impl FieldSchema {
    /// Reads a JSON Schema document (a research agent's `output_schema`, say); every problem
    /// names its JSON path from `$`.
    pub fn from_document(value: &Value) -> Result<FieldSchema, RecordError> {
        document_from_json(&Json::from(value))
    }

    /// Reads a JSON Schema document held as [`Json`], whose properties keep their order (the
    /// order of the fields generated from them).
    pub fn from_tree(tree: &Json) -> Result<FieldSchema, RecordError> {
        document_from_json(tree)
    }

    /// Reads a JSON Schema document from its text (a file a user wrote), as
    /// [`FieldSchema::from_tree`] reads it; a key given twice in one object, of which any
    /// JSON reader keeps only one, is a problem at its path too.
    ///
    /// ```
    /// use agents_schema::FieldSchema;
    ///
    /// let text = r#"{"properties": {"price": {"type": "number"}, "price": {"type": "string"}}}"#;
    /// let err = FieldSchema::from_text(text).unwrap_err().to_string();
    /// assert!(err.starts_with("$.properties.price: `price` is given twice"), "{err}");
    /// ```
    pub fn from_text(text: &str) -> Result<FieldSchema, RecordError> {
        let tree = tree_of(text)?;
        with_duplicates(text, document_from_json(&tree))
    }
}

impl AsRead {
    /// An output document read as a record reads it; a document that does not read says
    /// nothing.
    pub fn of(document: &indexmap::IndexMap<String, Json>) -> AsRead {
        match document_from_json(&Json::Object(document.clone())) {
            Ok(mut doc) => AsRead {
                properties: doc.properties.take(),
                rest: Some(Box::new(doc)),
            },
            Err(_) => AsRead::default(),
        }
    }
}

/// A `/v2` version record (`name`, `input_schema`, `output_schema`, `metadata`), read as one
/// whatever its documents look like.
pub(crate) fn version_from_json(tree: &Json) -> Result<AgentRecord, RecordError> {
    read(tree, |reader, tree| reader.version(tree, "$", None))
}

pub(crate) fn document_from_json(tree: &Json) -> Result<FieldSchema, RecordError> {
    read(tree, |reader, tree| reader.document(tree, "$"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SchemaType;

    /// A key given twice is reported at its path wherever it is (at the root, in a list, with
    /// a name that needs quoting), each once, with the record's other problems, and the
    /// record is not made from whichever came last.
    #[test]
    fn keys_given_twice_are_reported_where_they_are() {
        let text = r#"{"name": "x", "name": "x", "output_schema": {
            "price": {"type": "number"},
            "price": {"type": "string"},
            "offers": {"type": "array", "items": [{"type": "object", "properties": {
                "a b": {"type": "string"}, "a b": {"type": "string"}, "a b": {}}}]},
            "bad": {"type": 3}
        }}"#;
        let RecordError::Invalid(errors) = AgentRecord::from_json(text).unwrap_err() else {
            panic!("not a shape error");
        };
        let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths[..4],
            [
                "$.name",
                "$.output_schema.price",
                "$.output_schema.offers.items[0].properties[\"a b\"]",
                "$.output_schema.offers.items[0].properties[\"a b\"]",
            ]
        );
        assert!(errors[0].message.contains("given twice"), "{errors:?}");
        assert!(
            paths[4..]
                .iter()
                .any(|p| p.starts_with("$.output_schema.bad")),
            "{paths:?}"
        );

        // The same text without the repeats reads; so does a key repeated only across objects.
        let once = r#"{"name": "x", "output_schema": {"a": {"type": "object",
            "properties": {"a": {"type": "string"}}}}}"#;
        assert!(AgentRecord::from_json(once).is_ok());
        assert!(FieldSchema::from_text(r#"{"properties": {"a": {}}}"#).is_ok());
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let err = AgentRecord::from_json("{\n  \"name\": \"x\",\n  oops\n}").unwrap_err();
        match err {
            RecordError::Syntax { line, column, .. } => assert_eq!((line, column), (3, 3)),
            other => panic!("expected a syntax error, got {other:?}"),
        }
    }

    #[test]
    fn all_shape_errors_are_reported_together_with_paths() {
        let text = r#"{
            "output_schema": {
                "price": {"type": 5},
                "ok": {"type": "string"},
                "tags": {"type": "array", "items": {"type": {"x": 1}}},
                "weird key": {"type": "object", "properties": {"a": "not an object"}}
            },
            "input_properties": [{"type": "string", "rules": [1]}]
        }"#;
        let RecordError::Invalid(errors) = AgentRecord::from_json(text).unwrap_err() else {
            panic!("expected shape errors");
        };
        let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "$.name",
                "$.input_properties[0].name",
                "$.input_properties[0].rules[0]",
                "$.output_schema.price.type",
                "$.output_schema.tags.items.type",
                "$.output_schema[\"weird key\"].properties.a",
            ]
        );
        assert!(
            errors[3].message.contains("found a number: 5"),
            "{}",
            errors[3]
        );
    }

    #[test]
    fn nulls_and_unknown_keys_are_tolerated_and_kept() {
        let text = r#"{"name": "a", "description": null, "input_properties": null,
            "output_schema": {"x": {"type": ["number", "null"], "unit": "USD"}},
            "future_field": [1, 2]}"#;
        let record = AgentRecord::from_json(text).unwrap();
        assert_eq!(record.description, None);
        assert_eq!(record.input_properties, None);
        let x = &record.output_schema.as_ref().unwrap()["x"];
        assert_eq!(x.ty.as_ref().and_then(SchemaType::single), Some("number"));
        assert_eq!(x.extra["unit"], "USD");
        assert_eq!(record.extra["future_field"], serde_json::json!([1, 2]));
        let back = serde_json::to_value(&record).unwrap();
        assert_eq!(back["future_field"], serde_json::json!([1, 2]));
        assert_eq!(back["output_schema"]["x"]["unit"], "USD");
    }

    #[test]
    fn deserialize_runs_the_same_checks() {
        let err = serde_json::from_str::<AgentRecord>(r#"{"output_schema": {}}"#).unwrap_err();
        assert!(err.to_string().contains("$.name: missing"), "{err}");
    }

    #[test]
    fn paths_quote_keys_that_are_not_identifiers() {
        assert_eq!(join_path("$", "a_b1"), "$.a_b1");
        assert_eq!(join_path("$", "4_star"), "$[\"4_star\"]");
        assert_eq!(join_path("$", ""), "$[\"\"]");
    }

    #[test]
    fn a_v2_template_record_reads_as_a_record_with_its_version() {
        let text = r##"{
            "id": "t1", "name": "shop", "created_at": "2026-01-01T00:00:00Z",
            "published_version_id": "v7",
            "published_version": {
                "id": "v7", "name": "shop", "version_number": 3, "created_at": "2026-02-01T00:00:00Z",
                "metadata": {"display_name": "Shop", "domain": "shop.example", "tags": ["x"]},
                "input_schema": {"type": "object", "required": ["sku"], "properties": {
                    "sku": {"type": "string", "minLength": 3, "format": "uuid"},
                    "zip_code": {"type": "string"},
                    "page": {"type": "integer", "minimum": 1},
                    "size": {"enum": ["S", "M"]}
                }},
                "output_schema": {"$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object", "required": ["title"],
                    "properties": {
                        "title": {"type": "string"},
                        "seller": {"$ref": "#/$defs/Seller"},
                        "tags": {"type": "array", "items": true},
                        "closed": false
                    },
                    "$defs": {"Seller": {"type": "object", "properties": {"name": {"type": "string"}}}}
                }
            }
        }"##;
        let r = AgentRecord::from_json(text).unwrap();
        assert_eq!(r.name, "shop");
        assert_eq!(r.display_name.as_deref(), Some("Shop"));
        let v = r.template_version.as_ref().unwrap();
        assert_eq!((v.id.as_str(), v.number), ("v7", Some(3)));
        let names: Vec<&str> = r.inputs().iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["sku", "zip_code", "page", "size"], "order kept");
        let sku = &r.inputs()[0];
        assert!(sku.required);
        assert_eq!(sku.rules, ["minimum length 3"]);
        assert_eq!(sku.extra["format"], "uuid", "unread keys are kept");
        assert!(r.inputs()[1].is_localization_param && r.supports_localization());
        assert!(r.inputs()[2].is_pagination_param && r.supports_pagination());
        assert_eq!(r.inputs()[3].ty.as_deref(), Some("string"));
        assert_eq!(r.inputs()[3].rules, ["one of S, M"]);
        let out = r.output_schema.as_ref().unwrap();
        let fields: Vec<&str> = out.keys().map(String::as_str).collect();
        assert_eq!(fields, ["title", "seller", "tags", "closed"]);
        assert_eq!(out["tags"].items.as_deref(), Some(&FieldSchema::default()));
        assert!(out["closed"].is_never());
        let doc = r.output_document.as_deref().unwrap();
        assert_eq!(doc.required.as_deref(), Some(&["title".to_owned()][..]));
        let seller = doc
            .resolve(out["seller"].reference.as_deref().unwrap())
            .unwrap();
        assert!(seller.properties.as_ref().unwrap().contains_key("name"));
        assert_eq!(r.extra["metadata"]["tags"], serde_json::json!(["x"]));
        assert_eq!(r.extra["published_version_id"], "v7");
        // Written in the internal shape and read again, nothing moves.
        let again = AgentRecord::from_value(&serde_json::to_value(&r).unwrap()).unwrap();
        assert_eq!(again.template_version, r.template_version);
        assert_eq!(again.output_document, r.output_document);
    }

    #[test]
    fn json_schema_keywords_of_the_wrong_type_are_kept_not_fatal() {
        let text = r#"{"name": "a", "output_schema": {"type": "object", "properties": {
            "x": {"type": "string", "minLength": -1, "enum": "nope", "required": [1]},
            "t": {"type": "array", "items": [{"type": "string"}, {"type": "number"}]}
        }}}"#;
        let r = AgentRecord::from_json(text).unwrap();
        let x = &r.output_schema.as_ref().unwrap()["x"];
        assert_eq!(x.min_length, None);
        assert_eq!(x.extra["minLength"], -1);
        assert_eq!(x.extra["enum"], "nope");
        assert_eq!(x.extra["required"], serde_json::json!([1]));
        let t = &r.output_schema.as_ref().unwrap()["t"];
        assert_eq!(
            t.prefix_items.as_ref().map(Vec::len),
            Some(2),
            "draft-07 tuples"
        );
    }

    #[test]
    fn a_count_written_with_a_zero_fraction_is_read() {
        let text = r#"{"name": "a", "output_schema": {"type": "object", "properties": {
            "x": {"type": "array", "maxItems": 2.0, "minItems": 1.5},
            "s": {"type": "string", "minLength": 0.0, "maxLength": -1.0}
        }}}"#;
        let r = AgentRecord::from_json(text).unwrap();
        let schema = r.output_schema.as_ref().unwrap();
        assert_eq!(schema["x"].max_items, Some(2));
        assert_eq!(schema["x"].min_items, None);
        assert_eq!(schema["x"].extra["minItems"], 1.5);
        assert_eq!(schema["s"].min_length, Some(0));
        assert_eq!(schema["s"].max_length, None);
        assert_eq!(schema["s"].extra["maxLength"], -1.0);
        assert!(!schema["x"].extra.contains_key("maxItems"));
    }

    #[test]
    fn references_resolve_through_json_pointers() {
        let doc: FieldSchema = AgentRecord::from_json(
            r##"{"name": "a", "output_schema": {"type": "object", "properties": {
                "a/b": {"type": "object", "properties": {"c": {"type": "string"}}},
                "list": {"type": "array", "items": {"anyOf": [{"type": "null"}, {"$ref": "#"}]}}
            }, "definitions": {"x y": {"type": "integer"}}}}"##,
        )
        .map(|r| {
            let mut doc = *r.output_document.unwrap();
            doc.properties = r.output_schema;
            doc
        })
        .unwrap();
        assert!(doc.resolve("#/properties/a~1b/properties/c").is_some());
        assert!(doc.resolve("#/properties/list/items/anyOf/1").is_some());
        assert!(doc.resolve("#/definitions/x%20y").is_some());
        assert_eq!(doc.resolve("#").map(|d| d.properties.is_some()), Some(true));
        for nowhere in [
            "#/$defs/missing",
            "other.json#/x",
            "#/properties/list/items/anyOf/9",
        ] {
            assert!(doc.resolve(nowhere).is_none(), "{nowhere}");
        }
    }
}
