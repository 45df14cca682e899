//! Every sentence of generated documentation: what the docs of records, fields, params and
//! methods say, from the agent record's own text and facts. `escape.rs` makes schema text safe
//! for rustdoc.

mod escape;

pub(crate) use escape::is_hazard;
pub use escape::{code, text};

use agents_schema::{AgentRecord, FieldSchema, InputProperty};
use serde_json::Value;

use crate::rules::Rule;

/// The docs of an agent's output record: title, description, where it comes from and its
/// capabilities.
pub fn record(record: &AgentRecord, ty: &str, params: &str) -> Vec<String> {
    let title = record.display_name.as_deref().unwrap_or(&record.name);
    let mut d = text(title);
    if d.is_empty() {
        d.push(format!("Output of the agent {}.", code(&record.name)));
    }
    if let Some(desc) = record.description.as_deref() {
        let lines = text(desc);
        if !lines.is_empty() {
            d.push(String::new());
            d.extend(lines);
        }
    }
    d.push(String::new());
    let name = code(&record.name);
    // A schema file a user wrote may describe a research agent's answer as well as an extract
    // agent's record; only a service record says which agent it belongs to.
    d.push(if record.output_document.is_some() && record.template_version.is_none() {
        format!(
            "The record this schema describes: `data.parsing` of a run of the agent {name} (run \
             it with [`{params}`]), or the `content` of a research agent's answer with this \
             output schema, read as `Answer<{ty}>`."
        )
    } else {
        format!("The record in `data.parsing` of a run of the agent {name}; run it with [`{params}`].")
    });
    let mut facts = Vec::new();
    for (label, value) in [
        ("Domain", &record.domain),
        ("Vertical", &record.vertical),
        ("Page type", &record.entity_type),
    ] {
        if let Some(v) = value.as_deref().filter(|v| !v.trim().is_empty()) {
            facts.push(format!("{label}: {}.", text(v).join(" ")));
        }
    }
    facts.push(
        if record.supports_localization() {
            "Supports localization."
        } else {
            "Does not support localization."
        }
        .to_owned(),
    );
    facts.push(
        if record.supports_pagination() {
            "Supports pagination."
        } else {
            "Does not support pagination."
        }
        .to_owned(),
    );
    d.push(String::new());
    d.push(facts.join(" "));
    if let Some(v) = &record.template_version {
        d.push(String::new());
        d.push(match v.number {
            Some(n) => format!(
                "Generated from version {n} of the template (id {}): see `TEMPLATE_VERSION`.",
                code(&v.id)
            ),
            None => format!(
                "Generated from the template version {}: see `TEMPLATE_VERSION_ID`.",
                code(&v.id)
            ),
        });
    }
    d.push(String::new());
    d.push(
        "Every field is optional, values of the wrong type are coerced or left empty and recorded \
         in `mismatches`, and keys the schema does not declare are kept in `unknown_fields`."
            .to_owned(),
    );
    d
}

/// The docs of a nested object type: its description and where it sits (`item` for the items
/// of an array).
pub fn nested(parent: &str, json: &str, schema: &FieldSchema, item: bool) -> Vec<String> {
    let place = format!(
        "{} the field {} of [`{parent}`].",
        if item { "An item of" } else { "The value of" },
        code(json)
    );
    match schema.description.as_deref().map(text) {
        Some(mut lines) if !lines.is_empty() => {
            lines.push(String::new());
            lines.push(place);
            lines
        }
        _ => vec![place],
    }
}

/// The docs of a string enum made for the field `json` of `parent`.
pub fn nested_enum(parent: &str, json: &str, schema: &FieldSchema) -> Vec<String> {
    described_with(
        schema,
        format!("The values of the field {} of [`{parent}`].", code(json)),
        UNLISTED,
    )
}

/// The docs of a union's enum made for the field `json` of `parent`.
pub fn nested_union(parent: &str, json: &str, schema: &FieldSchema) -> Vec<String> {
    described_with(
        schema,
        format!(
            "The value of the field {} of [`{parent}`]: one of several kinds of value.",
            code(json)
        ),
        "The variant is chosen by the kind of value sent; a value of a kind the schema does not \
         allow leaves the field empty and is recorded in the record's `mismatches`.",
    )
}

/// A schema's description (else title), then `place` and `rule` as paragraphs.
fn described_with(schema: &FieldSchema, place: String, rule: &str) -> Vec<String> {
    let mut d = described(schema);
    if !d.is_empty() {
        d.push(String::new());
    }
    d.push(place);
    d.push(String::new());
    d.push(rule.to_owned());
    d
}

/// The doc of a union's variant named after its kind.
pub fn union_variant(kind: &str) -> String {
    let what = match kind {
        "String" => "a string",
        "Number" => "a number",
        "Integer" => "a whole number",
        "Boolean" => "`true` or `false`",
        "List" => "a list",
        _ => "an object",
    };
    format!(" When the value is {what}.")
}

/// The note of a union kept as raw JSON because one of its branches takes any value.
pub fn untyped_union(keyword: &str, branches: usize) -> String {
    format!(
        "The value is one of {branches} schemas (`{keyword}`), one of which allows any value; it \
         is kept as raw JSON."
    )
}

