//! Reading an agent record from JSON: one walk over the parsed value that builds the model,
//! tracks the JSON path, and collects every problem instead of stopping at the first.

use std::fmt;

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::{AgentRecord, FeatureFlags, FieldSchema, InputProperty, SchemaType};

/// Why an agent record could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecordError {
    /// The text is not JSON.
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Syntax {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What the JSON parser said.
        message: String,
    },
    /// The JSON does not have the shape of an agent record; every problem found is listed.
    #[error("{}", ErrorList(.0))]
    Invalid(Vec<FieldError>),
}

/// One problem in a record, at a JSON path such as `$.output_schema.price.type`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct FieldError {
    /// JSON path of the value at fault.
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

struct ErrorList<'a>(&'a [FieldError]);

impl fmt::Display for ErrorList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

pub(crate) fn record_from_json(text: &str) -> Result<AgentRecord, RecordError> {
    let tree: Json = serde_json::from_str(text).map_err(|e| RecordError::Syntax {
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
    })?;
    let mut reader = Reader::default();
    let record = reader.record(&tree);
    match record {
        Some(record) if reader.errors.is_empty() => Ok(record),
        _ => Err(RecordError::Invalid(reader.errors)),
    }
}

/// serde_json appends " at line L column C"; the variant carries those separately.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

pub(crate) fn record_from_value(value: &Value) -> Result<AgentRecord, RecordError> {
    let tree = Json::from(value);
    let mut reader = Reader::default();
    let record = reader.record(&tree);
    match record {
        Some(record) if reader.errors.is_empty() => Ok(record),
        _ => Err(RecordError::Invalid(reader.errors)),
    }
}

/// Appends `key` to a JSON path, quoting keys that are not plain identifiers.
pub fn join_path(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_owned()))
    }
}

/// A JSON tree that keeps the order of object keys (the order of `output_schema` is the order
/// of the generated fields), without turning on serde_json's global `preserve_order` feature.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(IndexMap<String, Json>),
}

impl Json {
    fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => Value::Number(n.clone()),
            Json::String(s) => Value::String(s.clone()),
            Json::Array(items) => Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), v.to_value())).collect())
            }
        }
    }
}

impl From<&Value> for Json {
    fn from(value: &Value) -> Self {
        match value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(n) => Json::Number(n.clone()),
            Value::String(s) => Json::String(s.clone()),
            Value::Array(items) => Json::Array(items.iter().map(Json::from).collect()),
            Value::Object(map) => Json::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), Json::from(v)))
                    .collect(),
            ),
        }
    }
}

impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_value())
    }
}

