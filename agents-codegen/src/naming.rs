//! Where a JSON name becomes a Rust name. Every identifier the generator emits comes from here.
//!
//! The scheme:
//!
//! * **Fields and modules** are `snake_case` of the JSON name (`productURL` → `product_url`,
//!   `UNSPSC` → `unspsc`). Characters other than ASCII letters and digits separate words; a
//!   non-ASCII letter is spelled as `u` and its hex code point (`café` → `caf_ue9`). A name that
//!   starts with a digit gets a leading underscore (`4_stars_and_above` → `_4_stars_and_above`).
//!   Keywords become raw identifiers (`r#type`, `r#match`), except those that cannot be raw
//!   (`self`, `Self`, `super`, `crate`), which get a trailing underscore. A name with no letters
//!   or digits at all becomes `field`.
//! * **Types** are `UpperCamelCase`: the agent name for its output record (`retailer_a_pdp` →
//!   `RetailerAPdp`), plus `Params` for its parameters; a nested object is its parent's name plus
//!   the field's (`RetailerAPdpFrequentlyBoughtWith`), and the items of an array of objects add
//!   `Item` (`RetailerAPdpTopReviewsItem`). Names of the prelude that generated code uses
//!   (`Option`, `String`, `Vec`, …) are never taken.
//! * **Collisions** are resolved, never left to rustc: within one [`Namespace`] (the fields of one
//!   struct, the types of one agent) the first claimant keeps the name and each later one gets the
//!   smallest free numeric suffix (`product_url`, `product_url_2`; `FooParams`, `FooParams2`).
//!   Claims happen in a fixed order (root and params types before nested types; fields in schema
//!   order), so the result is deterministic. Two agents never share a namespace: a clash between
//!   them is a diagnostic with a rename (`ir/lower.rs`).
//!
//! A field whose Rust name differs from its JSON name carries that JSON name beside it
//! (`#[json(rename = "…")]` inside the runtime's `record!`).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Span};

/// Keywords that can be written as raw identifiers (`r#type`).
const RAW_KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers.
const NON_RAW_KEYWORDS: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Type names generated code refers to unqualified, so no generated type may take them.
pub const RESERVED_TYPES: &[&str] = &[
    "Option",
    "Some",
    "None",
    "String",
    "Vec",
    "Result",
    "Ok",
    "Err",
    "Box",
    "Default",
    "Clone",
    "Debug",
    "PartialEq",
    "Eq",
    "Send",
    "Sync",
    "Sized",
    "Copy",
    "Into",
    "From",
    "Iterator",
    "IntoIterator",
    "ToString",
    "ToOwned",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "AsRef",
    "AsMut",
    "Extend",
    "TryFrom",
    "TryInto",
    "Unpin",
    "Self",
];

/// Field names every generated output record uses for its own bookkeeping.
pub const RECORD_FIELDS: &[&str] = &["unknown_fields", "mismatches", "breaches"];

/// Field (and setter) names every generated params type uses for its own members.
pub const PARAMS_MEMBERS: &[&str] = &["new", "validate", "param", "extra", "uses_localization"];

/// Splits a JSON name into ASCII word material: letters and digits kept, a non-ASCII letter or
/// digit spelled `_u{hex}_`, everything else a word break.
fn asciify(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if c.is_alphanumeric() {
            let _ = write!(out, "_u{:x}_", u32::from(c));
        } else {
            out.push('_');
        }
    }
    out
}

