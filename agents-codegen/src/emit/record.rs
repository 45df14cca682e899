//! Output record structs, written as source text: the struct with its fields' docs and JSON
//! names, handed out whole so that printers wrap it in the runtime's `record!`.
//!
//! A record is nothing but lines of docs, markers and `pub name: Type,`, and it is most of every
//! agent's code, so it is written directly rather than built as a syntax tree, printed by
//! prettyplease and dropped (that was a third of generating an agent). The text is exactly what
//! prettyplease prints for the same struct, its line breaks included, so `format()` of the
//! macro's tokens and the build script's source stay the same text: the macro lexes this text
//! into its tokens. A doc line prettyplease would not print as `///` is written as an attribute
//! and the record marked for prettyplease to print.

use proc_macro2::Literal;

use super::tokens::{Paths, Spelled, ty_spelled};
use crate::docs::is_hazard;
use crate::ir::{AgentIr, StructIr};
use crate::naming;

/// prettyplease's line width, minimum space after indentation, and indentation step.
const MARGIN: usize = 89;
const MIN_SPACE: usize = 60;
const INDENT: usize = 4;

/// A record struct as source.
pub struct RecordText {
    /// The struct, ending in a newline, each line indented one step, as it stands in the
    /// `record!` call (the macro's lexer does not mind).
    pub text: String,
    /// Whether the text is exactly what prettyplease prints; when not, printers parse it and
    /// print it with prettyplease.
    pub formatted: bool,
}

/// What every record of a run ends with: its bookkeeping fields, for a root record and for a
/// nested one (their docs differ), and the closing brace.
pub struct Skeleton {
    root_tail: String,
    nested_tail: String,
}

