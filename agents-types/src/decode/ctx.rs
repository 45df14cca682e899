//! Where a value sits while a record is decoded ([`Path`]) and where its mismatches go
//! ([`Ctx`]): what every [`Decode`](super::Decode) impl is handed.

use std::fmt;

use serde::Deserialize;
use serde::de::SeqAccess;
use serde::de::value::SeqAccessDeserializer;
use serde_json::Value;

use super::mismatch::{Expected, Mismatch};

/// Where a value sits inside the record being decoded. Built on the stack as decoding descends
/// and only turned into text when a mismatch is recorded.
#[derive(Debug, Clone, Copy)]
pub enum Path<'a> {
    /// The record itself.
    Root,
    /// A field of an object.
    Field(&'a Path<'a>, &'static str),
    /// An item of an array.
    Index(&'a Path<'a>, usize),
    /// A key of a map (an object whose keys the schema does not name).
    Key(&'a Path<'a>, &'a str),
}

impl Path<'_> {
    fn write(&self, out: &mut String) {
        match self {
            Path::Root => {}
            Path::Field(parent, key) => {
                parent.write(out);
                agents_check::path::push_key(out, key);
            }
            Path::Key(parent, key) => {
                parent.write(out);
                agents_check::path::push_key(out, key);
            }
            Path::Index(parent, i) => {
                parent.write(out);
                agents_check::path::push_index(out, *i);
            }
        }
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.write(&mut s);
        f.write_str(&s)
    }
}

/// The decoding context handed to [`Decode`](super::Decode) impls: where mismatches go, and where we are.
pub struct Ctx<'s, 'p> {
    /// Mismatches of the whole record.
    pub sink: &'s mut Vec<Mismatch>,
    /// Path of the value being decoded.
    pub path: Path<'p>,
}

impl Ctx<'_, '_> {
    /// Records a mismatch at the current path.
    pub fn record(&mut self, expected: Expected, found: Value, coerced: bool) {
        let mut path = String::new();
        self.path.write(&mut path);
        self.sink.push(Mismatch {
            path,
            expected,
            found,
            coerced,
            kept: false,
        });
    }

    /// Captures an array that was not expected here and records it as a mismatch.
    pub fn reject_seq<'de, A: SeqAccess<'de>, T>(
        mut self,
        expected: Expected,
        seq: A,
    ) -> Result<Option<T>, A::Error> {
        let found = Value::deserialize(SeqAccessDeserializer::new(seq))?;
        self.record(expected, found, false);
        Ok(None)
    }
}
