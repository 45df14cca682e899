//! The walk over a record's tree: agent records, `/v2` version records and bare JSON Schema
//! documents, each value read at its JSON path.

use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::error::{FieldError, join_path};
use crate::json::{Json, kind};
use crate::{
    AgentRecord, AsRead, FeatureFlags, FieldSchema, InputProperty, SchemaType, TemplateVersion,
    Written,
};

/// One walk over a record's tree: builds the model, tracks the JSON path, and collects every
/// problem in `errors` instead of stopping at the first.
#[derive(Default)]
pub(super) struct Reader {
    pub(super) errors: Vec<FieldError>,
    /// Keywords the draft of the document being read lacks: left unread in `extra`, as that
    /// draft's validators leave them (`agents-check` reports each with its pointer).
    lacks_const: bool,
    lacks_prefix_items: bool,
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

    /// The value of `key` when `accept` takes it; otherwise the key stays for `extra`.
    fn take_if(&mut self, key: &'static str, accept: impl Fn(&Json) -> bool) -> Option<&'v Json> {
        let value = self.map.get(key).filter(|v| accept(v))?;
        self.taken.push(key);
        Some(value)
    }

    /// A JSON Schema keyword's value when `read` takes it; otherwise the key stays for `extra`.
    fn keyword<T>(&mut self, key: &'static str, read: impl Fn(&Json) -> Option<T>) -> Option<T> {
        let value = read(self.map.get(key)?)?;
        self.taken.push(key);
        Some(value)
    }

    /// A JSON Schema keyword's text.
    fn text(&mut self, key: &'static str) -> Option<String> {
        self.keyword(key, |v| match v {
            Json::String(s) => Some(s.clone()),
            _ => None,
        })
    }

    /// A JSON Schema keyword's number.
    fn float(&mut self, key: &'static str) -> Option<f64> {
        self.keyword(key, |v| match v {
            Json::Number(n) => n.as_f64(),
            _ => None,
        })
    }

    /// A JSON Schema keyword's count (a whole number, not negative).
    fn count(&mut self, key: &'static str) -> Option<u64> {
        self.keyword(key, |v| match v {
            // `2.0` is a count too: a number with no fraction is an integer in JSON Schema.
            Json::Number(n) => n.as_u64().or_else(|| {
                let x = n.as_f64()?;
                (x >= 0.0 && x.fract() == 0.0 && x < u64::MAX as f64).then_some(x as u64)
            }),
            _ => None,
        })
    }

    /// A JSON Schema keyword's list of values.
    fn values(&mut self, key: &'static str) -> Option<Vec<Value>> {
        self.keyword(key, |v| match v {
            Json::Array(items) => Some(items.iter().map(Json::to_value).collect()),
            _ => None,
        })
    }

    /// The value of `key`, `null` included.
    fn take_any(&mut self, key: &'static str) -> Option<&'v Json> {
        let value = self.map.get(key)?;
        self.taken.push(key);
        Some(value)
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

    /// A record in whichever shape it comes: a `/v2` template record (it has a
    /// `published_version`), a `/v2` version record (its `output_schema` is a JSON Schema
    /// document: it has `input_schema`, or its `output_schema` has a `$schema` or a `type`
    /// given as text, which no `/v1` field descriptor is), or a `/v1` agent record.
    pub(super) fn any(&mut self, value: &Json) -> Option<AgentRecord> {
        let Json::Object(map) = value else {
            return self.record(value);
        };
        if matches!(map.get("published_version"), Some(Json::Object(_))) {
            return self.template(value);
        }
        let document = match map.get("output_schema") {
            Some(Json::Object(out)) => {
                out.contains_key("$schema")
                    || matches!(out.get("type"), Some(Json::String(_) | Json::Array(_)))
            }
            _ => false,
        };
        if document || map.contains_key("input_schema") {
            return self.version(value, "$", None);
        }
        self.record(value)
    }

    /// A `/v2` template record: its name, and its published version.
    fn template(&mut self, value: &Json) -> Option<AgentRecord> {
        let mut f = self.object(value, "$", "a template record")?;
        let name = self.name(&mut f, "template record");
        let published = f.take("published_version")?;
        let path = f.path("published_version");
        let mut record = self.version(published, &path, name.as_deref())?;
        for (key, value) in f.extra() {
            record.extra.entry(key).or_insert(value);
        }
        Some(record)
    }

    /// A `/v2` version record (`name` is the template's), or the same shape under a template
    /// record's `published_version` (`name` given by the template).
    pub(super) fn version(
        &mut self,
        value: &Json,
        path: &str,
        name: Option<&str>,
    ) -> Option<AgentRecord> {
        let mut f = self.object(value, path, "a template version")?;
        let own_name = match name {
            Some(_) => self.string(&mut f, "name"),
            None => self.name(&mut f, "template version"),
        };
        let name = name.map(str::to_owned).or(own_name);
        let id = self.string(&mut f, "id");
        let number = match f.take("version_number") {
            Some(Json::Number(n)) if n.as_u64().is_some() => n.as_u64(),
            Some(other) => {
                let p = f.path("version_number");
                self.error(p, format!("expected a whole number, found {}", kind(other)));
                None
            }
            None => None,
        };
        let created_at = self.string(&mut f, "created_at");
        let mut written = Written::default();
        let input = f.take("input_schema").and_then(|v| {
            let p = f.path("input_schema");
            written.input = Some(Arc::new(v.clone()));
            self.document(v, &p)
        });
        let output = f.take("output_schema").and_then(|v| {
            let p = f.path("output_schema");
            written.output = Some(Arc::new(v.clone()));
            self.document(v, &p)
        });
        let mut facts = Map::new();
        if let Some(meta) = f.take("metadata") {
            let p = f.path("metadata");
            if let Some(m) = self.object(meta, &p, "template metadata") {
                facts = m.extra();
                self.metadata_types(&facts, &p);
            }
        }
        let fact = |key: &str| facts.get(key).and_then(Value::as_str).map(str::to_owned);
        let mut extra = f.extra();
        if !facts.is_empty() {
            extra.insert("metadata".into(), Value::Object(facts.clone()));
        }
        let (input_properties, feature_flags) = match input {
            Some(doc) => {
                let flags = doc
                    .extra
                    .get("x-feature-flags")
                    .map(Json::from)
                    .and_then(|v| {
                        let p = join_path(&join_path(path, "input_schema"), "x-feature-flags");
                        self.feature_flags(&v, &p)
                    });
                (Some(crate::inputs::from_json_schema(&doc)), flags)
            }
            None => (None, None),
        };
        let (output_schema, output_document) = match output {
            Some(mut doc) => (doc.properties.take(), Some(Box::new(doc))),
            None => (None, None),
        };
        if written.output.is_some() {
            written.output_read = Some(Arc::new(AsRead {
                properties: output_schema.clone(),
                rest: output_document.clone(),
            }));
        }
        Some(AgentRecord {
            name: name?,
            is_public: None,
            display_name: fact("display_name"),
            managed_by: None,
            description: fact("description"),
            vertical: fact("vertical"),
            entity_type: fact("entity_type"),
            domain: fact("domain"),
            input_properties,
            output_schema,
            feature_flags,
            output_document,
            template_version: id.map(|id| TemplateVersion {
                id,
                number,
                created_at,
            }),
            written,
            extra,
        })
    }

    /// The facts of a template's metadata are text (or null), and its tags a list of text, as
    /// the service's own model types them: a record that breaks them is not one.
    fn metadata_types(&mut self, facts: &Map<String, Value>, path: &str) {
        const TEXTS: [&str; 6] = [
            "display_name",
            "description",
            "domain",
            "entity_type",
            "vertical",
            "data_source",
        ];
        for key in TEXTS {
            if let Some(v) = facts.get(key).filter(|v| !v.is_null() && !v.is_string()) {
                let found = crate::diag::json_kind(v);
                self.error(
                    join_path(path, key),
                    format!("expected a string, found {found}"),
                );
            }
        }
        match facts.get("tags") {
            None | Some(Value::Null) => {}
            Some(Value::Array(tags)) => {
                for (i, tag) in tags.iter().enumerate().filter(|(_, t)| !t.is_string()) {
                    let found = crate::diag::json_kind(tag);
                    self.error(
                        format!("{}[{i}]", join_path(path, "tags")),
                        format!("expected a tag as text, found {found}"),
                    );
                }
            }
            Some(other) => {
                let found = crate::diag::json_kind(other);
                self.error(
                    join_path(path, "tags"),
                    format!("expected a list of tags, found {found}"),
                );
            }
        }
    }

    fn name(&mut self, f: &mut Fields<'_>, what: &str) -> Option<String> {
        match f.take("name") {
            Some(Json::String(s)) => Some(s.clone()),
            Some(other) => {
                let path = f.path("name");
                self.error(path, format!("expected a string, found {}", kind(other)));
                None
            }
            None => {
                let path = f.path("name");
                self.error(path, format!("missing: every {what} needs a `name`"));
                None
            }
        }
    }

    fn record(&mut self, value: &Json) -> Option<AgentRecord> {
        let mut f = self.object(value, "$", "an agent record")?;
        let name = self.name(&mut f, "agent record");
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
        let output_document = f.take("output_document").and_then(|v| {
            let path = f.path("output_document");
            self.document(v, &path).map(Box::new)
        });
        let template_version = f.take("template_version").and_then(|v| {
            let path = f.path("template_version");
            let mut t = self.object(v, &path, "a template version")?;
            let id = self.string(&mut t, "id")?;
            let number = self.number(&mut t, "number").map(|n| n as u64);
            let created_at = self.string(&mut t, "created_at");
            Some(TemplateVersion {
                id,
                number,
                created_at,
            })
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
            output_document,
            template_version,
            written: Written::default(),
            extra: f.extra(),
        })
    }

    fn input(&mut self, value: &Json, path: &str) -> Option<InputProperty> {
        let mut f = self.object(value, path, "an input property")?;
        let name = self.name(&mut f, "input property");
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
                        Json::String(s) => Some(crate::rules::InputRule::read(s.as_str())),
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

    /// A schema document: [`Reader::field`], and the schemas its references reach where the
    /// model keeps none ([`FieldSchema::located`]).
    pub(super) fn document(&mut self, value: &Json, path: &str) -> Option<FieldSchema> {
        let meta = value.get("$schema").and_then(Json::as_str);
        self.lacks_const = !agents_check::draft_has(meta, "const");
        self.lacks_prefix_items = !agents_check::draft_has(meta, "prefixItems");
        let mut doc = self.field(value, path);
        if let Some(doc) = &mut doc {
            locate(doc, value, self.lacks_const, self.lacks_prefix_items);
        }
        (self.lacks_const, self.lacks_prefix_items) = (false, false);
        doc
    }

    pub(super) fn field(&mut self, value: &Json, path: &str) -> Option<FieldSchema> {
        match value {
            Json::Bool(true) => return Some(FieldSchema::default()),
            Json::Bool(false) => return Some(FieldSchema::never()),
            _ => {}
        }
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
        // Annotations and bounds change no type: one of the wrong JSON type is left in `extra`,
        // where the generator warns that it is not read, as for the keywords below.
        let description = f.text("description");
        let format = f.text("format");
        let mut minimum = f.float("minimum");
        let mut maximum = f.float("maximum");
        let (items, tuple) = match f.take("items") {
            Some(Json::Array(list)) => {
                let p = f.path("items");
                (None, Some(self.schemas(list, &p)))
            }
            Some(v) => {
                let p = f.path("items");
                (self.field(v, &p).map(Box::new), None)
            }
            None => (None, None),
        };
        let properties = f.take("properties").and_then(|v| {
            let p = f.path("properties");
            self.properties(v, &p)
        });
        // The keywords below are JSON Schema's, read the same way.
        let title = f.text("title");
        let pattern = f.text("pattern");
        let reference = f.text("$ref");
        let mut exclusive_minimum = f.float("exclusiveMinimum");
        let mut exclusive_maximum = f.float("exclusiveMaximum");
        // Draft 4 makes a bound exclusive with `true` beside it (`false` changes nothing).
        let draft4 = |v: &Json| matches!(v, Json::Bool(_));
        if let Some(Json::Bool(true)) = f.take_if("exclusiveMinimum", draft4) {
            exclusive_minimum = minimum.take();
        }
        if let Some(Json::Bool(true)) = f.take_if("exclusiveMaximum", draft4) {
            exclusive_maximum = maximum.take();
        }
        let multiple_of = f.float("multipleOf");
        let min_length = f.count("minLength");
        let max_length = f.count("maxLength");
        let min_items = f.count("minItems");
        let max_items = f.count("maxItems");
        let enum_values = f.values("enum");
        let examples = f.values("examples");
        let required = match f.take_if("required", |v| {
            matches!(v, Json::Array(names) if names.iter().all(|n| matches!(n, Json::String(_))))
        }) {
            Some(Json::Array(names)) => Some(
                names
                    .iter()
                    .filter_map(|n| match n {
                        Json::String(s) => Some(s.clone()),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        };
        let deprecated = match f.take_if("deprecated", |v| matches!(v, Json::Bool(_))) {
            Some(Json::Bool(b)) => Some(*b),
            _ => None,
        };
        // `const` and `default` take any value, `null` included.
        let const_value = if self.lacks_const {
            None
        } else {
            f.take_any("const").map(Json::to_value)
        };
        let default = f.take_any("default").map(Json::to_value);
        let any_of = self.schema_list(&mut f, "anyOf");
        let one_of = self.schema_list(&mut f, "oneOf");
        let all_of = self.schema_list(&mut f, "allOf");
        let prefix_items = if self.lacks_prefix_items {
            tuple
        } else {
            self.schema_list(&mut f, "prefixItems").or(tuple)
        };
        let defs = self.schema_map(&mut f, "$defs");
        let definitions = self.schema_map(&mut f, "definitions");
        let pattern_properties = self.schema_map(&mut f, "patternProperties");
        let additional_properties = match f.take_if("additionalProperties", |v| {
            matches!(v, Json::Object(_) | Json::Bool(_))
        }) {
            Some(v) => {
                let p = f.path("additionalProperties");
                self.field(v, &p).map(Box::new)
            }
            None => None,
        };
        Some(FieldSchema {
            ty,
            title,
            description,
            format,
            minimum,
            maximum,
            exclusive_minimum,
            exclusive_maximum,
            multiple_of,
            min_length,
            max_length,
            pattern,
            min_items,
            max_items,
            enum_values,
            const_value,
            default,
            examples,
            deprecated,
            reference,
            defs,
            definitions,
            any_of,
            one_of,
            all_of,
            items,
            prefix_items,
            properties,
            required,
            additional_properties,
            pattern_properties,
            extra: f.extra(),
            located: Default::default(),
        })
    }

    fn schema_list(&mut self, f: &mut Fields<'_>, key: &'static str) -> Option<Vec<FieldSchema>> {
        match f.take_if(key, |v| matches!(v, Json::Array(_)))? {
            Json::Array(list) => Some(self.schemas(list, &f.path(key))),
            _ => None,
        }
    }

    fn schema_map(
        &mut self,
        f: &mut Fields<'_>,
        key: &'static str,
    ) -> Option<IndexMap<String, FieldSchema>> {
        let value = f.take_if(key, |v| matches!(v, Json::Object(_)))?;
        self.properties(value, &f.path(key))
    }

    /// A list of schemas (`anyOf`, `prefixItems`, …); an item that is not a schema is an error
    /// at its index.
    fn schemas(&mut self, list: &[Json], path: &str) -> Vec<FieldSchema> {
        list.iter()
            .enumerate()
            .filter_map(|(i, item)| self.field(item, &format!("{path}[{i}]")))
            .collect()
    }
}

/// Reads the schemas that the local references of document `tree` reach where `doc`, its
/// model, keeps none (`FieldSchema::located`), in the document's draft. A target that does not
/// read as a schema stays unresolved, as one that is not there.
fn locate(doc: &mut FieldSchema, tree: &Json, lacks_const: bool, lacks_prefix_items: bool) {
    let mut stack = vec![tree];
    let mut references = Vec::new();
    while let Some(node) = stack.pop() {
        match node {
            Json::Object(map) => {
                if let Some(Json::String(r)) = map.get("$ref")
                    && let Some(pointer) = r.strip_prefix('#')
                    && pointer.starts_with('/')
                {
                    references.push(pointer);
                }
                stack.extend(map.values());
            }
            Json::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    for pointer in references {
        if doc.located.contains_key(pointer) || doc.walk(pointer).is_some() {
            continue;
        }
        let mut at = Some(tree);
        for part in pointer[1..].split('/').map(crate::unescape_pointer) {
            at = match at {
                Some(Json::Object(map)) => map.get(&part),
                Some(Json::Array(items)) => part.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
        }
        let mut reader = Reader {
            lacks_const,
            lacks_prefix_items,
            ..Reader::default()
        };
        if let Some(target @ (Json::Object(_) | Json::Bool(_))) = at
            && let Some(schema) = reader.field(target, "$")
            && reader.errors.is_empty()
        {
            doc.located.insert(pointer.to_owned(), schema);
        }
    }
}
