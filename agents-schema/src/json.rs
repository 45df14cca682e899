//! A JSON tree whose objects keep their keys in the order written.
//!
//! The order of a schema's `properties` is the order of the fields generated from it, so a
//! record, a template's documents and the schema text a generated type carries are read and
//! written through this tree wherever they pass: a `serde_json::Value` sorts its keys (unless a
//! program turns on serde_json's `preserve_order`, which no library can choose for its users).

use std::fmt;

use indexmap::IndexMap;
use serde::ser::{SerializeMap, SerializeSeq};
use serde_json::Value;

/// A JSON value whose objects keep their keys in the order they were read or inserted.
/// Equality does not look at that order: two objects with the same entries are equal.
///
/// ```
/// let doc: agents_schema::Json =
///     serde_json::from_str(r#"{"zeta": 1, "alpha": {"b": 2, "a": 3}}"#).unwrap();
/// assert_eq!(doc.to_string(), r#"{"zeta":1,"alpha":{"b":2,"a":3}}"#);
/// assert_eq!(doc.to_value()["alpha"]["a"], 3);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json holds it.
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, its keys in order.
    Object(IndexMap<String, Json>),
}

impl Json {
    /// What `value` serializes to, its keys in the order its `Serialize` writes them (a
    /// struct's fields in declaration order, an `IndexMap`'s in insertion order).
    pub fn of<T: serde::Serialize + ?Sized>(value: &T) -> Result<Json, serde_json::Error> {
        // Through text: serde_json's writer keeps the order a serializer gives, and the
        // reader here keeps the order of the text.
        serde_json::from_str(&serde_json::to_string(value)?)
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.as_object().and_then(|o| o.get(key))
    }

    /// The entries of an object.
    pub fn as_object(&self) -> Option<&IndexMap<String, Json>> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The items of an array.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The text of a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }

    /// The value at a JSON pointer (RFC 6901: `""` is the whole value, `/a/0` the first item
    /// of member `a`, `~1` a `/` in a key and `~0` a `~`).
    pub fn pointer(&self, pointer: &str) -> Option<&Json> {
        if pointer.is_empty() {
            return Some(self);
        }
        let mut at = self;
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            at = match at {
                Json::Object(map) => map.get(&token)?,
                // As serde_json reads an index: digits only, without a leading zero.
                Json::Array(items)
                    if token.bytes().all(|b| b.is_ascii_digit())
                        && (token == "0" || !token.starts_with('0')) =>
                {
                    items.get(token.parse::<usize>().ok()?)?
                }
                _ => return None,
            };
        }
        Some(at)
    }

    /// `value` with its objects' keys in the order the first of `hints` that has them at the
    /// same place lists them, the keys none of them has after those (in `value`'s order). A
    /// `Value` sorts its keys: this puts back the order a document was written in after a step
    /// that works on values, such as a rewrite of its references.
    ///
    /// ```
    /// use agents_schema::Json;
    /// let written: Json = serde_json::from_str(r#"{"zeta": 1, "alpha": 2}"#).unwrap();
    /// let changed = serde_json::json!({"alpha": 2, "beta": 3, "zeta": 1});
    /// assert_eq!(
    ///     Json::arranged(&changed, &[&written]).to_string(),
    ///     r#"{"zeta":1,"alpha":2,"beta":3}"#
    /// );
    /// ```
    pub fn arranged(value: &Value, hints: &[&Json]) -> Json {
        arrange(value, None, hints.to_vec(), None)
    }

    /// As [`Json::arranged`], with one more hint by place: `placed(pointer)` gives the tree
    /// that stands at that JSON pointer of `value` (what a JSON Patch operation wrote there,
    /// say), which comes before the hints found there from above.
    pub fn arranged_with<'a>(
        value: &Value,
        hints: &[&'a Json],
        placed: &dyn Fn(&str) -> Option<&'a Json>,
    ) -> Json {
        arrange(value, Some(String::new()), hints.to_vec(), Some(placed))
    }

    /// A schema `value` that `agents_check` made of the document `written` and the files it
    /// embeds ([`Schema::bundled_from_files`](agents_check::Schema::bundled_from_files),
    /// [`Schema::localized_from_files`](agents_check::Schema::localized_from_files)), in the
    /// order they wrote their keys: `written` for the document, each file's text where it is
    /// embedded (as [`Json::arranged_with`] places them).
    pub fn arranged_from_files(
        value: &Value,
        written: &Json,
        embedded: &[agents_check::Embedded<'_>],
    ) -> Json {
        // A file that `agents_check` read as a `Value` reads as a tree (unless it nests past
        // serde_json's 128 levels: it is then in `value`'s order).
        let read: std::collections::HashMap<&str, Json> = embedded
            .iter()
            .filter_map(|e| Some((e.pointer.as_str(), serde_json::from_str(e.text).ok()?)))
            .collect();
        Json::arranged_with(value, &[written], &|pointer| read.get(pointer))
    }

    /// This document as it stands alone, given `compiled`, its compile by `agents_check` (with
    /// the documents its references read): what those references read from other files
    /// embedded under `$defs`, each file's keys in the order it wrote them. It is this document
    /// as written, key order and all, when it refers to no other file.
    pub fn standalone(&self, compiled: &agents_check::Schema) -> Json {
        match compiled.bundled_from_files() {
            (std::borrow::Cow::Borrowed(_), _) => self.clone(),
            (std::borrow::Cow::Owned(bundled), files) => {
                Json::arranged_from_files(&bundled, self, &files)
            }
        }
    }

    /// Pretty-printed text, two spaces per level, keys in order.
    pub fn to_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| self.to_value().to_string())
    }

    /// The same value as a `serde_json::Value` (whose objects sort their keys).
    pub fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => Value::Number(n.clone()),
            Json::String(s) => Value::String(s.clone()),
            Json::Array(items) => Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), v.to_value())).collect())
            }
        }
    }
}

