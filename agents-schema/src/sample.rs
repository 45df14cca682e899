//! Deterministic sample data that conforms to an output schema: every declared field set, the
//! same value for the same (schema, seed). The emulator serves it, tests and benchmarks use it as
//! a "full run result".
//!
//! Values look like a page's: a field's own `enum`, `const` or `examples` are used when the
//! schema gives them; numbers stay inside `minimum`/`maximum`, and where the schema gives no
//! bounds a field's name decides a plausible range (ratings 1–5, prices, percentages, counts as
//! whole numbers); brands, categories and other labels come from a small vocabulary, so they
//! repeat across records and grouping by them means something.

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
        // A property no value may have (`false`) is left out.
        if field.is_never() {
            continue;
        }
        out.insert(
            name.clone(),
            value_with_arrays(name, field, mix(seed, name), array_len),
        );
    }
    Value::Object(out)
}

/// A value for a whole JSON Schema document, deterministic in `seed`: local references
/// (`$ref` to `#/$defs/…` and any other pointer inside `doc`) are followed, `allOf` branches
/// merged, and a recursive reference stops after a few levels (an optional field left out, an
/// array left empty) or once [`MAX_REFS_FOLLOWED`] references have been followed, whichever
/// comes first: the size of a sample grows with the document, never with the number of paths
/// through it (16 properties that each refer back to the root would otherwise make 16⁴ objects).
pub fn document(doc: &FieldSchema, seed: u64) -> Value {
    let mut budget = MAX_REFS_FOLLOWED;
    value("answer", &inline(doc, doc, 0, &mut budget), seed)
}

/// How deep references are followed before a recursive one stops.
const MAX_REF_DEPTH: usize = 4;

/// How many references one sample follows in all.
pub const MAX_REFS_FOLLOWED: usize = 256;

/// `schema` with its references replaced by what they point to in `root`, and `allOf` merged.
fn inline(
    schema: &FieldSchema,
    root: &FieldSchema,
    depth: usize,
    budget: &mut usize,
) -> FieldSchema {
    let target = match schema.reference.as_deref().and_then(|r| root.resolve(r)) {
        Some(_) if depth >= MAX_REF_DEPTH || *budget == 0 => return FieldSchema::default(),
        Some(t) => {
            *budget -= 1;
            return inline(t, root, depth + 1, budget);
        }
        None => schema,
    };
    let mut out = target.clone();
    let each = |list: &Option<Vec<FieldSchema>>, budget: &mut usize| {
        list.as_ref().map(|l| {
            l.iter()
                .map(|s| inline(s, root, depth, budget))
                .collect::<Vec<_>>()
        })
    };
    out.any_of = each(&target.any_of, budget);
    out.one_of = each(&target.one_of, budget);
    // Whether a reference here is cut, decided before following it spends the budget.
    let cut = |s: &FieldSchema, budget: &usize| {
        s.reference.is_some() && (depth >= MAX_REF_DEPTH || *budget == 0)
    };
    let items_cut = target.items.as_deref().is_some_and(|i| cut(i, budget));
    out.items = target
        .items
        .as_ref()
        .map(|i| Box::new(inline(i, root, depth, budget)));
    if items_cut {
        // A recursive list stops empty.
        out.max_items = Some(0);
    }
    // A map's values follow `additionalProperties`; a recursive one stops empty.
    out.additional_properties = match target.additional_properties.as_deref() {
        Some(a) if cut(a, budget) => Some(Box::new(FieldSchema::never())),
        Some(a) => Some(Box::new(inline(a, root, depth, budget))),
        None => None,
    };
    out.properties = target.properties.as_ref().map(|props| {
        props
            .iter()
            .filter_map(|(k, v)| {
                // A recursive optional field is left out rather than sampled as nothing.
                let cut = cut(v, budget);
                let field = inline(v, root, depth, budget);
                let required = target.required.as_ref().is_some_and(|r| r.contains(k));
                (!cut || required).then(|| (k.clone(), field))
            })
            .collect()
    });
    if let Some(branches) = each(&target.all_of, budget) {
        out.all_of = None;
        for b in branches {
            if out.ty.is_none() {
                out.ty = b.ty.clone();
            }
            if let Some(p) = b.properties {
                out.properties.get_or_insert_with(IndexMap::new).extend(p);
            }
            if out.items.is_none() {
                out.items = b.items;
            }
        }
    }
    out
}

