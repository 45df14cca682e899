//! Formatting generated source: prettyplease for every front door, rustfmt for checked-in files.

use proc_macro2::TokenStream;
use syn::parse::Parser as _;

use agents_schema::diag::{Diagnostic, Diagnostics};

/// Generated code that does not parse: a bug of this crate, reported rather than panicking.
pub(crate) fn generator_bug(agent: Option<&str>, e: &syn::Error) -> Diagnostics {
    let d = Diagnostic::at(
        "$",
        format!("generated code does not parse (a generator bug): {e}"),
    );
    match agent {
        Some(a) => d.agent(a),
        None => d,
    }
    .into()
}

/// Formats items as Rust source with prettyplease, the bodies of `record!` calls included.
pub fn format(tokens: TokenStream) -> Result<String, Diagnostics> {
    let file: syn::File = syn::parse2(tokens).map_err(|e| generator_bug(None, &e))?;
    let mut printer = Printer::default();
    for item in file.items {
        printer.item(item);
    }
    Ok(printer.finish())
}

/// Source printed one item at a time: prettyplease prints a file as its items one after the
/// other, so this gives the text of the whole file while only one item's tree is alive.
pub(crate) struct Printer {
    source: String,
    /// A file holding the item being printed, reused.
    file: syn::File,
}

impl Default for Printer {
    fn default() -> Self {
        Printer {
            source: String::new(),
            file: syn::File {
                shebang: None,
                frontmatter: None,
                attrs: Vec::new(),
                items: Vec::with_capacity(1),
            },
        }
    }
}

impl Printer {
    fn unparse(&mut self, item: syn::Item) -> String {
        self.file.items.push(item);
        let text = prettyplease::unparse(&self.file);
        self.file.items.clear();
        text
    }

    /// Prints an item; a `record!`, `string_enum!` or `union_enum!` call whose body is an item is printed as
    /// [`Printer::wrapped`] prints it.
    pub(crate) fn item(&mut self, item: syn::Item) {
        if let syn::Item::Macro(m) = &item
            && let Some(last) = m.mac.path.segments.last()
            && let Some(name) = ["record", "string_enum", "union_enum"]
                .into_iter()
                .find(|n| last.ident == n)
            && let Ok((schema, fields, body)) = macro_body.parse2(m.mac.tokens.clone())
        {
            let leading = m.mac.path.leading_colon.map_or("", |_| "::");
            let segments = m.mac.path.segments.len().saturating_sub(1);
            let rt: Vec<String> = (m.mac.path.segments.iter().take(segments))
                .map(|s| s.ident.to_string())
                .collect();
            let rt = format!("{leading}{}", rt.join("::"));
            match (fields, body) {
                (Some(fields), syn::Item::Struct(record)) => {
                    self.record(&rt, schema.as_deref(), &fields, record);
                }
                (_, body) => self.wrapped(&rt, name, body, None),
            }
            return;
        }
        let text = self.unparse(item);
        self.source.push_str(&text);
    }

    /// A record struct wrapped in `record!`, after the schema it carries (a raw string with
    /// as many `#` as it needs) and the name of its field paths' struct.
    pub(crate) fn record(
        &mut self,
        rt: &str,
        schema: Option<&str>,
        fields: &str,
        item: syn::ItemStruct,
    ) {
        let head = record_head(schema, fields);
        self.wrapped(rt, "record", syn::Item::Struct(item), Some(&head));
    }

    /// `<rt>::<name>! { head item }` of an item written as text, indented for the call
    /// already: copied into it, or parsed and printed where it is not yet as prettyplease
    /// prints it.
    pub(crate) fn macro_text(
        &mut self,
        rt: &str,
        name: &str,
        head: Option<&str>,
        item: crate::emit::ItemText,
    ) -> syn::Result<()> {
        if !item.formatted {
            let parsed: syn::Item = syn::parse_str(&item.text)?;
            self.wrapped(rt, name, parsed, head);
            return Ok(());
        }
        let head = head.unwrap_or_default();
        self.source
            .reserve(rt.len() + name.len() + 8 + head.len() + item.text.len());
        self.source.push_str(rt);
        self.source.push_str("::");
        self.source.push_str(name);
        self.source.push_str("! {\n");
        self.source.push_str(head);
        self.source.push_str(&item.text);
        self.source.push_str("}\n");
        Ok(())
    }

    /// Items written as text: copied, or parsed and printed where they are not yet as
    /// prettyplease prints them.
    pub(crate) fn text(&mut self, items: crate::emit::ItemText) -> syn::Result<()> {
        if items.formatted {
            self.source.push_str(&items.text);
        } else {
            let parsed: syn::File = syn::parse_str(&items.text)?;
            parsed.items.into_iter().for_each(|i| self.item(i));
        }
        Ok(())
    }

    /// `<rt>::<name>! { item }`. rustfmt leaves the body of a braced macro call as it is, so
    /// the item is printed on its own and indented into the call here.
    pub(crate) fn wrapped(&mut self, rt: &str, name: &str, item: syn::Item, head: Option<&str>) {
        let body = self.unparse(item);
        self.wrap(rt, name, &body, head);
    }

    /// `<rt>::<name>! {`, `head`, `body` one step in, `}`.
    fn wrap(&mut self, rt: &str, name: &str, body: &str, head: Option<&str>) {
        self.source
            .reserve(rt.len() + name.len() + 8 + head.map_or(0, str::len) + body.len() * 9 / 8);
        self.source.push_str(rt);
        self.source.push_str("::");
        self.source.push_str(name);
        self.source.push_str("! {\n");
        if let Some(head) = head {
            self.source.push_str(head);
        }
        for line in body.lines() {
            if !line.is_empty() {
                self.source.push_str("    ");
                self.source.push_str(line);
            }
            self.source.push('\n');
        }
        self.source.push_str("}\n");
    }

