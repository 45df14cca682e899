//! A params type's `validate()`, written as text: per input, a check of a value given with
//! `.param(name, …)` and a check of the field.

use proc_macro2::Literal;

use super::text::Writer;
use crate::ir::ParamIr;
use crate::naming::display;
use crate::rules::Rule;
use crate::types::Ty;

/// What `validate()` is written from.
pub(super) struct Inputs<'a> {
    /// The runtime crate's path as source spells it.
    pub rt: &'a str,
    /// The agent's name.
    pub agent: &'a str,
    /// The params type's name.
    pub params: &'a str,
    /// The inputs, each with its Rust type (without `Option`) spelled on one line.
    pub fields: &'a [ParamIr],
    pub inner: &'a [String],
    /// The input document the params are also judged by, if any (pretty JSON).
    pub judged: Option<&'a str>,
}

/// `validate()` with its doc, at the writer's indentation (the impl's items).
pub(super) fn validate(w: &mut Writer, i: &Inputs<'_>) {
    let rt = i.rt;
    w.doc(" Checks the rules of the agent's inputs; every broken rule is reported.");
    w.signature(
        "pub fn validate(",
        &["&self".to_owned()],
        &format!(") -> Result<(), {rt}::ValidationError> {{"),
    );
    let body = w.indent + super::text::INDENT;
    // The checks come after the statics their patterns add, so they are written apart.
    let mut checks = Writer {
        out: String::new(),
        base: w.base,
        indent: body,
        formatted: true,
    };
    let mut statics = Writer {
        out: String::new(),
        base: w.base,
        indent: body,
        formatted: true,
    };
    let mut patterns = 0;
    let agent = Literal::string(i.agent).to_string();
    for (f, ty) in i.fields.iter().zip(i.inner) {
        let id = display(&f.ident);
        let json = Literal::string(&f.json).to_string();
        // The rules, each a line at the indentation it is written at.
        let rules: Vec<RuleCall> = rule_calls(f, &json, rt, &mut patterns, &mut statics);
        // A value given with `.param(name, …)` under a declared input's name is read as the
        // setter's type and checked by the same rules, before anything is sent.
        if !matches!(f.ty, Ty::Any) {
            let setter = if f.required {
                format!("{}::new(…)", i.params)
            } else {
                format!(".{}(…)", f.ident)
            };
            let setter = Literal::string(&setter).to_string();
            checks.code(&["if let Some(given) = self.extra.get(", &json, ") {"]);
            checks.indent += super::text::INDENT;
            if f.required {
                checks.code(&["let set = true;"]);
            } else {
                checks.code(&["let set = self.", &id, ".is_some();"]);
            }
            let binding = if rules.is_empty() { "_" } else { "value" };
            checks.method_call(
                &["let ", binding, ": Option<", ty, "> = "],
                "v",
                &[".given(", &json, ", ", &setter, ", set, given)"],
                ";",
            );
            if !rules.is_empty() {
                checks.code(&["if let Some(value) = value {"]);
                checks.indent += super::text::INDENT;
                checks.code(&[if matches!(f.ty, Ty::String) {
                    "let value = value.as_str();"
                } else {
                    "let value = &value;"
                }]);
                for r in &rules {
                    r.write(&mut checks);
                }
                checks.indent -= super::text::INDENT;
                checks.code(&["}"]);
            }
            checks.indent -= super::text::INDENT;
            checks.code(&["}"]);
        }
        if rules.is_empty() {
            continue;
        }
        let string = matches!(f.ty, Ty::String);
        match (f.required, string) {
            (true, true) => {
                checks.code(&["{"]);
                checks.indent += super::text::INDENT;
                checks.code(&["let value = self.", &id, ".as_str();"]);
            }
            (true, false) => {
                checks.code(&["{"]);
                checks.indent += super::text::INDENT;
                checks.code(&["let value = &self.", &id, ";"]);
            }
            (false, true) => {
                checks.code(&["if let Some(value) = self.", &id, ".as_deref() {"]);
                checks.indent += super::text::INDENT;
            }
            (false, false) => {
                checks.code(&["if let Some(value) = self.", &id, ".as_ref() {"]);
                checks.indent += super::text::INDENT;
            }
        }
        for r in &rules {
            r.write(&mut checks);
        }
        checks.indent -= super::text::INDENT;
        checks.code(&["}"]);
    }
    if let Some(document) = i.judged {
        // A raw string over many lines, lined up with the body so that it reads as JSON.
        let raw = crate::format::raw_json(document, "        ");
        statics.call(
            &[
                "static INPUT_SCHEMA: ",
                rt,
                "::validate::InputSchema = ",
                rt,
                "::validate::InputSchema::new",
            ],
            &[&raw],
            ";",
        );
        checks.code(&["INPUT_SCHEMA.judge(&mut v, self);"]);
    }
    let outer = w.indent;
    w.indent = body;
    if checks.out.is_empty() {
        w.code(&[rt, "::validate::Violations::new(", &agent, ").finish()"]);
    } else {
        w.append(statics);
        w.call(
            &["let mut v = ", rt, "::validate::Violations::new"],
            &[&agent],
            ";",
        );
        w.append(checks);
        w.code(&["v.finish()"]);
    }
    w.indent = outer;
    w.code(&["}"]);
}

