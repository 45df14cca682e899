//! The decoder's moving parts: the serde seeds that read one value ([`Seed`]), one object key
//! ([`KeySeed`]) and one root record, and the impls that read through them (arrays, and
//! `data.parsing`'s record or list of records). Generated code reaches them through `agents_runtime::__private::decode` (the
//! [`record!`](crate::record) macro expands to calls of them); they are not a stable API.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::ctx::{Ctx, Path};
use super::{
    Decode, Expected, Mismatch, NUMBER_TOKEN, Outcome, Parsing, Record, from_number, number_in,
};

/// Decodes one value of type `T` at a path, recording mismatches; `None` for absent values.
pub struct Seed<'s, 'p, T> {
    ctx: Ctx<'s, 'p>,
    in_array: bool,
    /// A map's value: `null` is kept when `T` can hold it (`Value`), else the key is left out.
    entry: bool,
    /// Set when the value is `null` (a record keeps a field sent as `null`, see `record!`).
    null: Option<&'s mut bool>,
    _type: PhantomData<fn() -> T>,
}

impl<'s, 'p, T: Decode> Seed<'s, 'p, T> {
    /// A seed for the field `name` under `parent`; `null` is set when the value is `null`.
    #[inline]
    pub fn field(
        sink: &'s mut Vec<Mismatch>,
        parent: &'p Path<'p>,
        name: &'static str,
        null: &'s mut bool,
    ) -> Self {
        Seed {
            ctx: Ctx {
                sink,
                path: Path::Field(parent, name),
            },
            in_array: false,
            entry: false,
            null: Some(null),
            _type: PhantomData,
        }
    }

    /// A seed for the value of a key a record's typed map takes (at `ctx`'s path); `null` is
    /// set when the value is `null`.
    #[inline]
    pub(crate) fn keyed(ctx: Ctx<'s, 'p>, null: &'s mut bool) -> Self {
        Seed {
            ctx,
            in_array: false,
            entry: true,
            null: Some(null),
            _type: PhantomData,
        }
    }

    /// A seed for the item at `index` of the array at `parent`.
    #[inline]
    pub fn item(sink: &'s mut Vec<Mismatch>, parent: &'p Path<'p>, index: usize) -> Self {
        Seed {
            ctx: Ctx {
                sink,
                path: Path::Index(parent, index),
            },
            in_array: true,
            entry: false,
            null: None,
            _type: PhantomData,
        }
    }

    /// A seed for a value at `path` (a union decoded on its own, outside a record).
    #[inline]
    pub fn value(sink: &'s mut Vec<Mismatch>, path: Path<'p>) -> Self {
        Seed {
            ctx: Ctx { sink, path },
            in_array: false,
            entry: false,
            null: None,
            _type: PhantomData,
        }
    }

    /// A seed for the value of the map key `key` under `parent`.
    #[inline]
    pub fn entry(sink: &'s mut Vec<Mismatch>, parent: &'p Path<'p>, key: &'p str) -> Self {
        Seed {
            ctx: Ctx {
                sink,
                path: Path::Key(parent, key),
            },
            in_array: false,
            entry: true,
            null: None,
            _type: PhantomData,
        }
    }

    /// What a value that did not decode as itself leaves: a coerced value with its mismatch,
    /// or nothing with one. `raw` is the value as sent. Each `visit_*` matches `Exact` itself
    /// and calls this only otherwise, so the common path builds no `Value`, and a program
    /// compiles one of these per type rather than a closure and its caller per visit and type.
    fn settle(self, outcome: Outcome<T>, raw: Value) -> Option<T> {
        self.ctx.settle(outcome, raw)
    }
}

