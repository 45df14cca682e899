//! Lowering a record's output: its types named in the agent's own namespace, its fields
//! resolved, the schema problems and name clashes of every agent collected together.

use std::collections::{BTreeMap, HashMap};

use agents_check::path::pointer_to as pointer;
use agents_schema::diag::{Collector, Diagnostic, Diagnostics};
use agents_schema::{AgentRecord, FieldSchema};
use indexmap::IndexMap;

use super::documents::{check_options, placed, schema_text};
use super::params::lower_params;
use super::{AgentIr, EnumIr, FieldIr, MapIr, StructIr, UnionIr, Unit, VariantIr};
use crate::docs;
use crate::naming::{self, Namespace};
use crate::types::{self, Shape, Ty};

/// Lowers records to the intermediate model, or reports every problem found. `renames` maps an
/// agent name to the type name its record takes instead of the one derived from the agent name.
///
/// An agent's type names come from that agent alone (its own namespace), so adding an agent to a
/// module never renames another agent's types; two agents whose names would clash in one module
/// are a diagnostic naming both and the rename that fixes it.
pub fn lower(
    records: &[&AgentRecord],
    renames: &BTreeMap<String, String>,
    documents: &BTreeMap<String, std::path::PathBuf>,
) -> Result<Unit, Diagnostics> {
    let mut found = Collector::default();
    let mut warnings = Vec::new();
    let mut by_name: BTreeMap<&str, &AgentRecord> = BTreeMap::new();
    for r in records {
        if r.name.trim().is_empty() {
            found.push(Diagnostic::new(
                &r.name,
                "$.name",
                "the agent name is empty; every record needs the name it is called by",
            ));
        } else if by_name.contains_key(r.name.as_str()) {
            found.push(Diagnostic::new(
                &r.name,
                "$.name",
                "two records have this agent name",
            ));
        } else {
            by_name.insert(r.name.as_str(), r);
        }
    }
    for (agent, ty) in renames {
        if !by_name.contains_key(agent.as_str()) {
            found.push(Diagnostic::new(
                agent,
                "rename",
                "a rename names this agent, which is not among the agents generated",
            ));
        } else if !naming::is_type_name(ty) {
            found.push(Diagnostic::new(
                agent,
                "rename",
                &format!(
                    "{ty:?} is not a type name for the agent's record: use UpperCamelCase \
                     letters and digits, not a name of the prelude"
                ),
            ));
        }
    }

    // Which agent claimed each type and module name of the module, to report clashes.
    let mut owners: BTreeMap<String, &str> = BTreeMap::new();
    let mut agents = Vec::with_capacity(by_name.len());
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for record in by_name.values() {
        let base = renames
            .get(&record.name)
            .cloned()
            .unwrap_or_else(|| naming::type_base(&[&record.name]));
        let mut types = Namespace::types(naming::RESERVED_TYPES);
        let root = types.claim(&base);
        let params = types.claim(&naming::type_base(&[&base, "Params"]));
        let module = naming::field_base(renames.get(&record.name).unwrap_or(&record.name));
        let params = lower_params(record, params, &root, documents, &mut warnings);
        // In the record's order: the schema text a type carries is what `publish` sends, and
        // a template made from it gives its fields in that order.
        let written = agents_schema::json_schema::output_schema(record);
        let output_schema = check_schema(record, &written, documents, &mut found, &mut warnings);
        for file in output_schema.files() {
            if !files.contains(file) {
                files.push(file.clone());
            }
        }
        let mut structs = Vec::new();
        let mut enums = Vec::new();
        let mut unions = Vec::new();
        // The document references resolve in: a JSON Schema record's own, or for a `/v1`
        // record an object of its descriptors. A reference by URI, anchor or to another
        // document is lowered as the JSON pointer it resolves to, the documents it reaches
        // embedded under `$defs`.
        // Localized as values, then put back in the order the schema and the files it
        // embeds wrote their keys.
        let mut embedded = Vec::new();
        let localized = match output_schema.localized_from_files() {
            (std::borrow::Cow::Owned(v), files) if v != *output_schema.document() => {
                embedded = (files.iter())
                    .map(|f| (f.pointer.clone(), f.file.to_path_buf()))
                    .collect();
                Some(agents_schema::Json::arranged_from_files(
                    &v, &written, &files,
                ))
            }
            _ => None,
        };
        let doc = match localized.as_ref().map(FieldSchema::from_tree) {
            Some(Ok(doc)) => doc,
            _ => record.output_document_read(),
        };
        let mut lowerer = Lowerer {
            agent: &record.name,
            doc: &doc,
            types: &mut types,
            structs: &mut structs,
            enums: &mut enums,
            unions: &mut unions,
            named: HashMap::new(),
            open: vec!["#".to_owned()],
            open_merged: Vec::new(),
            depth: 0,
            embedded: &embedded,
            draft: output_schema.draft(),
            meta: output_schema
                .document()
                .get("$schema")
                .and_then(serde_json::Value::as_str),
            warnings: &mut warnings,
        };
        lowerer.named.insert("#".to_owned(), Ty::Struct(0));
        let record_docs = docs::record(record, &root, &params.ident);
        match lowerer.root() {
            Some((schema, at)) => lowerer.object(root.clone(), record_docs, &schema, &at, true),
            None => lowerer.object(root.clone(), record_docs, &doc, "#", true),
        };
        for s in &mut structs {
            s.fields_ident = types.claim(&naming::type_base(&[&s.ident, "Fields"]));
        }
        let names = structs
            .iter()
            .flat_map(|s| [("type", s.ident.clone()), ("type", s.fields_ident.clone())])
            .chain(enums.iter().map(|e| ("type", e.ident.clone())))
            .chain(unions.iter().map(|u| ("type", u.ident.clone())))
            .chain([("type", params.ident.clone()), ("module", module.clone())]);
        // The names this agent shares with each agent lowered before it.
        let mut clashes: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for (what, name) in names {
            match owners.get(&name) {
                Some(other) => clashes
                    .entry(other)
                    .or_default()
                    .push(format!("{what} `{name}`")),
                None => {
                    owners.insert(name, &record.name);
                }
            }
        }
        for (other, names) in clashes {
            found.push(clash(&names, other, &record.name, &base));
        }
        let page = params
            .fields
            .iter()
            .position(|p| p.ty == Ty::Page && record.supports_pagination());
        agents.push(AgentIr {
            name: record.name.clone(),
            module,
            structs,
            enums,
            unions,
            version: record.template_version.clone(),
            params,
            localized: record.supports_localization(),
            page,
            output_schema: schema_text(&written.standalone(&output_schema)),
            input_schema: schema_text(&carried_input(record, documents, &mut files)),
        });
    }

    found.finish_warned(warnings, |warnings| Unit {
        agents,
        warnings,
        files,
    })
}

