//! The intermediate model as items. Nothing here makes a naming or typing decision: names come
//! from [`crate::naming`] through the IR, types from [`crate::types`].
//!
//! An agent's code comes out as [`Piece`]s, in order. The repeated parts (record structs with
//! their fields, the params struct, its setters, doc lines) are syntax trees cloned from the
//! templates of `tree.rs` ([`Templates`]), because quoting and re-parsing those was most of the
//! generator's time. The one-off items of each agent (the params' `new` and `validate`, the
//! trait impls) are quoted here and stay tokens: only a printer that needs trees (prettyplease)
//! parses them, and the macro path passes them on as they are.

mod record;
mod tree;

pub use tree::Templates;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::punctuated::Punctuated;
use syn::{Fields, Item};

use crate::ir::{AgentIr, ParamIr, ParamsIr};
use crate::naming::ident;
use crate::rules::Rule;
use crate::types::{ParamTy, Ty};

/// Paths the generated code refers to.
pub struct Paths {
    /// The runtime crate (`::agents_runtime`, or `crate` inside it).
    rt: TokenStream,
    /// `"<rt>::__private::serde"` for `#[serde(crate = …)]`.
    serde_crate: String,
}

impl Paths {
    /// Paths under the runtime crate at `rt` (a parsed path) spelled `rt_text`.
    pub fn new(rt: TokenStream, rt_text: &str) -> Self {
        Paths {
            rt,
            serde_crate: format!("{rt_text}::__private::serde"),
        }
    }
}