impl<'de, T: Decode> DeserializeSeed<'de> for Seed<'_, '_, T> {
    type Value = Option<T>;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<T>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, T: Decode> Visitor<'de> for Seed<'_, '_, T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "any JSON value (declared {})", T::EXPECTED)
    }

    #[inline]
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Option<T>, E> {
        Ok(match T::from_bool(v) {
            Outcome::Exact(v) => Some(v),
            other => self.settle(other, Value::Bool(v)),
        })
    }
    #[inline]
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<T>, E> {
        Ok(match T::from_i64(v) {
            Outcome::Exact(v) => Some(v),
            other => self.settle(other, Value::from(v)),
        })
    }
    #[inline]
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<T>, E> {
        Ok(match T::from_u64(v) {
            Outcome::Exact(v) => Some(v),
            other => self.settle(other, Value::from(v)),
        })
    }
    #[inline]
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Option<T>, E> {
        Ok(match T::from_f64(v) {
            Outcome::Exact(v) => Some(v),
            other => self.settle(other, Value::from(v)),
        })
    }
    #[inline]
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<T>, E> {
        Ok(match T::from_str(v) {
            Outcome::Exact(v) => Some(v),
            other => self.settle(other, Value::String(v.to_owned())),
        })
    }
    #[inline]
    fn visit_string<E: de::Error>(self, v: String) -> Result<Option<T>, E> {
        match T::take_string(v) {
            Ok(taken) => Ok(Some(taken)),
            Err(v) => Ok(match T::from_str(&v) {
                Outcome::Exact(taken) => Some(taken),
                other => self.settle(other, Value::String(v)),
            }),
        }
    }
    #[inline]
    fn visit_unit<E: de::Error>(mut self) -> Result<Option<T>, E> {
        if let Some(null) = self.null {
            *null = true;
            return Ok(None);
        }
        if self.entry {
            return Ok(T::from_null_item());
        }
        if self.in_array {
            match T::from_null_item() {
                Some(v) => return Ok(Some(v)),
                None => self.ctx.record(T::EXPECTED, Value::Null, false),
            }
        }
        Ok(None)
    }
    #[inline]
    fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
        self.visit_unit()
    }
    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        d.deserialize_any(self)
    }
    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Option<T>, A::Error> {
        T::from_seq(seq, self.ctx)
    }
    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<T>, A::Error> {
        T::from_map(map, self.ctx)
    }
}

/// Reads an object key and classifies it with a generated lookup, allocating only for keys the
/// schema does not declare. Generic over the lookup so that it inlines (a function pointer
/// would cost an indirect call per key).
pub struct KeySeed<F>(pub F);

/// A key read by [`KeySeed`].
pub enum Key<K> {
    /// A declared field.
    Known(K),
    /// A key the schema does not declare.
    Unknown(String),
}

impl<'de, K, F: Fn(&str) -> Option<K>> DeserializeSeed<'de> for KeySeed<F> {
    type Value = Key<K>;
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key<K>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, K, F: Fn(&str) -> Option<K>> Visitor<'de> for KeySeed<F> {
    type Value = Key<K>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    #[inline]
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<K>, E> {
        Ok(match (self.0)(v) {
            Some(k) => Key::Known(k),
            None => Key::Unknown(v.to_owned()),
        })
    }
    #[inline]
    fn visit_string<E: de::Error>(self, v: String) -> Result<Key<K>, E> {
        Ok(match (self.0)(&v) {
            Some(k) => Key::Known(k),
            None => Key::Unknown(v),
        })
    }
}

/// Deserializes a root record: a JSON object whose mismatches are collected on the record.
pub fn deserialize_record<'de, T: Record, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    struct RootVisitor<T>(PhantomData<fn() -> T>);
    impl<'de, T: Record> Visitor<'de> for RootVisitor<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object (an output record)")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            let mut sink = Vec::new();
            let record = T::from_map(
                map,
                Ctx {
                    sink: &mut sink,
                    path: Path::Root,
                },
            )?;
            let mut record = record.ok_or_else(|| de::Error::custom("record rejected"))?;
            record.set_mismatches(sink);
            super::check_record(&mut record);
            Ok(record)
        }
    }
    d.deserialize_map(RootVisitor(PhantomData))
}

/// Decodes one root record from any JSON value: an object is decoded field by field; anything
/// else gives an empty record with one mismatch at its root, so that a list keeps its positions.
pub(super) struct RecordSeed<T>(pub(super) PhantomData<fn() -> T>);