/// The input schema a generated type carries and `publish` sends, standing alone: what its
/// references read from other documents embedded, as for the output (the service cannot read
/// the user's files). Compiled only when it refers outside itself; its problems are said where
/// `validate()`'s document is compiled. The files it reads join `files`.
fn carried_input(
    record: &AgentRecord,
    documents: &BTreeMap<String, std::path::PathBuf>,
    files: &mut Vec<std::path::PathBuf>,
) -> agents_schema::Json {
    let written = agents_schema::json_schema::input_schema(record);
    if !refers_outside(&written) {
        return written;
    }
    let compiled = check_options(documents).compile_owned(written.to_value());
    for file in compiled.files() {
        if !files.contains(file) {
            files.push(file.clone());
        }
    }
    written.standalone(&compiled)
}

/// Whether a `$ref` or `$dynamicRef` in `schema` names something other than a fragment of its
/// own document (another file, or a resource it embeds by `$id`).
fn refers_outside(schema: &agents_schema::Json) -> bool {
    use agents_schema::Json;
    match schema {
        Json::Object(map) => map.iter().any(|(key, value)| match (key.as_str(), value) {
            ("$ref" | "$dynamicRef", Json::String(target)) => !target.starts_with('#'),
            _ => refers_outside(value),
        }),
        Json::Array(items) => items.iter().any(refers_outside),
        _ => false,
    }
}