    /// The source printed so far.
    pub(crate) fn finish(self) -> String {
        self.source
    }
}

/// Formats source with rustfmt (`$RUSTFMT`, else `rustfmt` on `PATH`, edition 2024), for
/// generated files that are checked in and held to `cargo fmt --check`. prettyplease output is
/// valid and deterministic but not byte-identical to rustfmt's.
pub fn rustfmt(source: &str) -> Result<String, Diagnostics> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};

    let fail = |message: String| Diagnostics::from(Diagnostic::at("rustfmt", message));
    let program = std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into());
    let mut child = Command::new(&program)
        .args(["--edition", "2024", "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| fail(format!("cannot run {}: {e}", program.to_string_lossy())))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| fail("rustfmt has no stdin".to_owned()))?;
    let input = source.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| fail(format!("rustfmt failed: {e}")))?;
    match writer.join() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(fail(format!("cannot write to rustfmt: {e}"))),
        Err(_) => return Err(fail("the thread feeding rustfmt panicked".to_owned())),
    }
    if !out.status.success() {
        return Err(fail(format!(
            "rustfmt exited with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    String::from_utf8(out.stdout).map_err(|e| fail(format!("rustfmt wrote invalid UTF-8: {e}")))
}

/// `#![schema = r#"…"#]` and `#![fields = Name]`, as a record's call begins.
pub(crate) fn record_head(schema: Option<&str>, fields: &str) -> String {
    let mut text = String::new();
    if let Some(schema) = schema {
        text.push_str(&format!("    #![schema = {}]\n", raw_json(schema, "    ")));
    }
    text.push_str(&format!("    #![fields = {fields}]\n"));
    text
}

/// What a `record!` is told before its struct (`#![schema = "…"]`, `#![fields = Name]`).
type RecordHeads = (Option<String>, Option<String>);

/// The body of a `record!`, `string_enum!` or `union_enum!` call: the schema a record carries
/// and the name of its field paths' struct, if any, and the item.
fn macro_body(
    input: syn::parse::ParseStream<'_>,
) -> syn::Result<(Option<String>, Option<String>, syn::Item)> {
    let inner = input.call(syn::Attribute::parse_inner)?;
    let mut heads: RecordHeads = (None, None);
    for a in &inner {
        if let syn::Meta::NameValue(nv) = &a.meta {
            match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) if nv.path.is_ident("schema") => heads.0 = Some(s.value()),
                syn::Expr::Path(p) if nv.path.is_ident("fields") => {
                    heads.1 = p.path.get_ident().map(ToString::to_string);
                }
                _ => {}
            }
        }
    }
    Ok((heads.0, heads.1, input.parse()?))
}

/// Pretty-printed JSON `json` as a raw string literal (with as many `#` as it needs), each line
/// after the first indented by `indent` so it lines up with the code around it: the spaces are
/// JSON whitespace (pretty JSON has no raw newline inside a string), so the JSON is unchanged.
pub(crate) fn raw_json(json: &str, indent: &str) -> String {
    let mut hashes = String::from("#");
    while json.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    let lines = json.bytes().filter(|&b| b == b'\n').count();
    let mut out = String::with_capacity(json.len() + lines * indent.len() + 2 * hashes.len() + 3);
    out.push('r');
    out.push_str(&hashes);
    out.push('"');
    let mut rest = json;
    while let Some(at) = rest.find('\n') {
        out.push_str(&rest[..=at]);
        out.push_str(indent);
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
    out.push('"');
    out.push_str(&hashes);
    out
}

#[cfg(test)]
mod tests {
    use super::Printer;
    use crate::emit::ItemText;

    /// A record's text that prettyplease would print otherwise is printed by prettyplease; one
    /// it prints the same is indented as it is. Both come out as the `format()` path prints them.
    #[test]
    fn a_record_text_is_printed_as_prettyplease_prints_it() {
        let printed = |record: ItemText| {
            let mut ours = Printer::default();
            let head = super::record_head(None, "SFields");
            assert!(
                ours.macro_text("::rt", "record", Some(&head), record)
                    .is_ok()
            );
            ours.finish()
        };
        let struct_text = |doc: &str| {
            format!("#[doc = {doc}]\npub struct S {{\n    pub a: Option<String>,\n}}\n")
        };
        for (doc, formatted) in [
            ("\" A line\"", false),
            ("\" Two\\nlines\"", false),
            ("\"/ Slash\"", false),
        ] {
            let text = struct_text(doc);
            let ours = printed(ItemText {
                text: text.clone(),
                formatted,
            });
            let mut theirs = Printer::default();
            let item: syn::ItemStruct = match syn::parse_str(&text) {
                Ok(item) => item,
                Err(e) => panic!("{e}"),
            };
            theirs.record("::rt", None, "SFields", item);
            assert_eq!(ours, theirs.finish(), "{doc}");
        }
        let ours = printed(ItemText {
            text: "    /// A line\n    pub struct S {}\n".to_owned(),
            formatted: true,
        });
        assert_eq!(
            ours,
            "::rt::record! {\n    #![fields = SFields]\n    /// A line\n    pub struct S {}\n}\n"
        );
    }
}
