//! String enums (the enum with its variants' JSON texts and the `Unknown` variant) and unions
//! (a variant per kind of value), handed out whole so that printers wrap them in the runtime's
//! `string_enum!` and `union_enum!`.

use proc_macro2::Span;
use quote::quote;
use syn::{Attribute, ItemEnum, LitStr};

use super::tokens::{Paths, ty_tokens};
use super::tree::Templates;
use crate::docs;
use crate::ir::{AgentIr, EnumIr, UnionIr};
use crate::naming::ident;

/// The enum of `e`, as `string_enum!` takes it.
pub(super) fn string_enum(e: &EnumIr, t: &Templates) -> syn::Result<ItemEnum> {
    let name = ident(&e.ident);
    let docs = t.docs(&e.docs);
    let variants = e.variants.iter().map(|v| {
        let id = ident(&v.ident);
        let json = LitStr::new(&v.json, Span::call_site());
        let doc = docs::variant(&v.json);
        quote!(#[doc = #doc] #id = #json,)
    });
    let unknown = docs::UNKNOWN_VARIANT;
    let mut item: ItemEnum = syn::parse2(quote! {
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum #name {
            #(#variants)*
            #[json(other)]
            #[doc = #unknown]
            Unknown(String),
        }
    })?;
    let mut attrs: Vec<Attribute> = docs;
    attrs.append(&mut item.attrs);
    item.attrs = attrs;
    Ok(item)
}

/// The enum of `u`, as `union_enum!` takes it.
pub(super) fn union_enum(
    u: &UnionIr,
    agent: &AgentIr,
    p: &Paths,
    t: &Templates,
) -> syn::Result<ItemEnum> {
    let name = ident(&u.ident);
    let docs = t.docs(&u.docs);
    let variants = (u.variants.iter())
        .map(|(v, ty, doc)| {
            let id = ident(v);
            let ty = ty_tokens(ty, agent, p)?;
            Ok(quote!(#[doc = #doc] #id(#ty),))
        })
        .collect::<syn::Result<Vec<_>>>()?;
    let mut item: ItemEnum = syn::parse2(quote! {
        #[derive(Debug, Clone, PartialEq)]
        pub enum #name {
            #(#variants)*
        }
    })?;
    let mut attrs: Vec<Attribute> = docs;
    attrs.append(&mut item.attrs);
    item.attrs = attrs;
    Ok(item)
}