/// A rule's call, `v.<method>(json, text, value, bound);`.
struct RuleCall {
    method: &'static str,
    args: String,
}

impl RuleCall {
    fn write(&self, w: &mut Writer) {
        w.method_call(&[], "v", &[".", self.method, "(", &self.args, ")"], ";");
    }
}

/// The calls of input `f`'s rules (its country check first); a pattern's static is written to
/// `statics`.
fn rule_calls(
    f: &ParamIr,
    json: &str,
    rt: &str,
    patterns: &mut usize,
    statics: &mut Writer,
) -> Vec<RuleCall> {
    let mut calls = Vec::with_capacity(f.rules.len() + 1);
    if f.country {
        calls.push(RuleCall {
            method: "country_code",
            args: format!("{json}, value"),
        });
    }
    let number = match f.ty {
        Ty::Page => "f64::from(*value)",
        Ty::Integer => "*value as f64",
        _ => "*value",
    };
    for (text, rule) in &f.rules {
        let count = |n: usize| Literal::usize_unsuffixed(n).to_string();
        let float = |x: f64| Literal::f64_suffixed(x).to_string();
        let (method, value, bound) = match rule {
            Rule::MinLength(n) => ("min_length", "value", count(*n)),
            Rule::MaxLength(n) => ("max_length", "value", count(*n)),
            Rule::Minimum(x) => ("minimum", number, float(*x)),
            Rule::Maximum(x) => ("maximum", number, float(*x)),
            Rule::ExclusiveMinimum(x) => ("exclusive_minimum", number, float(*x)),
            Rule::ExclusiveMaximum(x) => ("exclusive_maximum", number, float(*x)),
            Rule::MultipleOf(x) => ("multiple_of", number, float(*x)),
            Rule::MinItems(n) => ("min_items", "value", count(*n)),
            Rule::MaxItems(n) => ("max_items", "value", count(*n)),
            Rule::Pattern(re) => {
                let name = format!("PATTERN_{patterns}");
                *patterns += 1;
                let re = Literal::string(re.as_str()).to_string();
                statics.call(
                    &[
                        "static ",
                        &name,
                        ": ",
                        rt,
                        "::validate::Pattern = ",
                        rt,
                        "::validate::Pattern::new",
                    ],
                    &[&re],
                    ";",
                );
                ("pattern", "value", format!("&{name}"))
            }
            Rule::OneOf(values) => {
                let mut arg = String::from("&[");
                for (k, v) in values.iter().enumerate() {
                    if k > 0 {
                        arg.push_str(", ");
                    }
                    arg.push_str(&Literal::string(v).to_string());
                }
                arg.push(']');
                ("one_of", "value", arg)
            }
        };
        let text = Literal::string(text).to_string();
        calls.push(RuleCall {
            method,
            args: format!("{json}, {text}, {value}, {bound}"),
        });
    }
    calls
}
