//! Drift-tolerant decoding of agent output in a single pass.
//!
//! Scraped data drifts from its schema: a price declared as a number arrives as `"$1,299.00"`, a
//! list arrives as one string, a field goes missing. Generated output types deserialize through
//! this module so that such drift never fails a record:
//!
//! * absent or `null` fields are `None`;
//! * a value of the wrong type is coerced when that is lossless and obvious (a numeric string for
//!   a number, `"true"` for a boolean, a number where text was declared), otherwise the field is
//!   left empty; either way a [`Mismatch`] with the JSON path, the expected type and the raw value
//!   is recorded on the root record;
//! * unknown keys are kept in the record's `unknown_fields`.
//!
//! Each declared type reads the JSON type it expects directly from the deserializer (a
//! [`Visitor`](serde::de::Visitor) per type, see [`Decode`]) and captures anything else as a [`serde_json::Value`]
//! through serde's `MapAccessDeserializer`/`SeqAccessDeserializer`: there is no intermediate
//! `Value` tree for well-formed data. [`strict`] turns any mismatch into an error instead.

use std::collections::HashSet;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{Deserializer, MapAccess, SeqAccess};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use agents_check::{Breach, Instance, Schema};
pub(crate) use agents_wire::json::NUMBER_TOKEN;

pub(crate) mod ctx;
mod mismatch;
pub(crate) mod number;
pub(crate) mod rest;
pub(crate) mod seed;

use ctx::Ctx;
pub use mismatch::{Expected, Mismatch, Outcome};

/// A type that output records are made of, decoded with drift tolerance.
///
/// Each method receives one JSON shape; the defaults reject it. Generated record types implement
/// [`Decode::from_map`]; the scalar, array, map and raw-JSON impls live here.
pub trait Decode: Sized {
    /// The declared JSON type, for mismatch reports.
    const EXPECTED: Expected;

    /// A JSON boolean.
    fn from_bool(_v: bool) -> Outcome<Self> {
        Outcome::Rejected
    }
    /// A JSON number that fits an i64.
    fn from_i64(_v: i64) -> Outcome<Self> {
        Outcome::Rejected
    }
    /// A JSON number that fits a u64.
    fn from_u64(_v: u64) -> Outcome<Self> {
        Outcome::Rejected
    }
    /// Any other JSON number.
    fn from_f64(_v: f64) -> Outcome<Self> {
        Outcome::Rejected
    }
    /// A JSON string, borrowed.
    fn from_str(_v: &str) -> Outcome<Self> {
        Outcome::Rejected
    }
    /// A JSON string, owned; `Err` gives it back when this type does not take strings as-is.
    fn take_string(v: String) -> Result<Self, String> {
        Err(v)
    }
    /// A JSON array.
    fn from_seq<'de, A: SeqAccess<'de>>(
        seq: A,
        ctx: Ctx<'_, '_>,
    ) -> Result<Option<Self>, A::Error> {
        ctx.reject_seq(Self::EXPECTED, seq)
    }
    /// A JSON object.
    fn from_map<'de, A: MapAccess<'de>>(
        map: A,
        ctx: Ctx<'_, '_>,
    ) -> Result<Option<Self>, A::Error> {
        ctx.reject_map(map)
    }
    /// A JSON `null` inside an array, where it cannot be represented (`Value` keeps it).
    fn from_null_item() -> Option<Self> {
        None
    }
}

/// What becomes of a value a type does not take as it was sent. Beside the trait because every
/// impl's default `from_map` goes through `reject_map`, which must first see whether the map is
/// a number in disguise: with serde_json's `arbitrary_precision` on (any crate in a program's
/// build may turn it on, and it is then on for every crate), serde_json hands each number to a
/// reader of any value, as every [`Seed`](seed::Seed) is, as the one-entry map
/// `{NUMBER_TOKEN: "its text"}`. Such a map decodes with the calls and mismatches a number read
/// as one gets, so a record decodes alike with the feature on or off.
impl Ctx<'_, '_> {
    /// Captures an object that `T` does not take and records it as a mismatch, unless it is a
    /// number serde_json handed over as a map (see [`from_number`]), which `T` is
    /// given as a number.
    pub fn reject_map<'de, A: MapAccess<'de>, T: Decode>(
        self,
        map: A,
    ) -> Result<Option<T>, A::Error> {
        let found = match Value::deserialize(MapAccessDeserializer::new(map))? {
            // serde_json's `Value` reads its token itself when `arbitrary_precision` is on.
            Value::Number(n) => return Ok(from_number::<T>(n, self)),
            Value::Object(mut object) => match number_in(&mut object) {
                Some(n) => return Ok(from_number::<T>(n, self)),
                None => Value::Object(object),
            },
            other => other,
        };
        Ok(self.reject_value::<T>(found))
    }

