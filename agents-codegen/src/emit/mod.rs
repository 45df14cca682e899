//! The intermediate model as tokens. Nothing here makes a naming or typing decision: names come
//! from [`crate::naming`] through the IR, types from [`crate::types`].

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{AgentIr, ParamIr, ParamsIr, StructIr};
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

/// `rename = "json",` when the Rust name differs from the JSON name (serde strips `r#` itself).
fn rename(json: &str, ident: &str) -> TokenStream {
    if json == ident {
        quote!()
    } else {
        quote!(rename = #json,)
    }
}

fn doc_attrs(lines: &[String]) -> TokenStream {
    let attrs = lines.iter().map(|l| {
        let text = if l.is_empty() {
            String::new()
        } else {
            format!(" {l}")
        };
        quote!(#[doc = #text])
    });
    quote!(#(#attrs)*)
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
            let inner = ty_tokens(inner, agent, p);
            quote!(Vec<#inner>)
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

/// Every item of one agent.
pub fn agent(agent: &AgentIr, p: &Paths) -> TokenStream {
    let structs = agent.structs.iter().map(|s| record_struct(s, agent, p));
    let params = params(&agent.params, agent, p);
    let traits = agent_traits(agent, p);
    quote! {
        #(#structs)*
        #params
        #traits
    }
}

fn record_struct(s: &StructIr, agent: &AgentIr, p: &Paths) -> TokenStream {
    let rt = &p.rt;
    let name = ident(&s.ident);
    let docs = doc_attrs(&s.docs);
    // No serde attributes: `__decode_record!` writes Serialize and Deserialize from the
    // (field, JSON name) list, so each field is only its docs and its type.
    let fields = s.fields.iter().map(|f| {
        let id = ident(&f.ident);
        let ty = ty_tokens(&f.ty, agent, p);
        let docs = doc_attrs(&f.docs);
        quote! {
            #docs
            pub #id: Option<#ty>,
        }
    });
    let mismatch_doc = if s.root {
        " Values of this record (at any depth) that did not have their declared type, with their paths."
    } else {
        " Values that did not have their declared type. Empty when this object was decoded as part of a record: those are recorded on the record."
    };
    let decode_fields = s.fields.iter().map(|f| {
        let id = ident(&f.ident);
        let json = Literal::string(&f.json);
        quote!((#id, #json))
    });
    quote! {
        #docs
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct #name {
            #(#fields)*
            /// Keys the schema does not declare, kept as the service sent them (serialized
            /// after the declared fields).
            pub unknown_fields: #rt::JsonMap,
            #[doc = #mismatch_doc]
            pub mismatches: Vec<#rt::decode::Mismatch>,
        }

        #rt::__decode_record!(#name, [#(#decode_fields),*]);
    }
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

fn params(params: &ParamsIr, agent: &AgentIr, p: &Paths) -> TokenStream {
    let rt = &p.rt;
    let serde_crate = &p.serde_crate;
    let name = ident(&params.ident);
    let docs = doc_attrs(&params.docs);
    let fields = params.fields.iter().map(|f| {
        let id = ident(&f.ident);
        let ty = param_ty(f.ty, p);
        let docs = doc_attrs(&f.docs);
        let rename = rename(&f.json, &f.ident);
        if f.required {
            let attr = (!rename.is_empty()).then(|| quote!(#[serde(#rename)]));
            quote! { #docs #attr pub #id: #ty, }
        } else {
            quote! {
                #docs
                #[serde(#rename skip_serializing_if = "Option::is_none")]
                pub #id: Option<#ty>,
            }
        }
    });
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
    let setters = params.fields.iter().filter(|f| !f.required).map(|f| {
        let id = ident(&f.ident);
        let (arg, conv) = param_arg(f.ty, p);
        let doc = format!(
            " Sets {} (see the field for its meaning and rules).",
            crate::docs::code(&f.json)
        );
        quote! {
            #[doc = #doc]
            #[must_use]
            pub fn #id(mut self, value: #arg) -> Self {
                self.#id = Some(value #conv);
                self
            }
        }
    });
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
    quote! {
        #docs
        #[derive(Debug, Clone, PartialEq, #rt::__private::serde::Serialize)]
        #[serde(crate = #serde_crate)]
        pub struct #name {
            #(#fields)*
            /// Parameters the agent record does not declare, sent as given.
            #[serde(flatten)]
            pub extra: #rt::JsonMap,
        }

        impl #name {
            #[doc = #ctor_doc]
            #many_args
            pub fn new(#(#ctor_args),*) -> Self {
                Self {
                    #(#ctor_fields)*
                    extra: #rt::JsonMap::new(),
                }
            }

            #(#setters)*

            /// Adds a parameter the agent record does not declare; it is sent as given.
            #[must_use]
            pub fn param(mut self, name: impl Into<String>, value: impl Into<#rt::Value>) -> Self {
                self.extra.insert(name.into(), value.into());
                self
            }

            /// Checks the rules of the agent's inputs; every broken rule is reported.
            pub fn validate(&self) -> Result<(), #rt::ValidationError> {
                #validate
            }
        }

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