/// The snake_case base name for a field or module, before collision resolution.
pub fn field_base(json: &str) -> String {
    // Most JSON names are already snake_case, which heck would return unchanged: skip its
    // word splitting for those (a tested shortcut, not a second naming rule).
    let mut s = if is_plain_snake(json) {
        json.to_owned()
    } else {
        asciify(json).to_snake_case()
    };
    // A name of digits alone would be an identifier of underscores and digits (`_0`), which
    // rustc accepts and clippy rejects as a binding name in the generated setters.
    if !s.bytes().any(|b| b.is_ascii_alphabetic()) {
        let digits = s.trim_matches('_');
        s = if digits.is_empty() {
            "field".to_owned()
        } else {
            format!("field_{digits}")
        };
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if NON_RAW_KEYWORDS.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// Lowercase ASCII words of letters and digits joined by single underscores.
fn is_plain_snake(json: &str) -> bool {
    !json.is_empty()
        && json.split('_').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// The UpperCamelCase base name for a type made of `parts`, before collision resolution.
pub fn type_base(parts: &[&str]) -> String {
    let mut s = String::new();
    for part in parts {
        s.push_str(&asciify(part).to_upper_camel_case());
    }
    if s.is_empty() {
        s = "Record".to_owned();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// The base name of an enum variant for the listed value `value` (`in-stock` → `InStock`, the
/// empty string → `Empty`), before collision resolution.
pub fn variant_base(value: &str) -> String {
    let s = type_base(&[value]);
    if s == "Record" && asciify(value).is_empty() {
        "Empty".to_owned()
    } else {
        s
    }
}

/// The base name of a type nested in `parent` (already a type name, kept as it is), made of
/// `parts` (`RetailerAPdp` + `top_reviews`, `Item` → `RetailerAPdpTopReviewsItem`).
pub fn nested_type_base(parent: &str, parts: &[&str]) -> String {
    let mut s = parent.to_owned();
    for part in parts {
        s.push_str(&asciify(part).to_upper_camel_case());
    }
    s
}

/// Whether `name` can be a generated type's name as it is (a rename): UpperCamelCase ASCII
/// letters and digits, not a name the generated code or the prelude uses.
pub fn is_type_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
        && name.bytes().all(|b| b.is_ascii_alphanumeric())
        && type_base(&[name]) == name
        && !RESERVED_TYPES.contains(&name)
        && name != "Self"
}

/// A set of names in which every claim gets a distinct identifier.
#[derive(Debug, Clone)]
pub struct Namespace {
    taken: BTreeSet<String>,
    separator: &'static str,
}

impl Namespace {
    /// A namespace of snake_case names (fields, modules) in which `reserved` are taken.
    pub fn values(reserved: &[&str]) -> Self {
        Namespace {
            taken: reserved.iter().map(|s| (*s).to_owned()).collect(),
            separator: "_",
        }
    }

    /// A namespace of UpperCamelCase type names in which `reserved` are taken.
    pub fn types(reserved: &[&str]) -> Self {
        Namespace {
            taken: reserved.iter().map(|s| (*s).to_owned()).collect(),
            separator: "",
        }
    }

    /// Whether `name` is not claimed yet.
    pub fn is_free(&self, name: &str) -> bool {
        !self.taken.contains(name)
    }

    /// Claims `base`, or `base` with the smallest free numeric suffix (`_2` for snake_case
    /// names, `2` for type names).
    pub fn claim(&mut self, base: &str) -> String {
        if self.taken.insert(base.to_owned()) {
            return base.to_owned();
        }
        let sep = if base.ends_with('_') {
            ""
        } else {
            self.separator
        };
        let mut n = 2u64;
        loop {
            let candidate = format!("{base}{sep}{n}");
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }
}

/// Whether [`ident`] makes `name` a raw identifier (`r#type`).
pub fn is_raw(name: &str) -> bool {
    RAW_KEYWORDS.contains(&name)
}

/// The identifier for a name produced by this module: raw where it is a keyword.
pub fn ident(name: &str) -> Ident {
    if is_raw(name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

/// `name` as it reads in source, raw prefix included (`r#type`).
pub fn display(name: &str) -> std::borrow::Cow<'_, str> {
    if is_raw(name) {
        format!("r#{name}").into()
    } else {
        name.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn the_snake_case_shortcut_agrees_with_heck(json in "[a-z0-9]{1,6}(_[a-z0-9]{1,6}){0,4}") {
            proptest::prop_assert!(is_plain_snake(&json));
            proptest::prop_assert_eq!(json.clone(), asciify(&json).to_snake_case());
        }
    }

    #[test]
    fn the_snake_case_shortcut_leaves_other_names_to_heck() {
        for json in ["", "_a", "a_", "a__b", "productURL", "a-b", "a b", "é"] {
            assert!(!is_plain_snake(json), "{json:?}");
        }
    }

    #[test]
    fn fields() {
        let cases = [
            ("product_title", "product_title"),
            ("productURL", "product_url"),
            ("UNSPSC", "unspsc"),
            ("UPC", "upc"),
            ("4_stars_and_above", "_4_stars_and_above"),
            ("5_star", "_5_star"),
            ("type", "type"),
            ("self", "self_"),
            ("Self", "self_"),
            ("crate", "crate_"),
            ("super", "super_"),
            ("", "field"),
            ("%", "field"),
            ("_", "field"),
            ("0", "field_0"),
            ("1_2", "field_1_2"),
            ("__7", "field_7"),
            ("price ($)", "price"),
            ("café", "caf_ue9"),
            ("日本", "u65e5_u672c"),
            ("a-b.c d", "a_b_c_d"),
        ];
        for (json, want) in cases {
            assert_eq!(field_base(json), want, "{json:?}");
        }
    }

    #[test]
    fn types() {
        assert_eq!(type_base(&["retailer_a_pdp"]), "RetailerAPdp");
        assert_eq!(
            type_base(&["retailer_a_pdp", "Params"]),
            "RetailerAPdpParams"
        );
        assert_eq!(type_base(&["4chan_thread"]), "_4chanThread");
        assert_eq!(type_base(&["type"]), "Type");
        assert_eq!(type_base(&[""]), "Record");
        assert_eq!(nested_type_base("DeepL1L2Item", &["l3"]), "DeepL1L2ItemL3");
        assert_eq!(
            nested_type_base("_4chanThread", &["posts", "Item"]),
            "_4chanThreadPostsItem"
        );
    }

    #[test]
    fn collisions_get_the_smallest_free_suffix() {
        let mut ns = Namespace::values(RECORD_FIELDS);
        assert_eq!(ns.claim("product_url"), "product_url");
        assert_eq!(ns.claim("product_url"), "product_url_2");
        assert_eq!(ns.claim("product_url"), "product_url_3");
        assert_eq!(ns.claim("mismatches"), "mismatches_2");
        assert_eq!(ns.claim("self_"), "self_");
        assert_eq!(ns.claim("self_"), "self_2");
        let mut types = Namespace::types(RESERVED_TYPES);
        assert_eq!(types.claim("Option"), "Option2");
        assert_eq!(types.claim("FooParams"), "FooParams");
        assert_eq!(types.claim("FooParams"), "FooParams2");
        assert_eq!(types.claim("_4chan"), "_4chan");
        assert_eq!(types.claim("_4chan"), "_4chan2");
    }

    #[test]
    fn idents_are_valid() {
        for name in ["type", "match", "gen", "async", "_4_star", "self_", "field"] {
            let _ = ident(name);
        }
        assert_eq!(display("type"), "r#type");
    }
}
