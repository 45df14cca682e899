//! How the types of the intermediate model are spelled in generated code. Which Rust type a
//! schema type becomes is decided in [`crate::types`]; this module only writes it out, with the
//! runtime crate's path.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::AgentIr;
use crate::naming::display;
use crate::types::Ty;

/// Paths the generated code refers to.
pub struct Paths {
    /// The runtime crate (`::agents_runtime`, or `crate` inside it).
    pub(super) rt: TokenStream,
    /// The same path as source spells it (`::agents_runtime`).
    pub(super) rt_text: String,
    /// `"<rt>::__private::serde"` for `#[serde(crate = …)]`.
    pub(super) serde_crate: String,
}

impl Paths {
    /// Paths under the runtime crate at `rt`, a path of plain segments.
    pub fn new(rt: &syn::Path) -> syn::Result<Self> {
        let rt_text = path_text(rt).ok_or_else(|| {
            syn::Error::new_spanned(rt, "the runtime path cannot have generic arguments")
        })?;
        Ok(Paths {
            rt: quote!(#rt),
            serde_crate: format!("{rt_text}::__private::serde"),
            rt_text,
        })
    }

    /// The runtime crate's path.
    pub fn rt(&self) -> &TokenStream {
        &self.rt
    }

    /// The runtime crate's path as source spells it.
    pub fn rt_text(&self) -> &str {
        &self.rt_text
    }
}

/// `path` as source spells it (`::agents_runtime`, `crate::rt`), whatever spaces it was
/// written with; `None` when a segment has generic arguments.
pub fn path_text(path: &syn::Path) -> Option<String> {
    let mut text = String::new();
    for (i, segment) in path.segments.iter().enumerate() {
        if !segment.arguments.is_none() {
            return None;
        }
        if i > 0 || path.leading_colon.is_some() {
            text.push_str("::");
        }
        text.push_str(&segment.ident.to_string());
    }
    Some(text)
}

/// A type as generated source spells it: a path and its generic arguments. The one spelling of
/// every type: record fields are written from it as text, everything else takes its tokens.
#[derive(Debug)]
pub(super) struct Spelled {
    /// `Vec`, `::std::collections::BTreeMap`, `::agents_runtime::Value`.
    pub(super) path: String,
    /// What goes between `<` and `>`, if anything.
    pub(super) args: Vec<Spelled>,
}

impl Spelled {
    pub(super) fn path(path: impl Into<String>) -> Self {
        Spelled {
            path: path.into(),
            args: Vec::new(),
        }
    }

    fn of(path: &str, args: Vec<Spelled>) -> Self {
        Spelled {
            path: path.to_owned(),
            args,
        }
    }

    /// `<rt>::name`, an item of the runtime crate.
    pub(super) fn runtime(p: &Paths, name: &str) -> Self {
        Spelled::path(format!("{}::{name}", p.rt_text))
    }

    /// `Vec<self>`.
    pub(super) fn vec(self) -> Self {
        Spelled::of("Vec", vec![self])
    }

    /// A typed map with values of type `self`.
    pub(super) fn map_of(self) -> Self {
        Spelled::of(
            "::std::collections::BTreeMap",
            vec![Spelled::path("String"), self],
        )
    }

    /// `Option<self>`.
    pub(super) fn optional(self) -> Self {
        Spelled::of("Option", vec![self])
    }

    /// The length of the type written on one line.
    pub(super) fn flat_len(&self) -> usize {
        let args: usize = self.args.iter().map(Spelled::flat_len).sum();
        match self.args.len() {
            0 => self.path.len(),
            n => self.path.len() + 2 + args + 2 * (n - 1),
        }
    }

    /// Writes the type on one line.
    pub(super) fn write_flat(&self, out: &mut String) {
        out.push_str(&self.path);
        if let Some((first, rest)) = self.args.split_first() {
            out.push('<');
            first.write_flat(out);
            for a in rest {
                out.push_str(", ");
                a.write_flat(out);
            }
            out.push('>');
        }
    }
}

/// How an output type (without the `Option`) is spelled.
pub(super) fn ty_spelled(ty: &Ty, agent: &AgentIr, p: &Paths) -> Spelled {
    let rt = |name: &str| Spelled::runtime(p, name);
    let named =
        |name: Option<&str>| name.map_or_else(|| rt("Value"), |n| Spelled::path(display(n)));
    match ty {
        Ty::String => Spelled::path("String"),
        Ty::Number => Spelled::path("f64"),
        Ty::Integer => Spelled::path("i64"),
        Ty::Boolean => Spelled::path("bool"),
        Ty::Page => Spelled::path("u32"),
        Ty::Any => rt("Value"),
        Ty::Map => rt("JsonMap"),
        Ty::Array(inner) => ty_spelled(inner, agent, p).vec(),
        Ty::MapOf(inner) => ty_spelled(inner, agent, p).map_of(),
        Ty::Boxed(inner) => Spelled::of("Box", vec![ty_spelled(inner, agent, p)]),
        Ty::Enum(i) => named(agent.enums.get(*i).map(|e| e.ident.as_str())),
        Ty::Union(i) => named(agent.unions.get(*i).map(|u| u.ident.as_str())),
        Ty::Struct(i) => named(agent.structs.get(*i).map(|s| s.ident.as_str())),
    }
}

/// How a param's setter or constructor argument becomes the field's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Conversion {
    /// Taken as the field's type.
    Same,
    /// `impl Into<…>`, then `.into()`.
    Into,
    /// A list: `impl IntoIterator<Item = impl Into<…>>`, each item converted and collected,
    /// so that `["a", "b"]` is taken where the field is `Vec<String>`.
    Collect,
}

/// How a param's setter or constructor argument of type `ty` becomes the field's value.
pub(super) fn conversion(ty: &Ty) -> Conversion {
    match ty {
        Ty::String | Ty::Any => Conversion::Into,
        Ty::Array(_) => Conversion::Collect,
        _ => Conversion::Same,
    }
}

/// The argument type of a param's setter or constructor argument (see [`conversion`]), as
/// source spells it.
pub(super) fn param_arg(ty: &Ty, agent: &AgentIr, p: &Paths) -> String {
    let flat = |s: Spelled| {
        let mut out = String::with_capacity(s.flat_len());
        s.write_flat(&mut out);
        out
    };
    match ty {
        Ty::String => "impl Into<String>".to_owned(),
        Ty::Any => format!("impl Into<{}::Value>", p.rt_text),
        Ty::Array(item) => format!(
            "impl IntoIterator<Item = impl Into<{}>>",
            flat(ty_spelled(item, agent, p))
        ),
        other => flat(ty_spelled(other, agent, p)),
    }
}
