//! Syntax-tree templates: the repeated parts of generated items (doc lines, fields,
//! record skeletons), parsed once per emission (an agent, or the agents generated together) and
//! cloned with their names, docs and types set.
//!
//! Generated files are mostly repetition: one field per schema property with its docs, one
//! setter per optional input. Quoting those into tokens and parsing them back for prettyplease
//! would be most of the generator's time, so they are built as `syn` nodes here instead; the
//! one-off parts of each agent (a params type's `new` and `validate`, the trait impls) are
//! quoted by their builders. The macro path prints the same trees as tokens, so both paths emit
//! the same items.

use std::collections::HashMap;

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::parse::Parser as _;
use syn::{Attribute, Expr, Field, ItemStruct, Lit, LitStr, Meta, Type};

use super::tokens::{Paths, ty_tokens};
use crate::ir::AgentIr;
use crate::types::Ty;

/// The templates of one run (they embed the runtime path).
pub struct Templates {
    /// `#[doc = ""]`.
    doc: Attribute,
    /// `pub field: ()`.
    field: Field,
    /// The output record struct with its derives and trailing fields.
    pub(super) root: ItemStruct,
    /// The same for a nested object (its `mismatches` docs differ).
    pub(super) nested: ItemStruct,
    /// `#[serde(skip_serializing_if = "Option::is_none")]`.
    skip_none: Attribute,
    /// The params struct with its derives and the `extra` field.
    pub(super) params_struct: ItemStruct,
    /// `Option<T>` of output fields by `T`; cleared per agent, since [`Ty::Struct`] indexes the
    /// agent's own structs.
    outputs: HashMap<Ty, Type>,
    /// Param field types by (type, optional).
    params: HashMap<(Ty, bool), Type>,
}

/// A template that does not have the expected shape: a bug of this module.
pub(super) fn shape(what: &str) -> syn::Error {
    syn::Error::new(
        Span::call_site(),
        format!("template {what} has an unexpected shape"),
    )
}

fn record_skeleton(
    rt: &TokenStream,
    mismatch_doc: &str,
    breach_doc: &str,
) -> syn::Result<ItemStruct> {
    // The struct as `record!` takes it: declared fields carry only docs (and a JSON name when it
    // differs), the three bookkeeping fields their markers.
    syn::parse2(quote! {
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct __Record {
            #[json(flatten)]
            /// Keys the schema does not declare, and declared fields sent as `null`, kept as
            /// the service sent them (serialized after the declared fields).
            pub unknown_fields: #rt::JsonMap,
            #[json(skip)]
            #[doc = #mismatch_doc]
            pub mismatches: Vec<#rt::Mismatch>,
            #[json(skip)]
            #[doc = #breach_doc]
            pub breaches: Vec<#rt::Breach>,
        }
    })
}

fn attribute(tokens: TokenStream) -> syn::Result<Attribute> {
    Attribute::parse_outer
        .parse2(tokens)?
        .pop()
        .ok_or_else(|| shape("attribute"))
}

