//! The params type of an agent, written as text (`text.rs`): its struct, and one inherent impl
//! with `new`, `validate` (`validate.rs`), a setter per optional input and `param`.

use proc_macro2::Literal;

use super::text::{INDENT, ItemText, Writer};
use super::tokens::{Conversion, Paths, Spelled, conversion, param_arg, ty_spelled};
use super::validate::{Inputs, validate};
use crate::ir::{AgentIr, ParamsIr};
use crate::naming::display;

/// The params struct and its inherent impl.
pub(super) fn params(params: &ParamsIr, agent: &AgentIr, p: &Paths) -> (ItemText, ItemText) {
    let rt = p.rt_text.as_str();
    let mut w = Writer {
        out: String::with_capacity(512 + 256 * params.fields.len()),
        base: 0,
        indent: 0,
        formatted: true,
    };
    for line in &params.docs {
        w.doc_line(line);
    }
    w.code(&[
        "#[derive(Debug, Clone, PartialEq, ",
        rt,
        "::__private::serde::Serialize)]",
    ]);
    w.code(&["#[serde(crate = \"", &p.serde_crate, "\")]"]);
    w.code(&["pub struct ", &params.ident, " {"]);
    w.indent = INDENT;
    let mut inner = Vec::with_capacity(params.fields.len());
    for f in &params.fields {
        for line in &f.docs {
            w.doc_line(line);
        }
        // serde strips `r#` itself, so a raw identifier needs no rename.
        let json = Literal::string(&f.json).to_string();
        match (f.json == f.ident, f.required) {
            (true, false) => w.code(&["#[serde(skip_serializing_if = \"Option::is_none\")]"]),
            (true, true) => {}
            (false, false) => w.code(&[
                "#[serde(rename = ",
                &json,
                ", skip_serializing_if = \"Option::is_none\")]",
            ]),
            (false, true) => w.code(&["#[serde(rename = ", &json, ")]"]),
        }
        let ty = ty_spelled(&f.ty, agent, p);
        let mut flat = String::with_capacity(ty.flat_len());
        ty.write_flat(&mut flat);
        inner.push(flat);
        w.field(&f.ident, &if f.required { ty } else { ty.optional() });
    }
    w.doc(" Parameters the agent record does not declare, sent as given.");
    w.code(&["#[serde(flatten)]"]);
    w.field("extra", &Spelled::runtime(p, "JsonMap"));
    w.indent = 0;
    w.code(&["}"]);
    let strukt = ItemText {
        text: std::mem::take(&mut w.out),
        formatted: std::mem::replace(&mut w.formatted, true),
    };

    w.code(&["impl ", &params.ident, " {"]);
    w.indent = INDENT;
    constructor(&mut w, params, agent, p);
    validate(
        &mut w,
        &Inputs {
            rt,
            agent: &agent.name,
            params: &params.ident,
            fields: &params.fields,
            inner: &inner,
            judged: params.judged.as_deref(),
        },
    );
    for f in params.fields.iter().filter(|f| !f.required) {
        let id = display(&f.ident);
        w.doc(&crate::docs::setter(&f.json));
        w.code(&["#[must_use]"]);
        w.signature(
            &format!("pub fn {id}("),
            &[
                "mut self".to_owned(),
                format!("value: {}", param_arg(&f.ty, agent, p)),
            ],
            ") -> Self {",
        );
        w.indent += INDENT;
        let value = match conversion(&f.ty) {
            Conversion::Same => "value",
            Conversion::Into => "value.into()",
            Conversion::Collect => "value.into_iter().map(Into::into).collect()",
        };
        w.code(&["self.", &id, " = Some(", value, ");"]);
        w.code(&["self"]);
        w.indent -= INDENT;
        w.code(&["}"]);
    }
    w.doc(" Adds a parameter the agent record does not declare; it is sent as given. A");
    w.doc(" declared input's name is checked by `validate()` as its setter's value is.");
    w.code(&["#[must_use]"]);
    w.signature(
        "pub fn param(",
        &[
            "mut self".to_owned(),
            "name: impl Into<String>".to_owned(),
            format!("value: impl Into<{rt}::Value>"),
        ],
        ") -> Self {",
    );
    w.indent += INDENT;
    w.code(&["self.extra.insert(name.into(), value.into());"]);
    w.code(&["self"]);
    w.indent -= INDENT;
    w.code(&["}"]);
    w.indent = 0;
    w.code(&["}"]);
    let imp = ItemText {
        text: w.out,
        formatted: w.formatted,
    };
    (strukt, imp)
}

/// `new`, taking the required inputs in order and initializing every input, then `extra`.
fn constructor(w: &mut Writer, params: &ParamsIr, agent: &AgentIr, p: &Paths) {
    let required: Vec<&str> = (params.fields.iter().filter(|f| f.required))
        .map(|f| f.json.as_str())
        .collect();
    w.doc(&crate::docs::constructor(&required));
    if required.len() > 7 {
        w.code(&["#[allow(clippy::too_many_arguments)]"]);
    }
    let mut args = Vec::with_capacity(required.len());
    let mut inits = Vec::with_capacity(params.fields.len() + 1);
    for f in &params.fields {
        let id = display(&f.ident);
        if !f.required {
            inits.push(format!("{id}: None"));
            continue;
        }
        args.push(format!("{id}: {}", param_arg(&f.ty, agent, p)));
        inits.push(match conversion(&f.ty) {
            Conversion::Same => id.into_owned(),
            Conversion::Into => format!("{id}: {id}.into()"),
            Conversion::Collect => format!("{id}: {id}.into_iter().map(Into::into).collect()"),
        });
    }
    inits.push(format!("extra: {}::JsonMap::new()", p.rt_text));
    w.signature("pub fn new(", &args, ") -> Self {");
    w.indent += INDENT;
    // prettyplease keeps a struct expression on one line only up to 34 columns.
    let flat = 9 + inits.iter().map(|i| i.len() + 2).sum::<usize>() - 2;
    if flat <= 34 {
        w.code(&["Self { ", &inits.join(", "), " }"]);
    } else {
        w.code(&["Self {"]);
        w.indent += INDENT;
        for init in &inits {
            w.code(&[init, ","]);
        }
        w.indent -= INDENT;
        w.code(&["}"]);
    }
    w.indent -= INDENT;
    w.code(&["}"]);
}
