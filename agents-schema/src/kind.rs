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
    /// `Vec<T>`: a list, its items of one kind.
    List(ItemTy),
    /// `serde_json::Map<String, Value>`: an object whose fields are not typed here.
    Object,
    /// `serde_json::Value`.
    Any,
}

/// The kind of the items of a list input (generated as the Rust type in parentheses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemTy {
    /// `String`.
    String,
    /// `f64`.
    Number,
    /// `i64`.
    Integer,
    /// `bool`.
    Boolean,
    /// `serde_json::Value`: items of no one scalar kind (objects, lists, mixed kinds).
    Any,
}

impl ItemTy {
    /// Whether `value` is an item of this kind, as an integer input is judged: written without
    /// a fraction, so that what passes is what the generated `Vec<i64>` reads.
    pub fn fits(self, value: &serde_json::Value) -> bool {
        use serde_json::Value;
        match (self, value) {
            (ItemTy::String, Value::String(_))
            | (ItemTy::Number, Value::Number(_))
            | (ItemTy::Boolean, Value::Bool(_))
            | (ItemTy::Any, _) => true,
            (ItemTy::Integer, Value::Number(n)) => n.is_i64() || n.is_u64(),
            _ => false,
        }
    }

    /// What an item of this kind is, for messages (`a string`).
    pub fn expected(self) -> &'static str {
        match self {
            ItemTy::String => "a string",
            ItemTy::Number => "a number",
            ItemTy::Integer => "an integer",
            ItemTy::Boolean => "a boolean",
            ItemTy::Any => "any JSON value",
        }
    }
}

impl ParamTy {
    /// What an input of this kind takes, for messages (`a number`, `an array of strings`).
    pub fn expected(self) -> &'static str {
        match self {
            ParamTy::String => "a string",
            ParamTy::Number => "a number",
            ParamTy::Integer => "an integer",
            ParamTy::Page => "a positive integer (or its decimal string)",
            ParamTy::Boolean => "a boolean",
            ParamTy::List(ItemTy::String) => "an array of strings",
            ParamTy::List(ItemTy::Number) => "an array of numbers",
            ParamTy::List(ItemTy::Integer) => "an array of integers",
            ParamTy::List(ItemTy::Boolean) => "an array of booleans",
            ParamTy::List(ItemTy::Any) => "an array",
            ParamTy::Object => "an object",
            ParamTy::Any => "any JSON value",
        }
    }
}
