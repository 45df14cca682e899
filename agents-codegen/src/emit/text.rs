//! Generated items written as source text, exactly as prettyplease prints them: every item of
//! an agent (records, enums, the params type, the trait impls) is written by this writer.
//!
//! A generated item is lines of docs, markers and code, most of them alike, and building each as
//! a syntax tree, printing it with prettyplease and dropping it was most of the time of
//! generating an agent. The text is what prettyplease prints for the same item, its line breaks
//! included, so `format()` of the macro's tokens (which lexes this text) and the build script's
//! source stay the same text. Where the writer does not know how prettyplease would break a
//! line, it marks the item, and printers parse it and print it with prettyplease.

use proc_macro2::Literal;

use super::tokens::Spelled;
use crate::docs::is_hazard;
use crate::naming;

/// An item as source.
pub struct ItemText {
    /// The item (or items), ending in a newline; one that stands in a macro call (a record, an
    /// enum) has its lines one step in, as in the call (the macro's lexer does not mind).
    pub text: String,
    /// Whether the text is exactly what prettyplease prints; when not, printers parse it and
    /// print it with prettyplease.
    pub formatted: bool,
}

/// prettyplease's line width, minimum space after indentation, and indentation step.
pub(super) const MARGIN: usize = 89;
pub(super) const MIN_SPACE: usize = 60;
pub(super) const INDENT: usize = 4;

/// Lines of an item as prettyplease prints them.
pub(super) struct Writer {
    pub(super) out: String,
    /// Spaces before every line, which prettyplease does not see.
    pub(super) base: usize,
    /// The indentation of the current line, as prettyplease sees it.
    pub(super) indent: usize,
    pub(super) formatted: bool,
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
    pub(super) fn pad(&mut self, indent: usize) {
        const SPACES: &str = "                                                                ";
        let mut n = self.base + indent;
        while n > 0 {
            let step = n.min(SPACES.len());
            self.out.push_str(&SPACES[..step]);
            n -= step;
        }
    }

    /// A name produced by [`naming`], raw where it is a keyword.
    pub(super) fn name(&mut self, name: &str) {
        if naming::is_raw(name) {
            self.out.push_str("r#");
        }
        self.out.push_str(name);
    }

    /// `text` on a line of its own.
    pub(super) fn line(&mut self, text: &str) {
        self.pad(self.indent);
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// A doc line of the IR: `#[doc = " line"]`, empty when the line is.
    pub(super) fn doc_line(&mut self, line: &str) {
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
    /// must not be raw in a comment is written as the attribute, and the item left to
    /// prettyplease.
    pub(super) fn doc(&mut self, value: &str) {
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

    /// The lines `other` wrote, after this writer's; the item is formatted when both are.
    pub(super) fn append(&mut self, other: Writer) {
        self.out.push_str(&other.out);
        self.formatted &= other.formatted;
    }

    /// A line of code made of `parts`, at the current indentation. prettyplease prints a line
    /// that fits as it is; one that does not is left to it (the item is marked).
    pub(super) fn code(&mut self, parts: &[&str]) {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        if len as isize > space_at(self.indent) {
            self.formatted = false;
        }
        self.pad(self.indent);
        for part in parts {
            self.out.push_str(part);
        }
        self.out.push('\n');
    }

    /// `head receiver.call tail` (`let x = v.given(…);`), where `call` is a method call: on one
    /// line when it fits, else broken before the `.` as prettyplease breaks it, the call one
    /// step in.
    pub(super) fn method_call(&mut self, head: &[&str], receiver: &str, call: &[&str], tail: &str) {
        let head_len: usize = head.iter().map(|p| p.len()).sum();
        let call_len: usize = call.iter().map(|p| p.len()).sum();
        if (head_len + receiver.len() + call_len + tail.len()) as isize <= space_at(self.indent) {
            let mut parts = Vec::with_capacity(head.len() + call.len() + 2);
            parts.extend_from_slice(head);
            parts.push(receiver);
            parts.extend_from_slice(call);
            parts.push(tail);
            self.code(&parts);
            return;
        }
        let mut first = Vec::with_capacity(head.len() + 1);
        first.extend_from_slice(head);
        first.push(receiver);
        self.code(&first);
        self.indent += INDENT;
        let mut rest = Vec::with_capacity(call.len() + 1);
        rest.extend_from_slice(call);
        rest.push(tail);
        self.code(&rest);
        self.indent -= INDENT;
    }

    /// `head(args)tail` (`let mut v = Violations::new("agent");`), a call of a path: on one line
    /// when it fits, else as prettyplease breaks it, one argument a line, one step in, each
    /// with a comma, whatever the length of the line that opens the call. An argument over
    /// several lines (a raw string) never fits.
    pub(super) fn call(&mut self, head: &[&str], args: &[&str], tail: &str) {
        let head_len: usize = head.iter().map(|p| p.len()).sum();
        let args_len: usize = args.iter().map(|a| a.len() + 2).sum();
        let len = head_len + 2 + args_len.saturating_sub(2) + tail.len();
        let multiline = args.iter().any(|a| a.contains('\n'));
        self.pad(self.indent);
        for part in head {
            self.out.push_str(part);
        }
        self.out.push('(');
        if !multiline && len as isize <= space_at(self.indent) {
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.out.push_str(arg);
            }
            self.out.push(')');
            self.out.push_str(tail);
            self.out.push('\n');
            return;
        }
        self.out.push('\n');
        self.indent += INDENT;
        for arg in args {
            if arg.contains('\n') {
                self.pad(self.indent);
                self.out.push_str(arg);
                self.out.push_str(",\n");
            } else {
                self.code(&[arg, ","]);
            }
        }
        self.indent -= INDENT;
        self.code(&[")", tail]);
    }

    /// A function's signature, `head` (`pub fn new(`), its arguments and `tail` (`) -> Self {`):
    /// on one line when it fits, else one argument a line, one step in, each with a comma.
    pub(super) fn signature(&mut self, head: &str, args: &[String], tail: &str) {
        let len = head.len() + tail.len() + args.iter().map(|a| a.len() + 2).sum::<usize>();
        if (len.saturating_sub(2)) as isize <= space_at(self.indent) || args.is_empty() {
            self.pad(self.indent);
            self.out.push_str(head);
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.out.push_str(arg);
            }
            self.out.push_str(tail);
            self.out.push('\n');
            if len.saturating_sub(2) as isize > space_at(self.indent) {
                self.formatted = false;
            }
            return;
        }
        self.code(&[head]);
        self.indent += INDENT;
        for arg in args {
            self.code(&[arg, ","]);
        }
        self.indent -= INDENT;
        self.code(&[tail]);
    }

    /// `#[json(key = value)]`, broken inside its parentheses where it is too long for a line.
    pub(super) fn json_marker(&mut self, key: &str, value: &str) {
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
    pub(super) fn field(&mut self, name: &str, ty: &Spelled) {
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
    pub(super) fn ty(&mut self, ty: &Spelled, indent: usize, space: isize, trailing: usize) {
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
pub(super) fn space_at(indent: usize) -> isize {
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
