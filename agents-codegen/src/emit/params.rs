//! The params type of an agent: its struct and one inherent impl with `new`, `validate`, a
//! setter per optional input and `param`, trees from the templates but for `validate`.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::punctuated::Punctuated;
use syn::{Fields, ImplItem, Item};

use super::tokens::Paths;
use super::tree::{Templates, shape};
use crate::ir::{AgentIr, ParamsIr};
use crate::naming::ident;
use crate::rules::Rule;
use crate::types::Ty;

/// The params struct and its inherent impl (`validate`, a one-off item, is quoted and parsed).
pub(super) fn params(
    params: &ParamsIr,
    agent: &AgentIr,
    p: &Paths,
    t: &mut Templates,
) -> syn::Result<(Item, Item)> {
    let name = ident(&params.ident);
    let mut fields = Punctuated::new();
    let mut setters = Vec::new();
    let mut inputs = Vec::with_capacity(params.fields.len());
    for f in &params.fields {
        let id = ident(&f.ident);
        let ty = t.param_type(&f.ty, !f.required, agent, p)?;
        let mut attrs = t.docs(&f.docs);
        attrs.extend(t.param_serde(&f.json, &f.ident, !f.required)?);
        fields.push(t.field(attrs, id.clone(), ty));
        if !f.required {
            let doc = crate::docs::setter(&f.json);
            setters.push(t.setter(&doc, id.clone(), &f.ty, agent, p)?);
        }
        inputs.push((id, &f.ty, f.required));
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
    let required: Vec<&str> = (params.fields.iter().filter(|f| f.required))
        .map(|f| f.json.as_str())
        .collect();
    let new = t.constructor(&crate::docs::constructor(&required), &inputs, agent, p)?;
    let validate: ImplItem = syn::parse2(validate(params, agent, p))?;
    let mut items = Vec::with_capacity(setters.len() + 3);
    items.push(new);
    items.push(validate);
    items.extend(setters);
    Ok((Item::Struct(item), Item::Impl(t.params_impl(name, items)?)))
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
