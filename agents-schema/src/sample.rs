//! Deterministic sample data that conforms to an output schema: every declared field set, the
//! same value for the same (schema, seed). The emulator serves it, tests and benchmarks use it as
//! a "full run result".

use indexmap::IndexMap;
use serde_json::{Map, Number, Value, json};

use crate::FieldSchema;

/// How many items each sampled array has.
pub const ARRAY_LEN: usize = 3;

/// A record with every field of `schema` set, deterministic in `seed`, arrays of [`ARRAY_LEN`].
pub fn record(schema: &IndexMap<String, FieldSchema>, seed: u64) -> Value {
    record_with_arrays(schema, seed, ARRAY_LEN)
}

/// [`record`] with `array_len` items in every array (a longer page: more images, reviews,
/// related products).
pub fn record_with_arrays(
    schema: &IndexMap<String, FieldSchema>,
    seed: u64,
    array_len: usize,
) -> Value {
    let mut out = Map::with_capacity(schema.len());
    for (name, field) in schema {
        out.insert(
            name.clone(),
            value_with_arrays(name, field, mix(seed, name), array_len),
        );
    }
    Value::Object(out)
}

/// A value for one field named `name`, deterministic in `seed`.
pub fn value(name: &str, field: &FieldSchema, seed: u64) -> Value {
    value_with_arrays(name, field, seed, ARRAY_LEN)
}

fn value_with_arrays(name: &str, field: &FieldSchema, seed: u64, array_len: usize) -> Value {
    let ty = field.ty.as_ref().and_then(|t| t.single());
    let ty = ty.or(if field.properties.is_some() {
        Some("object")
    } else if field.items.is_some() {
        Some("array")
    } else {
        None
    });
    match ty {
        Some("number") => number(field, seed),
        Some("integer") => {
            let (lo, hi) = bounds(field, 0.0, 1000.0);
            json!((lo.ceil() as i64) + (seed % ((hi - lo).floor().max(1.0) as u64)) as i64)
        }
        Some("boolean") => Value::Bool(seed.is_multiple_of(2)),
        Some("array") => Value::Array(
            (0..array_len as u64)
                .map(|i| match &field.items {
                    Some(items) => {
                        value_with_arrays(name, items, mix(seed, &i.to_string()), array_len)
                    }
                    None => text(name, mix(seed, &i.to_string())),
                })
                .collect(),
        ),
        Some("object") => match &field.properties {
            Some(props) => record_with_arrays(props, seed, array_len),
            None => json!({ "key": text(name, seed), "other_key": text("other", seed) }),
        },
        _ if field.format.as_deref() == Some("uri") => uri(name, seed),
        Some("string") => text(name, seed),
        _ => text(name, seed),
    }
}

fn bounds(field: &FieldSchema, lo: f64, hi: f64) -> (f64, f64) {
    let lo = field.minimum.unwrap_or(lo);
    let hi = field.maximum.unwrap_or(hi.max(lo + 1.0));
    (lo, hi.max(lo))
}

fn number(field: &FieldSchema, seed: u64) -> Value {
    let (lo, hi) = bounds(field, 0.0, 2000.0);
    let step = (seed % 10_000) as f64 / 10_000.0;
    let v = ((lo + (hi - lo) * step) * 100.0).round() / 100.0;
    Number::from_f64(v).map_or(Value::Null, Value::Number)
}

fn uri(name: &str, seed: u64) -> Value {
    Value::String(format!("https://example.com/{}/{seed:x}", slug(name)))
}

const WORDS: [&str; 16] = [
    "durable",
    "compact",
    "wireless",
    "premium",
    "classic",
    "organic",
    "portable",
    "quiet",
    "bright",
    "sturdy",
    "modern",
    "smart",
    "gentle",
    "rapid",
    "natural",
    "essential",
];

fn text(name: &str, seed: u64) -> Value {
    let mut s = String::with_capacity(64);
    s.push_str(&name.replace('_', " "));
    let mut x = seed;
    for _ in 0..4 {
        s.push(' ');
        s.push_str(WORDS[(x % WORDS.len() as u64) as usize]);
        x = splitmix(x);
    }
    Value::String(s)
}

fn slug(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// Mixes a name into a seed (FNV-1a over the name, then splitmix64).
pub fn mix(seed: u64, name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    splitmix(h)
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AgentRecord;

    #[test]
    fn samples_are_deterministic_and_respect_bounds() {
        let rec = AgentRecord::from_json(
            r#"{"name":"a","output_schema":{
                "avg":{"type":"number","minimum":0,"maximum":5},
                "tags":{"type":"array","items":{"type":"string"}},
                "obj":{"type":"object","properties":{"x":{"type":"boolean"}}},
                "img":{"type":"string","format":"uri"}}}"#,
        )
        .unwrap();
        let schema = rec.output_schema.unwrap();
        let a = record(&schema, 7);
        assert_eq!(a, record(&schema, 7));
        assert_ne!(a, record(&schema, 8));
        for seed in 0..200 {
            let avg = record(&schema, seed)["avg"].as_f64().unwrap();
            assert!((0.0..=5.0).contains(&avg), "{avg}");
        }
        assert_eq!(a["tags"].as_array().unwrap().len(), ARRAY_LEN);
        assert!(a["obj"]["x"].is_boolean());
        assert!(
            a["img"]
                .as_str()
                .unwrap()
                .starts_with("https://example.com/img/")
        );
    }

    #[test]
    fn longer_arrays_reach_nested_arrays_and_keep_the_first_items_alike() {
        let rec = AgentRecord::from_json(
            r#"{"name":"a","output_schema":{
                "reviews":{"type":"array","items":{"type":"object","properties":{
                    "photos":{"type":"array","items":{"type":"string"}}}}}}}"#,
        )
        .unwrap();
        let schema = rec.output_schema.unwrap();
        let long = record_with_arrays(&schema, 3, 11);
        let reviews = long["reviews"].as_array().unwrap();
        assert_eq!(reviews.len(), 11);
        assert_eq!(reviews[10]["photos"].as_array().unwrap().len(), 11);
        // Items are seeded by position: the short record is a prefix of the long one.
        let short = record(&schema, 3);
        assert_eq!(short["reviews"][2]["photos"][2], reviews[2]["photos"][2]);
        assert_eq!(short["reviews"].as_array().unwrap().len(), ARRAY_LEN);
    }
}