/// The keys of `map` in the order the first of `lists` that has each lists them, the keys none
/// has after those, in `map`'s order. Each key is placed once (a set, not a search per key).
fn keys_in_order<'m, 'l>(
    map: &'m serde_json::Map<String, Value>,
    lists: impl Iterator<Item = &'l IndexMap<String, Json>>,
) -> indexmap::IndexSet<&'m String> {
    let mut keys = indexmap::IndexSet::with_capacity(map.len());
    for key in lists.flat_map(IndexMap::keys) {
        if let Some((key, _)) = map.get_key_value(key) {
            keys.insert(key);
        }
    }
    keys.extend(map.keys());
    keys
}

/// What stands at a JSON pointer, for [`Json::arranged_with`].
type Placed<'f, 'a> = &'f dyn Fn(&str) -> Option<&'a Json>;

/// One level of [`Json::arranged_with`]: `at` is the pointer of `value`, kept only when there
/// is a `placed` to ask. Each object's keys are collected once (a set, not a search per key),
/// and each level adds at most one hint, so the time is the size of `value` times its depth.
fn arrange<'a>(
    value: &Value,
    at: Option<String>,
    from_above: Vec<&'a Json>,
    placed: Option<Placed<'_, 'a>>,
) -> Json {
    let mut hints = Vec::with_capacity(from_above.len() + 1);
    if let (Some(at), Some(placed)) = (&at, placed) {
        hints.extend(placed(at));
    }
    hints.extend(from_above);
    let below = |segment: &str| {
        at.as_ref()
            .map(|at| format!("{at}/{}", segment.replace('~', "~0").replace('/', "~1")))
    };
    match value {
        Value::Object(map) => Json::Object(
            keys_in_order(map, hints.iter().filter_map(|h| h.as_object()))
                .into_iter()
                .map(|key| {
                    let inner = hints.iter().filter_map(|h| h.get(key)).collect();
                    (key.clone(), arrange(&map[key], below(key), inner, placed))
                })
                .collect(),
        ),
        Value::Array(items) => Json::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let inner = hints
                        .iter()
                        .filter_map(|h| h.as_array().and_then(|a| a.get(i)))
                        .collect();
                    arrange(item, below(&i.to_string()), inner, placed)
                })
                .collect(),
        ),
        other => Json::from(other),
    }
}

impl From<&Value> for Json {
    fn from(value: &Value) -> Self {
        match value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(n) => Json::Number(n.clone()),
            Value::String(s) => Json::String(s.clone()),
            Value::Array(items) => Json::Array(items.iter().map(Json::from).collect()),
            Value::Object(map) => Json::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), Json::from(v)))
                    .collect(),
            ),
        }
    }
}

impl From<Value> for Json {
    fn from(value: Value) -> Self {
        Json::from(&value)
    }
}

/// Compact text, keys in order.
impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match serde_json::to_string(self) {
            Ok(text) => f.write_str(&text),
            Err(_) => write!(f, "{}", self.to_value()),
        }
    }
}

impl serde::Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::String(text) => s.serialize_str(text),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(map) => {
                let mut out = s.serialize_map(Some(map.len()))?;
                for (k, v) in map {
                    out.serialize_entry(k, v)?;
                }
                out.end()
            }
        }
    }
}

impl<'de> serde::Deserialize<'de> for Json {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
                Ok(Json::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
                Ok(Json::Number(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
                Ok(Json::Number(v.into()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
                Ok(serde_json::Number::from_f64(v).map_or(Json::Null, Json::Number))
            }
            fn visit_str<E>(self, v: &str) -> Result<Json, E> {
                Ok(Json::String(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Json, E> {
                Ok(Json::String(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Json::Array(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut out = IndexMap::new();
                while let Some((k, v)) = map.next_entry::<String, Json>()? {
                    out.insert(k, v);
                }
                // With serde_json's `arbitrary_precision` on, a number comes as this map.
                if out.len() == 1
                    && let Some(Json::String(text)) = out.get(agents_wire::json::NUMBER_TOKEN)
                    && let Ok(number) = text.parse()
                {
                    return Ok(Json::Number(number));
                }
                Ok(Json::Object(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// How a message names a value's JSON kind ("a string", "an object").
pub(crate) fn kind(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::Json;

    #[test]
    fn a_number_serde_json_hands_over_as_a_map_is_a_number() {
        // What serde_json gives a reader of any value with `arbitrary_precision` on.
        let token = agents_wire::json::NUMBER_TOKEN;
        let text = format!(r#"{{"maximum": {{"{token}": "10"}}, "x": {{"{token}": "1.5"}}}}"#);
        let read: Json = serde_json::from_str(&text).expect("JSON");
        assert_eq!(read.to_string(), r#"{"maximum":10,"x":1.5}"#);
        // Anything else with that key is an object.
        let text = format!(r#"{{"{token}": "1", "also": 2}}"#);
        let read: Json = serde_json::from_str(&text).expect("JSON");
        assert_eq!(read.as_object().map(|o| o.len()), Some(2));
    }
}