impl<'de, T: Record> DeserializeSeed<'de> for RecordSeed<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        let mut sink = Vec::new();
        let seed = Seed::<T> {
            ctx: Ctx {
                sink: &mut sink,
                path: Path::Root,
            },
            in_array: true,
            entry: false,
            null: None,
            _type: PhantomData,
        };
        let mut record = d.deserialize_any(seed)?.unwrap_or_default();
        record.set_mismatches(sink);
        super::check_record(&mut record);
        Ok(record)
    }
}

impl<T: Decode> Decode for Vec<T> {
    const EXPECTED: Expected = Expected::Array;
    fn from_seq<'de, A: SeqAccess<'de>>(
        mut seq: A,
        ctx: Ctx<'_, '_>,
    ) -> Result<Option<Self>, A::Error> {
        let Ctx { sink, path } = ctx;
        let hint = seq.size_hint();
        let mut out = Vec::new();
        let mut i = 0;
        loop {
            let seed = Seed::<T>::item(&mut *sink, &path, i);
            match seq.next_element_seed(seed)? {
                Some(Some(item)) => {
                    if out.capacity() == 0 {
                        out.reserve_exact(first_capacity::<T>(hint));
                    }
                    out.push(item);
                }
                Some(None) => {}
                None => break,
            }
            i += 1;
        }
        Ok(Some(out))
    }
}

/// How many items an array's first allocation holds. serde_json does not say how long an array
/// is, and a `Vec` grown from empty allocates for 4, 8 and 16 items, copying twice, on the way
/// to the dozen or so items extraction output's arrays often hold. This starts with room for up
/// to 16 items within 1 KiB: requests that small come from malloc's per-thread cache, and a
/// larger first request costs a short array more than the growing it saves. Never less than the
/// 4 a `Vec` starts with; the reader's count when it gives one (at most 4,096, as it comes from
/// the input).
fn first_capacity<T>(hint: Option<usize>) -> usize {
    match hint {
        Some(len) => len.clamp(1, 4096),
        None => (1024 / std::mem::size_of::<T>().max(1)).clamp(4, 16),
    }
}

/// Decodes the value of the field `name` into `slot`. A `null`, or a value the field's type
/// cannot hold (its mismatch says so), is kept in `unknown`, so that nothing sent is lost and
/// the schema's checks see it. One call per field of a `record!`, so that a record of thousands
/// of fields does not hold each field's locals in one stack frame.
pub fn field<'de, A: MapAccess<'de>, T: Decode>(
    map: &mut A,
    sink: &mut Vec<Mismatch>,
    parent: &Path<'_>,
    name: &'static str,
    slot: &mut Option<T>,
    unknown: &mut serde_json::Map<String, Value>,
) -> Result<(), A::Error> {
    let before = sink.len();
    let mut null = false;
    *slot = map.next_value_seed(Seed::field(&mut *sink, parent, name, &mut null))?;
    let kept = if null {
        Some(Value::Null)
    } else if slot.is_none() {
        rejected(sink, before)
    } else {
        None
    };
    if let Some(value) = kept {
        unknown.insert(name.to_owned(), value);
    }
    Ok(())
}

/// Keeps the value of `key`, which the record neither declares nor types, in `unknown` as sent.
pub fn unknown<'de, A: MapAccess<'de>>(
    map: &mut A,
    key: String,
    unknown: &mut serde_json::Map<String, Value>,
) -> Result<(), A::Error> {
    let value: Value = map.next_value()?;
    unknown.insert(key, value);
    Ok(())
}

/// The value a field was sent as when its type could not hold it: decoding it pushed exactly one
/// mismatch (at `before`), which left it empty. The record keeps it in `unknown_fields` (and
/// the mismatch says so), so that nothing sent is lost and the schema's checks see it.
pub(crate) fn rejected(sink: &mut [Mismatch], before: usize) -> Option<Value> {
    match sink.get_mut(before..) {
        Some([one]) if !one.coerced => {
            one.kept = true;
            Some(one.found.clone())
        }
        _ => None,
    }
}