impl Templates {
    /// Parses the templates for the runtime at `p`.
    pub fn new(p: &Paths) -> syn::Result<Self> {
        let rt = &p.rt;
        let serde_crate = &p.serde_crate;
        let doc: ItemStruct = syn::parse2(quote!(
            #[doc = ""]
            struct S {
                pub field: (),
            }
        ))?;
        let (Some(doc_attr), Some(mut field)) =
            (doc.attrs.into_iter().next(), doc.fields.into_iter().next())
        else {
            return Err(shape("doc/field"));
        };
        // Every clone gets its own name and type: the template holds none to copy.
        field.ident = None;
        Ok(Templates {
            doc: doc_attr,
            field,
            root: record_skeleton(
                rt,
                " Values of this record (at any depth) that did not have their declared type, with their paths.",
                " Rules of the schema that values of this record (at any depth) break, with their paths; a value in `mismatches` is not repeated here.",
            )?,
            nested: record_skeleton(
                rt,
                " Values that did not have their declared type. Empty when this object was decoded as part of a record: those are recorded on the record.",
                " Rules of the schema that values break. Empty when this object was decoded as part of a record: those are recorded on the record.",
            )?,
            skip_none: attribute(quote!(#[serde(skip_serializing_if = "Option::is_none")]))?,
            params_struct: syn::parse2(quote! {
                #[derive(Debug, Clone, PartialEq, #rt::__private::serde::Serialize)]
                #[serde(crate = #serde_crate)]
                pub struct __Params {
                    /// Parameters the agent record does not declare, sent as given.
                    #[serde(flatten)]
                    pub extra: #rt::JsonMap,
                }
            })?,
            outputs: HashMap::new(),
            params: HashMap::new(),
        })
    }

    /// Forgets what indexes the previous agent's structs.
    pub(super) fn start_agent(&mut self) {
        self.outputs.clear();
    }

    /// `#[doc = " line"]` (an empty line stays empty).
    pub(super) fn doc(&self, line: &str) -> Attribute {
        let mut attr = self.doc.clone();
        if let Meta::NameValue(nv) = &mut attr.meta
            && let Expr::Lit(lit) = &mut nv.value
        {
            let mut text = String::with_capacity(line.len() + 1);
            if !line.is_empty() {
                text.push(' ');
                text.push_str(line);
            }
            lit.lit = Lit::Str(LitStr::new(&text, Span::call_site()));
        }
        attr
    }

    /// One doc attribute per line.
    pub(super) fn docs(&self, lines: &[String]) -> Vec<Attribute> {
        lines.iter().map(|l| self.doc(l)).collect()
    }

    /// `#[json(rename = "name")]`: the JSON name of a record field, beside it.
    pub(super) fn json_rename(&self, json: &str) -> syn::Result<Attribute> {
        attribute(quote!(#[json(rename = #json)]))
    }

    /// `#[json(keys = "pattern")]`: a typed map of the keys the pattern matches.
    pub(super) fn json_keys(&self, keys: &str) -> syn::Result<Attribute> {
        attribute(quote!(#[json(keys = #keys)]))
    }

    /// `#[json(required = true)]`: the schema requires the field, beside it.
    pub(super) fn json_required(&self) -> syn::Result<Attribute> {
        attribute(quote!(#[json(required = true)]))
    }

    /// `#attrs pub #ident: #ty`.
    pub(super) fn field(&self, attrs: Vec<Attribute>, ident: Ident, ty: Type) -> Field {
        let mut field = self.field.clone();
        field.attrs = attrs;
        field.ident = Some(ident);
        field.ty = ty;
        field
    }

    /// `Option<T>` for an output field of type `ty`.
    pub(super) fn output_type(&mut self, ty: &Ty, agent: &AgentIr, p: &Paths) -> syn::Result<Type> {
        if let Some(t) = self.outputs.get(ty) {
            return Ok(t.clone());
        }
        let inner = ty_tokens(ty, agent, p);
        let t: Type = syn::parse2(quote!(Option<#inner>))?;
        self.outputs.insert(ty.clone(), t.clone());
        Ok(t)
    }

    /// The type of a param field: `T`, or `Option<T>` when the input is optional.
    pub(super) fn param_type(
        &mut self,
        ty: &Ty,
        optional: bool,
        agent: &AgentIr,
        p: &Paths,
    ) -> syn::Result<Type> {
        if let Some(t) = self.params.get(&(ty.clone(), optional)) {
            return Ok(t.clone());
        }
        let inner = ty_tokens(ty, agent, p);
        let t: Type = if optional {
            syn::parse2(quote!(Option<#inner>))?
        } else {
            syn::parse2(inner)?
        };
        self.params.insert((ty.clone(), optional), t.clone());
        Ok(t)
    }

    /// The serde attribute of a param field: the JSON name when it differs from the Rust one,
    /// and skipping an unset optional input. `None` when neither applies.
    pub(super) fn param_serde(
        &self,
        json: &str,
        ident: &str,
        optional: bool,
    ) -> syn::Result<Option<Attribute>> {
        // serde strips `r#` itself, so a raw identifier needs no rename.
        match (json == ident, optional) {
            (true, true) => Ok(Some(self.skip_none.clone())),
            (true, false) => Ok(None),
            (false, true) => {
                attribute(quote!(#[serde(rename = #json, skip_serializing_if = "Option::is_none")]))
                    .map(Some)
            }
            (false, false) => attribute(quote!(#[serde(rename = #json)])).map(Some),
        }
    }
}
