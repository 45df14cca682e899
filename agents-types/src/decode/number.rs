//! A union's object, or a number serde_json handed over as a map (its `arbitrary_precision`
//! on; see [`number_in`]): the first key tells which, and is handed back to the object variant
//! ahead of the rest when it is an object.

use serde::de::{DeserializeSeed, IntoDeserializer, MapAccess};
use serde_json::{Map, Value};

use super::ctx::Ctx;
use super::{Decode, NUMBER_TOKEN, from_number, number_in};

/// Decodes an object into the union `U` through its object variant `T` (`wrap`), or, when the
/// map is a number, into the variant that takes numbers. The first key is read here to tell,
/// then handed back to `T` ahead of the rest.
pub fn object_or_number<'de, U: Decode, T: Decode, A: MapAccess<'de>>(
    mut map: A,
    ctx: Ctx<'_, '_>,
    wrap: fn(T) -> U,
) -> Result<Option<U>, A::Error> {
    let first = map.next_key::<String>()?;
    if first.as_deref() == Some(NUMBER_TOKEN) {
        let value: Value = map.next_value()?;
        let mut object = Map::new();
        object.insert(NUMBER_TOKEN.to_owned(), value);
        return Ok(match number_in(&mut object) {
            Some(n) => from_number::<U>(n, ctx),
            None => ctx.reject_value::<U>(Value::Object(object)),
        });
    }
    let replay = Replay { first, map };
    T::from_map(replay, ctx).map(|v| v.map(wrap))
}

/// A map whose first key was read already: it gives that key again, then the rest.
struct Replay<A> {
    first: Option<String>,
    map: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Replay<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        match self.first.take() {
            Some(key) => seed.deserialize(key.into_deserializer()).map(Some),
            None => self.map.next_key_seed(seed),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::collections::BTreeMap;

    use serde_json::json;

    use crate::Record;

    crate::union_enum! {
        #[derive(Debug, Clone, PartialEq)]
        pub enum Amount {
            Number(f64),
            Detail(Detail),
        }
    }

    crate::record! {
        #![fields = DetailFields]
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct Detail {
            pub value: Option<f64>,
            #[json(flatten)]
            pub unknown_fields: crate::JsonMap,
            #[json(skip)]
            pub mismatches: Vec<crate::Mismatch>,
            #[json(skip)]
            pub breaches: Vec<crate::Breach>,
        }
    }

    crate::record! {
        #![schema = r#"{"properties": {"price": {"type": "number"},
                                       "count": {"type": "integer", "maximum": 10},
                                       "label": {"type": "string"}, "flag": {"type": "boolean"},
                                       "scores": {"type": "array", "items": {"type": "number"}},
                                       "detail": {"type": "object"}, "amount": {}, "other": {},
                                       "loose": {"type": "object"}, "per_day": {}, "week": {"type": "object"}},
                        "additionalProperties": {"type": "integer"}}"#]
        #![fields = SampleFields]
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct Sample {
            pub price: Option<f64>,
            pub count: Option<i64>,
            pub label: Option<String>,
            pub flag: Option<bool>,
            pub scores: Option<Vec<f64>>,
            pub detail: Option<Detail>,
            pub amount: Option<Amount>,
            pub other: Option<Amount>,
            pub loose: Option<crate::JsonMap>,
            pub per_day: Option<BTreeMap<String, f64>>,
            pub week: Option<BTreeMap<String, f64>>,
            #[json(keys = "")]
            pub additional_properties: BTreeMap<String, i64>,
            #[json(flatten)]
            pub unknown_fields: crate::JsonMap,
            #[json(skip)]
            pub mismatches: Vec<crate::Mismatch>,
            #[json(skip)]
            pub breaches: Vec<crate::Breach>,
        }
    }

    /// `n` as serde_json hands it over with `arbitrary_precision` on.
    fn map(n: &str) -> serde_json::Value {
        json!({ super::NUMBER_TOKEN: n })
    }

    #[test]
    fn numbers_sent_as_maps_decode_as_the_numbers_they_are() {
        // Every typed place a number can be, some in types that take it and some that do not:
        // the record must be the same, mismatches, breaches and kept values included.
        let plain = json!({
            "price": 12.5, "count": 40, "label": 7,
            "flag": 1, "scores": [1, 2.5, -3], "detail": 4, "amount": 9.5,
            "other": {"value": 2}, "loose": 5, "retries": 3, "per_day": {"mon": 1.5}, "week": 6,
        });
        let mapped = json!({
            "price": map("12.5"), "count": map("40"), "label": map("7"), "flag": map("1"), "scores": [map("1"), map("2.5"), map("-3")],
            "detail": map("4"), "amount": map("9.5"), "other": {"value": map("2")},
            "loose": map("5"), "retries": map("3"), "per_day": {"mon": map("1.5")},
            "week": map("6"),
        });
        let want: Sample = serde_json::from_value(plain).unwrap();
        let got: Sample = serde_json::from_value(mapped).unwrap();
        assert_eq!(got, want);
        // What the record holds, so the equality above is not of two empty records.
        assert_eq!((got.price, got.count), (Some(12.5), Some(40)));
        assert_eq!(got.label.as_deref(), Some("7"));
        assert_eq!(got.scores, Some(vec![1.0, 2.5, -3.0]));
        assert_eq!(got.amount, Some(Amount::Number(9.5)));
        let Some(Amount::Detail(detail)) = &got.other else {
            panic!("{:?}", got.other)
        };
        assert_eq!(detail.value, Some(2.0));
        assert_eq!(got.additional_properties["retries"], 3);
        assert_eq!(got.unknown_fields["detail"], json!(4));
        assert_eq!(got.unknown_fields["loose"], json!(5));
        // In the order the input lists them, which `json!` sorts unless `preserve_order` is on.
        let mut paths: Vec<&str> = got.mismatches().iter().map(|m| m.path.as_str()).collect();
        paths.sort_unstable();
        assert_eq!(paths, ["detail", "flag", "label", "loose", "week"]);
        assert_eq!(got.per_day, Some(BTreeMap::from([("mon".into(), 1.5)])));
        let breaches: Vec<&str> = got.breaches().iter().map(|b| b.keyword.as_str()).collect();
        assert_eq!(breaches, ["maximum"], "count 40 > 10");
    }

    #[test]
    fn a_record_sent_as_a_number_is_a_mismatch_not_a_record_with_an_odd_key() {
        let plain: Sample = serde_json::from_value(json!({"detail": 4})).unwrap();
        let mapped: Sample = serde_json::from_value(json!({"detail": map("4")})).unwrap();
        assert_eq!(mapped, plain);
        assert_eq!(mapped.detail, None);
    }

    #[test]
    fn an_object_with_the_token_among_other_keys_stays_an_object() {
        let other = json!({super::NUMBER_TOKEN: "4", "also": 1});
        let got: Sample = serde_json::from_value(json!({"loose": other.clone()})).unwrap();
        assert_eq!(got.loose.map(serde_json::Value::Object), Some(other));
        let text = json!({super::NUMBER_TOKEN: "not a number"});
        let got: Sample = serde_json::from_value(json!({"loose": text.clone()})).unwrap();
        assert_eq!(got.loose.map(serde_json::Value::Object), Some(text));
    }
}