/// The problems of the output schema that the record carries and checks: a `type` no value has
/// is an error (the field's type would be wrong: `"strng"` is a typo to fix, not a value to
/// take as raw JSON), and so is a key a referenced file gives twice; a pattern that does not compile, an `$id` that does not parse, a keyword
/// of another draft are warnings (a check is missing, the type is right). References that point
/// nowhere are the lowerer's to report, where it says what the field becomes.
fn check_schema(
    record: &AgentRecord,
    written: &agents_schema::Json,
    documents: &BTreeMap<String, std::path::PathBuf>,
    found: &mut Collector,
    warnings: &mut Vec<Diagnostic>,
) -> agents_check::Schema {
    use agents_check::ProblemKind;
    let schema = check_options(documents).compile_owned(written.to_value());
    for problem in schema.problems() {
        let diagnostic = |message: &str| placed(&record.name, problem, "output_schema", message);
        match problem.kind {
            ProblemKind::UnknownType => {
                found.push(diagnostic(&format!(
                    "{}; fix the type's name",
                    problem.message
                )));
            }
            ProblemKind::RepeatedKey => found.push(diagnostic(&problem.message)),
            // A reference the lowerer follows is its to report, where it says what the field
            // becomes.
            ProblemKind::Reference => {}
            _ => warnings.push(diagnostic(&problem.message)),
        }
    }
    schema
}

/// Two agents of one module would declare the same names.
fn clash(names: &[String], first: &str, second: &str, base: &str) -> Diagnostic {
    Diagnostic::new(
        second,
        "$.name",
        &format!(
            "its {} would also be generated for agent `{first}` in the same module; give one of \
             them another type name: `Options::default().rename(\"{second}\", \"{base}Agent\")` in `Builder::options`, \
             `agent!(\"{second}\", rename = \"{base}Agent\")` or \
             `cargo agents generate --rename {second}={base}Agent`",
            names.join(", ")
        ),
    )
}

struct Lowerer<'a> {
    agent: &'a str,
    /// The document references resolve in.
    doc: &'a FieldSchema,
    types: &'a mut Namespace,
    structs: &'a mut Vec<StructIr>,
    enums: &'a mut Vec<EnumIr>,
    unions: &'a mut Vec<UnionIr>,
    /// The type each reference was lowered to, so a definition is generated once.
    named: HashMap<String, Ty>,
    /// References being lowered (a reference to one of them closes a recursion).
    open: Vec<String>,
    /// Merged schemas (unions of objects, `allOf`s) being lowered, by their content, with the
    /// type each is lowered to: a merge copies what its references point to, so a recursion
    /// through one (vega-lite's `layer` items, `anyOf` of its layer and unit specs) never meets
    /// a reference in `open`; meeting the same merged content inside itself closes it.
    open_merged: Vec<(String, Ty)>,
    /// How many structs enclose the one being lowered.
    depth: usize,
    /// Where in `doc` each document read from a file is embedded, and the file.
    embedded: &'a [(String, std::path::PathBuf)],
    /// The draft the schema declares: a keyword of the other draft types nothing, as it
    /// checks nothing.
    draft: agents_check::Draft,
    /// The metaschema it declares, for what its draft lacks (`agents_check::draft_has`).
    meta: Option<&'a str>,
    warnings: &'a mut Vec<Diagnostic>,
}

