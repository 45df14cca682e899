//! The error of a template that lost the shape its builder expects: a bug of the generator,
//! reported as an error rather than a panic or a silently wrong item. The templates (`tree.rs`)
//! use it, so it sits below them.

use proc_macro2::Span;

/// A template that does not have the expected shape.
pub(super) fn shape(what: &str) -> syn::Error {
    syn::Error::new(
        Span::call_site(),
        format!("template {what} has an unexpected shape"),
    )
}
