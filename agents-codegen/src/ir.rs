//! Agent records lowered to the intermediate model: every Rust name claimed, every type resolved,
//! every doc line made safe. This is the "check" stage; problems are collected across all agents
//! and reported together.

use std::collections::BTreeMap;

use agents_schema::{AgentRecord, FieldSchema, InputProperty};
use indexmap::IndexMap;
use serde_json::Value;

use crate::docs;
use crate::naming::{self, Namespace};
use crate::rules::{self, Parsed, Rule};
use crate::types::{self, ParamTy, Shape, Ty};
use agents_schema::diag::{Collector, Diagnostic, Diagnostics};

/// Every agent of one generated module.
#[derive(Debug, Clone)]
pub struct Unit {
    /// Agents sorted by name.
    pub agents: Vec<AgentIr>,
    /// Recoverable defects of the records, handled and reported (an input declared twice).
    pub warnings: Vec<Diagnostic>,
}

/// One agent: its output record (and nested types), its params, its capabilities.
#[derive(Debug, Clone)]
pub struct AgentIr {
    /// The agent name used in calls.
    pub name: String,
    /// A snake_case module / file name for the agent, unique in the unit.
    pub module: String,
    /// Output record first, then nested types in schema order.
    pub structs: Vec<StructIr>,
    /// The parameters type.
    pub params: ParamsIr,
    /// The agent accepts localization.
    pub localized: bool,
    /// Index in `params.fields` of the pagination parameter.
    pub page: Option<usize>,
}

/// A generated struct of output data.
#[derive(Debug, Clone)]
pub struct StructIr {
    /// Type name.
    pub ident: String,
    /// Doc lines.
    pub docs: Vec<String>,
    /// Declared fields in schema order.
    pub fields: Vec<FieldIr>,
    /// True for the agent's output record.
    pub root: bool,
}

/// A field of an output struct.
#[derive(Debug, Clone)]
pub struct FieldIr {
    /// The exact JSON name.
    pub json: String,
    /// The Rust field name.
    pub ident: String,
    /// The type inside `Option`.
    pub ty: Ty,
    /// Doc lines.
    pub docs: Vec<String>,
}

/// The parameters type of an agent.
#[derive(Debug, Clone)]
pub struct ParamsIr {
    /// Type name.
    pub ident: String,
    /// Doc lines.
    pub docs: Vec<String>,
    /// Inputs in record order, then the common params (`country`, `locale`, `tag`, `parse`) the
    /// record lacks.
    pub fields: Vec<ParamIr>,
}

/// One input parameter.
#[derive(Debug, Clone)]
pub struct ParamIr {
    /// The exact JSON name.
    pub json: String,
    /// Field and setter name.
    pub ident: String,
    /// Rust type (without `Option`).
    pub ty: ParamTy,
    /// Required inputs are constructor arguments and not optional.
    pub required: bool,
    /// Rules checked by `validate()`, with their text.
    pub rules: Vec<(String, Rule)>,
    /// Check as an ISO 3166-1 alpha-2 code (the common `country` param).
    pub country: bool,
    /// Setting it makes the request localized.
    pub localization: bool,
    /// Doc lines.
    pub docs: Vec<String>,
}

/// Lowers records to the intermediate model, or reports every problem found. `renames` maps an
/// agent name to the type name its record takes instead of the one derived from the agent name.
///
/// An agent's type names come from that agent alone (its own namespace), so adding an agent to a
/// module never renames another agent's types; two agents whose names would clash in one module
/// are a diagnostic naming both and the rename that fixes it.
pub fn lower(
    records: &[&AgentRecord],
    renames: &BTreeMap<String, String>,
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
    for record in by_name.values() {
        let base = renames
            .get(&record.name)
            .cloned()
            .unwrap_or_else(|| naming::type_base(&[&record.name]));
        let mut types = Namespace::types(naming::RESERVED_TYPES);
        let root = types.claim(&base);
        let params = types.claim(&naming::type_base(&[&base, "Params"]));
        let module = naming::field_base(renames.get(&record.name).unwrap_or(&record.name));
        let params = lower_params(record, params, &root, &mut warnings);
        let mut structs = Vec::new();
        let empty = IndexMap::new();
        let fields = record.output_schema.as_ref().unwrap_or(&empty);
        let mut lowerer = Lowerer {
            types: &mut types,
            structs: &mut structs,
        };
        lowerer.object(
            root.clone(),
            docs::record(record, &params.ident),
            fields,
            &[],
            true,
        );
        let names = structs
            .iter()
            .map(|s| ("type", s.ident.clone()))
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
            .position(|p| p.ty == ParamTy::Page && record.supports_pagination());
        agents.push(AgentIr {
            name: record.name.clone(),
            module,
            structs,
            params,
            localized: record.supports_localization(),
            page,
        });
    }

    found.finish(Unit { agents, warnings })
}

/// Two agents of one module would declare the same names.
fn clash(names: &[String], first: &str, second: &str, base: &str) -> Diagnostic {
    Diagnostic::new(
        second,
        "$.name",
        &format!(
            "its {} would also be generated for agent `{first}` in the same module; give one of \
             them another type name: `Builder::rename(\"{second}\", \"{base}Agent\")`, \
             `agent!(\"{second}\", rename = \"{base}Agent\")` or \
             `cargo agents generate --rename {second}={base}Agent`",
            names.join(", ")
        ),
    )
}

