//! Syntax-tree templates: the repeated parts of generated items other than records (doc lines,
//! param fields, the params impl's methods), parsed once per emission (an agent, or the agents
//! generated together) and cloned with their names, docs and types set. Records, the most
//! repeated item of all, are written as text (`record.rs`), whose shared parts are kept here.
//!
//! Generated files are mostly repetition: one setter per optional input, one argument and one
//! initializer of `new` per input. Quoting those into tokens and parsing them back for
//! prettyplease would be most of their cost, so they are built as `syn` nodes here instead
//! (`validate()`'s statements in `validate.rs`); the one-off parts of each agent (its trait
//! impls) are quoted by their builders. The macro path prints the same trees as tokens, so both
//! paths emit the same items.

use std::collections::HashMap;

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::parse::Parser as _;
use syn::punctuated::Punctuated;
use syn::{
    Attribute, Expr, Field, FieldValue, FnArg, ImplItem, ImplItemFn, ItemImpl, ItemStruct, Lit,
    LitStr, Member, Meta, Pat, Stmt, Type,
};

use super::record::Skeleton;
use super::shape::shape;
use super::tokens::{Conversion, Paths, conversion, param_arg, ty_tokens};
use super::validate::Validate;
use crate::ir::{AgentIr, ParamsIr};
use crate::types::Ty;

/// The templates of one run (they embed the runtime path).
pub struct Templates {
    /// `#[doc = ""]`.
    doc: Attribute,
    /// `pub field: ()`.
    field: Field,
    /// What every output record shares (records are written as text, `record.rs`).
    pub(super) records: Skeleton,
    /// `#[serde(skip_serializing_if = "Option::is_none")]`.
    skip_none: Attribute,
    /// The params struct with its derives and the `extra` field.
    pub(super) params_struct: ItemStruct,
    /// Param field types by (type, optional).
    params: HashMap<(Ty, bool), Type>,
    /// The params type's methods.
    methods: Methods,
    /// Argument types of setters and `new` by the input's type.
    args: HashMap<Ty, Type>,
    /// The statements of `validate()`.
    validate: Validate,
}

/// The params type's inherent impl, in parts.
struct Methods {
    /// `impl __Params {}`.
    empty: ItemImpl,
    /// `new` without arguments, initializing only `extra`.
    new: ImplItemFn,
    /// `#[allow(clippy::too_many_arguments)]`, for a `new` of more than seven arguments.
    many_args: Attribute,
    /// `__x: ()`, an argument of `new`.
    arg: FnArg,
    /// `__x` (an argument kept as given), `__x: __x.into()`, `__x: __x.into_iter()…collect()`,
    /// `__x: None`: field initializers.
    init_same: FieldValue,
    init_into: FieldValue,
    init_collect: FieldValue,
    init_none: FieldValue,
    /// A setter storing its value as given, one converting it with `.into()`, and one
    /// collecting a list's converted items.
    setter: ImplItemFn,
    setter_into: ImplItemFn,
    setter_collect: ImplItemFn,
    /// `param`, the same for every agent.
    param: ImplItemFn,
}