/// A value for one field named `name`, deterministic in `seed`.
pub fn value(name: &str, field: &FieldSchema, seed: u64) -> Value {
    value_with_arrays(name, field, seed, ARRAY_LEN)
}

fn value_with_arrays(name: &str, field: &FieldSchema, seed: u64, array_len: usize) -> Value {
    if let Some(given) = given(field, seed) {
        return given;
    }
    // A union samples its first branch that is not `null`.
    let branch = [&field.any_of, &field.one_of]
        .into_iter()
        .flatten()
        .flatten()
        .find(|b| b.ty.as_ref().and_then(|t| t.single()) != Some("null") || b.ty.is_none());
    if field.ty.is_none()
        && let Some(branch) = branch
    {
        return value_with_arrays(name, branch, seed, array_len);
    }
    let ty = field.ty.as_ref().and_then(|t| t.single());
    let ty = ty.or(if field.properties.is_some() {
        Some("object")
    } else if field.items.is_some() {
        Some("array")
    } else {
        None
    });
    match ty {
        Some("number") => number(name, field, seed),
        Some("integer") => integer(name, field, seed),
        Some("boolean") => Value::Bool(seed.is_multiple_of(2)),
        Some("array") => Value::Array(
            (0..field
                .max_items
                .map_or(array_len as u64, |m| m.min(array_len as u64)))
                .map(|i| match &field.items {
                    Some(items) => {
                        value_with_arrays(name, items, mix(seed, &i.to_string()), array_len)
                    }
                    None => text(name, mix(seed, &i.to_string())),
                })
                .collect(),
        ),
        Some("object") => match (&field.properties, &field.additional_properties) {
            (Some(props), _) => record_with_arrays(props, seed, array_len),
            // A map: its values follow `additionalProperties`.
            (None, Some(values)) if !values.is_never() => {
                let mut map = Map::new();
                for key in ["key", "other_key"] {
                    let v = value_with_arrays(key, values, mix(seed, key), array_len);
                    map.insert(key.to_owned(), v);
                }
                Value::Object(map)
            }
            (None, Some(_)) => json!({}),
            (None, None) => json!({ "key": text(name, seed), "other_key": text("other", seed) }),
        },
        _ => field
            .format
            .as_deref()
            .and_then(|f| formatted(f, name, seed))
            .or_else(|| label(name, seed))
            .unwrap_or_else(|| text(name, seed)),
    }
}

/// A value the schema itself offers: one of `enum`, the `const`, or one of `examples`.
fn given(field: &FieldSchema, seed: u64) -> Option<Value> {
    if let Some(c) = &field.const_value {
        return Some(c.clone());
    }
    [&field.enum_values, &field.examples]
        .iter()
        .find_map(|list| {
            let list = list.as_ref()?;
            let pick = list.get((seed % list.len().max(1) as u64) as usize)?;
            (!pick.is_null()).then(|| pick.clone())
        })
}

/// What a number field holds, judged by its name when the schema gives no bounds.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Rating,
    Price,
    Percent,
    Count,
    Other,
}

impl Kind {
    fn of(name: &str) -> Kind {
        let n = name.to_ascii_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| n.contains(w));
        if has(&[
            "count",
            "number_of",
            "num_",
            "quantity",
            "total_",
            "_total",
            "votes",
        ]) {
            Kind::Count
        } else if has(&["rating", "stars", "average_of_reviews", "score"]) {
            Kind::Rating
        } else if has(&["percent", "discount", "pct"]) {
            Kind::Percent
        } else if has(&["price", "cost", "amount", "fee", "msrp"]) {
            Kind::Price
        } else {
            Kind::Other
        }
    }

    /// The range of values when the schema states none.
    fn range(self) -> (f64, f64) {
        match self {
            Kind::Rating => (1.0, 5.0),
            Kind::Price => (2.0, 400.0),
            Kind::Percent => (0.0, 90.0),
            Kind::Count => (0.0, 5_000.0),
            Kind::Other => (0.0, 1_000.0),
        }
    }
}

