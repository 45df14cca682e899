//! Keys given twice in one object of a document a user wrote. Every JSON reader keeps one of
//! the two without a word (serde_json, Python and the `jsonschema` crate the last), so a
//! property defined twice would become whichever definition came last. The record loader
//! reports them in a user's schema and input files, the schema compiler in the documents its
//! references read and in a schema compiled from text (a hand-written record's): one walk,
//! here, for all of them.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};

/// A step from a document's root to a value in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Into the property of this name.
    Key(String),
    /// Into the array item of this index.
    Item(usize),
}

/// A key given twice in one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepeatedKey {
    /// Where the object is, from the document's root.
    pub object: Vec<Step>,
    /// The key given twice.
    pub key: String,
}

/// The keys the JSON `text` gives twice in one object, in the order of the text, each where its
/// second (third, …) appearance is. Text nested up to [`MAX_DEPTH`](crate::json::MAX_DEPTH) is
/// walked, as [`crate::json::from_str`] reads it; text that is not JSON, or is nested deeper,
/// has none here: what reads it reports what is wrong with it.
///
/// ```
/// use agents_wire::repeated::{keys, Step};
///
/// let twice = keys(r#"{"asin": "A", "offers": [{"n": 1, "n": 2}], "asin": "B"}"#);
/// assert_eq!(twice.len(), 2);
/// assert_eq!(twice[0].object, [Step::Key("offers".into()), Step::Item(0)]);
/// assert_eq!(twice[0].key, "n");
/// assert!(twice[1].object.is_empty());
/// assert!(keys(r#"{"a": {"a": 1}}"#).is_empty());
/// ```
pub fn keys(text: &str) -> Vec<RepeatedKey> {
    crate::json::from_str::<Repeated>(text).map_or_else(|_| Vec::new(), |Repeated(found)| found)
}

/// What [`keys`] reads a document into: only the repeats, each placed.
struct Repeated(Vec<RepeatedKey>);

impl<'de> serde::Deserialize<'de> for Repeated {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut found = Vec::new();
        Walk {
            at: At::Root,
            found: &mut found,
        }
        .deserialize(d)?;
        Ok(Repeated(found))
    }
}

/// A place in the document, as a chain to the root: its steps are only written out for a
/// repeat, so the walk borrows every key it passes.
#[derive(Clone, Copy)]
enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Item(&'a At<'a>, usize),
}

impl At<'_> {
    fn steps(&self) -> Vec<Step> {
        let mut steps = Vec::new();
        let mut at = self;
        loop {
            match at {
                At::Root => break,
                At::Key(parent, key) => {
                    steps.push(Step::Key((*key).to_owned()));
                    at = parent;
                }
                At::Item(parent, i) => {
                    steps.push(Step::Item(*i));
                    at = parent;
                }
            }
        }
        steps.reverse();
        steps
    }
}

struct Walk<'a> {
    at: At<'a>,
    found: &'a mut Vec<RepeatedKey>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        let mut i = 0;
        while items
            .next_element_seed(Walk {
                at: At::Item(&self.at, i),
                found: &mut *self.found,
            })?
            .is_some()
        {
            i += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            if seen.contains(&key) {
                self.found.push(RepeatedKey {
                    object: self.at.steps(),
                    key: key.clone().into_owned(),
                });
            }
            map.next_value_seed(Walk {
                at: At::Key(&self.at, &key),
                found: &mut *self.found,
            })?;
            seen.insert(key);
        }
        Ok(())
    }
}

/// An object's key, borrowed from the text unless it has escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeat_nested_past_serde_jsons_limit_is_found() {
        // 200 levels: past serde_json's 128, within what the loader reads.
        let deep = format!(
            "{}{{\"a\": 1, \"a\": 2}}{}",
            "{\"x\": ".repeat(200),
            "}".repeat(200)
        );
        let found = keys(&deep);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].object.len(), 200);
        assert_eq!(found[0].key, "a");
    }

    #[test]
    fn escaped_keys_are_compared_as_read() {
        // `\u0061` is `a`: the same key to every reader.
        let found = keys(r#"{"a": 1, "\u0061": 2}"#);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].key, "a");
    }

    #[test]
    fn text_that_is_not_json_has_none() {
        assert!(keys(r#"{"a": 1, "a": "#).is_empty());
    }
}