    /// Records `found`, which `T` does not take, as a mismatch: nothing is decoded.
    pub fn reject_value<T: Decode>(mut self, found: Value) -> Option<T> {
        self.record(T::EXPECTED, found, false);
        None
    }

    /// What a value that did not decode as itself leaves: the coerced value with its mismatch,
    /// or nothing with one. `raw` is the value as sent.
    pub fn settle<T: Decode>(mut self, outcome: Outcome<T>, raw: Value) -> Option<T> {
        match outcome {
            Outcome::Exact(v) => Some(v),
            Outcome::Coerced(v) => {
                self.record(T::EXPECTED, raw, true);
                Some(v)
            }
            Outcome::Rejected => {
                self.record(T::EXPECTED, raw, false);
                None
            }
        }
    }
}

/// The number an object stands for: serde_json's token as its only key, the number's text as
/// its value. Taken out of `object` when found. (Generated code reaches it as
/// `__private::decode`.)
#[doc(hidden)]
pub fn number_in(object: &mut Map<String, Value>) -> Option<serde_json::Number> {
    if object.len() != 1 {
        return None;
    }
    let number = object.get(NUMBER_TOKEN)?.as_str()?.parse().ok()?;
    object.clear();
    Some(number)
}

/// What `T` makes of a number that arrived as a map: what the seed makes of one read as a
/// number (`u64`, else `i64`, else `f64`, as serde_json visits them), with the same mismatch.
#[doc(hidden)]
pub fn from_number<T: Decode>(number: serde_json::Number, ctx: Ctx<'_, '_>) -> Option<T> {
    let outcome = if let Some(u) = number.as_u64() {
        T::from_u64(u)
    } else if let Some(i) = number.as_i64() {
        T::from_i64(i)
    } else if let Some(f) = number.as_f64() {
        T::from_f64(f)
    } else {
        Outcome::Rejected
    };
    ctx.settle(outcome, Value::Number(number))
}

/// A generated output record: an object with declared fields, unknown fields, mismatches and
/// breaches.
pub trait Record: Decode + Default + Instance {
    /// Keys the schema does not declare, kept as sent.
    fn unknown_fields(&self) -> &Map<String, Value>;
    /// The keys without a field of their own: the entries of the record's typed maps (keys
    /// its schema types by `patternProperties` or a typed `additionalProperties`), as JSON, and
    /// [`Record::unknown_fields`]. What a table writes in its `_unknown_fields` column.
    fn undeclared(&self) -> std::borrow::Cow<'_, Map<String, Value>> {
        std::borrow::Cow::Borrowed(self.unknown_fields())
    }
    /// Every value of this record (and the objects nested in it) that did not have its declared
    /// type, with its path. Empty for records nested inside another record: their mismatches are
    /// recorded on the root.
    fn mismatches(&self) -> &[Mismatch];
    /// Replaces the mismatch list (used by the decoder on the root record).
    fn set_mismatches(&mut self, mismatches: Vec<Mismatch>);
    /// Every rule of the schema that a value of this record breaks (a rating of 47 where the
    /// schema says `"maximum": 5`, a required field missing), with its path, keyword and
    /// value. A value already in [`Record::mismatches`] is not repeated here. Empty for
    /// records nested inside another record, and for records without a schema.
    fn breaches(&self) -> &[Breach];
    /// Replaces the breach list (used by the decoder on the root record).
    fn set_breaches(&mut self, breaches: Vec<Breach>);
    /// The JSON Schema this record was generated from, compiled on first use; `None` for
    /// records declared without one (objects nested in a record are checked by its root).
    fn schema() -> Option<&'static Schema> {
        None
    }
    /// The JSON Schema text of a root record, as the generator wrote it (the documents it
    /// refers to bundled under `$defs`): what [`Record::schema`] is compiled from, and what
    /// `Client::publish` sends as a template's `output_schema`.
    /// `None` for records without a schema.
    fn schema_text() -> Option<&'static str> {
        None
    }
}

