//! Deterministic sample data that conforms to an output schema: every declared field set, the
//! same value for the same (schema, seed). The emulator serves it, tests and benchmarks use it as
//! a "full run result".
//!
//! Values are made by [`agents_check::Schema::sample`], which honours every keyword; this module
//! says what they look like where the schema leaves them free ([`PageLike`]): a field's own
//! `examples` are used when the schema gives them; where the schema gives no bounds a number
//! field's name decides a plausible range (ratings 1–5, prices, percentages, counts as whole
//! numbers); brands, categories and other labels come from a small vocabulary, so they repeat
//! across records and grouping by them means something.

use indexmap::IndexMap;
use serde_json::Value;

use crate::FieldSchema;

pub use agents_check::ARRAY_LEN;

/// A record with every field of `schema` set, deterministic in `seed`, arrays of [`ARRAY_LEN`].
pub fn record(schema: &IndexMap<String, FieldSchema>, seed: u64) -> Value {
    record_with_arrays(schema, seed, ARRAY_LEN)
}

/// [`record`] with `array_len` items in every array whose schema does not bound it (a longer
/// page: more images, reviews, related products).
pub fn record_with_arrays(
    schema: &IndexMap<String, FieldSchema>,
    seed: u64,
    array_len: usize,
) -> Value {
    let doc = FieldSchema {
        ty: Some(crate::SchemaType::One("object".into())),
        properties: Some(schema.clone()),
        ..FieldSchema::default()
    };
    document_with_arrays(&doc, seed, array_len)
}

/// A value for a whole JSON Schema document (its references followed), deterministic in `seed`.
pub fn document(doc: &FieldSchema, seed: u64) -> Value {
    document_with_arrays(doc, seed, ARRAY_LEN)
}

fn document_with_arrays(doc: &FieldSchema, seed: u64, array_len: usize) -> Value {
    let json = serde_json::to_value(doc).unwrap_or(Value::Bool(true));
    json_document(&json, seed, array_len)
}

/// A value for a JSON Schema document as written, deterministic in `seed`.
pub fn json_document(doc: &Value, seed: u64, array_len: usize) -> Value {
    agents_check::Schema::compile(doc).sample(seed, &PageLike { array_len })
}

/// Values that look like a page's where the schema leaves them free.
#[derive(Debug, Clone, Copy)]
pub struct PageLike {
    /// Items in an array whose schema does not say how many.
    pub array_len: usize,
}

impl Default for PageLike {
    fn default() -> Self {
        PageLike {
            array_len: ARRAY_LEN,
        }
    }
}

impl agents_check::Leaves for PageLike {
    fn mix(&self, seed: u64, part: &str) -> u64 {
        mix(seed, part)
    }

    fn text(&self, name: &str, seed: u64) -> String {
        label(name, seed).unwrap_or_else(|| text(name, seed))
    }

    fn formatted(&self, format: &str, name: &str, seed: u64) -> Option<String> {
        formatted(format, name, seed)
    }

    fn range(&self, name: &str) -> (f64, f64, f64) {
        let kind = Kind::of(name);
        let (lo, hi) = kind.range();
        // Counts are whole, ratings have one decimal, everything else cents.
        let steps = match kind {
            Kind::Count => 1.0,
            Kind::Rating => 10.0,
            _ => 100.0,
        };
        (lo, hi, steps)
    }

    fn array_len(&self) -> usize {
        self.array_len
    }
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

/// Labels that repeat across records: a small vocabulary for fields that name a brand, a
/// category, a seller and the like (`brand`, `product_brand`, `category_1_name`, not
/// `brand_logo` or `category_rank`), picked by seed.
fn label(name: &str, seed: u64) -> Option<String> {
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
        keys.iter().any(|k| {
            n.strip_suffix(k)
                .is_some_and(|rest| rest.is_empty() || rest.ends_with('_'))
        })
    })?;
    Some(words[(seed % words.len() as u64) as usize].to_owned())
}

/// A string in one of the formats JSON Schema names, shaped as the format says (a `date-time`
/// holds a time, not words); `None` for a format it does not name.
fn formatted(format: &str, name: &str, seed: u64) -> Option<String> {
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
    Some(text)
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

fn text(name: &str, seed: u64) -> String {
    let mut s = String::with_capacity(64);
    s.push_str(&name.replace('_', " "));
    let mut x = seed;
    for _ in 0..4 {
        s.push(' ');
        s.push_str(WORDS[(x % WORDS.len() as u64) as usize]);
        x = splitmix(x);
    }
    s
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
    use serde_json::json;

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
