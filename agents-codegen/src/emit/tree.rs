//! Syntax-tree templates: the repeated parts of generated items (doc lines, fields, setters,
//! record skeletons), parsed once per thread and runtime path and cloned with their names, docs
//! and types set.
//!
//! Generated files are mostly repetition: one field per schema property with its docs, one
//! setter per optional input. Quoting those into tokens and parsing them back for prettyplease
//! was most of the generator's time, so they are built as `syn` nodes here instead; the
//! one-off items of each agent are quoted in [`super`] and parsed only by the prettyplease path.
//! The macro path prints the same trees as tokens, so both paths emit the same items.

use std::collections::HashMap;

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::parse::Parser as _;
use syn::{
    Attribute, Expr, Field, ImplItem, ImplItemFn, Item, ItemImpl, ItemMacro, ItemStruct, Lit,
    LitStr, Member, Meta, Stmt, Type,
};

use super::{Paths, param_arg, param_ty, ty_tokens};
use crate::ir::AgentIr;
use crate::types::{ParamTy, Ty};

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
    /// `<rt>::__decode_record!();`.
    pub(super) decode: ItemMacro,
    /// `#[serde(skip_serializing_if = "Option::is_none")]`.
    skip_none: Attribute,
    /// The params struct with its derives and the `extra` field.
    pub(super) params_struct: ItemStruct,
    /// The params impl holding the setters: `impl __Params { param }`.
    params_impl: ItemImpl,
    /// `Option<T>` of output fields by `T`; cleared per agent, since [`Ty::Struct`] indexes the
    /// agent's own structs.
    outputs: HashMap<Ty, Type>,
    /// Param field types by (type, optional).
    params: HashMap<(ParamTy, bool), Type>,
    /// A setter by param type, named `__field`.
    setters: HashMap<ParamTy, ImplItemFn>,
}

/// A template that does not have the expected shape: a bug of this module.
pub(super) fn shape(what: &str) -> syn::Error {
    syn::Error::new(
        Span::call_site(),
        format!("template {what} has an unexpected shape"),
    )
}

fn record_skeleton(rt: &TokenStream, mismatch_doc: &str) -> syn::Result<ItemStruct> {
    // No serde attributes: `__decode_record!` writes Serialize and Deserialize from the
    // (field, JSON name) list, so each field is only its docs and its type.
    syn::parse2(quote! {
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct __Record {
            /// Keys the schema does not declare, kept as the service sent them (serialized
            /// after the declared fields).
            pub unknown_fields: #rt::JsonMap,
            #[doc = #mismatch_doc]
            pub mismatches: Vec<#rt::decode::Mismatch>,
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
            )?,
            nested: record_skeleton(
                rt,
                " Values that did not have their declared type. Empty when this object was decoded as part of a record: those are recorded on the record.",
            )?,
            decode: syn::parse2(quote!(#rt::__decode_record!();))?,
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
            params_impl: syn::parse2(quote! {
                impl __Params {
                    /// Adds a parameter the agent record does not declare; it is sent as given.
                    #[must_use]
                    pub fn param(mut self, name: impl Into<String>, value: impl Into<#rt::Value>) -> Self {
                        self.extra.insert(name.into(), value.into());
                        self
                    }
                }
            })?,
            outputs: HashMap::new(),
            params: HashMap::new(),
            setters: HashMap::new(),
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
        ty: ParamTy,
        optional: bool,
        p: &Paths,
    ) -> syn::Result<Type> {
        if let Some(t) = self.params.get(&(ty, optional)) {
            return Ok(t.clone());
        }
        let inner = param_ty(ty, p);
        let t: Type = if optional {
            syn::parse2(quote!(Option<#inner>))?
        } else {
            syn::parse2(inner)?
        };
        self.params.insert((ty, optional), t.clone());
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

    /// `impl #name { #setters… param }`.
    pub(super) fn params_impl(&self, name: &Ident, setters: Vec<ImplItem>) -> syn::Result<Item> {
        let mut item = self.params_impl.clone();
        match &mut *item.self_ty {
            Type::Path(ty) => match ty.path.segments.last_mut() {
                Some(last) => last.ident = name.clone(),
                None => return Err(shape("params impl type")),
            },
            _ => return Err(shape("params impl type")),
        }
        item.items.splice(0..0, setters);
        Ok(Item::Impl(item))
    }

    /// `/// doc  #[must_use] pub fn #ident(mut self, value: A) -> Self { self.#ident = Some(value…); self }`.
    pub(super) fn setter(
        &mut self,
        ty: ParamTy,
        ident: &Ident,
        doc: &str,
        p: &Paths,
    ) -> syn::Result<ImplItem> {
        let template = match self.setters.get(&ty) {
            Some(t) => t,
            None => {
                let (arg, conv) = param_arg(ty, p);
                let item: ImplItemFn = syn::parse2(quote! {
                    #[doc = ""]
                    #[must_use]
                    pub fn __field(mut self, value: #arg) -> Self {
                        self.__field = Some(value #conv);
                        self
                    }
                })?;
                self.setters.entry(ty).or_insert(item)
            }
        };
        let mut setter = template.clone();
        setter.sig.ident = ident.clone();
        match setter.attrs.first_mut() {
            Some(first) => *first = self.doc(doc),
            None => return Err(shape("setter docs")),
        }
        match setter.block.stmts.first_mut() {
            Some(Stmt::Expr(Expr::Assign(assign), _)) => match &mut *assign.left {
                Expr::Field(field) => field.member = Member::Named(ident.clone()),
                _ => return Err(shape("setter assignment")),
            },
            _ => return Err(shape("setter body")),
        }
        Ok(ImplItem::Fn(setter))
    }
}