/// How many structs deep generated types nest; deeper values are kept as raw JSON. Each level
/// is two or three types deep for the compiler (`Option<Vec<Item>>`), whose trait checks stop at
/// 128.
const MAX_NESTING: usize = 32;

/// JSON Schema keywords that change what a value may be and that neither the generated types
/// express nor the decode pass checks (`not`, `if`, `unevaluated*`, … are checked); a schema
/// using one gets a warning, and its value is typed by the rest.
const UNREAD_KEYWORDS: &[&str] = &["$recursiveRef"];

/// Keywords the generator reads whose value's JSON type the schema's compile does not judge
/// (those holding subschemas, and `deprecated`), found with a value of the wrong type (and so
/// left in `extra`). The others are the compile's to report (`ProblemKind::WrongKind`), for
/// every schema a program checks.
const TYPED_KEYWORDS: &[&str] = &[
    "$defs",
    "definitions",
    "anyOf",
    "oneOf",
    "allOf",
    "prefixItems",
    "additionalProperties",
    "patternProperties",
    "deprecated",
];

impl Lowerer<'_> {
    /// A warning at JSON pointer `at` of the output document, spelled `output_schema#/…`
    /// whether `at` came with its `#` (a field's) or without (a reference target's); or, when
    /// `at` is inside a document a reference read from a file (embedded under `$defs`), at its
    /// pointer in that file, where the user goes to fix it.
    fn warn(&mut self, at: &str, message: String) {
        let at = at.strip_prefix('#').unwrap_or(at);
        let in_file = self.embedded.iter().find_map(|(root, file)| {
            let rest = at.strip_prefix(root.as_str())?;
            (rest.is_empty() || rest.starts_with('/')).then_some((rest, file))
        });
        self.warnings.push(match in_file {
            Some((rest, file)) => {
                Diagnostic::new(self.agent, &format!("#{rest}"), &message).file(file)
            }
            None => Diagnostic::new(self.agent, &format!("output_schema#{at}"), &message),
        });
    }

    /// Warns about the keywords of `schema` (at JSON pointer `at`) that its type does not
    /// express.
    fn check_keywords(&mut self, schema: &FieldSchema, at: &str) {
        for (key, value) in &schema.extra {
            let key = key.as_str();
            // A keyword the schema's draft lacks is reported by the schema's compile.
            if (key == "not" && schema.is_never()) || !agents_check::draft_has(self.meta, key) {
                continue;
            }
            if UNREAD_KEYWORDS.contains(&key) {
                self.warn(
                    &pointer(at, key),
                    format!(
                        "`{key}` is not expressed in the generated type; the value is typed by \
                         the rest of its schema, and nothing sent is lost"
                    ),
                );
            } else if TYPED_KEYWORDS.contains(&key) {
                self.warn(
                    &pointer(at, key),
                    format!(
                        "`{key}` has a value of the wrong kind ({}), so it is not read; fix the \
                         schema to have it used",
                        agents_schema::diag::json_kind(value)
                    ),
                );
            }
        }
    }

    /// The object schema the agent's record is generated from, and its pointer, when it is not
    /// the document itself: a document without properties of its own leads to its record through
    /// its `$ref` (references back to that definition then mean the record), its merged `allOf`,
    /// its one non-null `anyOf`/`oneOf` branch, or a union of object schemas
    /// ([`types::union_object`]). A root that leads to no object is a warning; the record then
    /// keeps every key in its unknown fields.
    fn root(&mut self) -> Option<(FieldSchema, String)> {
        let doc = self.doc;
        let mut current: Option<(FieldSchema, String)> = None;
        // Chains are followed a bounded number of times (a cycle of references ends here).
        for _ in 0..32 {
            let (schema, at) = match &current {
                Some((schema, at)) => (schema, at.as_str()),
                None => (doc, ""),
            };
            if schema.properties.as_ref().is_some_and(|p| !p.is_empty()) && schema.all_of.is_none()
            {
                return current;
            }
            let next = match types::classify(schema, doc).0 {
                Shape::Object(_) => return current,
                Shape::Ref(r) => match doc.resolve(r) {
                    Some(target) => {
                        self.named.insert(r.to_owned(), Ty::Struct(0));
                        self.open.push(r.to_owned());
                        (target.clone(), r.strip_prefix('#').unwrap_or(r).to_owned())
                    }
                    None => {
                        self.warn(
                            &pointer(at, "$ref"),
                            format!(
                                "the record's reference {r:?} points nowhere in this document; \
                                 the record keeps every key it is sent in its unknown fields"
                            ),
                        );
                        return current;
                    }
                },
                Shape::Merged(merged) => (*merged, at.to_owned()),
                Shape::Branch(keyword, i, branch) => (
                    branch.clone(),
                    pointer(&pointer(at, keyword), &i.to_string()),
                ),
                Shape::MapOf(_) | Shape::Leaf(Ty::Map) => return current,
                _ => match types::union_object(schema, doc) {
                    Some(object) => (object, at.to_owned()),
                    None => {
                        self.warn(
                            at,
                            "the record's schema describes no object with properties; the \
                             record keeps every key it is sent in its unknown fields"
                                .to_owned(),
                        );
                        return current;
                    }
                },
            };
            current = Some(next);
        }
        current
    }

    /// Whether a struct at pointer `at` would nest deeper than [`MAX_NESTING`]; warns if so.
    fn too_deep(&mut self, at: &str) -> bool {
        if self.depth < MAX_NESTING {
            return false;
        }
        self.warn(
            at,
            format!(
                "objects nested more than {MAX_NESTING} deep are kept as raw JSON (the compiler's \
                 trait checks stop at 128 levels of types, and serde_json's decoding at 128 \
                 levels of JSON)"
            ),
        );
        true
    }

    /// Adds a struct for an object schema (at pointer `at`); returns its index.
    fn object(
        &mut self,
        ident: String,
        docs: Vec<String>,
        schema: &FieldSchema,
        at: &str,
        root: bool,
    ) -> usize {
        let index = self.structs.len();
        self.structs.push(StructIr {
            ident: ident.clone(),
            docs,
            fields: Vec::new(),
            maps: Vec::new(),
            root,
            fields_ident: String::new(),
        });
        self.depth += 1;
        let (fields, maps) = self.fields(&ident, schema, at);
        self.depth -= 1;
        if let Some(s) = self.structs.get_mut(index) {
            s.fields = fields;
            s.maps = maps;
        }
        index
    }

    fn fields(
        &mut self,
        ident: &str,
        schema: &FieldSchema,
        at: &str,
    ) -> (Vec<FieldIr>, Vec<MapIr>) {
        let mut names = Namespace::values(naming::RECORD_FIELDS);
        let empty = IndexMap::new();
        let props = schema.properties.as_ref().unwrap_or(&empty);
        let required = schema.required.as_deref().unwrap_or_default();
        let mut fields = Vec::with_capacity(props.len());
        for (json, field) in props {
            let field_ident = names.claim(&naming::field_base(json));
            let here = pointer(&pointer(at, "properties"), json);
            let (ty, note) = self.ty(ident, json, field, &here);
            let required = required.contains(json) && ty != Ty::Any && !types::nullable(field);
            fields.push(FieldIr {
                docs: docs::field(
                    json,
                    &field_ident,
                    described(self.doc, field),
                    types::kind_text(&ty),
                    required,
                    note.as_deref(),
                ),
                json: json.clone(),
                ident: field_ident,
                ty,
                required,
            });
        }
        let maps = if props.is_empty() {
            Vec::new()
        } else {
            self.maps(ident, schema, at, &mut names)
        };
        (fields, maps)
    }

    /// The typed maps of an object with properties: one per `patternProperties` entry, then one
    /// for every other key when `additionalProperties` (or else `unevaluatedProperties`) types
    /// them. A map whose values could be anything adds nothing to `unknown_fields`, so there is
    /// none for it.
    fn maps(
        &mut self,
        ident: &str,
        schema: &FieldSchema,
        at: &str,
        names: &mut Namespace,
    ) -> Vec<MapIr> {
        let unevaluated = (schema.extra)
            .get("unevaluatedProperties")
            .filter(|_| self.draft == agents_check::Draft::Draft2020)
            .and_then(|v| FieldSchema::from_document(v).ok());
        let mut wanted: Vec<(String, &str, String, &FieldSchema)> = Vec::new();
        for (pattern, values) in schema.pattern_properties.iter().flatten() {
            wanted.push((
                pattern.clone(),
                "pattern_properties",
                pointer(&pointer(at, "patternProperties"), pattern),
                values,
            ));
        }
        match (&schema.additional_properties, &unevaluated) {
            (Some(values), _) => wanted.push((
                String::new(),
                "additional_properties",
                pointer(at, "additionalProperties"),
                values,
            )),
            (None, Some(values)) => wanted.push((
                String::new(),
                "unevaluated_properties",
                pointer(at, "unevaluatedProperties"),
                values,
            )),
            (None, None) => {}
        }
        let mut maps = Vec::new();
        for (keys, base, here, values) in wanted {
            if values.is_never() {
                continue;
            }
            let (ty, note) = self.ty(ident, base, values, &here);
            if ty == Ty::Any {
                continue;
            }
            let ty = unboxed(ty);
            let field_ident = names.claim(base);
            maps.push(MapIr {
                docs: docs::map_field(&keys, base, values, types::kind_text(&ty), note.as_deref()),
                keys,
                ident: field_ident,
                ty,
            });
        }
        maps
    }

    /// The type of the value `json` of type `parent` with schema `schema` at pointer `at`.
    fn ty(
        &mut self,
        parent: &str,
        json: &str,
        schema: &FieldSchema,
        at: &str,
    ) -> (Ty, Option<String>) {
        self.check_keywords(schema, at);
        let (shape, note) = types::classify(schema, self.doc);
        if matches!(shape, Shape::Object(_)) && self.too_deep(at) {
            return (Ty::Any, Some(docs::too_deep(MAX_NESTING)));
        }
        let ty = match shape {
            Shape::Leaf(ty) => ty,
            Shape::Array(None) => Ty::Array(Box::new(Ty::Any)),
            Shape::Array(Some(items)) => {
                let here = pointer(at, "items");
                let (shape, _) = types::classify(items, self.doc);
                if let Shape::Object(_) = shape
                    && self.too_deep(&here)
                {
                    Ty::Array(Box::new(Ty::Any))
                } else if let Shape::Object(object) = shape {
                    self.check_keywords(items, &here);
                    let ident = self
                        .types
                        .claim(&naming::nested_type_base(parent, &[json, "Item"]));
                    let docs = docs::nested(parent, json, items, true);
                    Ty::Array(Box::new(Ty::Struct(
                        self.object(ident, docs, object, &here, false),
                    )))
                } else {
                    // Arrays of arrays name their inner types after the same field.
                    let (inner, _) = self.ty(parent, json, items, &here);
                    Ty::Array(Box::new(unboxed(inner)))
                }
            }
            Shape::Object(object) => {
                let ident = self.types.claim(&naming::nested_type_base(parent, &[json]));
                let docs = docs::nested(parent, json, schema, false);
                Ty::Struct(self.object(ident, docs, object, at, false))
            }
            Shape::MapOf(values) => {
                let key = if schema.additional_properties.is_some() {
                    pointer(at, "additionalProperties")
                } else {
                    pointer(at, "patternProperties")
                };
                let (inner, _) = self.ty(parent, &format!("{json}_value"), values, &key);
                Ty::MapOf(Box::new(unboxed(inner)))
            }
            Shape::Enum(values) => {
                let ident = self.types.claim(&naming::nested_type_base(parent, &[json]));
                let docs = docs::nested_enum(parent, json, schema);
                self.string_enum(ident, docs, &values)
            }
            Shape::Branch(keyword, i, branch) => {
                let here = pointer(&pointer(at, keyword), &i.to_string());
                return self.ty(parent, json, branch, &here);
            }
            Shape::Merged(merged) => return self.merged(parent, json, &merged, at),
            Shape::Union(keyword, branches) => {
                return self.union(parent, json, schema, keyword, &branches, at);
            }
            Shape::Ref(r) => return self.reference(r, at),
        };
        (ty, note)
    }

    /// The type of a merged schema (the field `json` of `parent`, at pointer `at`): an object
    /// is a struct that refers back to itself where its content recurs inside it (`Box`ed, as a
    /// reference closing a recursion is); anything else is typed as it classifies.
    fn merged(
        &mut self,
        parent: &str,
        json: &str,
        merged: &FieldSchema,
        at: &str,
    ) -> (Ty, Option<String>) {
        let key = serde_json::to_string(merged).unwrap_or_default();
        if let Some((_, ty)) = self.open_merged.iter().find(|(open, _)| *open == key) {
            return (Ty::Boxed(Box::new(ty.clone())), None);
        }
        let Shape::Object(object) = types::classify(merged, self.doc).0 else {
            return self.ty(parent, json, merged, at);
        };
        self.check_keywords(merged, at);
        if self.too_deep(at) {
            return (Ty::Any, Some(docs::too_deep(MAX_NESTING)));
        }
        let ident = self.types.claim(&naming::nested_type_base(parent, &[json]));
        let docs = docs::nested(parent, json, merged, false);
        self.open_merged.push((key, Ty::Struct(self.structs.len())));
        let ty = Ty::Struct(self.object(ident, docs, object, at, false));
        self.open_merged.pop();
        (ty, None)
    }

    /// The type of a union of kinds of value (the field `json` of `parent`, at pointer `at`):
    /// an enum with a variant per kind, named after the field unless a variant's own type took
    /// that name (then `…Union`).
    fn union(
        &mut self,
        parent: &str,
        json: &str,
        schema: &FieldSchema,
        keyword: &'static str,
        branches: &[(usize, &FieldSchema)],
        at: &str,
    ) -> (Ty, Option<String>) {
        let kinds = match types::union_plan(keyword, branches, self.doc) {
            types::UnionPlan::Raw(note) => return (Ty::Any, Some(note)),
            types::UnionPlan::One(one) => return self.merged(parent, json, &one, at),
            types::UnionPlan::Kinds(kinds) => kinds,
        };
        let mut variants = Vec::with_capacity(kinds.len());
        for (kind, branch, below) in kinds {
            let (ty, _) = self.ty(parent, json, &branch, &format!("{at}{below}"));
            if ty == Ty::Any {
                // A variant that takes any value would take every kind: the union is raw JSON.
                return (Ty::Any, Some(docs::untyped_union(keyword, branches.len())));
            }
            variants.push((
                kind.variant().to_owned(),
                ty,
                docs::union_variant(kind.variant()),
            ));
        }
        let base = naming::nested_type_base(parent, &[json]);
        let ident = if self.types.is_free(&base) {
            self.types.claim(&base)
        } else {
            self.types
                .claim(&naming::nested_type_base(parent, &[json, "Union"]))
        };
        self.unions.push(UnionIr {
            ident,
            docs: docs::nested_union(parent, json, schema),
            variants,
        });
        (Ty::Union(self.unions.len() - 1), None)
    }

    fn string_enum(&mut self, ident: String, docs: Vec<String>, values: &[&str]) -> Ty {
        let mut names = Namespace::types(&["Unknown", "Self"]);
        let variants = values
            .iter()
            .map(|v| VariantIr {
                json: (*v).to_owned(),
                ident: names.claim(&naming::variant_base(v)),
            })
            .collect();
        self.enums.push(EnumIr {
            ident,
            docs,
            variants,
        });
        Ty::Enum(self.enums.len() - 1)
    }

    /// The type of a reference `r` (met at pointer `at`): the type of what it points to,
    /// generated once and named after its definition; `Box`ed where it closes a recursion.
    fn reference(&mut self, r: &str, at: &str) -> (Ty, Option<String>) {
        if let Some(ty) = self.named.get(r).cloned() {
            if self.open.iter().any(|o| o == r) {
                return (Ty::Boxed(Box::new(ty)), None);
            }
            return (ty, None);
        }
        let doc = self.doc;
        let Some(target) = doc.resolve(r) else {
            self.warn(
                &pointer(at, "$ref"),
                format!(
                    "the reference {r:?} points nowhere: fix it, or map the URI prefix of the \
                     document it names to a directory of files (`Options::documents`, \
                     `agent!(…, documents = …)`, `cargo agents generate --documents`); the value \
                     is kept as raw JSON"
                ),
            );
            return (
                Ty::Any,
                Some("The schema refers to a definition this document does not have; the value is kept as raw JSON.".to_owned()),
            );
        };
        if self.open.iter().any(|o| o == r) {
            self.warn(
                &pointer(at, "$ref"),
                format!(
                    "the reference {r:?} closes a recursion through a schema that is not an \
                     object; the value is kept as raw JSON"
                ),
            );
            return (
                Ty::Any,
                Some(
                    "The schema refers back to itself here; the value is kept as raw JSON."
                        .to_owned(),
                ),
            );
        }
        let name = r.rsplit('/').next().unwrap_or(r);
        let name = agents_schema::unescape_pointer(name);
        // Definitions are named after the agent's record (`ShopSeller` for `Seller`), like its
        // other nested types, so that two agents of one module never declare the same type
        // and a rename of the record renames them too.
        let root = self
            .structs
            .first()
            .map(|s| s.ident.clone())
            .unwrap_or_default();
        let base = naming::nested_type_base(&root, &[&name]);
        let target_at = r.strip_prefix('#').unwrap_or(r).to_owned();
        self.open.push(r.to_owned());
        let ty = match types::classify(target, doc) {
            (Shape::Object(_), _) if self.too_deep(&target_at) => Ty::Any,
            (Shape::Object(object), _) => {
                let ident = self.types.claim(&base);
                let index = self.structs.len();
                self.named.insert(r.to_owned(), Ty::Struct(index));
                self.check_keywords(target, &target_at);
                let docs = docs::definition(&name, target);
                Ty::Struct(self.object(ident, docs, object, &target_at, false))
            }
            (Shape::Enum(values), _) => {
                let ident = self.types.claim(&base);
                let docs = docs::definition(&name, target);
                self.string_enum(ident, docs, &values)
            }
            _ => self.ty(&base, "", target, &target_at).0,
        };
        self.open.pop();
        self.named.insert(r.to_owned(), ty.clone());
        (ty, None)
    }
}

/// The schema whose words document a field: its own, or when it has no description, what its
/// reference points to or its one non-null `anyOf`/`oneOf` branch.
fn described<'d>(doc: &'d FieldSchema, field: &'d FieldSchema) -> &'d FieldSchema {
    if field.description.is_some() {
        return field;
    }
    if let Some(r) = &field.reference {
        return doc.resolve(r).unwrap_or(field);
    }
    match types::classify(field, doc).0 {
        Shape::Branch(_, _, branch) => described(doc, branch),
        _ => field,
    }
}

/// A list's item or a map's value without the `Box` that closed a recursion: the list or map
/// already holds it on the heap, so `Vec<Item>` is the type a person would write.
fn unboxed(ty: Ty) -> Ty {
    match ty {
        Ty::Boxed(inner) => *inner,
        other => other,
    }
}
