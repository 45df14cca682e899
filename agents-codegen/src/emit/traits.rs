//! The trait impls that tie an agent's types together: `Agent` (name, params), `AgentParams`
//! (output, validation, localization), `Default` for params without required inputs, and the
//! capability markers `Localized` and `Paginated`, written as text.

use super::text::{INDENT, ItemText, Writer};
use super::tokens::Paths;
use crate::ir::{AgentIr, ParamIr};
use crate::naming::display;

/// The agent's trait impls, written as text (`text.rs`) like the params type.
pub(super) fn traits(agent: &AgentIr, p: &Paths) -> Option<ItemText> {
    let root = agent.structs.first()?;
    let rt = p.rt_text.as_str();
    let output = display(&root.ident);
    let params = display(&agent.params.ident);
    let fields = &agent.params.fields;
    let mut w = Writer {
        out: String::with_capacity(1024 + agent.input_schema.len()),
        base: 0,
        indent: 0,
        formatted: true,
    };
    if let Some(v) = &agent.version {
        w.code(&["impl ", &output, " {"]);
        w.indent = INDENT;
        w.doc(" The id of the template version these bindings were generated from.");
        let id = proc_macro2::Literal::string(&v.id).to_string();
        w.code(&["pub const TEMPLATE_VERSION_ID: &'static str = ", &id, ";"]);
        if let Some(n) = v.number {
            w.doc(" The number of the template version these bindings were generated from.");
            let n = proc_macro2::Literal::u64_suffixed(n).to_string();
            w.code(&["pub const TEMPLATE_VERSION: u64 = ", &n, ";"]);
        }
        w.indent = 0;
        w.code(&["}"]);
    }
    if fields.iter().all(|f| !f.required) {
        w.code(&["impl Default for ", &params, " {"]);
        w.indent = INDENT;
        w.code(&["fn default() -> Self {"]);
        w.indent += INDENT;
        w.code(&["Self::new()"]);
        w.indent -= INDENT;
        w.code(&["}"]);
        w.indent = 0;
        w.code(&["}"]);
    }

    w.code(&["impl ", rt, "::AgentParams for ", &params, " {"]);
    w.indent = INDENT;
    w.code(&["type Agent = ", &output, ";"]);
    w.signature(
        "fn validate(",
        &["&self".to_owned()],
        &format!(") -> Result<(), {rt}::ValidationError> {{"),
    );
    w.indent += INDENT;
    w.code(&[&params, "::validate(self)"]);
    w.indent -= INDENT;
    w.code(&["}"]);
    w.code(&["fn uses_localization(&self) -> bool {"]);
    w.indent += INDENT;
    w.code(&[&localization(agent, fields)]);
    w.indent -= INDENT;
    w.code(&["}"]);
    w.indent = 0;
    w.code(&["}"]);

    w.code(&["impl ", rt, "::Agent for ", &output, " {"]);
    w.indent = INDENT;
    let name = proc_macro2::Literal::string(&agent.name).to_string();
    w.code(&["const NAME: &'static str = ", &name, ";"]);
    // Lined up with the `const` it is the value of; a raw literal, so it reads as JSON. A
    // literal over several lines is printed as it is, after the `=`.
    let input_schema = crate::format::raw_json(&agent.input_schema, "    ");
    match input_schema.split_once('\n') {
        Some((first, rest)) => {
            w.code(&["const INPUT_SCHEMA: &'static str = ", first]);
            w.out.push_str(rest);
            w.out.push_str(";\n");
        }
        None => w.code(&["const INPUT_SCHEMA: &'static str = ", &input_schema, ";"]),
    }
    w.code(&["type Params = ", &params, ";"]);
    w.indent = 0;
    w.code(&["}"]);

    if agent.localized {
        localized(&mut w, rt, &output, &params, fields);
    }
    if let Some(f) = agent.page.and_then(|i| fields.get(i)) {
        let id = display(&f.ident);
        let json = proc_macro2::Literal::string(&f.json).to_string();
        w.code(&["impl ", rt, "::Paginated for ", &output, " {"]);
        w.indent = INDENT;
        w.code(&["const PAGE_PARAM: &'static str = ", &json, ";"]);
        w.code(&["fn page(params: &", &params, ") -> Option<u32> {"]);
        w.indent += INDENT;
        w.code(&["params.", &id]);
        w.indent -= INDENT;
        w.code(&["}"]);
        w.signature(
            "fn set_page(",
            &[format!("params: &mut {params}"), "page: u32".to_owned()],
            ") {",
        );
        w.indent += INDENT;
        w.code(&["params.", &id, " = Some(page);"]);
        w.indent -= INDENT;
        w.code(&["}"]);
        w.indent = 0;
        w.code(&["}"]);
    }
    Some(ItemText {
        text: w.out,
        formatted: w.formatted,
    })
}

/// The body of `uses_localization`: whether a localization input is set.
fn localization(agent: &AgentIr, fields: &[ParamIr]) -> String {
    let localizing: Vec<&ParamIr> = fields.iter().filter(|f| f.localization).collect();
    // A localized agent's `Localize::zip_code`/`store_id` put an input its params do not
    // declare into `extra`; it localizes the request all the same.
    let undeclared: Vec<&str> = if agent.localized {
        agents_schema::inputs::LOCALIZATION_PARAMS
            .iter()
            .copied()
            .filter(|n| !fields.iter().any(|f| f.json == *n))
            .collect()
    } else {
        Vec::new()
    };
    if localizing.iter().any(|f| f.required) {
        // A required localization input is always set.
        return "true".to_owned();
    }
    if localizing.is_empty() && undeclared.is_empty() {
        return "false".to_owned();
    }
    let set = localizing
        .iter()
        .map(|f| format!("self.{}.is_some()", display(&f.ident)));
    let given = undeclared.iter().map(|n| {
        format!(
            "self.extra.contains_key({})",
            proc_macro2::Literal::string(n)
        )
    });
    set.chain(given).collect::<Vec<_>>().join(" || ")
}

/// `Localized`: the localization inputs the params hold as text are set by name; any other
/// name is sent as given.
fn localized(w: &mut Writer, rt: &str, output: &str, params: &str, fields: &[ParamIr]) {
    w.code(&["impl ", rt, "::Localized for ", output, " {"]);
    w.indent = INDENT;
    w.signature(
        "fn localize(",
        &[
            format!("mut params: {params}"),
            "input: &'static str".to_owned(),
            "value: String".to_owned(),
        ],
        &format!(") -> {params} {{"),
    );
    w.indent += INDENT;
    let other = "params.extra.insert(input.to_owned(), value.into());";
    let arms: Vec<&ParamIr> = (fields.iter())
        .filter(|f| f.localization && f.ty == crate::types::Ty::String)
        .collect();
    if arms.is_empty() {
        w.code(&[other]);
    } else {
        w.code(&["match input {"]);
        w.indent += INDENT;
        for f in arms {
            let json = proc_macro2::Literal::string(&f.json).to_string();
            let id = display(&f.ident);
            let value = if f.required { "value" } else { "Some(value)" };
            w.code(&[&json, " => params.", &id, " = ", value, ","]);
        }
        w.code(&["_ => {"]);
        w.indent += INDENT;
        w.code(&[other]);
        w.indent -= INDENT;
        w.code(&["}"]);
        w.indent -= INDENT;
        w.code(&["}"]);
    }
    w.code(&["params"]);
    w.indent -= INDENT;
    w.code(&["}"]);
    w.indent = 0;
    w.code(&["}"]);
}
