//! The agent record of the web data extraction service, and the loader that reads one with
//! precise errors from any of the shapes it comes in: a `/v1` agent record
//! (`GET /v1/agents/{name}`), a `/v2` extract template record or one of its version records
//! (`input_schema` and `output_schema` as JSON Schema), or JSON Schema documents a user wrote
//! ([`files`] reads `NAME.output.schema.json` beside `NAME.input.schema.json`).
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
pub mod json;
pub mod json_schema;
mod kind;
mod load;
mod order;
pub mod rules;
#[cfg(feature = "sample")]
pub mod sample;

use std::collections::BTreeMap;

use agents_check::path::pointer_to;
use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{Map, Value};

pub mod diff;
pub use json::Json;
pub use load::{FieldError, RecordError, duplicate_keys, join_path};
pub use order::SchemaOrder;

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
    /// For a record read from JSON Schema documents (a `/v2` template or a user's schema
    /// files): the output document less its `properties`, which are in `output_schema`. It
    /// carries what the fields refer to (`$defs`) and say of the whole (`required`, `title`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_document: Option<Box<FieldSchema>>,
    /// For a record read from a `/v2` template: the version it describes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template_version: Option<TemplateVersion>,
    /// The JSON Schema documents the record was read from, as they were written.
    #[serde(skip)]
    pub written: Written,
    /// Keys this model does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The JSON Schema documents a record was read from (a `/v2` template version, a user's schema
/// files), as they were written: [`json_schema::input_schema`] and
/// [`json_schema::output_schema`] give back what was written wherever the record still says
/// what was read from it — `1` stays `1`, `false` stays `false`, draft 7's `items` list stays a
/// list — and describe only what changed since (a field a refinement added) from the record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Written {
    /// The input document, its keys in the order written.
    pub input: Option<std::sync::Arc<Json>>,
    /// The output document, its keys in the order written.
    pub output: Option<std::sync::Arc<Json>>,
    /// What the record said of the output document when it was read: compared with what it
    /// says now, it tells which descriptors changed since, without reading the document again.
    pub output_read: Option<std::sync::Arc<AsRead>>,
}

/// An output document as a record read it: its descriptors, and the rest of it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AsRead {
    /// The descriptors, by name ([`AgentRecord::output_schema`] as read).
    pub properties: Option<IndexMap<String, FieldSchema>>,
    /// The document less its properties ([`AgentRecord::output_document`] as read).
    pub rest: Option<Box<FieldSchema>>,
}

/// A bound as schemas write it and the service sends it: a whole number without a fraction
/// (`0`, not `0.0`).
fn bound<S: serde::Serializer>(value: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    value.map(rules::Num).serialize(s)
}

/// Which published version of a `/v2` extract template a record describes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TemplateVersion {
    /// The version's id.
    pub id: String,
    /// 1 for a template's first version, growing with each new one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<u64>,
    /// When it was published (RFC 3339), as sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
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
    /// Validation rules: as stated (a `/v1` record writes them as text, for example `minimum
    /// length 1`) and as read, once, when the record was read.
    pub rules: Vec<rules::InputRule>,
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