/// The schema of the record `record`, compiled from its text on first use. The generator
/// wrote the text from a schema it had checked; a `record!` written by hand has had no such
/// check, so what the text's problems are (not JSON: nothing is checked; a key given twice; a
/// `type` no value has) is a warning naming the record, once per process, and stays in
/// [`Schema::problems`].
#[doc(hidden)]
pub fn compiled(
    cell: &'static std::sync::OnceLock<Schema>,
    text: &str,
    record: &'static str,
) -> &'static Schema {
    cell.get_or_init(|| {
        let schema = Schema::from_text(text);
        for problem in schema.problems() {
            tracing::warn!(record, "the schema of `{record}`: {problem}");
        }
        schema
    })
}

/// Checks a root record against its schema. The schema decides what a mismatch is: a value
/// left empty because its field's type cannot hold it, but that the schema allows (a schema
/// without `type` allows any kind), is kept in `unknown_fields` and is not a mismatch, unless
/// it is past the range of the field's Rust type ([`Mismatch::past_the_type`]); a breach that
/// a remaining mismatch already reports is not repeated.
///
/// An array item its type cannot hold is left out of the array, so the items after it moved:
/// the checks saw them at other positions. Its mismatch reports the array, the breaches inside
/// that array are not kept (their paths would name the wrong items), and no mismatch is
/// dropped as allowed.
pub(crate) fn check_record<T: Record>(record: &mut T) {
    let Some(schema) = T::schema() else {
        return;
    };
    let mut breaches = Vec::new();
    schema.check_generated_into(&*record, &mut breaches);
    let mismatches = record.mismatches();
    if mismatches.is_empty() {
        if !breaches.is_empty() {
            record.set_breaches(breaches);
        }
        return;
    }
    let moved: HashSet<&str> = mismatches
        .iter()
        .filter(|m| !m.coerced && !m.kept && m.path.ends_with(']'))
        .filter_map(|m| m.path.rfind('[').map(|cut| &m.path[..cut]))
        .collect();
    // Paths with a breach at or under them; then paths that cover a breach are looked up, each
    // in time of its own length, rather than every mismatch paired with every breach.
    let breached: HashSet<&str> = breaches.iter().flat_map(|b| covering(&b.path)).collect();
    let allowed = |m: &Mismatch| {
        moved.is_empty()
            && m.kept
            && m.past_the_type().is_none()
            && !breached.contains(m.path.as_str())
    };
    let kept: Vec<Mismatch> = mismatches.iter().filter(|m| !allowed(m)).cloned().collect();
    let reported: HashSet<&str> = kept.iter().map(|m| m.path.as_str()).collect();
    breaches.retain(|b| !covering(&b.path).any(|at| reported.contains(at) || moved.contains(at)));
    if kept.len() != record.mismatches().len() {
        record.set_mismatches(kept);
    }
    record.set_breaches(breaches);
}

/// Every path that covers `path`: the record (`""`), each parent (`a`, `a.b` of `a.b[2]`) and
/// `path` itself. The rule of the decoder's paths: `a.b` covers `a.b`, `a.b.c` and `a.b[2]`.
fn covering(path: &str) -> impl Iterator<Item = &str> {
    let parents = path
        .char_indices()
        .filter(|(i, c)| *i > 0 && (*c == '.' || *c == '['))
        .map(|(i, _)| &path[..i]);
    std::iter::once("")
        .chain(parents)
        .chain((!path.is_empty()).then_some(path))
}

/// `data.parsing` of a run result: one record (product pages) or a list of records (search and
/// category pages). Both deserialize; a list item that is not an object becomes an empty record
/// carrying the mismatch, so positions are kept and nothing is dropped silently.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Parsing<T> {
    /// A single record.
    One(T),
    /// A list of records.
    Many(Vec<T>),
}

