//! The agent record of the web data extraction service, as `GET /v1/agents/{name}` returns it
//!, and the loader that reads one with precise errors.
//!
//! This crate sits at the bottom of the workspace: the generator, the runtime, the CLI and the
//! emulator all read agent records through [`AgentRecord::from_json`] (or its `Deserialize`
//! impl, which runs the same checks). It depends on serde only.
//!
//! Reading is lenient where the service is known to be loose (optional fields may be missing or
//! `null`, unknown keys are kept in `extra`) and strict where a wrong value would make generated
//! code lie: a `type` that is not a string, a `name` that is missing. Every problem found in one
//! record is reported together, each with the JSON path at fault.

pub mod diag;
pub mod files;
pub mod inputs;
pub mod json_schema;
mod load;
pub mod rules;
pub mod sample;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{Map, Value};

pub mod diff;
pub use load::{FieldError, RecordError};

/// An agent record: the body of `GET /v1/agents/{name}`, or an item of the agent list
/// (which carries only a subset of the fields).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentRecord {
    /// Unique agent identifier, used in calls.
    pub name: String,
    /// Whether the agent is publicly available.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_public: Option<bool>,
    /// Human-readable name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Maintainer marker: `nimble`, `community`, `self` (or `self_managed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub managed_by: Option<String>,
    /// What the agent does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Industry vertical.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vertical: Option<String>,
    /// Page type, for example a product detail page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity_type: Option<String>,
    /// Target website domain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// The agent's inputs (details response only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_properties: Option<Vec<InputProperty>>,
    /// Output field name to descriptor, in the order the service sent them (details only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<IndexMap<String, FieldSchema>>,
    /// Capabilities of the agent (details only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature_flags: Option<FeatureFlags>,
    /// Keys this model does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One item of `input_properties`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputProperty {
    /// Parameter name, as sent in `params`.
    pub name: String,
    /// `string`, `number` or `boolean`; other values are kept as given.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
    /// What the parameter means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the parameter must be sent.
    pub required: bool,
    /// Default used by the service when the parameter is omitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// Example values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub examples: Option<Vec<Value>>,
    /// Validation rules, written as text (for example `minimum length 1`).
    pub rules: Vec<String>,
    /// True when the parameter controls localization.
    pub is_localization_param: bool,
    /// True when the parameter controls pagination.
    pub is_pagination_param: bool,
    /// Keys this model does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `feature_flags` object.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FeatureFlags {
    /// The agent accepts location parameters (zip_code, store_id).
    pub is_localization_supported: bool,
    /// The agent accepts a pagination parameter.
    pub is_pagination_supported: bool,
    /// Keys this model does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A JSON-schema-like descriptor of one output field.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FieldSchema {
    /// The declared type.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<SchemaType>,
    /// What the field holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A format hint such as `uri`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Inclusive lower bound of a number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
    /// Inclusive upper bound of a number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum: Option<f64>,
    /// Item descriptor of an array.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Box<FieldSchema>>,
    /// Property descriptors of an object, in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<IndexMap<String, FieldSchema>>,
    /// Keys this model does not know (`enum`, `unit`, …), kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `type` of a descriptor: one name, or a list of names in the JSON Schema style
/// (`["string", "null"]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum SchemaType {
    /// `"type": "string"`.
    One(String),
    /// `"type": ["string", "null"]`.
    Union(Vec<String>),
}

impl SchemaType {
    /// The one non-`null` type name, when there is exactly one.
    pub fn single(&self) -> Option<&str> {
        match self {
            SchemaType::One(name) => Some(name),
            SchemaType::Union(names) => {
                let mut non_null = names.iter().filter(|n| n.as_str() != "null");
                match (non_null.next(), non_null.next()) {
                    (Some(only), None) => Some(only),
                    _ => None,
                }
            }
        }
    }
}

impl AgentRecord {
    /// Reads one record from JSON text, reporting every problem with its JSON path.
    ///
    /// Syntax errors carry line and column; shape errors (a missing `name`, a `type` that is not
    /// a string, a descriptor that is not an object) are all collected before returning.
    pub fn from_json(text: &str) -> Result<Self, RecordError> {
        load::record_from_json(text)
    }

    /// Reads one record from an already parsed JSON value, with the same checks as
    /// [`AgentRecord::from_json`].
    pub fn from_value(value: &Value) -> Result<Self, RecordError> {
        load::record_from_value(value)
    }

    /// True when the agent accepts localization: the feature flag, or an input marked
    /// `is_localization_param`.
    pub fn supports_localization(&self) -> bool {
        self.feature_flags
            .as_ref()
            .is_some_and(|f| f.is_localization_supported)
            || self.inputs().iter().any(|p| p.is_localization_param)
    }

    /// True when the agent accepts a pagination parameter: the feature flag, or an input marked
    /// `is_pagination_param`.
    pub fn supports_pagination(&self) -> bool {
        self.feature_flags
            .as_ref()
            .is_some_and(|f| f.is_pagination_supported)
            || self.inputs().iter().any(|p| p.is_pagination_param)
    }

    /// The input that carries the page number: the one marked `is_pagination_param`, else one
    /// named `page` when the agent supports pagination.
    pub fn pagination_param(&self) -> Option<&InputProperty> {
        self.inputs()
            .iter()
            .find(|p| p.is_pagination_param)
            .or_else(|| {
                self.supports_pagination()
                    .then(|| self.inputs().iter().find(|p| p.name == "page"))
                    .flatten()
            })
    }

    /// The input properties, empty when the record has none.
    pub fn inputs(&self) -> &[InputProperty] {
        self.input_properties.as_deref().unwrap_or_default()
    }
}

impl<'de> serde::Deserialize<'de> for AgentRecord {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        AgentRecord::from_value(&value).map_err(serde::de::Error::custom)
    }
}

/// Up to three of `candidates` near `name` (closest first, then in name order), for "did you
/// mean" messages about unknown agents; none when nothing is near.
pub fn nearest_names<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    // Near means a few edits for the name's length (rustc's measure for "did you mean"), or one
    // name containing the other (`retailer_a` for `retailer_a_pdp`).
    let budget = name.chars().count().max(3) / 3;
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let d = edit_distance(name, c);
            let contains = name.len() >= 3 && (c.contains(name) || name.contains(c));
            (d <= budget || contains).then_some((d, c))
        })
        .collect();
    scored.sort_unstable();
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

/// Levenshtein distance over chars.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = Vec::with_capacity(b.len() + 1);
        cur.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}