fn ty_tokens(ty: &Ty, agent: &AgentIr, p: &Paths) -> TokenStream {
    let rt = &p.rt;
    match ty {
        Ty::String => quote!(String),
        Ty::Number => quote!(f64),
        Ty::Integer => quote!(i64),
        Ty::Boolean => quote!(bool),
        Ty::Any => quote!(#rt::Value),
        Ty::Map => quote!(
            #rt::JsonMap
        ),
        Ty::Array(inner) => {
            let item = ty_tokens(inner, agent, p);
            if inner.boxed_in_arrays() {
                quote!(Vec<Box<#item>>)
            } else {
                quote!(Vec<#item>)
            }
        }
        Ty::Struct(i) => match agent.structs.get(*i) {
            Some(s) => {
                let id = ident(&s.ident);
                quote!(#id)
            }
            None => quote!(#rt::Value),
        },
    }
}

/// A piece of an agent's code: one item built as a syntax tree, or one-off items as quoted
/// tokens.
#[allow(
    clippy::large_enum_variant,
    reason = "a piece is moved once, into the printer; none is ever stored in bulk"
)]
pub enum Piece {
    /// An item cloned from the templates, with its names, docs and types set.
    Tree(Item),
    /// Quoted items, parsed only by printers that need trees (see the module docs).
    Quoted(TokenStream),
}

/// Every item of one agent, in order, handed to `sink` a piece at a time: record structs and
/// their decoders, the params type and its impls, the agent's trait impls. Consumers print each
/// piece and drop it, so memory holds one item's tree, not the agent's.
pub fn agent(
    agent: &AgentIr,
    p: &Paths,
    t: &mut Templates,
    sink: &mut dyn FnMut(Piece),
) -> syn::Result<()> {
    t.start_agent();
    for s in &agent.structs {
        for item in record::record(s, agent, p, t)? {
            sink(Piece::Tree(item));
        }
    }
    params(&agent.params, agent, p, t, sink)?;
    sink(Piece::Quoted(agent_traits(agent, p)));
    Ok(())
}

fn param_ty(ty: ParamTy, p: &Paths) -> TokenStream {
    let rt = &p.rt;
    match ty {
        ParamTy::String => quote!(String),
        ParamTy::Number => quote!(f64),
        ParamTy::Integer => quote!(i64),
        ParamTy::Page => quote!(u32),
        ParamTy::Boolean => quote!(bool),
        ParamTy::Any => quote!(#rt::Value),
    }
}

/// The argument type of a setter or constructor, and the conversion into the field type.
fn param_arg(ty: ParamTy, p: &Paths) -> (TokenStream, TokenStream) {
    let rt = &p.rt;
    match ty {
        ParamTy::String => (quote!(impl Into<String>), quote!(.into())),
        ParamTy::Any => (quote!(impl Into<#rt::Value>), quote!(.into())),
        other => (param_ty(other, p), quote!()),
    }
}

/// The params struct (a tree), an inherent impl with `new` and `validate` (quoted), an inherent
/// impl with the setters and `param` (a tree), then `Default` when nothing is required and the
/// `AgentParams` impl (quoted).
fn params(
    params: &ParamsIr,
    agent: &AgentIr,
    p: &Paths,
    t: &mut Templates,
    sink: &mut dyn FnMut(Piece),
) -> syn::Result<()> {
    let rt = &p.rt;
    let name = ident(&params.ident);
    let required: Vec<&ParamIr> = params.fields.iter().filter(|f| f.required).collect();
    let ctor_args = required.iter().map(|f| {
        let id = ident(&f.ident);
        let (arg, _) = param_arg(f.ty, p);
        quote!(#id: #arg)
    });
    let ctor_fields = params.fields.iter().map(|f| {
        let id = ident(&f.ident);
        if f.required {
            let (_, conv) = param_arg(f.ty, p);
            if conv.is_empty() {
                quote!(#id,)
            } else {
                quote!(#id: #id #conv,)
            }
        } else {
            quote!(#id: None,)
        }
    });
    let ctor_doc = if required.is_empty() {
        " Parameters with every input unset.".to_owned()
    } else {
        let names: Vec<String> = required
            .iter()
            .map(|f| crate::docs::code(&f.json))
            .collect();
        format!(" Parameters with the required inputs {}.", names.join(", "))
    };
    let many_args = (required.len() > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    let validate = validate_body(params, agent, p);
    let localization = {
        let localizing: Vec<&ParamIr> = params.fields.iter().filter(|f| f.localization).collect();
        if localizing.iter().any(|f| f.required) {
            // A required localization input is always set.
            quote!(true)
        } else if localizing.is_empty() {
            quote!(false)
        } else {
            let ids = localizing.iter().map(|f| ident(&f.ident));
            quote!(#(self.#ids.is_some())||*)
        }
    };
    let default_impl = required.is_empty().then(|| {
        quote! {
            impl Default for #name {
                fn default() -> Self {
                    Self::new()
                }
            }
        }
    });
    let output = ident(agent.structs.first().map_or("", |s| s.ident.as_str()));
    let mut fields = Punctuated::new();
    let mut setters = Vec::new();
    for f in &params.fields {
        let id = ident(&f.ident);
        let ty = t.param_type(f.ty, !f.required, p)?;
        let mut attrs = t.docs(&f.docs);
        attrs.extend(t.param_serde(&f.json, &f.ident, !f.required)?);
        fields.push(t.field(attrs, id.clone(), ty));
        if !f.required {
            let doc = format!(
                "Sets {} (see the field for its meaning and rules).",
                crate::docs::code(&f.json)
            );
            setters.push(t.setter(f.ty, &id, &doc, p)?);
        }
    }
    // The struct: docs, the inputs, then `extra`.
    let mut item = t.params_struct.clone();
    item.ident = name.clone();
    let mut attrs = t.docs(&params.docs);
    attrs.append(&mut item.attrs);
    item.attrs = attrs;
    match &mut item.fields {
        Fields::Named(named) => {
            fields.extend(std::mem::take(&mut named.named));
            named.named = fields;
        }
        _ => return Err(tree::shape("params struct")),
    }
    sink(Piece::Tree(Item::Struct(item)));
    sink(Piece::Quoted(quote! {
        impl #name {
            #[doc = #ctor_doc]
            #many_args
            pub fn new(#(#ctor_args),*) -> Self {
                Self {
                    #(#ctor_fields)*
                    extra: #rt::JsonMap::new(),
                }
            }

            /// Checks the rules of the agent's inputs; every broken rule is reported.
            pub fn validate(&self) -> Result<(), #rt::ValidationError> {
                #validate
            }
        }
    }));
    sink(Piece::Tree(t.params_impl(&name, setters)?));
    sink(Piece::Quoted(quote! {
        #default_impl

        impl #rt::AgentParams for #name {
            type Agent = #output;
            fn validate(&self) -> Result<(), #rt::ValidationError> {
                #name::validate(self)
            }
            fn uses_localization(&self) -> bool {
                #localization
            }
        }
    }));
    Ok(())
}

fn validate_body(params: &ParamsIr, agent: &AgentIr, p: &Paths) -> TokenStream {
    let rt = &p.rt;
    let agent_name = &agent.name;
    let mut statics = Vec::new();
    let mut checks = Vec::new();
    for f in &params.fields {
        let id = ident(&f.ident);
        let json = &f.json;
        let mut these = Vec::new();
        if f.country {
            these.push(quote!(v.country_code(#json, value);));
        }
        for (text, rule) in &f.rules {
            let check = match rule {
                Rule::MinLength(n) => {
                    let n = Literal::usize_unsuffixed(*n);
                    quote!(v.min_length(#json, #text, value, #n);)
                }
                Rule::MaxLength(n) => {
                    let n = Literal::usize_unsuffixed(*n);
                    quote!(v.max_length(#json, #text, value, #n);)
                }
                Rule::Minimum(x) | Rule::Maximum(x) => {
                    let x = Literal::f64_suffixed(*x);
                    let number = match f.ty {
                        ParamTy::Page => quote!(f64::from(*value)),
                        ParamTy::Integer => quote!(*value as f64),
                        _ => quote!(*value),
                    };
                    if matches!(rule, Rule::Minimum(_)) {
                        quote!(v.minimum(#json, #text, #number, #x);)
                    } else {
                        quote!(v.maximum(#json, #text, #number, #x);)
                    }
                }
                Rule::Pattern(re) => {
                    let s = format_ident!("PATTERN_{}", statics.len());
                    statics.push(quote!(static #s: #rt::validate::Pattern = #rt::validate::Pattern::new(#re);));
                    quote!(v.pattern(#json, #text, value, &#s);)
                }
                Rule::OneOf(values) => quote!(v.one_of(#json, #text, value, &[#(#values),*]);),
            };
            these.push(check);
        }
        if these.is_empty() {
            continue;
        }
        if f.required {
            let bind = match f.ty {
                ParamTy::String => quote!(let value = self.#id.as_str();),
                _ => quote!(let value = &self.#id;),
            };
            checks.push(quote!({ #bind #(#these)* }));
        } else {
            let bind = match f.ty {
                ParamTy::String => quote!(self.#id.as_deref()),
                _ => quote!(self.#id.as_ref()),
            };
            checks.push(quote!(if let Some(value) = #bind { #(#these)* }));
        }
    }
    if checks.is_empty() {
        quote!(#rt::validate::Violations::new(#agent_name).finish())
    } else {
        quote! {
            #(#statics)*
            let mut v = #rt::validate::Violations::new(#agent_name);
            #(#checks)*
            v.finish()
        }
    }
}

fn agent_traits(agent: &AgentIr, p: &Paths) -> TokenStream {
    let rt = &p.rt;
    let (Some(root), name) = (agent.structs.first(), &agent.name) else {
        return quote!();
    };
    let output = ident(&root.ident);
    let params = ident(&agent.params.ident);
    let localized = agent
        .localized
        .then(|| quote!(impl #rt::Localized for #output {}));
    let paginated = agent
        .page
        .and_then(|i| agent.params.fields.get(i))
        .map(|f| {
            let id = ident(&f.ident);
            let json = &f.json;
            quote! {
                impl #rt::Paginated for #output {
                    const PAGE_PARAM: &'static str = #json;
                    fn page(params: &#params) -> Option<u32> {
                        params.#id
                    }
                    fn set_page(params: &mut #params, page: u32) {
                        params.#id = Some(page);
                    }
                }
            }
        });
    quote! {
        impl #rt::Agent for #output {
            const NAME: &'static str = #name;
            type Params = #params;
        }
        #localized
        #paginated
    }
}
