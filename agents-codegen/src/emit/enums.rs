//! String enums (the enum with its variants' JSON texts and the `Unknown` variant) and unions
//! (a variant per kind of value), written as text (`text.rs`) and handed out whole so that
//! printers wrap them in the runtime's `string_enum!` and `union_enum!`.

use proc_macro2::Literal;

use super::text::{INDENT, ItemText, Writer};
use super::tokens::{Paths, ty_spelled};
use crate::docs;
use crate::ir::{AgentIr, EnumIr, UnionIr};
use crate::naming::display;

/// The enum of `e`, as `string_enum!` takes it.
pub(super) fn string_enum(e: &EnumIr) -> ItemText {
    let mut w = head(
        &e.docs,
        "#[derive(Debug, Clone, PartialEq, Eq, Hash)]",
        &e.ident,
    );
    for v in &e.variants {
        w.doc(&docs::variant(&v.json));
        let json = Literal::string(&v.json).to_string();
        w.code(&[&display(&v.ident), " = ", &json, ","]);
    }
    w.line("#[json(other)]");
    w.doc(docs::UNKNOWN_VARIANT);
    w.line("Unknown(String),");
    tail(w)
}

/// The enum of `u`, as `union_enum!` takes it.
pub(super) fn union_enum(u: &UnionIr, agent: &AgentIr, p: &Paths) -> ItemText {
    let mut w = head(&u.docs, "#[derive(Debug, Clone, PartialEq)]", &u.ident);
    for (variant, ty, doc) in &u.variants {
        w.doc(doc);
        let ty = ty_spelled(ty, agent, p);
        let mut flat = String::with_capacity(ty.flat_len());
        ty.write_flat(&mut flat);
        w.code(&[&display(variant), "(", &flat, "),"]);
    }
    tail(w)
}

/// The docs, the derive and `pub enum Name {`, each line indented one step, as the enum stands
/// in its macro call.
fn head(docs: &[String], derive: &str, name: &str) -> Writer {
    let mut w = Writer {
        out: String::with_capacity(512),
        base: INDENT,
        indent: 0,
        formatted: true,
    };
    for line in docs {
        w.doc_line(line);
    }
    w.line(derive);
    w.code(&["pub enum ", &display(name), " {"]);
    w.indent = INDENT;
    w
}

fn tail(mut w: Writer) -> ItemText {
    w.indent = 0;
    w.line("}");
    ItemText {
        text: w.out,
        formatted: w.formatted,
    }
}
