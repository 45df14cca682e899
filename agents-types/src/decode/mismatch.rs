//! What decoding records about a value that did not have its declared type, and what a scalar
//! conversion made of a JSON value: plain data below both the [`Decode`](super::Decode) impls and
//! the context that collects mismatches.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The JSON type a field was declared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expected {
    /// A string.
    String,
    /// Any number.
    Number,
    /// A whole number.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// An array.
    Array,
    /// An object.
    Object,
    /// Any JSON value (the schema gave no usable type).
    Any,
    /// One of the values the schema lists (an `enum`).
    Listed,
    /// One of several kinds of value (a schema's `anyOf` / `oneOf`).
    Union,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expected::String => "string",
            Expected::Number => "number",
            Expected::Integer => "integer",
            Expected::Boolean => "boolean",
            Expected::Array => "array",
            Expected::Object => "object",
            Expected::Any => "any value",
            Expected::Listed => "one of the listed values",
            Expected::Union => "one of the kinds of value the schema allows",
        })
    }
}

/// A value that did not have its declared type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mismatch {
    /// Where the value was, in JSON names: `frequently_bought_with.products[2].price`.
    pub path: String,
    /// The type the schema declared.
    pub expected: Expected,
    /// The value as the service sent it.
    pub found: Value,
    /// True when the field holds a value converted from `found`; false when it was left empty.
    pub coerced: bool,
    /// True when `found` is kept in the record's `unknown_fields` under the field's name (a
    /// field of a record left empty), so that writing the record back writes it as sent.
    #[serde(default)]
    pub kept: bool,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match (self.coerced, self.kept) {
            (true, _) => "coerced",
            (false, true) => "left empty, kept in unknown_fields",
            (false, false) => "left empty",
        };
        let past = self
            .past_the_type()
            .map_or_else(String::new, |past| format!(", {past}"));
        write!(
            f,
            "{}: expected {}, found {}{past} ({what})",
            self.path, self.expected, self.found
        )
    }
}

impl Mismatch {
    /// Why a value of the declared JSON type was still refused, when it was: past what the
    /// field's Rust type holds (a whole number past `i64`; an integer with more digits than an
    /// `f64` holds exactly). Such a mismatch is the type's limit, not the service's mistake:
    /// the decoder reports it even where the schema allows the value, so that an empty field
    /// always says why. "expected integer, found 18446744073709551615" alone would read as a
    /// contradiction.
    pub fn past_the_type(&self) -> Option<&'static str> {
        match (&self.expected, &self.found) {
            (Expected::Integer, Value::Number(n))
                if n.as_f64().is_some_and(|v| v.fract() == 0.0) =>
            {
                Some("past the range of the field's type, i64")
            }
            (Expected::Number, Value::Number(n)) if !n.is_f64() => {
                Some("more digits than the field's type, f64, holds exactly")
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_integer_past_i64_is_said_to_be_past_its_range() {
        let mismatch = |found: Value| Mismatch {
            path: "id".into(),
            expected: Expected::Integer,
            found,
            coerced: false,
            kept: true,
        };
        assert_eq!(
            mismatch(Value::from(u64::MAX)).to_string(),
            "id: expected integer, found 18446744073709551615, past the range of the field's \
             type, i64 (left empty, kept in unknown_fields)"
        );
        assert_eq!(
            mismatch(Value::from(2.5)).to_string(),
            "id: expected integer, found 2.5 (left empty, kept in unknown_fields)"
        );
        let number = Mismatch {
            expected: Expected::Number,
            ..mismatch(Value::from(12_345_678_901_234_567_u64))
        };
        assert_eq!(
            number.to_string(),
            "id: expected number, found 12345678901234567, more digits than the field's type, \
             f64, holds exactly (left empty, kept in unknown_fields)"
        );
    }
}

/// What a scalar conversion made of a JSON value.
#[derive(Debug)]
pub enum Outcome<T> {
    /// The value had the declared type.
    Exact(T),
    /// The value was converted losslessly; a mismatch is recorded.
    Coerced(T),
    /// The value does not fit; the field is left empty and a mismatch is recorded.
    Rejected,
}

impl<T> Outcome<T> {
    /// Converts the value, keeping the outcome.
    #[inline]
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Outcome<U> {
        match self {
            Outcome::Exact(v) => Outcome::Exact(f(v)),
            Outcome::Coerced(v) => Outcome::Coerced(f(v)),
            Outcome::Rejected => Outcome::Rejected,
        }
    }
}
