//! Keys given twice in one object of a document a user wrote. Every JSON reader keeps one of
//! the two without a word (serde_json, Python and the `jsonschema` crate the last), so a
//! property defined twice would become whichever definition came last; the loader reports it.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};

use super::error::{FieldError, join_path};

/// A place in the document, as a chain to the root: the path is only written for a problem.
#[derive(Clone, Copy)]
enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Item(&'a At<'a>, usize),
}

impl At<'_> {
    fn path(&self) -> String {
        match self {
            At::Root => "$".to_owned(),
            At::Key(parent, key) => join_path(&parent.path(), key),
            At::Item(parent, i) => format!("{}[{i}]", parent.path()),
        }
    }
}

struct Walk<'a> {
    at: At<'a>,
    found: &'a mut Vec<FieldError>,
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
            // Reported where the repeat is, so problems come in the order of the text.
            if seen.contains(&key) {
                self.found.push(FieldError {
                    path: join_path(&self.at.path(), &key),
                    message: format!(
                        "`{key}` is given twice in this object, and a JSON reader keeps only \
                         the last; remove or rename one"
                    ),
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

/// The keys the JSON `text` gives twice in one object, each a problem at its path, in the order
/// of the text. Text that is not JSON, or is nested past serde_json's limit of 128 levels, has
/// none here: what reads it reports what is wrong with it.
///
/// ```
/// let twice = agents_schema::duplicate_keys(r#"{"asin": "A", "offers": [{"n": 1, "n": 2}], "asin": "B"}"#);
/// let paths: Vec<&str> = twice.iter().map(|e| e.path.as_str()).collect();
/// assert_eq!(paths, ["$.offers[0].n", "$.asin"]);
/// assert!(agents_schema::duplicate_keys(r#"{"a": {"a": 1}}"#).is_empty());
/// ```
pub fn duplicate_keys(text: &str) -> Vec<FieldError> {
    let mut found = Vec::new();
    let mut d = serde_json::Deserializer::from_str(text);
    let walk = Walk {
        at: At::Root,
        found: &mut found,
    };
    // Text that does not read is the record reader's to report.
    match walk.deserialize(&mut d) {
        Ok(()) => found,
        Err(_) => Vec::new(),
    }
}
