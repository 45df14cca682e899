//! The templates of an emission (an agent, or the agents generated together): the doc
//! attribute enums are given, parsed once and cloned with its text set, and the shared tail of
//! every record (`record.rs`).

use proc_macro2::Span;
use quote::quote;
use syn::{Attribute, Expr, ItemStruct, Lit, LitStr, Meta};

use super::record::Skeleton;
use super::shape::shape;
use super::tokens::Paths;

/// The templates of one run.
pub struct Templates {
    /// `#[doc = ""]`.
    doc: Attribute,
    /// What every output record shares (records are written as text, `record.rs`).
    pub(super) records: Skeleton,
}

impl Templates {
    /// Parses the templates for the runtime at `p`.
    pub fn new(p: &Paths) -> syn::Result<Self> {
        let doc: ItemStruct = syn::parse2(quote!(
            #[doc = ""]
            struct S {
                pub field: (),
            }
        ))?;
        let Some(doc_attr) = doc.attrs.into_iter().next() else {
            return Err(shape("doc"));
        };
        Ok(Templates {
            doc: doc_attr,
            records: Skeleton::new(p),
        })
    }

    /// `#[doc = " line"]` (an empty line stays empty).
    pub(super) fn doc(&self, line: &str) -> Attribute {
        let mut text = String::with_capacity(line.len() + 1);
        if !line.is_empty() {
            text.push(' ');
            text.push_str(line);
        }
        let mut attr = self.doc.clone();
        set_doc(&mut attr, &text);
        attr
    }

    /// One doc attribute per line.
    pub(super) fn docs(&self, lines: &[String]) -> Vec<Attribute> {
        lines.iter().map(|l| self.doc(l)).collect()
    }
}

/// Sets a `#[doc = …]` attribute's text to `value` as it is.
fn set_doc(attr: &mut Attribute, value: &str) {
    if let Meta::NameValue(nv) = &mut attr.meta
        && let Expr::Lit(lit) = &mut nv.value
    {
        lit.lit = doc_literal(value);
    }
}

/// `value` as a string literal. Printable ASCII (nearly every doc line) is written raw,
/// `r"…"`, which is read and printed back without escaping each character; anything else is
/// escaped, so that no control or bidirectional character is ever raw in a literal.
fn doc_literal(value: &str) -> Lit {
    if value.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        let mut hashes = String::new();
        while value.contains(&format!("\"{hashes}")) {
            hashes.push('#');
        }
        let mut repr = String::with_capacity(value.len() + 2 * hashes.len() + 3);
        repr.push('r');
        repr.push_str(&hashes);
        repr.push('"');
        repr.push_str(value);
        repr.push('"');
        repr.push_str(&hashes);
        if let Ok(token) = repr.parse::<proc_macro2::Literal>() {
            return Lit::new(token);
        }
    }
    Lit::Str(LitStr::new(value, Span::call_site()))
}

#[cfg(test)]
mod tests {
    use super::doc_literal;
    use syn::Lit;

    #[test]
    fn a_doc_literal_holds_its_text_exactly() {
        for (text, raw) in [
            (" Price in cents", true),
            (" Says \"hi\"", true),
            (" Ends in \"# and \"## too", true),
            (r" A back\slash stays one", true),
            ("", true),
            (" Tab\there", false),
            (" Café", false),
            (" Right\u{202e}to left", false),
            (" Carriage\rreturn", false),
        ] {
            let Lit::Str(lit) = doc_literal(text) else {
                panic!("{text:?} is not a string literal");
            };
            assert_eq!(lit.value(), text);
            assert_eq!(lit.token().to_string().starts_with('r'), raw, "{text:?}");
        }
    }
}