impl Methods {
    fn new(rt: &TokenStream) -> syn::Result<Self> {
        let mut all: ItemImpl = syn::parse2(quote! {
            impl __Params {
                #[doc = ""]
                pub fn new(__x: ()) -> Self {
                    Self {
                        __same,
                        __into: __into.into(),
                        __collect: __collect.into_iter().map(Into::into).collect(),
                        __none: None,
                        extra: #rt::JsonMap::new(),
                    }
                }
                #[doc = ""]
                #[must_use]
                pub fn __setter(mut self, value: ()) -> Self {
                    self.__setter = Some(value);
                    self
                }
                #[doc = ""]
                #[must_use]
                pub fn __setter(mut self, value: ()) -> Self {
                    self.__setter = Some(value.into());
                    self
                }
                #[doc = ""]
                #[must_use]
                pub fn __setter(mut self, value: ()) -> Self {
                    self.__setter = Some(value.into_iter().map(Into::into).collect());
                    self
                }
                /// Adds a parameter the agent record does not declare; it is sent as given. A
                /// declared input's name is checked by `validate()` as its setter's value is.
                #[must_use]
                pub fn param(mut self, name: impl Into<String>, value: impl Into<#rt::Value>) -> Self {
                    self.extra.insert(name.into(), value.into());
                    self
                }
            }
        })?;
        let many_args = attribute(quote!(#[allow(clippy::too_many_arguments)]))?;
        let mut fns = std::mem::take(&mut all.items).into_iter().map(|i| match i {
            ImplItem::Fn(f) => Ok(f),
            _ => Err(shape("params impl")),
        });
        let (Some(new), Some(setter), Some(setter_into), Some(setter_collect), Some(param)) =
            (fns.next(), fns.next(), fns.next(), fns.next(), fns.next())
        else {
            return Err(shape("params impl"));
        };
        let mut new = new?;
        let arg = new.sig.inputs.pop().ok_or_else(|| shape("new"))?;
        let Some(Stmt::Expr(Expr::Struct(init), _)) = new.block.stmts.first_mut() else {
            return Err(shape("new"));
        };
        let mut inits = std::mem::take(&mut init.fields).into_iter();
        let (Some(init_same), Some(init_into), Some(init_collect), Some(init_none), Some(extra)) = (
            inits.next(),
            inits.next(),
            inits.next(),
            inits.next(),
            inits.next(),
        ) else {
            return Err(shape("new"));
        };
        init.fields.push(extra);
        Ok(Methods {
            empty: all,
            new,
            many_args,
            arg,
            init_same,
            init_into,
            init_collect,
            init_none,
            setter: setter?,
            setter_into: setter_into?,
            setter_collect: setter_collect?,
            param: param?,
        })
    }
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
            records: Skeleton::new(p),
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
            params: HashMap::new(),
            methods: Methods::new(rt)?,
            args: HashMap::new(),
            validate: Validate::new(rt)?,
        })
    }

    /// `#[doc = " line"]` (an empty line stays empty).
    pub(super) fn doc(&self, line: &str) -> Attribute {
        let mut text = String::with_capacity(line.len() + 1);
        if !line.is_empty() {
            text.push(' ');
            text.push_str(line);
        }
        let mut attr = self.doc.clone();
        set_doc(&mut attr, &text);
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
        let inner = ty_tokens(ty, agent, p)?;
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

    /// The argument type of a setter or of `new` for an input of type `ty`.
    fn arg_type(&mut self, ty: &Ty, agent: &AgentIr, p: &Paths) -> syn::Result<Type> {
        if let Some(t) = self.args.get(ty) {
            return Ok(t.clone());
        }
        let t: Type = syn::parse2(param_arg(ty, agent, p)?)?;
        self.args.insert(ty.clone(), t.clone());
        Ok(t)
    }

    /// `new` with `doc`, taking the required `inputs` (name, type) in order and initializing
    /// every input (`required` says which), then `extra`.
    pub(super) fn constructor(
        &mut self,
        doc: &str,
        inputs: &[(Ident, &Ty, bool)],
        agent: &AgentIr,
        p: &Paths,
    ) -> syn::Result<ImplItem> {
        let mut new = self.methods.new.clone();
        if let Some(attr) = new.attrs.first_mut() {
            set_doc(attr, doc);
        }
        let required = inputs.iter().filter(|(_, _, required)| *required).count();
        if required > 7 {
            new.attrs.push(self.methods.many_args.clone());
        }
        let mut inits = Punctuated::new();
        for (id, ty, required) in inputs {
            if !required {
                let mut init = self.methods.init_none.clone();
                init.member = Member::Named(id.clone());
                inits.push(init);
                continue;
            }
            let mut arg = self.methods.arg.clone();
            let FnArg::Typed(typed) = &mut arg else {
                return Err(shape("argument"));
            };
            let Pat::Ident(name) = &mut *typed.pat else {
                return Err(shape("argument"));
            };
            name.ident = id.clone();
            *typed.ty = self.arg_type(ty, agent, p)?;
            new.sig.inputs.push(arg);
            let mut init = match conversion(ty) {
                Conversion::Same => self.methods.init_same.clone(),
                Conversion::Into => self.methods.init_into.clone(),
                Conversion::Collect => self.methods.init_collect.clone(),
            };
            init.member = Member::Named(id.clone());
            // The argument is the innermost receiver of the conversion's calls.
            let mut value = &mut init.expr;
            while let Expr::MethodCall(call) = value {
                value = &mut *call.receiver;
            }
            let value = match value {
                Expr::Path(path) => Some(path),
                _ => None,
            };
            match value.and_then(|v| v.path.segments.first_mut()) {
                Some(segment) => segment.ident = id.clone(),
                None => return Err(shape("initializer")),
            }
            inits.push(init);
        }
        let Some(Stmt::Expr(Expr::Struct(init), _)) = new.block.stmts.first_mut() else {
            return Err(shape("new"));
        };
        inits.extend(std::mem::take(&mut init.fields));
        inits.push_punct(Default::default());
        init.fields = inits;
        Ok(ImplItem::Fn(new))
    }

    /// The setter `id` with `doc` of an optional input of type `ty`.
    pub(super) fn setter(
        &mut self,
        doc: &str,
        id: Ident,
        ty: &Ty,
        agent: &AgentIr,
        p: &Paths,
    ) -> syn::Result<ImplItem> {
        let mut setter = match conversion(ty) {
            Conversion::Same => self.methods.setter.clone(),
            Conversion::Into => self.methods.setter_into.clone(),
            Conversion::Collect => self.methods.setter_collect.clone(),
        };
        if let Some(attr) = setter.attrs.first_mut() {
            set_doc(attr, doc);
        }
        let Some(FnArg::Typed(value)) = setter.sig.inputs.iter_mut().nth(1) else {
            return Err(shape("setter"));
        };
        *value.ty = self.arg_type(ty, agent, p)?;
        let Some(Stmt::Expr(Expr::Assign(assign), _)) = setter.block.stmts.first_mut() else {
            return Err(shape("setter"));
        };
        let Expr::Field(field) = &mut *assign.left else {
            return Err(shape("setter"));
        };
        field.member = Member::Named(id.clone());
        setter.sig.ident = id;
        Ok(ImplItem::Fn(setter))
    }

    /// `validate()` of the params type `params`.
    pub(super) fn validate(
        &mut self,
        params: &ParamsIr,
        agent: &AgentIr,
        p: &Paths,
    ) -> syn::Result<ImplItem> {
        let inner = (params.fields.iter())
            .map(|f| self.param_type(&f.ty, false, agent, p))
            .collect::<syn::Result<Vec<_>>>()?;
        (self.validate).build(
            &agent.name,
            &params.ident,
            &params.fields,
            &inner,
            params.judged.as_deref(),
        )
    }

    /// `impl #name { #items param }`: the params type's inherent impl.
    pub(super) fn params_impl(
        &self,
        name: Ident,
        mut items: Vec<ImplItem>,
    ) -> syn::Result<ItemImpl> {
        let mut item = self.methods.empty.clone();
        let Type::Path(ty) = &mut *item.self_ty else {
            return Err(shape("params impl"));
        };
        match ty.path.segments.first_mut() {
            Some(segment) => segment.ident = name,
            None => return Err(shape("params impl")),
        }
        items.push(ImplItem::Fn(self.methods.param.clone()));
        item.items = items;
        Ok(item)
    }
}