/// The schema of one value: a `/v1` output descriptor, or a JSON Schema (draft 2020-12, with
/// the draft-07 spellings) read from a `/v2` template or a user's schema file. A `/v1`
/// descriptor is JSON Schema with a few keywords, so both are read into this one model.
///
/// Keywords the generator reads have fields; any other key (`unit`, `if`, `not`, …) is kept in
/// `extra` as sent. A keyword whose value has the wrong JSON type is kept in `extra` too, and
/// the generator warns about it with its path. Boolean schemas are read as schemas that mean
/// the same: `true` as `{}`, `false` as `{"not": {}}`. The draft-07 array form of `items` is read
/// as `prefixItems`, and `definitions` as `$defs` (references to `#/definitions/…` still
/// resolve).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FieldSchema {
    /// The declared type.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<SchemaType>,
    /// A short name for the value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the field holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A format hint such as `uri`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Inclusive lower bound of a number.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "bound")]
    pub minimum: Option<f64>,
    /// Inclusive upper bound of a number.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "bound")]
    pub maximum: Option<f64>,
    /// Exclusive lower bound of a number.
    #[serde(
        rename = "exclusiveMinimum",
        skip_serializing_if = "Option::is_none",
        serialize_with = "bound"
    )]
    pub exclusive_minimum: Option<f64>,
    /// Exclusive upper bound of a number.
    #[serde(
        rename = "exclusiveMaximum",
        skip_serializing_if = "Option::is_none",
        serialize_with = "bound"
    )]
    pub exclusive_maximum: Option<f64>,
    /// The number is a multiple of this.
    #[serde(
        rename = "multipleOf",
        skip_serializing_if = "Option::is_none",
        serialize_with = "bound"
    )]
    pub multiple_of: Option<f64>,
    /// Fewest characters of a string.
    #[serde(rename = "minLength", skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Most characters of a string.
    #[serde(rename = "maxLength", skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// A regular expression a string matches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Fewest items of an array.
    #[serde(rename = "minItems", skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most items of an array.
    #[serde(rename = "maxItems", skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The values allowed.
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Vec<Value>>,
    /// The one value allowed (`Some(Value::Null)` for `"const": null`).
    #[serde(rename = "const", skip_serializing_if = "Option::is_none")]
    pub const_value: Option<Value>,
    /// The value when it is not given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// Example values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub examples: Option<Vec<Value>>,
    /// The field is deprecated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<bool>,
    /// A reference to another schema (`#/$defs/Name`).
    #[serde(rename = "$ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Named schemas that references point to (`$defs`).
    #[serde(rename = "$defs", skip_serializing_if = "Option::is_none")]
    pub defs: Option<IndexMap<String, FieldSchema>>,
    /// Named schemas under their draft-07 key, `definitions`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definitions: Option<IndexMap<String, FieldSchema>>,
    /// The value matches at least one of these.
    #[serde(rename = "anyOf", skip_serializing_if = "Option::is_none")]
    pub any_of: Option<Vec<FieldSchema>>,
    /// The value matches exactly one of these.
    #[serde(rename = "oneOf", skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<FieldSchema>>,
    /// The value matches all of these.
    #[serde(rename = "allOf", skip_serializing_if = "Option::is_none")]
    pub all_of: Option<Vec<FieldSchema>>,
    /// Item descriptor of an array.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Box<FieldSchema>>,
    /// The schemas of an array's first items, in order (a tuple).
    #[serde(rename = "prefixItems", skip_serializing_if = "Option::is_none")]
    pub prefix_items: Option<Vec<FieldSchema>>,
    /// Property descriptors of an object, in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<IndexMap<String, FieldSchema>>,
    /// Properties an object must have.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
    /// The schema of an object's keys that `properties` does not declare.
    #[serde(
        rename = "additionalProperties",
        skip_serializing_if = "Option::is_none"
    )]
    pub additional_properties: Option<Box<FieldSchema>>,
    /// Schemas of an object's keys that match a regular expression.
    #[serde(rename = "patternProperties", skip_serializing_if = "Option::is_none")]
    pub pattern_properties: Option<IndexMap<String, FieldSchema>>,
    /// Keys this model does not know (`unit`, `if`, …), kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// On a document's root: the schemas that its local references reach where this model
    /// keeps no schema (under a key it does not know, such as OpenAPI's `components`, or in
    /// `not`), by the pointer the reference writes, so that [`FieldSchema::resolve`] finds
    /// them. They are also in `extra`, as sent; nothing is serialized from here.
    #[serde(skip)]
    pub located: BTreeMap<String, FieldSchema>,
}

impl FieldSchema {
    /// The kind of value this schema allows, in a word or a few: `string`, `number|null`,
    /// `array of string`, `object` (from `properties` when `type` is absent), `untyped`.
    pub fn type_name(&self) -> String {
        let base = match &self.ty {
            Some(SchemaType::One(t)) => t.clone(),
            Some(SchemaType::Union(ts)) => ts.join("|"),
            None if self.properties.is_some() => "object".into(),
            None if self.items.is_some() => "array".into(),
            None => "untyped".into(),
        };
        match (&self.items, base.as_str()) {
            (Some(items), "array") => format!("array of {}", items.type_name()),
            _ => base,
        }
    }

    /// The keywords of this schema that constrain a value, as written (`minimum`, `pattern`,
    /// `required`, `$defs`, …): everything but its type, its properties and items (schemas of
    /// their own) and annotations (`title`, `description`, `examples`, `default`, …). A whole
    /// bound reads `0`, not `0.0`. In the order this type holds them (bounds lower before
    /// upper), as messages list them.
    pub fn rules(&self) -> IndexMap<String, Value> {
        const NOT_RULES: [&str; 11] = [
            "type",
            "properties",
            "items",
            "title",
            "description",
            "examples",
            "default",
            "deprecated",
            "$comment",
            "readOnly",
            "writeOnly",
        ];
        let mut map: IndexMap<String, Value> = match Json::of(self) {
            Ok(Json::Object(map)) => map.into_iter().map(|(k, v)| (k, v.to_value())).collect(),
            _ => IndexMap::new(),
        };
        map.retain(|k, _| !NOT_RULES.contains(&k.as_str()));
        // Bounds are kept as floating point; `0`, not `0.0`, is how a schema writes a whole one.
        for v in map.values_mut() {
            if let Some(n) = v.as_f64().filter(|n| n.fract() == 0.0 && n.abs() < 1e15) {
                *v = Value::from(n as i64);
            }
        }
        map
    }