impl Skeleton {
    /// The skeleton for the runtime at `p`.
    pub(super) fn new(p: &Paths) -> Self {
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
pub(super) fn record(s: &StructIr, agent: &AgentIr, p: &Paths, shared: &Skeleton) -> RecordText {
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
    RecordText {
        text: w.out,
        formatted: w.formatted,
    }
}

/// Lines of a struct as prettyplease prints them.
struct Writer {
    out: String,
    /// Spaces before every line, which prettyplease does not see.
    base: usize,
    /// The indentation of the current line, as prettyplease sees it.
    indent: usize,
    formatted: bool,
}

impl Default for Writer {
    fn default() -> Self {
        Writer {
            out: String::new(),
            base: INDENT,
            indent: INDENT,
            formatted: true,
        }
    }
}

impl Writer {
    /// The spaces that start a line at `indent`.
    fn pad(&mut self, indent: usize) {
        const SPACES: &str = "                                                                ";
        let mut n = self.base + indent;
        while n > 0 {
            let step = n.min(SPACES.len());
            self.out.push_str(&SPACES[..step]);
            n -= step;
        }
    }

    /// A name produced by [`naming`], raw where it is a keyword.
    fn name(&mut self, name: &str) {
        if naming::is_raw(name) {
            self.out.push_str("r#");
        }
        self.out.push_str(name);
    }

    /// `text` on a line of its own.
    fn line(&mut self, text: &str) {
        self.pad(self.indent);
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// A doc line of the IR: `#[doc = " line"]`, empty when the line is.
    fn doc_line(&mut self, line: &str) {
        if line.is_empty() {
            self.doc("");
        } else if line.contains('\n')
            || (!line.is_ascii() && line.chars().any(is_hazard))
            || line.bytes().any(|b| b < b' ' || b == 0x7f)
        {
            self.doc(&format!(" {line}"));
        } else {
            self.pad(self.indent);
            let line = line.trim_end_matches(' ');
            self.out
                .push_str(if line.is_empty() { "///" } else { "/// " });
            self.out.push_str(line);
            self.out.push('\n');
        }
    }

    /// `#[doc = value]` as prettyplease prints it: `///` and the value without its trailing
    /// spaces. A value it would print otherwise (a line break in it, or a leading `/`) or that
    /// must not be raw in a comment is written as the attribute, and the record left to
    /// prettyplease.
    fn doc(&mut self, value: &str) {
        self.pad(self.indent);
        if value.contains('\n') || value.starts_with('/') || value.chars().any(is_hazard) {
            self.formatted = false;
            self.out.push_str("#[doc = ");
            self.out.push_str(&Literal::string(value).to_string());
            self.out.push_str("]\n");
            return;
        }
        self.out.push_str("///");
        self.out.push_str(value.trim_end_matches(' '));
        self.out.push('\n');
    }

    /// `#[json(key = value)]`, broken inside its parentheses where it is too long for a line.
    fn json_marker(&mut self, key: &str, value: &str) {
        let content = key.len() + 3 + value.len();
        self.pad(self.indent);
        self.out.push_str("#[json(");
        // The parentheses' box holds the content; `)]` follows it before the next break.
        let space = space_at(self.indent) - "#[json(".len() as isize;
        if (content + 2) as isize > space {
            self.out.push('\n');
            self.pad(self.indent + INDENT);
            self.out.push_str(key);
            self.out.push_str(" = ");
            self.out.push_str(value);
            self.out.push('\n');
            self.pad(self.indent);
        } else {
            self.out.push_str(key);
            self.out.push_str(" = ");
            self.out.push_str(value);
        }
        self.out.push_str(")]\n");
    }

    /// `pub name: ty,`, the type broken over lines as prettyplease breaks it.
    fn field(&mut self, name: &str, ty: &Spelled) {
        self.pad(self.indent);
        self.out.push_str("pub ");
        let start = self.out.len();
        self.name(name);
        let used = (4 + self.out.len() - start + 2) as isize;
        self.out.push_str(": ");
        let indent = self.indent;
        self.ty(ty, indent, space_at(indent) - used, 1);
        self.out.push_str(",\n");
    }

    /// Writes `ty` where `space` columns are left on the line and `trailing` characters follow
    /// it before the next place a line may break. Each `<…>` is a consistent box: it stays on
    /// the line when its arguments, its `>` and what trails fit in the space left after its `<`,
    /// and otherwise puts each argument on a line of its own, one step in, with a comma after
    /// it, and `>` back at the outer indentation.
    fn ty(&mut self, ty: &Spelled, indent: usize, space: isize, trailing: usize) {
        if ty.args.is_empty() || (ty.flat_len() + trailing) as isize <= space {
            ty.write_flat(&mut self.out);
            return;
        }
        self.out.push_str(&ty.path);
        self.out.push('<');
        let inner = indent + INDENT;
        let last = ty.args.len() - 1;
        for (i, arg) in ty.args.iter().enumerate() {
            self.out.push('\n');
            self.pad(inner);
            // An argument's box ends before the `,` of a last argument (a break's, printed
            // only when broken) but before the `,` word that follows any other.
            self.ty(arg, inner, space_at(inner), usize::from(i != last));
            self.out.push(',');
        }
        self.out.push('\n');
        self.pad(indent);
        self.out.push('>');
    }
}

/// The columns left on a line that starts at `indent`.
fn space_at(indent: usize) -> isize {
    (MARGIN.saturating_sub(indent)).max(MIN_SPACE) as isize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A struct of one field named `name` of type `ty`, printed by prettyplease and by the writer.
    fn both(name: &str, ty: &Spelled, rename: Option<&str>) -> (String, String) {
        let mut w = Writer {
            out: String::new(),
            base: 0,
            indent: 0,
            formatted: true,
        };
        w.out.push_str("pub struct S {\n");
        w.indent = INDENT;
        w.doc(" A doc line  ");
        if let Some(json) = rename {
            w.json_marker("rename", &Literal::string(json).to_string());
        }
        w.field(name, ty);
        w.out.push_str("}\n");
        let file = match syn::parse_file(&w.out) {
            Ok(file) => file,
            Err(e) => panic!("{e}: {}", w.out),
        };
        (prettyplease::unparse(&file), w.out)
    }

    fn spelled(depth: usize, leaf: &str, two: bool) -> Spelled {
        let mut ty = Spelled::path(leaf);
        for d in 0..depth {
            ty = if two && d % 2 == 0 {
                ty.map_of()
            } else {
                ty.vec()
            };
        }
        ty.optional()
    }

    #[test]
    fn fields_and_markers_break_where_prettyplease_breaks_them() {
        let mut checked = 0;
        for depth in 0..4 {
            for two in [false, true] {
                for leaf_len in (1..90).step_by(3) {
                    for name_len in [1, 20, 45, 70] {
                        let leaf = format!("T{}", "a".repeat(leaf_len));
                        let name = "f".repeat(name_len);
                        let ty = spelled(depth, &leaf, two);
                        let rename =
                            (leaf_len % 2 == 0).then(|| "j".repeat(leaf_len + name_len % 3));
                        let (pretty, ours) = both(&name, &ty, rename.as_deref());
                        assert_eq!(ours, pretty);
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 900);
    }

    #[test]
    fn a_doc_line_prettyplease_would_not_print_as_a_comment_is_left_to_it() {
        let mut w = Writer {
            base: 0,
            ..Writer::default()
        };
        w.doc(" Plain");
        assert!(w.formatted);
        w.doc(" Right\u{202e}to left");
        assert!(!w.formatted);
        assert_eq!(
            w.out,
            "    /// Plain\n    #[doc = \" Right\\u{202e}to left\"]\n"
        );
    }
}