/// Sets a `#[doc = …]` attribute's text to `value` as it is.
fn set_doc(attr: &mut Attribute, value: &str) {
    if let Meta::NameValue(nv) = &mut attr.meta
        && let Expr::Lit(lit) = &mut nv.value
    {
        lit.lit = doc_literal(value);
    }
}

/// `value` as a string literal. Printable ASCII (nearly every doc line) is written raw,
/// `r"…"`, which is read and printed back without escaping each character; anything else is
/// escaped, so that no control or bidirectional character is ever raw in a literal.
fn doc_literal(value: &str) -> Lit {
    if value.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        let mut hashes = String::new();
        while value.contains(&format!("\"{hashes}")) {
            hashes.push('#');
        }
        let mut repr = String::with_capacity(value.len() + 2 * hashes.len() + 3);
        repr.push('r');
        repr.push_str(&hashes);
        repr.push('"');
        repr.push_str(value);
        repr.push('"');
        repr.push_str(&hashes);
        if let Ok(token) = repr.parse::<proc_macro2::Literal>() {
            return Lit::new(token);
        }
    }
    Lit::Str(LitStr::new(value, Span::call_site()))
}

#[cfg(test)]
mod tests {
    use super::doc_literal;
    use syn::Lit;

    #[test]
    fn a_doc_literal_holds_its_text_exactly() {
        for (text, raw) in [
            (" Price in cents", true),
            (" Says \"hi\"", true),
            (" Ends in \"# and \"## too", true),
            (r" A back\slash stays one", true),
            ("", true),
            (" Tab\there", false),
            (" Café", false),
            (" Right\u{202e}to left", false),
            (" Carriage\rreturn", false),
        ] {
            let Lit::Str(lit) = doc_literal(text) else {
                panic!("{text:?} is not a string literal");
            };
            assert_eq!(lit.value(), text);
            assert_eq!(lit.token().to_string().starts_with('r'), raw, "{text:?}");
        }
    }
}
