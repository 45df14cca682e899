//! What the checks read: a value seen as JSON ([`Instance`]), whether it is a
//! `serde_json::Value` or a generated record whose fields are typed.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

/// The JSON kind of a value. Integers are numbers whose fraction is zero (`1.0` is one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Boolean,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

/// A value as JSON sees it. Implemented here for `serde_json` values and the standard types
/// generated records are made of, and by `agents_runtime::record!` for each record.
///
/// Only the methods of the value's [`Kind`] are asked; the others keep their defaults. `Sync`,
/// because what lies deep in a value (past 128 levels of the walk) is checked on a thread with
/// a stack large enough for it.
pub trait Instance: Sync {
    /// The JSON kind.
    fn kind(&self) -> Kind;
    /// The boolean, for [`Kind::Boolean`].
    fn as_bool(&self) -> Option<bool> {
        None
    }
    /// The number, for [`Kind::Number`].
    fn as_f64(&self) -> Option<f64> {
        None
    }
    /// The text, for [`Kind::String`].
    fn as_str(&self) -> Option<&str> {
        None
    }
    /// How many items (arrays) or properties (objects).
    fn len(&self) -> usize {
        0
    }
    /// True when [`Instance::len`] is zero.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The item at `index` of an array.
    fn item(&self, _index: usize) -> Option<&dyn Instance> {
        None
    }
    /// The property `key` of an object, when present.
    fn property(&self, _key: &str) -> Option<&dyn Instance> {
        None
    }
    /// Every property of an object, in order.
    fn properties(&self, _each: &mut dyn FnMut(&str, &dyn Instance)) {}
    /// The value as JSON, for reports.
    fn to_json(&self) -> Value;
    /// True when the value is of a kind that any schema its Rust type could be generated from
    /// allows, at every depth: a string, a boolean, a finite number, an array of such values,
    /// or a record holding nothing but its declared fields, each such a value. Where a
    /// subschema says nothing but `type`, `properties` and `items` and the value's type was
    /// made from it, an exact value meets it without being looked at
    /// ([`Schema::check_generated_into`](crate::Schema::check_generated_into)). `false` is
    /// always correct: the value is then checked in full.
    fn exact(&self) -> bool {
        false
    }
    /// True when the value is an object whose every property is a field its Rust type
    /// declares: nothing kept in a typed map or among unknown keys. Where the type was made
    /// from a subschema with `properties` alone, `additionalProperties` applies to none of
    /// them. `false` is always correct: the properties are then looked at one by one.
    fn fields_only(&self) -> bool {
        false
    }
}

/// The type names JSON Schema defines.
pub const TYPE_NAMES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// True when `number` is a whole number.
pub fn is_integer(number: f64) -> bool {
    number.is_finite() && number.fract() == 0.0
}

/// JSON equality, as `const`, `enum` and `uniqueItems` mean it: numbers by value (`1` equals
/// `1.0`), objects whatever their key order.
pub fn equal(a: &dyn Instance, b: &dyn Instance) -> bool {
    match (a.kind(), b.kind()) {
        (Kind::Null, Kind::Null) => true,
        (Kind::Boolean, Kind::Boolean) => a.as_bool() == b.as_bool(),
        (Kind::Number, Kind::Number) => a.as_f64() == b.as_f64(),
        (Kind::String, Kind::String) => a.as_str() == b.as_str(),
        (Kind::Array, Kind::Array) => {
            a.len() == b.len()
                && (0..a.len()).all(|i| match (a.item(i), b.item(i)) {
                    (Some(x), Some(y)) => equal(x, y),
                    _ => false,
                })
        }
        (Kind::Object, Kind::Object) => {
            if a.len() != b.len() {
                return false;
            }
            let mut same = true;
            a.properties(&mut |key, x| {
                if same {
                    same = b.property(key).is_some_and(|y| equal(x, y));
                }
            });
            same
        }
        _ => false,
    }
}

