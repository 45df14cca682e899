//! Output record structs, built from the templates of [`super::tree`].

use proc_macro2::Literal;
use quote::quote;
use syn::punctuated::Punctuated;
use syn::{Fields, Item};

use super::Paths;
use super::tree::Templates;
use crate::ir::{AgentIr, StructIr};
use crate::naming::ident;

/// The struct of `s` and its `__decode_record!` invocation.
fn record(s: &StructIr, agent: &AgentIr, p: &Paths, t: &mut Templates) -> syn::Result<[Item; 2]> {
    let name = ident(&s.ident);
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
        for f in &s.fields {
            let ty = t.output_type(&f.ty, agent, p)?;
            fields.push(t.field(t.docs(&f.docs), ident(&f.ident), ty));
        }
        fields.extend(trailing);
        named.named = fields;
    }
    let mut decode = t.decode.clone();
    let entries = s.fields.iter().map(|f| {
        let id = ident(&f.ident);
        let json = Literal::string(&f.json);
        quote!((#id, #json))
    });
    decode.mac.tokens = quote!(#name, [#(#entries),*]);
    Ok([Item::Struct(item), Item::Macro(decode)])
}

/// Every record struct of an agent with its decoder invocation, in order.
pub(super) fn records(agent: &AgentIr, p: &Paths, t: &mut Templates) -> syn::Result<Vec<Item>> {
    let mut items = Vec::with_capacity(agent.structs.len() * 2);
    for s in &agent.structs {
        items.extend(record(s, agent, p, t)?);
    }
    Ok(items)
}
