//! The kind of value an input takes: what the generator types it as, what the request check
//! expects, and what each rule applies to ([`crate::rules::Rule::applies_to`]).

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