impl<'de> serde::Deserialize<'de> for Json {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
                Ok(Json::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
                Ok(Json::Number(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
                Ok(Json::Number(v.into()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
                Ok(serde_json::Number::from_f64(v).map_or(Json::Null, Json::Number))
            }
            fn visit_str<E>(self, v: &str) -> Result<Json, E> {
                Ok(Json::String(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Json, E> {
                Ok(Json::String(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Json::Array(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut out = IndexMap::new();
                while let Some((k, v)) = map.next_entry::<String, Json>()? {
                    out.insert(k, v);
                }
                Ok(Json::Object(out))
            }
        }
        d.deserialize_any(V)
    }
}

fn kind(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

#[derive(Default)]
struct Reader {
    errors: Vec<FieldError>,
}

/// Keys of one JSON object, read one by one; what is not taken ends up in `extra`.
struct Fields<'v> {
    map: &'v IndexMap<String, Json>,
    path: String,
    taken: Vec<&'static str>,
}

impl<'v> Fields<'v> {
    fn take(&mut self, key: &'static str) -> Option<&'v Json> {
        self.taken.push(key);
        match self.map.get(key) {
            None | Some(Json::Null) => None,
            Some(v) => Some(v),
        }
    }

    fn path(&self, key: &str) -> String {
        join_path(&self.path, key)
    }

    fn extra(&self) -> Map<String, Value> {
        self.map
            .iter()
            .filter(|(k, _)| !self.taken.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.to_value()))
            .collect()
    }
}

impl Reader {
    fn error(&mut self, path: String, message: impl Into<String>) {
        self.errors.push(FieldError {
            path,
            message: message.into(),
        });
    }

    fn object<'v>(&mut self, value: &'v Json, path: &str, what: &str) -> Option<Fields<'v>> {
        match value {
            Json::Object(map) => Some(Fields {
                map,
                path: path.to_owned(),
                taken: Vec::new(),
            }),
            other => {
                self.error(
                    path.to_owned(),
                    format!("expected {what} (an object), found {}", kind(other)),
                );
                None
            }
        }
    }

    fn string(&mut self, fields: &mut Fields<'_>, key: &'static str) -> Option<String> {
        match fields.take(key)? {
            Json::String(s) => Some(s.clone()),
            other => {
                let path = fields.path(key);
                self.error(path, format!("expected a string, found {}", kind(other)));
                None
            }
        }
    }

    fn boolean(&mut self, fields: &mut Fields<'_>, key: &'static str) -> Option<bool> {
        match fields.take(key)? {
            Json::Bool(b) => Some(*b),
            other => {
                let path = fields.path(key);
                self.error(path, format!("expected a boolean, found {}", kind(other)));
                None
            }
        }
    }

    fn number(&mut self, fields: &mut Fields<'_>, key: &'static str) -> Option<f64> {
        match fields.take(key)? {
            Json::Number(n) => n.as_f64(),
            other => {
                let path = fields.path(key);
                self.error(path, format!("expected a number, found {}", kind(other)));
                None
            }
        }
    }

    fn array<'v>(&mut self, fields: &mut Fields<'v>, key: &'static str) -> Option<&'v [Json]> {
        match fields.take(key)? {
            Json::Array(items) => Some(items),
            other => {
                let path = fields.path(key);
                self.error(path, format!("expected an array, found {}", kind(other)));
                None
            }
        }
    }

    fn record(&mut self, value: &Json) -> Option<AgentRecord> {
        let mut f = self.object(value, "$", "an agent record")?;
        let name = match f.take("name") {
            Some(Json::String(s)) => Some(s.clone()),
            Some(other) => {
                let path = f.path("name");
                self.error(path, format!("expected a string, found {}", kind(other)));
                None
            }
            None => {
                let path = f.path("name");
                self.error(path, "missing: every agent record needs a `name`");
                None
            }
        };
        let is_public = self.boolean(&mut f, "is_public");
        let display_name = self.string(&mut f, "display_name");
        let managed_by = self.string(&mut f, "managed_by");
        let description = self.string(&mut f, "description");
        let vertical = self.string(&mut f, "vertical");
        let entity_type = self.string(&mut f, "entity_type");
        let domain = self.string(&mut f, "domain");
        let input_properties = self.array(&mut f, "input_properties").map(|items| {
            let base = f.path("input_properties");
            items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| self.input(item, &format!("{base}[{i}]")))
                .collect()
        });
        let output_schema = f.take("output_schema").and_then(|v| {
            let path = f.path("output_schema");
            self.properties(v, &path)
        });
        let feature_flags = f.take("feature_flags").and_then(|v| {
            let path = f.path("feature_flags");
            self.feature_flags(v, &path)
        });
        Some(AgentRecord {
            name: name?,
            is_public,
            display_name,
            managed_by,
            description,
            vertical,
            entity_type,
            domain,
            input_properties,
            output_schema,
            feature_flags,
            extra: f.extra(),
        })
    }

    fn input(&mut self, value: &Json, path: &str) -> Option<InputProperty> {
        let mut f = self.object(value, path, "an input property")?;
        let name = match f.take("name") {
            Some(Json::String(s)) => Some(s.clone()),
            Some(other) => {
                let p = f.path("name");
                self.error(p, format!("expected a string, found {}", kind(other)));
                None
            }
            None => {
                let p = f.path("name");
                self.error(p, "missing: every input property needs a `name`");
                None
            }
        };
        let ty = self.string(&mut f, "type");
        let description = self.string(&mut f, "description");
        let required = self.boolean(&mut f, "required").unwrap_or(false);
        let default = f.take("default").map(Json::to_value);
        let examples = self
            .array(&mut f, "examples")
            .map(|items| items.iter().map(Json::to_value).collect());
        let rules = self
            .array(&mut f, "rules")
            .map(|items| {
                let base = f.path("rules");
                items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, rule)| match rule {
                        Json::String(s) => Some(s.clone()),
                        other => {
                            self.error(
                                format!("{base}[{i}]"),
                                format!("expected a rule as text, found {}", kind(other)),
                            );
                            None
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let is_localization_param = self
            .boolean(&mut f, "is_localization_param")
            .unwrap_or(false);
        let is_pagination_param = self.boolean(&mut f, "is_pagination_param").unwrap_or(false);
        Some(InputProperty {
            name: name?,
            ty,
            description,
            required,
            default,
            examples,
            rules,
            is_localization_param,
            is_pagination_param,
            extra: f.extra(),
        })
    }

    fn feature_flags(&mut self, value: &Json, path: &str) -> Option<FeatureFlags> {
        let mut f = self.object(value, path, "feature flags")?;
        Some(FeatureFlags {
            is_localization_supported: self
                .boolean(&mut f, "is_localization_supported")
                .unwrap_or(false),
            is_pagination_supported: self
                .boolean(&mut f, "is_pagination_supported")
                .unwrap_or(false),
            extra: f.extra(),
        })
    }

    fn properties(&mut self, value: &Json, path: &str) -> Option<IndexMap<String, FieldSchema>> {
        let f = self.object(value, path, "a map of field descriptors")?;
        let mut out = IndexMap::with_capacity(f.map.len());
        for (key, descriptor) in f.map {
            let p = join_path(path, key);
            if let Some(schema) = self.field(descriptor, &p) {
                out.insert(key.clone(), schema);
            }
        }
        Some(out)
    }

    fn field(&mut self, value: &Json, path: &str) -> Option<FieldSchema> {
        let mut f = self.object(value, path, "a field descriptor")?;
        let ty = match f.take("type") {
            None => None,
            Some(Json::String(s)) => Some(SchemaType::One(s.clone())),
            Some(Json::Array(names)) if names.iter().all(|n| matches!(n, Json::String(_))) => {
                Some(SchemaType::Union(
                    names
                        .iter()
                        .filter_map(|n| match n {
                            Json::String(s) => Some(s.clone()),
                            _ => None,
                        })
                        .collect(),
                ))
            }
            Some(other) => {
                let p = f.path("type");
                self.error(
                    p,
                    format!(
                        "expected a type name (a string), found {}: {other}",
                        kind(other)
                    ),
                );
                None
            }
        };
        let description = self.string(&mut f, "description");
        let format = self.string(&mut f, "format");
        let minimum = self.number(&mut f, "minimum");
        let maximum = self.number(&mut f, "maximum");
        let items = f.take("items").and_then(|v| {
            let p = f.path("items");
            self.field(v, &p).map(Box::new)
        });
        let properties = f.take("properties").and_then(|v| {
            let p = f.path("properties");
            self.properties(v, &p)
        });
        Some(FieldSchema {
            ty,
            description,
            format,
            minimum,
            maximum,
            items,
            properties,
            extra: f.extra(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