    /// [`FieldSchema::rules`] with each keyword spelled as the draft `meta` (a document's
    /// `$schema`, [`FieldSchema::meta`]; none is draft 2020-12) spells it: before draft
    /// 2020-12 a tuple's schemas are a list under `items`, which this type holds as
    /// `prefixItems`.
    pub fn rules_in(&self, meta: Option<&str>) -> IndexMap<String, Value> {
        let rules = self.rules();
        if agents_check::draft_has(meta, "prefixItems") {
            return rules;
        }
        rules
            .into_iter()
            .map(|(k, v)| match k.as_str() {
                "prefixItems" => ("items".to_owned(), v),
                _ => (k, v),
            })
            .collect()
    }

    /// The draft a document's root declares (its `$schema`).
    pub fn meta(&self) -> Option<&str> {
        self.extra.get("$schema").and_then(Value::as_str)
    }

    /// The schema no value matches (the boolean schema `false`).
    pub fn never() -> Self {
        let mut extra = Map::new();
        extra.insert("not".into(), Value::Object(Map::new()));
        FieldSchema {
            extra,
            ..FieldSchema::default()
        }
    }

    /// True for the schema no value matches: `false`, or `{"not": {}}`.
    pub fn is_never(&self) -> bool {
        self.extra.len() == 1
            && self
                .extra
                .get("not")
                .is_some_and(|n| n.as_object().is_some_and(Map::is_empty))
            && FieldSchema {
                extra: Map::new(),
                ..self.clone()
            } == FieldSchema::default()
    }

    /// Every `type` name in this schema and the schemas inside it that JSON Schema does not
    /// define ([`TYPE_NAMES`]), with the JSON pointer of each, relative to this schema
    /// (`/properties/when/type`). A schema read from a stranger can be refused with these.
    pub fn unknown_types(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        self.unknown_types_at("", &mut out);
        out
    }

    fn unknown_types_at(&self, at: &str, out: &mut Vec<(String, String)>) {
        let names: &[String] = match &self.ty {
            Some(SchemaType::One(name)) => std::slice::from_ref(name),
            Some(SchemaType::Union(names)) => names,
            None => &[],
        };
        for (i, name) in names.iter().enumerate() {
            if !TYPE_NAMES.contains(&name.as_str()) {
                let pointer = match &self.ty {
                    Some(SchemaType::Union(_)) => format!("{at}/type/{i}"),
                    _ => format!("{at}/type"),
                };
                out.push((pointer, name.clone()));
            }
        }
        let maps = [
            ("properties", &self.properties),
            ("$defs", &self.defs),
            ("definitions", &self.definitions),
            ("patternProperties", &self.pattern_properties),
        ];
        for (key, map) in maps {
            for (name, s) in map.iter().flatten() {
                s.unknown_types_at(&pointer_to(&pointer_to(at, key), name), out);
            }
        }
        let lists = [
            ("anyOf", &self.any_of),
            ("oneOf", &self.one_of),
            ("allOf", &self.all_of),
            ("prefixItems", &self.prefix_items),
        ];
        for (key, list) in lists {
            for (i, s) in list.iter().flatten().enumerate() {
                s.unknown_types_at(&format!("{at}/{key}/{i}"), out);
            }
        }
        for (key, s) in [
            ("items", &self.items),
            ("additionalProperties", &self.additional_properties),
        ] {
            if let Some(s) = s {
                s.unknown_types_at(&format!("{at}/{key}"), out);
            }
        }
    }

    /// The named schemas of this document, `$defs` then `definitions`.
    pub fn named(&self) -> impl Iterator<Item = (&String, &FieldSchema)> {
        self.defs.iter().chain(&self.definitions).flatten()
    }

    /// The schema a local reference (`#`, `#/$defs/Name`, `#/definitions/Name`,
    /// `#/properties/a/items`, `#/components/schemas/Name`, …) points to inside this document;
    /// `None` when it points nowhere or outside the document.
    pub fn resolve(&self, reference: &str) -> Option<&FieldSchema> {
        let pointer = reference.strip_prefix('#')?;
        self.walk(pointer).or_else(|| self.located.get(pointer))
    }

