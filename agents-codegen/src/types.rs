//! Where a schema type becomes a Rust type.
//!
//! Output fields (every one is wrapped in `Option`: absent or `null` is `None`):
//!
//! | descriptor                                   | Rust type                          |
//! |----------------------------------------------|------------------------------------|
//! | `string` (any `format`)                      | `String`                           |
//! | `number`                                     | `f64`                              |
//! | `integer`                                    | `i64`                              |
//! | `boolean`                                    | `bool`                             |
//! | `array` with `items`                         | `Vec<item type>`                   |
//! | `array` of objects with properties           | `Vec<generated struct>`            |
//! | `array` without `items`                      | `Vec<serde_json::Value>`           |
//! | `object` with non-empty `properties`         | a generated struct                 |
//! | `object` without properties                  | `serde_json::Map<String, Value>`   |
//! | no `type`, but `properties` / `items`        | as `object` / `array`              |
//! | `["T", "null"]`                              | as `T`                             |
//! | missing, `null`, unknown or a union of types | `serde_json::Value` (noted in docs) |
//!
//! Types are the ones a person would write: `Vec<Review>`, not `Vec<Box<Review>>`. A record
//! type is boxed only where recursion needs it (none of the agent records recurses).
//!
//! A `number` is an `f64`: an integer-valued number such as `4` serializes back as `4.0`, the
//! same JSON number.
//!
//! Input parameters: `string` → `String`, `number` → `f64` (the pagination parameter → `u32`),
//! `integer` → `i64`, `boolean` → `bool`, anything else → `serde_json::Value` (noted in docs).

use agents_schema::FieldSchema;

/// The resolved type of an output field (before wrapping in `Option`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ty {
    /// `String`.
    String,
    /// `f64`.
    Number,
    /// `i64`.
    Integer,
    /// `bool`.
    Boolean,
    /// `serde_json::Value`.
    Any,
    /// `serde_json::Map<String, Value>`.
    Map,
    /// `Vec<T>`.
    Array(Box<Ty>),
    /// A generated struct, by index into the agent's struct list.
    Struct(usize),
}

/// How a descriptor is to be represented, before nested structs are created.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape<'a> {
    /// A scalar or raw JSON type.
    Leaf(Ty),
    /// An array; `None` when the items are untyped.
    Array(Option<&'a FieldSchema>),
    /// An object with properties: becomes a struct.
    Object(&'a indexmap::IndexMap<String, FieldSchema>),
}

/// Classifies a descriptor; the second value is a note for the docs when the schema's type could
/// not be used as given.
pub fn classify(schema: &FieldSchema) -> (Shape<'_>, Option<String>) {
    let declared = schema.ty.as_ref();
    let name = declared.and_then(|t| t.single());
    let inferred = match (name, &schema.properties, &schema.items) {
        (Some(n), _, _) => Some(n),
        (None, Some(_), _) if declared.is_none() => Some("object"),
        (None, None, Some(_)) if declared.is_none() => Some("array"),
        _ => None,
    };
    match inferred {
        Some("string") => (Shape::Leaf(Ty::String), None),
        Some("number") => (Shape::Leaf(Ty::Number), None),
        Some("integer") => (Shape::Leaf(Ty::Integer), None),
        Some("boolean") => (Shape::Leaf(Ty::Boolean), None),
        Some("array") => (Shape::Array(schema.items.as_deref()), None),
        Some("object") => match &schema.properties {
            Some(props) if !props.is_empty() => (Shape::Object(props), None),
            _ => (Shape::Leaf(Ty::Map), None),
        },
        Some(other) => (
            Shape::Leaf(Ty::Any),
            Some(format!(
                "The schema declares type `{other}`, which the generator does not know; the value is kept as raw JSON."
            )),
        ),
        None => {
            let note = match declared {
                Some(t) => format!(
                    "The schema declares the type union `{}`; the value is kept as raw JSON.",
                    serde_json::to_string(t).unwrap_or_default()
                ),
                None => "The schema declares no type; the value is kept as raw JSON.".to_owned(),
            };
            (Shape::Leaf(Ty::Any), Some(note))
        }
    }
}

pub use agents_schema::inputs::{ParamTy, param_type};
