//! The trait impls that tie an agent's types together: `Agent` (name, params), `AgentParams`
//! (output, validation, localization), `Default` for params without required inputs, and the
//! capability markers `Localized` and `Paginated`.

use proc_macro2::TokenStream;
use quote::quote;

use super::tokens::Paths;
use crate::ir::{AgentIr, ParamIr};
use crate::naming::ident;

/// The agent's trait impls, quoted (they are one-off items).
pub(super) fn traits(agent: &AgentIr, p: &Paths) -> TokenStream {
    let rt = &p.rt;
    let (Some(root), name) = (agent.structs.first(), &agent.name) else {
        return quote!();
    };
    let output = ident(&root.ident);
    let params = ident(&agent.params.ident);
    let fields = &agent.params.fields;
    let default_impl = fields.iter().all(|f| !f.required).then(|| {
        quote! {
            impl Default for #params {
                fn default() -> Self {
                    Self::new()
                }
            }
        }
    });
    let localization = {
        let localizing: Vec<&ParamIr> = fields.iter().filter(|f| f.localization).collect();
        // A localized agent's `Localize::zip_code`/`store_id` put an input its params do not
        // declare into `extra`; it localizes the request all the same.
        let undeclared: Vec<&str> = if agent.localized {
            agents_schema::inputs::LOCALIZATION_PARAMS
                .iter()
                .copied()
                .filter(|n| !fields.iter().any(|f| f.json == *n))
                .collect()
        } else {
            Vec::new()
        };
        if localizing.iter().any(|f| f.required) {
            // A required localization input is always set.
            quote!(true)
        } else if localizing.is_empty() && undeclared.is_empty() {
            quote!(false)
        } else {
            let ids = localizing.iter().map(|f| ident(&f.ident));
            let set = ids.map(|id| quote!(self.#id.is_some()));
            let given = undeclared
                .iter()
                .map(|n| quote!(self.extra.contains_key(#n)));
            let all = set.chain(given);
            quote!(#(#all)||*)
        }
    };
    let localized = agent.localized.then(|| {
        // The localization inputs the params hold as text; any other name is sent as given.
        let arms: Vec<TokenStream> = fields
            .iter()
            .filter(|f| f.localization && f.ty == crate::types::Ty::String)
            .map(|f| {
                let (json, id) = (&f.json, ident(&f.ident));
                let value = if f.required {
                    quote!(value)
                } else {
                    quote!(Some(value))
                };
                quote!(#json => params.#id = #value,)
            })
            .collect();
        let other = quote!(params.extra.insert(input.to_owned(), value.into()););
        let set = if arms.is_empty() {
            other
        } else {
            quote! {
                match input {
                    #(#arms)*
                    _ => {
                        #other
                    }
                }
            }
        };
        quote! {
            impl #rt::Localized for #output {
                fn localize(mut params: #params, input: &'static str, value: String) -> #params {
                    #set
                    params
                }
            }
        }
    });
    let paginated = agent.page.and_then(|i| fields.get(i)).map(|f| {
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
    let version = agent.version.as_ref().map(|v| {
        let id = &v.id;
        let id_doc = " The id of the template version these bindings were generated from.";
        let number = v.number.map(|n| {
            let doc = " The number of the template version these bindings were generated from.";
            quote! {
                #[doc = #doc]
                pub const TEMPLATE_VERSION: u64 = #n;
            }
        });
        quote! {
            impl #output {
                #[doc = #id_doc]
                pub const TEMPLATE_VERSION_ID: &'static str = #id;
                #number
            }
        }
    });
    // Lined up with the `const` it is the value of; a raw literal, so it reads as JSON.
    let input_schema: TokenStream = crate::format::raw_json(&agent.input_schema, "    ")
        .parse()
        .unwrap_or_else(|_| quote!("true"));
    quote! {
        #version
        #default_impl

        impl #rt::AgentParams for #params {
            type Agent = #output;
            fn validate(&self) -> Result<(), #rt::ValidationError> {
                #params::validate(self)
            }
            fn uses_localization(&self) -> bool {
                #localization
            }
        }

        impl #rt::Agent for #output {
            const NAME: &'static str = #name;
            const INPUT_SCHEMA: &'static str = #input_schema;
            type Params = #params;
        }
        #localized
        #paginated
    }
}