    /// The schema at `pointer` (after its `#`) through the keywords this model reads.
    pub(crate) fn walk(&self, pointer: &str) -> Option<&FieldSchema> {
        if pointer.is_empty() {
            return Some(self);
        }
        let pointer = pointer.strip_prefix('/')?;
        let mut at = self;
        let mut parts = pointer.split('/').map(unescape_pointer);
        while let Some(part) = parts.next() {
            let mut key = || parts.next();
            at = match part.as_str() {
                "properties" => at.properties.as_ref()?.get(&key()?)?,
                "patternProperties" => at.pattern_properties.as_ref()?.get(&key()?)?,
                "$defs" => at.defs.as_ref()?.get(&key()?)?,
                "definitions" => at.definitions.as_ref()?.get(&key()?)?,
                "items" => at.items.as_deref()?,
                "additionalProperties" => at.additional_properties.as_deref()?,
                "prefixItems" => at
                    .prefix_items
                    .as_ref()?
                    .get(key()?.parse::<usize>().ok()?)?,
                "anyOf" => at.any_of.as_ref()?.get(key()?.parse::<usize>().ok()?)?,
                "oneOf" => at.one_of.as_ref()?.get(key()?.parse::<usize>().ok()?)?,
                "allOf" => at.all_of.as_ref()?.get(key()?.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(at)
    }
}

/// One segment of a JSON pointer, with `~1` and `~0` (and percent-escapes of a URI fragment)
/// undone.
pub fn unescape_pointer(part: &str) -> String {
    let mut bytes = Vec::with_capacity(part.len());
    let raw = part.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match raw[i] {
            b'%' if i + 2 < raw.len() => match (hex(raw[i + 1]), hex(raw[i + 2])) {
                (Some(h), Some(l)) => {
                    bytes.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => bytes.push(b'%'),
            },
            b => bytes.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&bytes)
        .replace("~1", "/")
        .replace("~0", "~")
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

/// The type names JSON Schema defines.
pub const TYPE_NAMES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

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
    /// The whole output document, read: `output_document` with the descriptors as its
    /// `properties` — what the descriptors' references (`#/$defs/…`) resolve in. For a `/v1`
    /// record, an object of its descriptors.
    pub fn output_document_read(&self) -> FieldSchema {
        let mut doc = self.output_document.as_deref().cloned().unwrap_or_default();
        doc.properties = Some(self.output_schema.clone().unwrap_or_default());
        doc
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

    /// Makes exactly `inputs` the agent's localization inputs, whatever its record says (none:
    /// the agent is not localized). `Err` names every input the record does not have, with the
    /// ones it has.
    pub fn set_localization(&mut self, inputs: &[String]) -> Result<(), String> {
        self.check_inputs(inputs.iter().map(String::as_str))?;
        for p in self.input_properties.iter_mut().flatten() {
            p.is_localization_param = inputs.contains(&p.name);
        }
        if let Some(flags) = &mut self.feature_flags {
            flags.is_localization_supported = !inputs.is_empty();
        }
        Ok(())
    }

    /// Makes `input` the agent's page number, whatever its record says (`None`: the agent does
    /// not page). `Err` when the record has no such input, or when it does not take a number.
    pub fn set_pagination(&mut self, input: Option<&str>) -> Result<(), String> {
        if let Some(name) = input {
            self.check_inputs([name])?;
            let ty = self
                .inputs()
                .iter()
                .find(|p| p.name == name)
                .and_then(|p| p.ty.as_deref());
            if !matches!(ty, None | Some("number" | "integer")) {
                return Err(format!(
                    "input `{name}` takes a {}, and a page number is a number",
                    ty.unwrap_or("value")
                ));
            }
        }
        for p in self.input_properties.iter_mut().flatten() {
            p.is_pagination_param = input == Some(p.name.as_str());
        }
        if let Some(flags) = &mut self.feature_flags {
            flags.is_pagination_supported = input.is_some();
        }
        Ok(())
    }

    fn check_inputs<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Result<(), String> {
        let missing: Vec<String> = names
            .into_iter()
            .filter(|n| !self.inputs().iter().any(|p| p.name == *n))
            .map(|n| format!("`{n}`"))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let known: Vec<&str> = self.inputs().iter().map(|p| p.name.as_str()).collect();
        Err(format!(
            "the record has no input {}; its inputs are: {}",
            missing.join(", "),
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        ))
    }

    /// The input properties, empty when the record has none.
    pub fn inputs(&self) -> &[InputProperty] {
        self.input_properties.as_deref().unwrap_or_default()
    }
}

/// " (did you mean `a`, `b`?)" naming `nearest` (from [`nearest_names`]), or nothing when
/// there are none: the one wording of every message about a name not found.
pub fn did_you_mean<S: AsRef<str>>(nearest: &[S]) -> String {
    if nearest.is_empty() {
        return String::new();
    }
    let names: Vec<String> = nearest
        .iter()
        .map(|n| format!("`{}`", n.as_ref()))
        .collect();
    format!(" (did you mean {}?)", names.join(", "))
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