const UNLISTED: &str = "A value the schema does not list decodes as `Unknown`, keeping its text, \
     and is recorded in the record's `mismatches`.";

/// The docs of a type generated for the definition `name` (`$defs`) of a schema.
pub fn definition(name: &str, schema: &FieldSchema) -> Vec<String> {
    let mut d = described(schema);
    if !d.is_empty() {
        d.push(String::new());
    }
    d.push(format!("The schema's definition {}.", code(name)));
    if schema.enum_values.is_some() || schema.any_of.is_some() || schema.one_of.is_some() {
        d.push(String::new());
        d.push(UNLISTED.to_owned());
    }
    d
}

/// A schema's description, else its title, as doc lines.
fn described(schema: &FieldSchema) -> Vec<String> {
    schema
        .description
        .as_deref()
        .or(schema.title.as_deref())
        .map(text)
        .unwrap_or_default()
}

/// The doc of an enum variant: its JSON text.
pub fn variant(json: &str) -> String {
    format!(" {}.", code(json))
}

/// The doc of an enum's `Unknown` variant.
pub const UNKNOWN_VARIANT: &str = " A value the schema does not list, kept as sent.";

fn number_text(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        Value::from(v).to_string()
    }
}

/// The docs of an output field (whose Rust type is `kind`, in words): its description (else its
/// title) and facts (JSON name when it
/// differs, required, deprecated, format, range, unit, a fixed value, default, examples, a typing
/// note); when the schema says nothing, its JSON name and kind.
pub fn field(
    json: &str,
    ident: &str,
    schema: &FieldSchema,
    kind: &str,
    required: bool,
    note: Option<&str>,
) -> Vec<String> {
    let mut d = described(schema);
    let mut facts = Vec::new();
    if ident != json {
        facts.push(format!("JSON name: {}.", code(json)));
    }
    if required {
        facts.push("Required by the schema (when it is missing, `mismatches` says so).".to_owned());
    }
    if schema.deprecated == Some(true) {
        facts.push("Deprecated.".to_owned());
    }
    if let Some(format) = schema.format.as_deref() {
        facts.push(format!("Format: {}.", code(format)));
    }
    // Where a schema gives a bound both ways, the tighter one is the one that holds;
    // `tighter(a, b)` says whether `a` is tighter than `b` at equal strictness.
    let bound =
        |inclusive: Option<f64>, exclusive: Option<f64>, tighter: fn(f64, f64) -> bool| match (
            inclusive, exclusive,
        ) {
            (Some(i), Some(x)) if tighter(i, x) => Some(number_text(i)),
            (_, Some(x)) => Some(format!("{} (exclusive)", number_text(x))),
            (i, None) => i.map(number_text),
        };
    let lower = bound(schema.minimum, schema.exclusive_minimum, |a, b| a > b);
    let upper = bound(schema.maximum, schema.exclusive_maximum, |a, b| a < b);
    match (lower, upper) {
        (Some(lo), Some(hi)) => facts.push(format!("Range: {lo} to {hi}.")),
        (Some(lo), None) => facts.push(format!("Minimum: {lo}.")),
        (None, Some(hi)) => facts.push(format!("Maximum: {hi}.")),
        (None, None) => {}
    }
    if let Some(unit) = schema.extra.get("unit").and_then(Value::as_str) {
        facts.push(format!("Unit: {}.", code(unit)));
    }
    if let Some(c) = &schema.const_value {
        facts.push(format!("Always {}.", code(&value_text(c))));
    }
    if let Some(default) = schema.default.as_ref().filter(|v| !v.is_null()) {
        facts.push(format!("Default: {}.", code(&value_text(default))));
    }
    if let Some(examples) = schema.examples.as_ref().filter(|e| !e.is_empty()) {
        let list: Vec<String> = examples
            .iter()
            .take(5)
            .map(|e| code(&value_text(e)))
            .collect();
        facts.push(format!("Examples: {}.", list.join(", ")));
    }
    if let Some(note) = note {
        facts.push(note.to_owned());
    }
    if !facts.is_empty() {
        if !d.is_empty() {
            d.push(String::new());
        }
        d.push(facts.join(" "));
    }
    if d.is_empty() {
        d.push(format!("The JSON field {}, {kind}.", code(json)));
    }
    d
}