impl Instance for Value {
    fn kind(&self) -> Kind {
        match self {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Boolean,
            Value::Number(_) => Kind::Number,
            Value::String(_) => Kind::String,
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
        }
    }
    fn as_bool(&self) -> Option<bool> {
        Value::as_bool(self)
    }
    fn as_f64(&self) -> Option<f64> {
        Value::as_f64(self)
    }
    fn as_str(&self) -> Option<&str> {
        Value::as_str(self)
    }
    fn len(&self) -> usize {
        match self {
            Value::Array(items) => items.len(),
            Value::Object(map) => map.len(),
            _ => 0,
        }
    }
    fn item(&self, index: usize) -> Option<&dyn Instance> {
        match self {
            Value::Array(items) => items.get(index).map(|v| v as &dyn Instance),
            _ => None,
        }
    }
    fn property(&self, key: &str) -> Option<&dyn Instance> {
        match self {
            Value::Object(map) => map.get(key).map(|v| v as &dyn Instance),
            _ => None,
        }
    }
    fn properties(&self, each: &mut dyn FnMut(&str, &dyn Instance)) {
        if let Value::Object(map) = self {
            map.properties(each);
        }
    }
    fn to_json(&self) -> Value {
        self.clone()
    }
}

impl Instance for Map<String, Value> {
    fn kind(&self) -> Kind {
        Kind::Object
    }
    fn len(&self) -> usize {
        Map::len(self)
    }
    fn property(&self, key: &str) -> Option<&dyn Instance> {
        self.get(key).map(|v| v as &dyn Instance)
    }
    fn properties(&self, each: &mut dyn FnMut(&str, &dyn Instance)) {
        for (key, value) in self {
            each(key, value);
        }
    }
    fn to_json(&self) -> Value {
        Value::Object(self.clone())
    }
}

impl Instance for bool {
    fn kind(&self) -> Kind {
        Kind::Boolean
    }
    fn exact(&self) -> bool {
        true
    }
    fn as_bool(&self) -> Option<bool> {
        Some(*self)
    }
    fn to_json(&self) -> Value {
        Value::Bool(*self)
    }
}

macro_rules! numbers {
    ($($ty:ty),*) => {$(
        impl Instance for $ty {
            fn kind(&self) -> Kind {
                Kind::Number
            }
            // Whole numbers beyond 2^53 compare approximately, as in most validators.
            #[allow(clippy::cast_precision_loss, clippy::cast_lossless)]
            fn as_f64(&self) -> Option<f64> {
                Some(*self as f64)
            }
            fn to_json(&self) -> Value {
                Value::from(*self)
            }
            fn exact(&self) -> bool {
                true
            }
        }
    )*};
}
numbers!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! fractions {
    ($($ty:ty),*) => {$(
        impl Instance for $ty {
            fn kind(&self) -> Kind {
                Kind::Number
            }
            fn as_f64(&self) -> Option<f64> {
                Some(f64::from(*self))
            }
            /// A whole number is reported as one (`47`, not `47.0`): the same JSON number.
            #[allow(clippy::cast_possible_truncation)]
            fn to_json(&self) -> Value {
                let v = f64::from(*self);
                if is_integer(v) && v.abs() < 9.0e15 {
                    Value::from(v as i64)
                } else {
                    Value::from(v)
                }
            }
            /// A float is generated only where a schema says `number` (`integer` makes an
            /// integer type), and every finite number meets that, a fraction included.
            fn exact(&self) -> bool {
                self.is_finite()
            }
        }
    )*};
}
fractions!(f32, f64);

impl Instance for String {
    fn kind(&self) -> Kind {
        Kind::String
    }
    fn exact(&self) -> bool {
        true
    }
    fn as_str(&self) -> Option<&str> {
        Some(self)
    }
    fn to_json(&self) -> Value {
        Value::String(self.clone())
    }
}

impl Instance for &str {
    fn kind(&self) -> Kind {
        Kind::String
    }
    fn as_str(&self) -> Option<&str> {
        Some(self)
    }
    fn to_json(&self) -> Value {
        Value::String((*self).to_owned())
    }
}

