//! How the types of the intermediate model are spelled in generated code. Which Rust type a
//! schema type becomes is decided in [`crate::types`]; this module only writes it out, with the
//! runtime crate's path.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::AgentIr;
use crate::naming::ident;
use crate::types::Ty;

/// Paths the generated code refers to.
pub struct Paths {
    /// The runtime crate (`::agents_runtime`, or `crate` inside it).
    pub(super) rt: TokenStream,
    /// `"<rt>::__private::serde"` for `#[serde(crate = …)]`.
    pub(super) serde_crate: String,
}

impl Paths {
    /// Paths under the runtime crate at `rt` (a parsed path) spelled `rt_text`.
    pub fn new(rt: TokenStream, rt_text: &str) -> Self {
        Paths {
            rt,
            serde_crate: format!("{rt_text}::__private::serde"),
        }
    }

    /// The runtime crate's path.
    pub fn rt(&self) -> &TokenStream {
        &self.rt
    }
}

/// The tokens of an output type (without the `Option`).
pub(super) fn ty_tokens(ty: &Ty, agent: &AgentIr, p: &Paths) -> TokenStream {
    let rt = &p.rt;
    match ty {
        Ty::String => quote!(String),
        Ty::Number => quote!(f64),
        Ty::Integer => quote!(i64),
        Ty::Boolean => quote!(bool),
        Ty::Page => quote!(u32),
        Ty::Any => quote!(#rt::Value),
        Ty::Map => quote!(
            #rt::JsonMap
        ),
        Ty::Array(inner) => {
            let item = ty_tokens(inner, agent, p);
            quote!(Vec<#item>)
        }
        Ty::MapOf(inner) => {
            let value = ty_tokens(inner, agent, p);
            quote!(::std::collections::BTreeMap<String, #value>)
        }
        Ty::Boxed(inner) => {
            let inner = ty_tokens(inner, agent, p);
            quote!(Box<#inner>)
        }
        Ty::Enum(i) => match agent.enums.get(*i) {
            Some(e) => {
                let id = ident(&e.ident);
                quote!(#id)
            }
            None => quote!(#rt::Value),
        },
        Ty::Union(i) => match agent.unions.get(*i) {
            Some(u) => {
                let id = ident(&u.ident);
                quote!(#id)
            }
            None => quote!(#rt::Value),
        },
        Ty::Struct(i) => match agent.structs.get(*i) {
            Some(s) => {
                let id = ident(&s.ident);
                quote!(#id)
            }
            None => quote!(#rt::Value),
        },
    }
}

/// Whether a param's setter or constructor argument is converted into the field's type
/// (`impl Into<…>`, then `.into()`) rather than taken as the field's type.
pub(super) fn converts(ty: &Ty) -> bool {
    matches!(ty, Ty::String | Ty::Any)
}

/// The argument type of a param's setter or constructor argument (see [`converts`]).
pub(super) fn param_arg(ty: &Ty, agent: &AgentIr, p: &Paths) -> TokenStream {
    let rt = &p.rt;
    match ty {
        Ty::String => quote!(impl Into<String>),
        Ty::Any => quote!(impl Into<#rt::Value>),
        other => ty_tokens(other, agent, p),
    }
}