fn bounds(name: &str, field: &FieldSchema) -> (f64, f64) {
    let (lo, hi) = Kind::of(name).range();
    let lo = field.minimum.unwrap_or(lo);
    let hi = field.maximum.unwrap_or(hi.max(lo + 1.0));
    // Exclusive bounds: a hundredth of the range inside them.
    let (lo, hi) = match (field.exclusive_minimum, field.exclusive_maximum) {
        (None, None) => (lo, hi),
        (x_lo, x_hi) => {
            let lo = x_lo.map_or(lo, |x| lo.max(x));
            let hi = x_hi.map_or(hi, |x| hi.min(x));
            let step = ((hi - lo).abs() / 100.0).max(f64::EPSILON);
            (
                if x_lo.is_some_and(|x| lo <= x) {
                    lo + step
                } else {
                    lo
                },
                if x_hi.is_some_and(|x| hi >= x) {
                    hi - step
                } else {
                    hi
                },
            )
        }
    };
    (lo, hi.max(lo))
}

fn number(name: &str, field: &FieldSchema, seed: u64) -> Value {
    let (lo, hi) = bounds(name, field);
    let step = (seed % 10_000) as f64 / 10_000.0;
    // Counts are whole, ratings have one decimal, everything else cents.
    let scale = match Kind::of(name) {
        Kind::Count => 1.0,
        Kind::Rating => 10.0,
        _ => 100.0,
    };
    let v = (((lo + (hi - lo) * step) * scale).round() / scale).clamp(lo, hi);
    let v = match field.multiple_of.filter(|m| *m > 0.0) {
        // The multiple nearest inside the bounds.
        Some(m) => {
            let k = (v / m).round();
            let k = if k * m > hi {
                k - 1.0
            } else if k * m < lo {
                k + 1.0
            } else {
                k
            };
            k * m
        }
        None => v,
    };
    Number::from_f64(v).map_or(Value::Null, Value::Number)
}

fn integer(name: &str, field: &FieldSchema, seed: u64) -> Value {
    let (lo, hi) = bounds(name, field);
    let (lo, hi) = (lo.ceil() as i64, hi.floor() as i64);
    let span = (hi - lo).max(0) as u64 + 1;
    let v = lo + (seed % span) as i64;
    match field.multiple_of.filter(|m| *m >= 1.0 && m.fract() == 0.0) {
        Some(m) => {
            let m = m as i64;
            let up = v + (m - v.rem_euclid(m)) % m;
            json!(if up > hi { up - m } else { up })
        }
        None => json!(v),
    }
}

/// Labels that repeat across records: a small vocabulary for fields that name a brand, a
/// category, a seller and the like (`brand`, `product_brand`, `category_1_name`, not
/// `brand_logo` or `category_rank`), picked by seed.
fn label(name: &str, seed: u64) -> Option<Value> {
    const VOCABULARIES: [(&[&str], &[&str]); 7] = [
        (
            &["brand", "manufacturer"],
            &[
                "Acme", "Globex", "Initech", "Umbrella", "Soylent", "Hooli", "Vandelay", "Stark",
            ],
        ),
        (
            &["category", "department", "vertical"],
            &[
                "Electronics",
                "Home & Kitchen",
                "Toys",
                "Sports",
                "Beauty",
                "Books",
            ],
        ),
        (
            &["seller", "sold_by", "merchant", "store"],
            &[
                "Main Street Goods",
                "Northwind",
                "Blue Harbor",
                "City Outlet",
                "Riverside",
            ],
        ),
        (
            &["color", "colour"],
            &["Black", "White", "Silver", "Blue", "Red"],
        ),
        (&["currency"], &["USD", "EUR", "GBP"]),
        (
            &["availability", "stock_status"],
            &["In Stock", "Only a few left", "Out of Stock"],
        ),
        (&["country"], &["US", "GB", "DE", "FR", "JP"]),
    ];
    let n = name.to_ascii_lowercase();
    // `best_sellers_category_1_name` names a category: drop `_name` and a trailing number.
    let n = n.strip_suffix("_name").unwrap_or(&n);
    let n = n.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_');
    let (_, words) = VOCABULARIES.iter().find(|(keys, _)| {
        keys.iter()
            .any(|k| n == *k || n.ends_with(&format!("_{k}")))
    })?;
    Some(Value::String(
        words[(seed % words.len() as u64) as usize].to_owned(),
    ))
}