impl<T> Parsing<T> {
    /// Every record, one or many.
    pub fn records(&self) -> &[T] {
        match self {
            Parsing::One(one) => std::slice::from_ref(one),
            Parsing::Many(many) => many,
        }
    }

    /// Every record, owned.
    pub fn into_records(self) -> Vec<T> {
        match self {
            Parsing::One(one) => vec![one],
            Parsing::Many(many) => many,
        }
    }

    /// The record when there is exactly one (a single record, or a list of one).
    pub fn single(&self) -> Option<&T> {
        match self.records() {
            [one] => Some(one),
            _ => None,
        }
    }
}

/// Raw runs: `data.parsing` kept as JSON, a list when the service sent one.
impl<'de> Deserialize<'de> for Parsing<Value> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Array(items) => Parsing::Many(items),
            other => Parsing::One(other),
        })
    }
}

/// Decodes JSON bytes (a saved result, a message from a queue) into `T`, as the client decodes
/// answers: UTF-8 is checked once for the whole input and serde_json then reads it as text,
/// rather than string by string as `serde_json::from_slice` checks it. Input that is not UTF-8
/// is refused, as JSON text must be UTF-8, with serde_json's error saying where the first bad
/// byte is — even inside a string that `T` would have skipped. A string cut between the halves
/// of a character (an unpaired UTF-16 surrogate escape such as `\ud83d`, which serde_json
/// refuses and JavaScript and Python read) holds U+FFFD in its place, and a warning
/// (`tracing`) names it, rather than the whole input being refused.
///
/// ```
/// use agents_runtime::catalog::RetailerAPdp;
///
/// let record: RetailerAPdp = agents_runtime::decode::from_slice(br#"{"web_price": "$5"}"#)?;
/// assert_eq!(record.web_price, Some(5.0));
/// assert!(agents_runtime::decode::from_slice::<RetailerAPdp>(b"{\"web_price\": \"\xff\"}").is_err());
/// let cut: RetailerAPdp = agents_runtime::decode::from_slice(br#"{"product_title": "Echo \ud83d"}"#)?;
/// assert_eq!(cut.product_title.as_deref(), Some("Echo \u{fffd}"));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn from_slice<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> serde_json::Result<T> {
    match std::str::from_utf8(bytes) {
        Ok(text) => agents_wire::json::repairing(text, |t| serde_json::from_str(t)),
        Err(e) => Err(agents_wire::json::not_utf8(bytes, &e)),
    }
}

/// A record decoded in strict mode had values of the wrong type, or broke its schema's rules.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", drift_message(.mismatches, .breaches))]
pub struct DriftError {
    /// Every mismatch of the record.
    pub mismatches: Vec<Mismatch>,
    /// Every rule of the schema the record breaks.
    pub breaches: Vec<Breach>,
}

fn drift_message(mismatches: &[Mismatch], breaches: &[Breach]) -> String {
    let mut parts = Vec::new();
    if let Some(first) = mismatches.first() {
        parts.push(format!(
            "{} value(s) did not have their declared type, first: {first}",
            mismatches.len()
        ));
    }
    if let Some(first) = breaches.first() {
        parts.push(format!(
            "{} breach(es) of the schema's rules, first: {first}",
            breaches.len()
        ));
    }
    parts.join("; ")
}

/// Strict mode: the record if every value had its declared type and every rule of the schema
/// holds, else every mismatch and breach.
pub fn strict<T: Record>(record: T) -> Result<T, DriftError> {
    if record.mismatches().is_empty() && record.breaches().is_empty() {
        Ok(record)
    } else {
        Err(DriftError {
            mismatches: record.mismatches().to_vec(),
            breaches: record.breaches().to_vec(),
        })
    }
}

// ---- scalar impls -------------------------------------------------------------------------

/// Parses a number written as text: plain (`"12.5"`, `" 7 "`), or a price with one currency
/// sign and comma thousands separators (`"$1,299.00"`, `"1,299 €"`). Anything else is `None`.
pub fn parse_numeric_text(s: &str) -> Option<f64> {
    numeric_text(s)?
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
}

