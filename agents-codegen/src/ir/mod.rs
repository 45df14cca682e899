//! Agent records lowered to the intermediate model: every Rust name claimed, every type resolved,
//! every doc line made safe. This is the "check" stage; problems are collected across all agents
//! and reported together. This file is the model; `lower.rs` lowers a record's output (and checks
//! what it claims), `params.rs` its inputs.

mod documents;
mod lower;
mod params;

pub use lower::lower;

use agents_schema::diag::Diagnostic;

use crate::rules::Rule;
use crate::types::Ty;

/// Every agent of one generated module.
#[derive(Debug, Clone)]
pub struct Unit {
    /// Agents sorted by name.
    pub agents: Vec<AgentIr>,
    /// Recoverable defects of the records, handled and reported (an input declared twice).
    pub warnings: Vec<Diagnostic>,
    /// The files schemas' references were read from (through `Options::documents`).
    pub files: Vec<std::path::PathBuf>,
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
    /// String enums of the output, in schema order.
    pub enums: Vec<EnumIr>,
    /// Enums of kinds of value (the output's unions), in schema order.
    pub unions: Vec<UnionIr>,
    /// The template version the record describes (records of `/v2` templates).
    pub version: Option<agents_schema::TemplateVersion>,
    /// The parameters type.
    pub params: ParamsIr,
    /// The agent accepts localization.
    pub localized: bool,
    /// Index in `params.fields` of the pagination parameter.
    pub page: Option<usize>,
    /// The output's JSON Schema as JSON text, which the output record carries and checks.
    pub output_schema: String,
    /// The inputs' JSON Schema as JSON text, which the `Agent` impl carries (to publish it).
    pub input_schema: String,
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
    /// Typed maps of the keys the schema types without naming them, after the fields.
    pub maps: Vec<MapIr>,
    /// True for the agent's output record.
    pub root: bool,
    /// The name of the struct of its typed field paths (`FIELDS`), claimed after every other
    /// type of the agent so that it never takes a data type's name.
    pub fields_ident: String,
}

/// A generated string enum (a schema's `enum` of strings).
#[derive(Debug, Clone)]
pub struct EnumIr {
    /// Type name.
    pub ident: String,
    /// Doc lines.
    pub docs: Vec<String>,
    /// The listed values, in order.
    pub variants: Vec<VariantIr>,
}

/// A generated enum with one variant per kind of value a union allows.
#[derive(Debug, Clone)]
pub struct UnionIr {
    /// Type name.
    pub ident: String,
    /// Doc lines.
    pub docs: Vec<String>,
    /// The variants: name (the kind), type, doc line.
    pub variants: Vec<(String, Ty, String)>,
}

/// One listed value of an enum.
#[derive(Debug, Clone)]
pub struct VariantIr {
    /// The exact JSON text.
    pub json: String,
    /// The variant name.
    pub ident: String,
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
    /// The schema requires the field and does not allow `null`: decoding records a mismatch
    /// when it is missing or `null`.
    pub required: bool,
    /// Doc lines.
    pub docs: Vec<String>,
}

/// A typed map of a record: the keys its schema types by `patternProperties`, or by a typed
/// `additionalProperties` / `unevaluatedProperties` beside `properties`.
#[derive(Debug, Clone)]
pub struct MapIr {
    /// The pattern of the keys it takes; empty: every key the fields and maps before it left.
    pub keys: String,
    /// The Rust field name.
    pub ident: String,
    /// The values' type.
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
    /// The input document `validate()` judges the params by, pretty JSON, when some keyword
    /// is not a typed rule (`agents_schema::inputs::judged_document`).
    pub judged: Option<String>,
}

/// One input parameter.
#[derive(Debug, Clone)]
pub struct ParamIr {
    /// The exact JSON name.
    pub json: String,
    /// Field and setter name.
    pub ident: String,
    /// Rust type (without `Option`).
    pub ty: Ty,
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