/// A string in one of the formats JSON Schema names, shaped as the format says (a `date-time`
/// holds a time, not words); `None` for a format it does not name.
fn formatted(format: &str, name: &str, seed: u64) -> Option<Value> {
    let day = 1 + seed % 28;
    let month = 1 + (seed >> 8) % 12;
    let year = 2020 + (seed >> 16) % 6;
    let (h, m, sec) = ((seed >> 20) % 24, (seed >> 28) % 60, (seed >> 34) % 60);
    let octet = |shift: u32| (seed >> shift) % 254 + 1;
    let slugged = slug(name);
    let label: String = slugged.trim_matches('-').chars().take(40).collect();
    let label = if label.is_empty() {
        "site"
    } else {
        label.trim_end_matches('-')
    };
    let text = match format {
        "uri" | "iri" | "uri-reference" | "iri-reference" | "uri-template" => {
            format!("https://example.com/{}/{seed:x}", slug(name))
        }
        "date-time" => format!("{year}-{month:02}-{day:02}T{h:02}:{m:02}:{sec:02}Z"),
        "date" => format!("{year}-{month:02}-{day:02}"),
        "time" => format!("{h:02}:{m:02}:{sec:02}Z"),
        "duration" => format!("PT{}H{}M", h + 1, m),
        "email" | "idn-email" => format!("{label}@example.com"),
        "hostname" | "idn-hostname" => format!("{label}.example.com"),
        "ipv4" => format!("192.0.2.{}", octet(0)),
        "ipv6" => format!("2001:db8::{:x}", seed & 0xffff),
        "uuid" => format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            seed >> 32,
            (seed >> 16) & 0xffff,
            seed & 0xfff,
            (seed >> 12) & 0xfff,
            splitmix(seed) & 0xffff_ffff_ffff
        ),
        "json-pointer" => format!("/{}", slug(name)),
        "relative-json-pointer" => "0".to_owned(),
        "regex" => "^[a-z]+$".to_owned(),
        _ => return None,
    };
    Some(Value::String(text))
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
    fn values_look_like_a_page() {
        let rec = AgentRecord::from_json(
            r#"{"name": "a", "output_schema": {
                "average_of_reviews": {"type": "number"},
                "number_of_reviews": {"type": "number"},
                "web_price": {"type": "number"},
                "brand": {"type": "string"},
                "size": {"type": "string", "enum": ["S", "M", "L"]},
                "material": {"type": "string", "examples": ["cotton", "wool"]},
                "weight": {"type": "number", "minimum": 2, "maximum": 3}
            }}"#,
        )
        .unwrap();
        let schema = rec.output_schema.unwrap();
        let records: Vec<Value> = (0..200).map(|i| record(&schema, i)).collect();
        let mut brands = std::collections::BTreeSet::new();
        for r in &records {
            let stars = r["average_of_reviews"].as_f64().unwrap();
            assert!((1.0..=5.0).contains(&stars), "{stars}");
            let count = r["number_of_reviews"].as_f64().unwrap();
            assert_eq!(count.fract(), 0.0, "a count is whole: {count}");
            assert!((2.0..=400.0).contains(&r["web_price"].as_f64().unwrap()));
            assert!(["S", "M", "L"].contains(&r["size"].as_str().unwrap()));
            assert!(["cotton", "wool"].contains(&r["material"].as_str().unwrap()));
            assert!((2.0..=3.0).contains(&r["weight"].as_f64().unwrap()));
            brands.insert(r["brand"].as_str().unwrap().to_owned());
        }
        assert!(brands.len() <= 8, "brands repeat: {brands:?}");
    }

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

    /// A stranger's schema whose every property refers back to the root: the sample grows with
    /// the document, not with the paths through it (it was 44 MB at 16 properties).
    #[test]
    fn a_schema_that_refers_back_everywhere_makes_a_bounded_sample() {
        for required in [false, true] {
            let names: Vec<String> = (0..16).map(|i| format!("p{i}")).collect();
            let properties: serde_json::Map<String, Value> = names
                .iter()
                .map(|n| (n.clone(), json!({"$ref": "#"})))
                .collect();
            let mut doc = json!({"type": "object", "properties": properties});
            if required {
                doc["required"] = json!(names);
            }
            let doc = FieldSchema::from_document(&doc).unwrap();
            let sample = document(&doc, 1);
            let size = sample.to_string().len();
            assert!(size < 1_000_000, "required: {required}: {size} bytes");
            assert!(sample["p0"].is_object(), "{required}");
        }
    }
}