/// Records a field the schema requires that was missing or `null` (`value` is `None`), as a
/// mismatch at `parent.name`: found `null`, left empty. A field that was sent with a value of
/// another type is empty too, but its mismatch (with the value sent) is recorded already, among
/// those the object recorded from `sink[first..]` on.
pub fn required<T: Decode>(
    value: &Option<T>,
    sink: &mut Vec<Mismatch>,
    first: usize,
    parent: &Path<'_>,
    name: &'static str,
) {
    if value.is_none() {
        let path = Path::Field(parent, name);
        let at = path.to_string();
        if sink
            .get(first..)
            .unwrap_or_default()
            .iter()
            .any(|m| m.path == at)
        {
            return;
        }
        let mut ctx = Ctx { sink, path };
        ctx.record(T::EXPECTED, Value::Null, false);
    }
}

/// An object whose keys the schema does not name, with values of one type
/// (`additionalProperties`): each value decodes at its key's path; a `null` value keeps its key
/// only when `T` can hold it.
impl<T: Decode> Decode for BTreeMap<String, T> {
    const EXPECTED: Expected = Expected::Object;
    fn from_map<'de, A: MapAccess<'de>>(
        mut map: A,
        ctx: Ctx<'_, '_>,
    ) -> Result<Option<Self>, A::Error> {
        let Ctx { sink, path } = ctx;
        let mut out = BTreeMap::new();
        let mut first = true;
        while let Some(key) = map.next_key::<String>()? {
            if std::mem::take(&mut first) && key == NUMBER_TOKEN {
                // Either a number serde_json handed over as a map, or an object to keep whole.
                let mut object = Map::new();
                object.insert(key, map.next_value()?);
                while let Some((k, v)) = map.next_entry()? {
                    object.insert(k, v);
                }
                let ctx = Ctx { sink, path };
                return Ok(match number_in(&mut object) {
                    Some(n) => from_number::<Self>(n, ctx),
                    None => ctx.reject_value::<Self>(Value::Object(object)),
                });
            }
            let seed = Seed::<T>::entry(&mut *sink, &path, &key);
            if let Some(value) = map.next_value_seed(seed)? {
                out.insert(key, value);
            }
        }
        Ok(Some(out))
    }
}

impl<'de, T: Record> Deserialize<'de> for Parsing<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ParsingVisitor<T>(PhantomData<fn() -> T>);
        impl<'de, T: Record> Visitor<'de> for ParsingVisitor<T> {
            type Value = Parsing<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a record or a list of records")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parsing<T>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                while let Some(record) = seq.next_element_seed(RecordSeed::<T>(PhantomData))? {
                    out.push(record);
                }
                Ok(Parsing::Many(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Parsing<T>, A::Error> {
                RecordSeed::<T>(PhantomData)
                    .deserialize(MapAccessDeserializer::new(map))
                    .map(Parsing::One)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Parsing<T>, E> {
                Ok(Parsing::One(T::default()))
            }
            fn visit_none<E: de::Error>(self) -> Result<Parsing<T>, E> {
                self.visit_unit()
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Parsing<T>, D::Error> {
                d.deserialize_any(self)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Parsing<T>, E> {
                Ok(Parsing::One(scalar_record(Value::String(v.to_owned()))))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Parsing<T>, E> {
                Ok(Parsing::One(scalar_record(Value::Bool(v))))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Parsing<T>, E> {
                Ok(Parsing::One(scalar_record(v.into())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Parsing<T>, E> {
                Ok(Parsing::One(scalar_record(v.into())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Parsing<T>, E> {
                Ok(Parsing::One(scalar_record(v.into())))
            }
        }
        d.deserialize_any(ParsingVisitor(PhantomData))
    }
}

fn scalar_record<T: Record>(found: Value) -> T {
    let mut record = T::default();
    record.set_mismatches(vec![Mismatch {
        path: String::new(),
        expected: Expected::Object,
        found,
        coerced: false,
        kept: false,
    }]);
    record
}