/// `None` is `null` (a record's absent fields are left out before they get here).
impl<T: Instance> Instance for Option<T> {
    fn kind(&self) -> Kind {
        self.as_ref().map_or(Kind::Null, Instance::kind)
    }
    fn as_bool(&self) -> Option<bool> {
        self.as_ref()?.as_bool()
    }
    fn as_f64(&self) -> Option<f64> {
        self.as_ref()?.as_f64()
    }
    fn as_str(&self) -> Option<&str> {
        self.as_ref()?.as_str()
    }
    fn len(&self) -> usize {
        self.as_ref().map_or(0, Instance::len)
    }
    fn item(&self, index: usize) -> Option<&dyn Instance> {
        self.as_ref()?.item(index)
    }
    fn property(&self, key: &str) -> Option<&dyn Instance> {
        self.as_ref()?.property(key)
    }
    fn properties(&self, each: &mut dyn FnMut(&str, &dyn Instance)) {
        if let Some(inner) = self {
            inner.properties(each);
        }
    }
    fn to_json(&self) -> Value {
        self.as_ref().map_or(Value::Null, Instance::to_json)
    }
    fn exact(&self) -> bool {
        self.as_ref().is_some_and(Instance::exact)
    }
    fn fields_only(&self) -> bool {
        self.as_ref().is_some_and(Instance::fields_only)
    }
}

impl<T: Instance + ?Sized> Instance for Box<T> {
    fn kind(&self) -> Kind {
        (**self).kind()
    }
    fn as_bool(&self) -> Option<bool> {
        (**self).as_bool()
    }
    fn as_f64(&self) -> Option<f64> {
        (**self).as_f64()
    }
    fn as_str(&self) -> Option<&str> {
        (**self).as_str()
    }
    fn len(&self) -> usize {
        (**self).len()
    }
    fn item(&self, index: usize) -> Option<&dyn Instance> {
        (**self).item(index)
    }
    fn property(&self, key: &str) -> Option<&dyn Instance> {
        (**self).property(key)
    }
    fn properties(&self, each: &mut dyn FnMut(&str, &dyn Instance)) {
        (**self).properties(each);
    }
    fn to_json(&self) -> Value {
        (**self).to_json()
    }
    fn exact(&self) -> bool {
        (**self).exact()
    }
    fn fields_only(&self) -> bool {
        (**self).fields_only()
    }
}

impl<T: Instance> Instance for Vec<T> {
    fn kind(&self) -> Kind {
        Kind::Array
    }
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn item(&self, index: usize) -> Option<&dyn Instance> {
        self.get(index).map(|v| v as &dyn Instance)
    }
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(Instance::to_json).collect())
    }
    fn exact(&self) -> bool {
        self.iter().all(Instance::exact)
    }
}

macro_rules! maps {
    ($($map:ident),*) => {$(
        impl<T: Instance> Instance for $map<String, T> {
            fn kind(&self) -> Kind {
                Kind::Object
            }
            fn len(&self) -> usize {
                $map::len(self)
            }
            fn property(&self, key: &str) -> Option<&dyn Instance> {
                self.get(key).map(|v| v as &dyn Instance)
            }
            fn properties(&self, each: &mut dyn FnMut(&str, &dyn Instance)) {
                for (key, value) in self {
                    each(key, value);
                }
            }
            fn to_json(&self) -> Value {
                Value::Object(self.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
            }
        }
    )*};
}
maps!(BTreeMap, HashMap);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_equal_by_value_and_objects_whatever_their_order() {
        assert!(equal(&json!(1), &json!(1.0)));
        assert!(equal(
            &json!({"a": 1, "b": [2]}),
            &json!({"b": [2.0], "a": 1})
        ));
        assert!(!equal(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!equal(&json!(false), &json!(0)));
        assert!(equal(&Some(3_i64), &json!(3)));
        assert!(equal(&vec![String::from("x")], &json!(["x"])));
    }
}
