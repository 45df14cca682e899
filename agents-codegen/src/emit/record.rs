//! Output record structs, built from the templates of [`super::tree`].

use proc_macro2::Literal;
use quote::quote;
use syn::punctuated::Punctuated;
use syn::{Fields, Item};

use super::Paths;
use super::tree::Templates;
use crate::ir::{AgentIr, StructIr};
use crate::naming::{self, ident};

/// The struct of `s` and its `__decode_record!` invocation.
pub(super) fn record(
    s: &StructIr,
    agent: &AgentIr,
    p: &Paths,
    t: &mut Templates,
) -> syn::Result<[Item; 2]> {
    let name = ident(&s.ident);
    let idents: Vec<_> = s.fields.iter().map(|f| ident(&f.ident)).collect();
    let mut item = if s.root {
        t.root.clone()
    } else {
        t.nested.clone()
    };
    item.ident = name.clone();
    let mut attrs = t.docs(&s.docs);
    attrs.append(&mut item.attrs);
    item.attrs = attrs;
    if let Fields::Named(named) = &mut item.fields {
        let trailing = std::mem::take(&mut named.named);
        let mut fields = Punctuated::new();
        for (f, id) in s.fields.iter().zip(&idents) {
            let ty = t.output_type(&f.ty, agent, p)?;
            fields.push(t.field(t.docs(&f.docs), id.clone(), ty));
        }
        fields.extend(trailing);
        named.named = fields;
    }
    let mut decode = t.decode.clone();
    // `field` when the JSON name is the field's name, else `field = "json name"` (always for
    // a raw identifier, whose `stringify!` keeps the `r#`).
    let entries = s.fields.iter().zip(idents).map(|(f, id)| {
        if f.json == f.ident && !naming::is_raw(&f.ident) {
            quote!(#id)
        } else {
            let json = Literal::string(&f.json);
            quote!(#id = #json)
        }
    });
    decode.mac.tokens = quote!(#name, [#(#entries),*]);
    Ok([Item::Struct(item), Item::Macro(decode)])
}