/// The number `s` writes, as plain text (`"$1,299.00"` → `1299.00`), when it writes one.
fn numeric_text(s: &str) -> Option<std::borrow::Cow<'_, str>> {
    let t = s.trim();
    let t = t
        .strip_prefix(['$', '€', '£', '¥'])
        .or_else(|| t.strip_suffix(['$', '€', '£', '¥']))
        .map_or(t, str::trim);
    if t.is_empty() {
        return None;
    }
    let plain: std::borrow::Cow<'_, str> = if t.contains(',') {
        let (int, frac) = t.split_once('.').map_or((t, None), |(i, f)| (i, Some(f)));
        let int = int.strip_prefix('-').unwrap_or(int);
        let mut groups = int.split(',');
        let first = groups.next()?;
        let ok = (1..=3).contains(&first.len())
            && first.bytes().all(|b| b.is_ascii_digit())
            && groups.all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()));
        if !ok || frac.is_some_and(|f| f.contains(',')) {
            return None;
        }
        t.replace(',', "").into()
    } else {
        t.into()
    };
    let valid = plain
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    valid.then_some(plain)
}

impl Decode for String {
    const EXPECTED: Expected = Expected::String;
    #[inline]
    fn from_str(v: &str) -> Outcome<Self> {
        Outcome::Exact(v.to_owned())
    }
    #[inline]
    fn take_string(v: String) -> Result<Self, String> {
        Ok(v)
    }
    #[inline]
    fn from_bool(v: bool) -> Outcome<Self> {
        Outcome::Coerced(v.to_string())
    }
    #[inline]
    fn from_i64(v: i64) -> Outcome<Self> {
        Outcome::Coerced(v.to_string())
    }
    #[inline]
    fn from_u64(v: u64) -> Outcome<Self> {
        Outcome::Coerced(v.to_string())
    }
    #[inline]
    fn from_f64(v: f64) -> Outcome<Self> {
        Outcome::Coerced(v.to_string())
    }
}

/// An integer the service sent, as an `f64` when the double holds it exactly. Past 2^53 most
/// do not (`12345678901234567` would become `…568`, an ID another one): such a number is left
/// to the record's `unknown_fields`, as sent, with its mismatch, rather than changed.
#[inline]
fn exact_double(v: i128) -> Outcome<f64> {
    const EXACT: u128 = 1 << 53;
    let d = v as f64;
    // Every integer to 2^53 is a double; past it, `d as i128` (a library call, and saturating
    // only past i128, far beyond any i64 or u64) tells.
    if v.unsigned_abs() <= EXACT || d as i128 == v {
        Outcome::Exact(d)
    } else {
        Outcome::Rejected
    }
}

impl Decode for f64 {
    const EXPECTED: Expected = Expected::Number;
    #[inline]
    fn from_i64(v: i64) -> Outcome<Self> {
        exact_double(v.into())
    }
    #[inline]
    fn from_u64(v: u64) -> Outcome<Self> {
        exact_double(v.into())
    }
    #[inline]
    fn from_f64(v: f64) -> Outcome<Self> {
        Outcome::Exact(v)
    }
    /// Digits convert as an integer does (`"12345678901234567"` is refused, not rounded).
    #[inline]
    fn from_str(v: &str) -> Outcome<Self> {
        let Some(plain) = numeric_text(v) else {
            return Outcome::Rejected;
        };
        match plain.parse::<i128>() {
            Ok(whole) => match exact_double(whole) {
                Outcome::Exact(d) => Outcome::Coerced(d),
                other => other,
            },
            Err(_) => plain
                .parse::<f64>()
                .ok()
                .filter(|d| d.is_finite())
                .map_or(Outcome::Rejected, Outcome::Coerced),
        }
    }
}

/// `v` as an `i64` when it is a whole number in its range. `i64::MAX as f64` is 2^63, one past
/// the range, so the bound above is strict (`as` would turn 2^63 into `i64::MAX`).
fn whole(v: f64) -> Option<i64> {
    const BEYOND: f64 = 9_223_372_036_854_775_808.0;
    (v.fract() == 0.0 && (-BEYOND..BEYOND).contains(&v)).then_some(v as i64)
}