struct Lowerer<'a> {
    types: &'a mut Namespace,
    structs: &'a mut Vec<StructIr>,
}

impl Lowerer<'_> {
    /// Adds a struct for an object; returns its index.
    fn object(
        &mut self,
        ident: String,
        docs: Vec<String>,
        props: &IndexMap<String, FieldSchema>,
        json_path: &[&str],
        root: bool,
    ) -> usize {
        let index = self.structs.len();
        self.structs.push(StructIr {
            ident: ident.clone(),
            docs,
            fields: Vec::new(),
            root,
        });
        let mut names = Namespace::values(naming::RECORD_FIELDS);
        let mut fields = Vec::with_capacity(props.len());
        for (json, schema) in props {
            let field_ident = names.claim(&naming::field_base(json));
            let mut path = json_path.to_vec();
            path.push(json);
            let (ty, note) = self.ty(&ident, json, schema, &path);
            fields.push(FieldIr {
                docs: docs::field(json, &field_ident, schema, note.as_deref()),
                json: json.clone(),
                ident: field_ident,
                ty,
            });
        }
        if let Some(s) = self.structs.get_mut(index) {
            s.fields = fields;
        }
        index
    }

    fn ty(
        &mut self,
        parent: &str,
        json: &str,
        schema: &FieldSchema,
        path: &[&str],
    ) -> (Ty, Option<String>) {
        let (shape, note) = types::classify(schema);
        let ty = match shape {
            Shape::Leaf(ty) => ty,
            Shape::Array(None) => Ty::Array(Box::new(Ty::Any)),
            Shape::Array(Some(items)) => {
                let mut item_path = path.to_vec();
                item_path.push("[]");
                let (shape, _) = types::classify(items);
                if let Shape::Object(props) = shape {
                    let ident = self
                        .types
                        .claim(&naming::nested_type_base(parent, &[json, "Item"]));
                    let docs = docs::nested(parent, json, items, true);
                    Ty::Array(Box::new(Ty::Struct(
                        self.object(ident, docs, props, &item_path, false),
                    )))
                } else {
                    // Arrays of arrays name their inner structs after the same field.
                    let (inner, _) = self.ty(parent, json, items, &item_path);
                    Ty::Array(Box::new(inner))
                }
            }
            Shape::Object(props) => {
                let ident = self.types.claim(&naming::nested_type_base(parent, &[json]));
                let docs = docs::nested(parent, json, schema, false);
                Ty::Struct(self.object(ident, docs, props, path, false))
            }
        };
        (ty, note)
    }
}

fn lower_params(
    record: &AgentRecord,
    ident: String,
    root: &str,
    warnings: &mut Vec<Diagnostic>,
) -> ParamsIr {
    let mut names = Namespace::values(naming::PARAMS_MEMBERS);
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut inputs: Vec<InputProperty> = Vec::new();
    let mut repeated: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, input) in record.inputs().iter().enumerate() {
        match seen.get(input.name.as_str()) {
            Some(&first) => {
                warnings.push(Diagnostic::new(
                    &record.name,
                    &format!("$.input_properties[{i}].name"),
                    &format!(
                        "input {} is declared again (first at $.input_properties[{first}]); the \
                         first declaration is used",
                        Value::String(input.name.clone())
                    ),
                ));
                *repeated.entry(input.name.as_str()).or_default() += 1;
            }
            None => {
                seen.insert(&input.name, i);
                inputs.push(input.clone());
            }
        }
    }
    let page_name = record.pagination_param().map(|p| p.name.clone());
    let synthesized_page = record.supports_pagination() && page_name.is_none();

    let mut fields = Vec::new();
    for input in &inputs {
        let is_page = page_name.as_deref() == Some(input.name.as_str());
        let (ty, note) = types::param_type(input, is_page);
        let param_ident = names.claim(&naming::field_base(&input.name));
        let mut checked = Vec::new();
        let mut unchecked = Vec::new();
        for rule in &input.rules {
            match rules::parse(rule, ty) {
                Parsed::Checked(r) => checked.push((rule.clone(), r)),
                Parsed::DocOnly(why) => unchecked.push((rule.clone(), why)),
            }
        }
        let mut docs = docs::param(input, &param_ident, &checked, &unchecked, note.as_deref());
        if let Some(n) = repeated.get(input.name.as_str()) {
            docs.push(String::new());
            docs.push(docs::repeated_input(n + 1));
        }
        fields.push(ParamIr {
            json: input.name.clone(),
            ident: param_ident,
            ty,
            required: input.required && !is_page,
            rules: checked,
            country: false,
            localization: input.is_localization_param,
            docs,
        });
    }
    if synthesized_page {
        fields.push(ParamIr {
            json: "page".to_owned(),
            ident: names.claim("page"),
            ty: ParamTy::Page,
            required: false,
            rules: vec![("minimum 1".to_owned(), Rule::Minimum(1.0))],
            country: false,
            localization: false,
            docs: docs::page_param(),
        });
    }
    for (json, ty) in &agents_schema::inputs::COMMON_PARAMS {
        if inputs.iter().any(|i| i.name == *json) {
            continue;
        }
        fields.push(ParamIr {
            json: (*json).to_owned(),
            ident: names.claim(json),
            ty: *ty,
            required: false,
            rules: Vec::new(),
            country: *json == "country",
            localization: false,
            docs: docs::common_param(json),
        });
    }

    ParamsIr {
        docs: docs::params(&record.name, root),
        ident,
        fields,
    }
}
