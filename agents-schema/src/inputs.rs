//! What an input property means: the kind of value it takes ([`ParamTy`]) and, in
//! [`crate::rules`], the rules it states. The generator turns these into Rust types and
//! `validate()`; the emulator judges requests by the same reading.

use crate::InputProperty;

/// The kind of value an input parameter takes (generated as the Rust type in parentheses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamTy {
    /// `String`.
    String,
    /// `f64`.
    Number,
    /// `i64`.
    Integer,
    /// `u32`: the pagination parameter.
    Page,
    /// `bool`.
    Boolean,
    /// `serde_json::Value`.
    Any,
}

/// The params every agent takes besides its declared inputs, with their kinds.
pub const COMMON_PARAMS: [(&str, ParamTy); 4] = [
    ("country", ParamTy::String),
    ("locale", ParamTy::String),
    ("tag", ParamTy::String),
    ("parse", ParamTy::Boolean),
];

/// The params that localize a request whatever the record declares.
pub const LOCALIZATION_PARAMS: [&str; 2] = ["zip_code", "store_id"];

/// The kind of value of an input parameter, and a note for the docs when its declared type is
/// not known or is a cursor.
pub fn param_type(input: &InputProperty, is_page: bool) -> (ParamTy, Option<String>) {
    match input.ty.as_deref() {
        Some("number" | "integer") if is_page => (ParamTy::Page, None),
        None if is_page => (ParamTy::Page, None),
        Some("string") if is_page => (
            ParamTy::String,
            Some(
                "The pagination input is a string (an opaque cursor, not a page number): set it \
                 from what the previous page returned."
                    .to_owned(),
            ),
        ),
        Some("string") => (ParamTy::String, None),
        Some("number") => (ParamTy::Number, None),
        Some("integer") => (ParamTy::Integer, None),
        Some("boolean") => (ParamTy::Boolean, None),
        Some(other) => (
            ParamTy::Any,
            Some(format!(
                "The record declares type `{other}`, which the generator does not know; any JSON value is accepted."
            )),
        ),
        None => (
            ParamTy::Any,
            Some("The record declares no type; any JSON value is accepted.".to_owned()),
        ),
    }
}