/// The integer text `s` writes (a price's sign and separators aside, as [`parse_numeric_text`]
/// reads them), converted without loss by [`integer_text`].
fn whole_text(s: &str) -> Option<i64> {
    integer_text(&numeric_text(s)?)
}

/// The whole number a plain decimal text writes, exactly, when it writes one within `i64`:
/// `"12"`, `"+12"`, `"12.000"`, `"1.2e3"`, `"1200e-2"` (JSON Schema's integers include `12.0`).
/// `None` for a fraction (`"12.5"`, `"4503599627370495.8"`, which a double would round to a
/// whole number), for anything past `i64`, and for text that is not a number. Read digit by
/// digit, never through a double.
///
/// ```
/// use agents_runtime::decode::integer_text;
///
/// assert_eq!(integer_text("1.2e3"), Some(1200));
/// assert_eq!(integer_text("12345678901234567.0"), Some(12_345_678_901_234_567));
/// assert_eq!(integer_text("4503599627370495.8"), None);
/// ```
pub fn integer_text(s: &str) -> Option<i64> {
    let (negative, s) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(at) => (&s[..at], s[at + 1..].parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = || whole.bytes().chain(fraction.bytes());
    if whole.is_empty() && fraction.is_empty() || !digits().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // The value is DIGITS × 10^scale: trailing zeros moved into the scale, it is whole when
    // the scale is not negative (or every digit is zero).
    let significant = digits().skip_while(|b| *b == b'0').count();
    let trailing = digits().rev().take_while(|b| *b == b'0').count();
    if significant == 0 {
        return Some(0);
    }
    let scale = i64::from(exponent) - fraction.len() as i64 + trailing as i64;
    // i64 holds 19 digits: more than that, or a scale that would make more, is past it.
    if scale < 0 || significant - trailing + usize::try_from(scale).ok()? > 19 {
        return None;
    }
    let mut value: i128 = 0;
    for b in digits()
        .skip_while(|b| *b == b'0')
        .take(significant - trailing)
    {
        value = value * 10 + i128::from(b - b'0');
    }
    value *= 10i128.pow(u32::try_from(scale).ok()?);
    i64::try_from(if negative { -value } else { value }).ok()
}

impl Decode for i64 {
    const EXPECTED: Expected = Expected::Integer;
    #[inline]
    fn from_i64(v: i64) -> Outcome<Self> {
        Outcome::Exact(v)
    }
    #[inline]
    fn from_u64(v: u64) -> Outcome<Self> {
        i64::try_from(v).map_or(Outcome::Rejected, Outcome::Exact)
    }
    /// `1.0` is an integer in JSON Schema: taken exactly.
    #[inline]
    fn from_f64(v: f64) -> Outcome<Self> {
        whole(v).map_or(Outcome::Rejected, Outcome::Exact)
    }
    #[inline]
    fn from_str(v: &str) -> Outcome<Self> {
        whole_text(v).map_or(Outcome::Rejected, Outcome::Coerced)
    }
}

impl Decode for bool {
    const EXPECTED: Expected = Expected::Boolean;
    #[inline]
    fn from_bool(v: bool) -> Outcome<Self> {
        Outcome::Exact(v)
    }
    #[inline]
    fn from_str(v: &str) -> Outcome<Self> {
        match v.trim() {
            "true" | "True" | "TRUE" => Outcome::Coerced(true),
            "false" | "False" | "FALSE" => Outcome::Coerced(false),
            _ => Outcome::Rejected,
        }
    }
}

/// A boxed value decodes as the value (a recursive type boxes where it refers to itself).
impl<T: Decode> Decode for Box<T> {
    const EXPECTED: Expected = T::EXPECTED;
    #[inline]
    fn from_bool(v: bool) -> Outcome<Self> {
        T::from_bool(v).map(Box::new)
    }
    #[inline]
    fn from_i64(v: i64) -> Outcome<Self> {
        T::from_i64(v).map(Box::new)
    }
    #[inline]
    fn from_u64(v: u64) -> Outcome<Self> {
        T::from_u64(v).map(Box::new)
    }
    #[inline]
    fn from_f64(v: f64) -> Outcome<Self> {
        T::from_f64(v).map(Box::new)
    }
    #[inline]
    fn from_str(v: &str) -> Outcome<Self> {
        T::from_str(v).map(Box::new)
    }
    #[inline]
    fn take_string(v: String) -> Result<Self, String> {
        T::take_string(v).map(Box::new)
    }
    #[inline]
    fn from_seq<'de, A: SeqAccess<'de>>(
        seq: A,
        ctx: Ctx<'_, '_>,
    ) -> Result<Option<Self>, A::Error> {
        T::from_seq(seq, ctx).map(|v| v.map(Box::new))
    }
    #[inline]
    fn from_map<'de, A: MapAccess<'de>>(
        map: A,
        ctx: Ctx<'_, '_>,
    ) -> Result<Option<Self>, A::Error> {
        T::from_map(map, ctx).map(|v| v.map(Box::new))
    }
    #[inline]
    fn from_null_item() -> Option<Self> {
        T::from_null_item().map(Box::new)
    }
}

/// An object the schema declares without properties: kept as a JSON map.
impl Decode for Map<String, Value> {
    const EXPECTED: Expected = Expected::Object;
    fn from_map<'de, A: MapAccess<'de>>(
        map: A,
        ctx: Ctx<'_, '_>,
    ) -> Result<Option<Self>, A::Error> {
        let mut object = Map::deserialize(MapAccessDeserializer::new(map))?;
        Ok(match number_in(&mut object) {
            Some(n) => from_number::<Self>(n, ctx),
            None => Some(object),
        })
    }
}

/// A field of unknown or missing type: any JSON value is kept as it is.
impl Decode for Value {
    const EXPECTED: Expected = Expected::Any;
    fn from_bool(v: bool) -> Outcome<Self> {
        Outcome::Exact(Value::Bool(v))
    }
    fn from_i64(v: i64) -> Outcome<Self> {
        Outcome::Exact(v.into())
    }
    fn from_u64(v: u64) -> Outcome<Self> {
        Outcome::Exact(v.into())
    }
    fn from_f64(v: f64) -> Outcome<Self> {
        Outcome::Exact(v.into())
    }
    fn from_str(v: &str) -> Outcome<Self> {
        Outcome::Exact(Value::String(v.to_owned()))
    }
    fn take_string(v: String) -> Result<Self, String> {
        Ok(Value::String(v))
    }
    fn from_seq<'de, A: SeqAccess<'de>>(
        seq: A,
        _ctx: Ctx<'_, '_>,
    ) -> Result<Option<Self>, A::Error> {
        Value::deserialize(SeqAccessDeserializer::new(seq)).map(Some)
    }
    fn from_map<'de, A: MapAccess<'de>>(
        map: A,
        _ctx: Ctx<'_, '_>,
    ) -> Result<Option<Self>, A::Error> {
        Value::deserialize(MapAccessDeserializer::new(map)).map(Some)
    }
    fn from_null_item() -> Option<Self> {
        Some(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::covering;

    #[test]
    fn bytes_that_are_not_utf8_are_refused_where_they_are_even_when_skipped() {
        #[derive(Debug, serde::Deserialize)]
        struct Only {
            #[allow(dead_code)]
            a: u32,
        }
        // `b` is not a field of `Only`: serde_json would skip its string without looking.
        let e = super::from_slice::<Only>(b"{\"a\": 1,\n \"b\": \"\xff\"}").unwrap_err();
        assert_eq!((e.line(), e.column()), (2, 8), "{e}");
        assert!(e.to_string().contains("invalid unicode code point"), "{e}");
        assert_eq!(super::from_slice::<Only>(b"{\"a\": 1}").unwrap().a, 1);
    }

    #[test]
    fn whole_numbers_are_integers_only_within_i64_and_text_converts_without_loss() {
        use super::{Decode, Outcome};
        let exact = |o: Outcome<i64>| match o {
            Outcome::Exact(v) | Outcome::Coerced(v) => Some(v),
            Outcome::Rejected => None,
        };
        assert_eq!(
            exact(i64::from_f64(-9_223_372_036_854_775_808.0)),
            Some(i64::MIN)
        );
        // 2^63, which `as` would saturate to i64::MAX.
        assert_eq!(exact(i64::from_f64(9_223_372_036_854_775_808.0)), None);
        assert_eq!(exact(i64::from_f64(4.0)), Some(4));
        assert_eq!(exact(i64::from_u64(u64::MAX)), None);
        // Digits beyond a double's 53 bits keep every digit.
        assert_eq!(
            exact(i64::from_str("12345678901234567")),
            Some(12_345_678_901_234_567)
        );
        assert_eq!(
            exact(i64::from_str("9,223,372,036,854,775,807")),
            Some(i64::MAX)
        );
        assert_eq!(exact(i64::from_str(" 1.0e3 ")), Some(1000));
        // Read digit by digit: every spelling of a whole number converts exactly, and a
        // fraction a double would round to a whole number does not.
        assert_eq!(
            exact(i64::from_str("12345678901234567.0")),
            Some(12_345_678_901_234_567)
        );
        assert_eq!(exact(i64::from_str("4503599627370495.8")), None);
        assert_eq!(exact(i64::from_str("9223372036854775808")), None);
        assert_eq!(exact(i64::from_str("2.5")), None);
    }

    #[test]
    fn integer_text_reads_every_spelling_of_a_whole_number_exactly() {
        use super::integer_text;
        for (text, want) in [
            ("0", Some(0)),
            ("-0.000", Some(0)),
            ("0e999999", Some(0)),
            ("007", Some(7)),
            ("+12", Some(12)),
            ("12.", Some(12)),
            (".0", Some(0)),
            ("1200e-2", Some(12)),
            ("1.25e2", Some(125)),
            ("9223372036854775807", Some(i64::MAX)),
            ("-9223372036854775808", Some(i64::MIN)),
            ("9.223372036854775807e18", Some(i64::MAX)),
            ("9223372036854775808", None),
            ("1e19", None),
            ("1e-1", None),
            ("1.25e1", None),
            ("1e99999999999", None),
            ("", None),
            ("-", None),
            (".", None),
            ("1.2.3", None),
            ("1e", None),
            ("0x10", None),
            ("١٢", None),
        ] {
            assert_eq!(integer_text(text), want, "{text:?}");
        }
    }

    #[test]
    fn a_number_field_takes_an_integer_only_when_a_double_holds_it_exactly() {
        use super::{Decode, Outcome};
        let held = |o: Outcome<f64>| match o {
            Outcome::Exact(v) | Outcome::Coerced(v) => Some(v),
            Outcome::Rejected => None,
        };
        assert_eq!(held(f64::from_u64(1 << 53)), Some(9_007_199_254_740_992.0));
        assert_eq!(held(f64::from_u64((1 << 53) + 1)), None);
        assert_eq!(held(f64::from_u64(12_345_678_901_234_567)), None);
        assert_eq!(held(f64::from_u64(1_000_000_000_000_000_000)), Some(1e18));
        assert_eq!(held(f64::from_u64(u64::MAX)), None);
        assert_eq!(held(f64::from_i64(i64::MIN)), Some(-(2.0f64.powi(63))));
        assert_eq!(held(f64::from_i64(-9_007_199_254_740_993)), None);
        assert_eq!(held(f64::from_str("12345678901234567")), None);
        assert_eq!(held(f64::from_str("$1,299")), Some(1299.0));
        assert_eq!(held(f64::from_str(" 0.1 ")), Some(0.1));
        assert_eq!(held(f64::from_str("1e400")), None);
    }

    #[test]
    fn a_path_is_covered_by_the_record_its_parents_and_itself() {
        let all: Vec<&str> = covering("reviews[2].rating").collect();
        assert_eq!(all, ["", "reviews", "reviews[2]", "reviews[2].rating"]);
        assert_eq!(covering("").collect::<Vec<_>>(), [""]);
        assert_eq!(covering("[0]").collect::<Vec<_>>(), ["", "[0]"]);
    }
}
