//! Output record structs, written as source text: the struct with its fields' docs and JSON
//! names, handed out whole so that printers wrap it in the runtime's `record!`.
//!
//! A record is nothing but lines of docs, markers and `pub name: Type,`, and it is most of every
//! agent's code; it is written as text (`text.rs`).

use proc_macro2::Literal;

use super::text::{INDENT, ItemText, Writer};
use super::tokens::{Paths, Spelled, ty_spelled};
use crate::ir::{AgentIr, StructIr};
use crate::naming;

/// What every record of a run ends with: its bookkeeping fields, for a root record and for a
/// nested one (their docs differ), and the closing brace.
pub struct Skeleton {
    root_tail: String,
    nested_tail: String,
}

impl Skeleton {
    /// The skeleton for the runtime at `p`.
    pub fn new(p: &Paths) -> Self {
        let tail = |mismatch_doc: &str, breach_doc: &str| {
            let mut w = Writer::default();
            w.line("#[json(flatten)]");
            w.doc(" Keys the schema does not declare, and declared fields sent as `null`, kept as");
            w.doc(" the service sent them (serialized after the declared fields).");
            w.field("unknown_fields", &Spelled::runtime(p, "JsonMap"));
            w.line("#[json(skip)]");
            w.doc(mismatch_doc);
            w.field("mismatches", &Spelled::runtime(p, "Mismatch").vec());
            w.line("#[json(skip)]");
            w.doc(breach_doc);
            w.field("breaches", &Spelled::runtime(p, "Breach").vec());
            w.pad(0);
            w.out.push_str("}\n");
            w.out
        };
        Skeleton {
            root_tail: tail(
                " Values of this record (at any depth) that did not have their declared type, with their paths.",
                " Rules of the schema that values of this record (at any depth) break, with their paths; a value in `mismatches` is not repeated here.",
            ),
            nested_tail: tail(
                " Values that did not have their declared type. Empty when this object was decoded as part of a record: those are recorded on the record.",
                " Rules of the schema that values break. Empty when this object was decoded as part of a record: those are recorded on the record.",
            ),
        }
    }
}

/// The struct of `s`, as `record!` takes it: declared fields carry their docs (and their JSON
/// name when it differs, and whether the schema requires them), maps the pattern of their keys,
/// and the three bookkeeping fields their markers.
pub(super) fn record(s: &StructIr, agent: &AgentIr, p: &Paths, shared: &Skeleton) -> ItemText {
    let mut w = Writer {
        out: String::with_capacity(256 + 160 * s.fields.len()),
        base: INDENT,
        indent: 0,
        formatted: true,
    };
    for line in &s.docs {
        w.doc_line(line);
    }
    w.line("#[derive(Debug, Clone, PartialEq, Default)]");
    w.pad(0);
    w.out.push_str("pub struct ");
    w.name(&s.ident);
    w.out.push_str(" {\n");
    w.indent = INDENT;
    for f in &s.fields {
        for line in &f.docs {
            w.doc_line(line);
        }
        // `record!` takes the field's name as its JSON name unless told otherwise; a raw
        // identifier is always told, since `stringify!(r#type)` keeps the `r#`.
        if f.json != f.ident || naming::is_raw(&f.ident) {
            w.json_marker("rename", &Literal::string(&f.json).to_string());
        }
        if f.required {
            w.line("#[json(required = true)]");
        }
        w.field(&f.ident, &ty_spelled(&f.ty, agent, p).optional());
    }
    for m in &s.maps {
        // `record!` takes the marker before the docs: it tells a map from a declared field.
        w.json_marker("keys", &Literal::string(&m.keys).to_string());
        for line in &m.docs {
            w.doc_line(line);
        }
        w.field(&m.ident, &ty_spelled(&m.ty, agent, p).map_of());
    }
    w.out.push_str(if s.root {
        &shared.root_tail
    } else {
        &shared.nested_tail
    });
    ItemText {
        text: w.out,
        formatted: w.formatted,
    }
}
