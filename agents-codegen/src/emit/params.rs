//! The params type of an agent: its struct (a tree from the templates) and one inherent impl
//! with `new`, `validate`, a setter per optional input and `param`.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::punctuated::Punctuated;
use syn::{Fields, Item};

use super::tokens::{Paths, param_arg};
use super::tree::{Templates, shape};
use crate::ir::{AgentIr, ParamIr, ParamsIr};
use crate::naming::ident;
use crate::rules::Rule;
use crate::types::Ty;

/// The params struct (a tree) and its inherent impl (quoted: `new` and `validate` are one-off
/// items, and the setters are few).
pub(super) fn params(
    params: &ParamsIr,
    agent: &AgentIr,
    p: &Paths,
    t: &mut Templates,
) -> syn::Result<(Item, TokenStream)> {
    let rt = &p.rt;
    let name = ident(&params.ident);
    let mut fields = Punctuated::new();
    let mut setters = Vec::new();
    for f in &params.fields {
        let id = ident(&f.ident);
        let ty = t.param_type(&f.ty, !f.required, agent, p)?;
        let mut attrs = t.docs(&f.docs);
        attrs.extend(t.param_serde(&f.json, &f.ident, !f.required)?);
        fields.push(t.field(attrs, id.clone(), ty));
        if !f.required {
            let doc = crate::docs::setter(&f.json);
            let (arg, conv) = param_arg(&f.ty, agent, p);
            setters.push(quote! {
                #[doc = #doc]
                #[must_use]
                pub fn #id(mut self, value: #arg) -> Self {
                    self.#id = Some(value #conv);
                    self
                }
            });
        }
    }
    // The struct: docs, the inputs, then `extra`.
    let mut item = t.params_struct.clone();
    item.ident = name.clone();
    let mut attrs = t.docs(&params.docs);
    attrs.append(&mut item.attrs);
    item.attrs = attrs;
    let Fields::Named(named) = &mut item.fields else {
        return Err(shape("params struct"));
    };
    fields.extend(std::mem::take(&mut named.named));
    named.named = fields;
    let new = constructor(params, agent, p);
    let validate = validate(params, agent, p);
    let methods = quote! {
        impl #name {
            #new
            #validate
            #(#setters)*
            /// Adds a parameter the agent record does not declare; it is sent as given. A
            /// declared input's name is checked by `validate()` as its setter's value is.
            #[must_use]
            pub fn param(mut self, name: impl Into<String>, value: impl Into<#rt::Value>) -> Self {
                self.extra.insert(name.into(), value.into());
                self
            }
        }
    };
    Ok((Item::Struct(item), methods))
}

/// `new`, taking the required inputs.
fn constructor(params: &ParamsIr, agent: &AgentIr, p: &Paths) -> TokenStream {
    let rt = &p.rt;
    let required: Vec<&ParamIr> = params.fields.iter().filter(|f| f.required).collect();
    let args = required.iter().map(|f| {
        let id = ident(&f.ident);
        let (arg, _) = param_arg(&f.ty, agent, p);
        quote!(#id: #arg)
    });
    let inits = params.fields.iter().map(|f| {
        let id = ident(&f.ident);
        if f.required {
            let (_, conv) = param_arg(&f.ty, agent, p);
            if conv.is_empty() {
                quote!(#id,)
            } else {
                quote!(#id: #id #conv,)
            }
        } else {
            quote!(#id: None,)
        }
    });
    let names: Vec<&str> = required.iter().map(|f| f.json.as_str()).collect();
    let doc = crate::docs::constructor(&names);
    let many_args = (required.len() > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    quote! {
        #[doc = #doc]
        #many_args
        pub fn new(#(#args),*) -> Self {
            Self {
                #(#inits)*
                extra: #rt::JsonMap::new(),
            }
        }
    }
}

/// `validate`, checking every rule the generator understood.
fn validate(params: &ParamsIr, agent: &AgentIr, p: &Paths) -> TokenStream {
    let rt = &p.rt;
    let body = validate_body(params, agent, p);
    quote! {
        /// Checks the rules of the agent's inputs; every broken rule is reported.
        pub fn validate(&self) -> Result<(), #rt::ValidationError> {
            #body
        }
    }
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
                Rule::Minimum(x)
                | Rule::Maximum(x)
                | Rule::ExclusiveMinimum(x)
                | Rule::ExclusiveMaximum(x)
                | Rule::MultipleOf(x) => {
                    let x = Literal::f64_suffixed(*x);
                    let number = match f.ty {
                        Ty::Page => quote!(f64::from(*value)),
                        Ty::Integer => quote!(*value as f64),
                        _ => quote!(*value),
                    };
                    let check = match rule {
                        Rule::Minimum(_) => quote!(minimum),
                        Rule::Maximum(_) => quote!(maximum),
                        Rule::ExclusiveMinimum(_) => quote!(exclusive_minimum),
                        Rule::ExclusiveMaximum(_) => quote!(exclusive_maximum),
                        _ => quote!(multiple_of),
                    };
                    quote!(v.#check(#json, #text, #number, #x);)
                }
                Rule::MinItems(n) | Rule::MaxItems(n) => {
                    let n = Literal::usize_unsuffixed(*n);
                    let check = if matches!(rule, Rule::MinItems(_)) {
                        quote!(min_items)
                    } else {
                        quote!(max_items)
                    };
                    quote!(v.#check(#json, #text, value, #n);)
                }
                Rule::Pattern(re) => {
                    let re = re.as_str();
                    let s = format_ident!("PATTERN_{}", statics.len());
                    statics.push(quote!(static #s: #rt::validate::Pattern = #rt::validate::Pattern::new(#re);));
                    quote!(v.pattern(#json, #text, value, &#s);)
                }
                Rule::OneOf(values) => quote!(v.one_of(#json, #text, value, &[#(#values),*]);),
            };
            these.push(check);
        }
        // A value given with `.param(name, …)` under a declared input's name is read as the
        // setter's type and checked by the same rules, before anything is sent.
        if !matches!(f.ty, Ty::Any) {
            let inner = super::tokens::ty_tokens(&f.ty, agent, p);
            let setter = if f.required {
                format!("{}::new(…)", params.ident)
            } else {
                format!(".{}(…)", f.ident)
            };
            let set = if f.required {
                quote!(true)
            } else {
                quote!(self.#id.is_some())
            };
            let bind = match f.ty {
                Ty::String => quote!(let value = value.as_str();),
                _ => quote!(let value = &value;),
            };
            checks.push(if these.is_empty() {
                quote! {
                    if let Some(given) = self.extra.get(#json) {
                        let set = #set;
                        let _: Option<#inner> = v.given(#json, #setter, set, given);
                    }
                }
            } else {
                quote! {
                    if let Some(given) = self.extra.get(#json) {
                        let set = #set;
                        let value: Option<#inner> = v.given(#json, #setter, set, given);
                        if let Some(value) = value {
                            #bind
                            #(#these)*
                        }
                    }
                }
            });
        }
        if these.is_empty() {
            continue;
        }
        if f.required {
            let bind = match f.ty {
                Ty::String => quote!(let value = self.#id.as_str();),
                _ => quote!(let value = &self.#id;),
            };
            checks.push(quote!({ #bind #(#these)* }));
        } else {
            let bind = match f.ty {
                Ty::String => quote!(self.#id.as_deref()),
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