/// The docs of a typed map of a record: which keys it takes (`keys`, a pattern; empty: every
/// other key, by `keyword`), what each value is, and the values' own description.
pub fn map_field(
    keys: &str,
    keyword: &str,
    values: &FieldSchema,
    kind: &str,
    note: Option<&str>,
) -> Vec<String> {
    let which = match (keys.is_empty(), keyword) {
        (false, _) => format!("The keys matching {} (`patternProperties`)", code(keys)),
        (true, "unevaluated_properties") => "Every other key (`unevaluatedProperties`)".to_owned(),
        (true, _) => "Every other key (`additionalProperties`)".to_owned(),
    };
    let mut d = vec![format!(
        "{which}, each {kind}; a value of another type stays in `unknown_fields`, and \
         `mismatches` says so."
    )];
    let mut about = described(values);
    if let Some(note) = note {
        about.push(note.to_owned());
    }
    if !about.is_empty() {
        d.push(String::new());
        d.extend(about);
    }
    d
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The docs of an input parameter: its description, whether it is required, default, examples,
/// its role, and which rules `validate()` checks.
pub fn param(
    input: &InputProperty,
    ident: &str,
    checked: &[(String, Rule)],
    unchecked: &[(String, String)],
    note: Option<&str>,
) -> Vec<String> {
    let mut d = input.description.as_deref().map(text).unwrap_or_default();
    let mut facts = Vec::new();
    if ident != input.name {
        facts.push(format!("JSON name: {}.", code(&input.name)));
    }
    facts.push(
        if input.required {
            "Required."
        } else {
            "Optional."
        }
        .to_owned(),
    );
    if let Some(default) = input.default.as_ref().filter(|v| !v.is_null()) {
        facts.push(format!("Default: {}.", code(&value_text(default))));
    }
    if let Some(examples) = input.examples.as_ref().filter(|e| !e.is_empty()) {
        let list: Vec<String> = examples.iter().map(|e| code(&value_text(e))).collect();
        facts.push(format!("Examples: {}.", list.join(", ")));
    }
    if input.is_localization_param {
        facts.push("Setting it makes the request localized.".to_owned());
    }
    if input.is_pagination_param {
        facts.push("The pagination parameter.".to_owned());
    }
    if let Some(note) = note {
        facts.push(note.to_owned());
    }
    if !d.is_empty() {
        d.push(String::new());
    }
    d.push(facts.join(" "));
    if !checked.is_empty() {
        let list: Vec<String> = checked.iter().map(|(t, _)| code(t)).collect();
        d.push(String::new());
        d.push(format!("Checked by `validate()`: {}.", list.join(", ")));
    }
    for (text, why) in unchecked {
        d.push(String::new());
        d.push(format!("Rule not checked ({why}): {}.", code(text)));
    }
    d
}

/// The line of an input's docs naming the keywords of its schema that `validate()` judges by
/// the input schema rather than by a typed rule.
pub fn judged_keywords(keywords: &[&str]) -> String {
    format!(
        "Also checked by `validate()`, by the input schema itself: {}.",
        code_list(keywords)
    )
}

/// The line of a params type's docs naming the keywords of the input schema's root that
/// `validate()` judges the params by.
pub fn judged_root_keywords(keywords: &[&str]) -> String {
    format!(
        "`validate()` also judges the params as a whole by the input schema's {}.",
        code_list(keywords)
    )
}

fn code_list(keywords: &[&str]) -> String {
    let list: Vec<String> = keywords.iter().map(|k| code(k)).collect();
    list.join(", ")
}

/// The docs of an agent's params type.
pub fn params(agent: &str, root: &str) -> Vec<String> {
    vec![
        format!(
            "Parameters of the agent {}; the output is [`{root}`].",
            code(agent)
        ),
        String::new(),
        "Required inputs are arguments of `new`, optional ones are set with the method of the same \
         name; `validate()` checks the rules of the agent record before anything is sent."
            .to_owned(),
    ]
}

/// The docs of a common param (one every agent accepts) the record does not declare.
pub fn common_param(json: &str) -> Vec<String> {
    let description = match json {
        "country" => "Country to run the request from, as an ISO 3166-1 alpha-2 code (`US`, `DE`).",
        "locale" => "Locale of the request, as an LCID (`en-US`).",
        "tag" => "A tag of your own, echoed back to identify the request.",
        "parse" => "Whether to parse the page into structured data (the service defaults to true).",
        _ => "A parameter every agent accepts.",
    };
    vec![
        description.to_owned(),
        String::new(),
        "Common to every agent.".to_owned(),
    ]
}

/// The docs of the `page` param added to an agent that supports pagination without naming it.
pub fn page_param() -> Vec<String> {
    vec![
        "Page number. The record supports pagination but names no pagination input; `page` is \
         the service's common name for it."
            .to_owned(),
    ]
}

/// The note of a field whose value is kept as raw JSON because it nests more than `max` objects
/// deep.
pub fn too_deep(max: usize) -> String {
    format!("The value is nested more than {max} objects deep; it is kept as raw JSON.")
}

/// The note on an input the record declares more than once.
pub fn repeated_input(times: usize) -> String {
    format!("The agent record declares this input {times} times; this is the first declaration.")
}

/// The doc of a params type's `new` taking the `required` inputs (JSON names), with its
/// leading space.
pub fn constructor(required: &[&str]) -> String {
    if required.is_empty() {
        " Parameters with every input unset.".to_owned()
    } else {
        let names: Vec<String> = required.iter().map(|n| code(n)).collect();
        format!(" Parameters with the required inputs {}.", names.join(", "))
    }
}

/// The doc of the setter of the optional input `json` (as a `#[doc]` value: with its leading
/// space).
pub fn setter(json: &str) -> String {
    format!(
        " Sets {} (see the field for its meaning and rules).",
        code(json)
    )
}
