//! Input rules, read once. A `/v1` record states an input's rules as text (`minimum length 1`);
//! a JSON Schema input states them as keywords (`"minLength": 1`). Both become [`InputRule`]s
//! when the record is read: the rule as stated, and the [`Rule`] it means, if any. The
//! generator, the request check and the emulator all take the [`Rule`]; none reads the text
//! again, and a pattern is compiled here, once.
//!
//! Understood forms of rule text (case-insensitive; `:` `=` and `of` are optional):
//! `minimum length N`, `min length N`, `min_length N`, `minLength N`, `at least N characters`;
//! `maximum length N`, `max length N`, `max_length N`, `maxLength N`, `at most N characters`;
//! `minimum N`, `min N`, `>= N`; `maximum N`, `max N`, `<= N`; `greater than N`, `> N`;
//! `less than N`, `< N`; `multiple of N`; `at least N items`, `minItems N`; `at most N items`,
//! `maxItems N`; `pattern REGEX`, `regex REGEX`, `must match REGEX`; `one of a, b, c`.
//!
//! A rule that is not understood, that does not apply to the parameter's type, or whose pattern
//! does not compile is kept in the docs and not checked.

use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::{Value, json};

use crate::kind::ParamTy;

/// What a rule asks of a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// At least N characters.
    MinLength(usize),
    /// At most N characters.
    MaxLength(usize),
    /// At least this value.
    Minimum(f64),
    /// At most this value.
    Maximum(f64),
    /// Matches this regular expression.
    Pattern(Pattern),
    /// One of these values.
    OneOf(Vec<String>),
    /// Greater than this value.
    ExclusiveMinimum(f64),
    /// Less than this value.
    ExclusiveMaximum(f64),
    /// A whole multiple of this value.
    MultipleOf(f64),
    /// A list of at least N items.
    MinItems(usize),
    /// A list of at most N items.
    MaxItems(usize),
}

/// A regular expression of a rule, compiled when it is read, by the engine the decoder's checks
/// use (`agents_check::Pattern`: JSON Schema's ASCII `\d` and `\w`; `\p{..}` classes only with
/// agents-runtime's feature `unicode-patterns`), so a rule is checked exactly where the
/// runtime can check it, and compiled once.
#[derive(Clone)]
pub struct Pattern {
    source: String,
    compiled: agents_check::Pattern,
}

impl Pattern {
    /// Compiles `source`; the error says why it does not compile, in one line.
    pub fn new(source: &str) -> Result<Self, String> {
        match agents_check::Pattern::parse(source) {
            Ok(compiled) => Ok(Pattern {
                source: source.to_owned(),
                compiled,
            }),
            Err(why) => Err(format!("the pattern does not parse: {why}")),
        }
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The compiled expression.
    pub fn compiled(&self) -> &agents_check::Pattern {
        &self.compiled
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.source, f)
    }
}

impl Rule {
    /// `Ok` when the rule applies to inputs of type `ty`, else which inputs it applies to.
    pub fn applies_to(&self, ty: ParamTy) -> Result<(), &'static str> {
        let is_text = matches!(ty, ParamTy::String);
        let is_number = matches!(ty, ParamTy::Number | ParamTy::Integer | ParamTy::Page);
        // An input of no declared type may be a list.
        let is_list = matches!(ty, ParamTy::List(_) | ParamTy::Any);
        let (fits, only) = match self {
            Rule::MinLength(_) | Rule::MaxLength(_) | Rule::Pattern(_) | Rule::OneOf(_) => {
                (is_text, "applies to text only")
            }
            Rule::Minimum(_)
            | Rule::Maximum(_)
            | Rule::ExclusiveMinimum(_)
            | Rule::ExclusiveMaximum(_)
            | Rule::MultipleOf(_) => (is_number, "applies to numbers only"),
            Rule::MinItems(_) | Rule::MaxItems(_) => (is_list, "applies to lists only"),
        };
        if fits { Ok(()) } else { Err(only) }
    }

    /// The JSON Schema keyword that states the rule, with its value.
    pub fn keyword(&self) -> (&'static str, Value) {
        match self {
            Rule::MinLength(n) => ("minLength", json!(n)),
            Rule::MaxLength(n) => ("maxLength", json!(n)),
            Rule::Minimum(n) => ("minimum", json!(Num(*n))),
            Rule::Maximum(n) => ("maximum", json!(Num(*n))),
            Rule::Pattern(p) => ("pattern", json!(p.as_str())),
            Rule::OneOf(values) => ("enum", json!(values)),
            Rule::ExclusiveMinimum(n) => ("exclusiveMinimum", json!(Num(*n))),
            Rule::ExclusiveMaximum(n) => ("exclusiveMaximum", json!(Num(*n))),
            Rule::MultipleOf(n) => ("multipleOf", json!(Num(*n))),
            Rule::MinItems(n) => ("minItems", json!(n)),
            Rule::MaxItems(n) => ("maxItems", json!(n)),
        }
    }
}

/// A number as people write it, in rule text and in JSON Schema alike: `3`, not `3.0` (JSON
/// Schema holds them equal, and a record written back then reads as it was sent).
pub(crate) struct Num(pub(crate) f64);

impl Num {
    /// The number as an integer when it is a whole one that an `i64` holds exactly.
    fn whole(&self) -> Option<i64> {
        (self.0.fract() == 0.0 && self.0.abs() < 1e15).then_some(self.0 as i64)
    }
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.whole() {
            Some(n) => write!(f, "{n}"),
            None => write!(f, "{}", self.0),
        }
    }
}

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.whole() {
            Some(n) => s.serialize_i64(n),
            None => s.serialize_f64(self.0),
        }
    }
}

/// The rule in words, in a form [`InputRule::read`] reads back as the same rule.
impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items = |n: usize| if n == 1 { "item" } else { "items" };
        match self {
            Rule::MinLength(n) => write!(f, "minimum length {n}"),
            Rule::MaxLength(n) => write!(f, "maximum length {n}"),
            Rule::Minimum(n) => write!(f, "minimum {}", Num(*n)),
            Rule::Maximum(n) => write!(f, "maximum {}", Num(*n)),
            Rule::ExclusiveMinimum(n) => write!(f, "greater than {}", Num(*n)),
            Rule::ExclusiveMaximum(n) => write!(f, "less than {}", Num(*n)),
            Rule::MultipleOf(n) => write!(f, "multiple of {}", Num(*n)),
            Rule::MinItems(n) => write!(f, "at least {n} {}", items(*n)),
            Rule::MaxItems(n) => write!(f, "at most {n} {}", items(*n)),
            Rule::Pattern(p) => write!(f, "pattern {}", p.as_str()),
            Rule::OneOf(values) => write!(f, "one of {}", values.join(", ")),
        }
    }
}

/// What a rule's statement was read as.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// A rule `validate()` and the request check apply (when it fits the input's type: see
    /// [`InputRule::check`]).
    Checked(Rule),
    /// Kept in the docs only, with the reason.
    DocOnly(String),
}

/// One rule of an input: as the record states it, and as read once, when the record was read.
///
/// It serializes as its text, the form a `/v1` record carries.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRule {
    /// The rule as the record states it (for a JSON Schema keyword, the rule in words).
    pub text: String,
    /// What it was read as.
    pub parsed: Parsed,
}

impl InputRule {
    /// Reads a rule stated as text: the one reader of rule text.
    pub fn read(text: impl Into<String>) -> Self {
        let text = text.into();
        let parsed = parse(&text);
        InputRule { text, parsed }
    }

    /// A rule stated as text that is not checked, with the reason.
    pub fn doc_only(text: impl Into<String>, why: impl Into<String>) -> Self {
        InputRule {
            text: text.into(),
            parsed: Parsed::DocOnly(why.into()),
        }
    }

    /// The rule to check on an input of type `ty`, or why it is not checked.
    pub fn check(&self, ty: ParamTy) -> Result<&Rule, String> {
        match &self.parsed {
            Parsed::Checked(rule) => rule.applies_to(ty).map(|()| rule).map_err(str::to_owned),
            Parsed::DocOnly(why) => Err(why.clone()),
        }
    }
}

impl From<Rule> for InputRule {
    fn from(rule: Rule) -> Self {
        InputRule {
            text: rule.to_string(),
            parsed: Parsed::Checked(rule),
        }
    }
}

impl PartialEq<&str> for InputRule {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl Serialize for InputRule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

fn strip_prefix_ci<'a>(text: &'a str, prefixes: &[&str]) -> Option<&'a str> {
    let lower = text.to_ascii_lowercase();
    prefixes.iter().find_map(|p| {
        if lower.starts_with(p) {
            let rest = text.get(p.len()..)?;
            let rest = rest.trim_start();
            let rest = rest
                .strip_prefix(':')
                .or_else(|| rest.strip_prefix('='))
                .or_else(|| rest.strip_prefix("of "))
                .unwrap_or(rest);
            Some(rest.trim())
        } else {
            None
        }
    })
}

fn number(text: &str) -> Option<f64> {
    let word = text.split_whitespace().next()?;
    word.parse::<f64>().ok().filter(|v| v.is_finite())
}

fn count(text: &str) -> Option<usize> {
    let word = text.split_whitespace().next()?;
    word.parse::<usize>().ok()
}

/// Reads one rule's text, whatever the input's type ([`Rule::applies_to`] says whether it fits).
fn parse(text: &str) -> Parsed {
    let t = text.trim();
    let checked = Parsed::Checked;

    if let Some(rest) = strip_prefix_ci(
        t,
        &[
            "minimum length",
            "min length",
            "min_length",
            "minlength",
            "length >=",
        ],
    ) {
        return count(rest).map_or_else(
            || Parsed::DocOnly("length not understood".to_owned()),
            |n| checked(Rule::MinLength(n)),
        );
    }
    if let Some(rest) = strip_prefix_ci(
        t,
        &[
            "maximum length",
            "max length",
            "max_length",
            "maxlength",
            "length <=",
        ],
    ) {
        return count(rest).map_or_else(
            || Parsed::DocOnly("length not understood".to_owned()),
            |n| checked(Rule::MaxLength(n)),
        );
    }
    for (prefixes, min) in [(&["at least"], true), (&["at most"], false)] {
        if let Some(rest) = strip_prefix_ci(t, prefixes)
            && rest.to_ascii_lowercase().ends_with("characters")
            && let Some(n) = count(rest)
        {
            return checked(if min {
                Rule::MinLength(n)
            } else {
                Rule::MaxLength(n)
            });
        }
    }
    let items: [(&[&str], bool); 2] = [
        (
            &["at least", "minimum items", "min items", "minitems"],
            true,
        ),
        (
            &["at most", "maximum items", "max items", "maxitems"],
            false,
        ),
    ];
    for (prefixes, min) in items {
        if let Some(rest) = strip_prefix_ci(t, prefixes)
            && let Some(n) = count(rest)
            && (rest.to_ascii_lowercase().ends_with("item")
                || rest.to_ascii_lowercase().ends_with("items")
                || rest.split_whitespace().count() == 1)
        {
            return checked(if min {
                Rule::MinItems(n)
            } else {
                Rule::MaxItems(n)
            });
        }
    }
    if let Some(rest) = strip_prefix_ci(t, &["multiple of", "multipleof"])
        && rest.split_whitespace().count() == 1
        && let Some(v) = number(rest).filter(|v| *v > 0.0)
    {
        return checked(Rule::MultipleOf(v));
    }
    let bounds: [(&[&str], bool); 2] = [
        (&["minimum value", "minimum", "min", ">="], true),
        (&["maximum value", "maximum", "max", "<="], false),
    ];
    for (prefixes, min) in bounds {
        if let Some(rest) = strip_prefix_ci(t, prefixes)
            && rest.split_whitespace().count() == 1
            && let Some(v) = number(rest)
        {
            return checked(if min {
                Rule::Minimum(v)
            } else {
                Rule::Maximum(v)
            });
        }
    }
    // After the inclusive bounds, so that `>=` stays one.
    let exclusive: [(&[&str], bool); 2] = [
        (&["exclusive minimum", "greater than", ">"], true),
        (&["exclusive maximum", "less than", "<"], false),
    ];
    for (prefixes, min) in exclusive {
        if let Some(rest) = strip_prefix_ci(t, prefixes)
            && !rest.starts_with('=')
            && rest.split_whitespace().count() == 1
            && let Some(v) = number(rest)
        {
            return checked(if min {
                Rule::ExclusiveMinimum(v)
            } else {
                Rule::ExclusiveMaximum(v)
            });
        }
    }
    if let Some(rest) = strip_prefix_ci(t, &["pattern", "regex", "must match"]) {
        let pattern = rest
            .strip_prefix('/')
            .and_then(|r| r.strip_suffix('/'))
            .unwrap_or(rest);
        if pattern.is_empty() {
            return Parsed::DocOnly("empty pattern".to_owned());
        }
        return match Pattern::new(pattern) {
            Ok(p) => checked(Rule::Pattern(p)),
            Err(why) => Parsed::DocOnly(why),
        };
    }
    if let Some(rest) = strip_prefix_ci(t, &["one of", "must be one of", "enum"]) {
        let values: Vec<String> = rest
            .split(',')
            .map(|v| v.trim().trim_matches(['"', '\'', '`']).to_owned())
            .filter(|v| !v.is_empty())
            .collect();
        if !values.is_empty() {
            return checked(Rule::OneOf(values));
        }
    }
    Parsed::DocOnly("not understood by the generator".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, ty: ParamTy) -> Result<Rule, String> {
        InputRule::read(text).check(ty).cloned()
    }

    fn pattern(source: &str) -> Rule {
        Rule::Pattern(Pattern::new(source).unwrap())
    }

    #[test]
    fn a_pattern_is_checked_only_when_the_runtime_compiles_it() {
        let s = ParamTy::String;
        assert_eq!(read(r"pattern ^\d{3}-\w+$", s), Ok(pattern(r"^\d{3}-\w+$")));
        let why = read("pattern ^(a", s).unwrap_err();
        assert!(why.starts_with("the pattern does not parse"), "{why}");
        // A Unicode class compiles where the decoder's engine takes it (agents-runtime's
        // feature `unicode-patterns`, on in some workspace builds), else says so.
        match read(r"pattern ^\p{L}+$", s) {
            Ok(rule) => assert_eq!(rule, pattern(r"^\p{L}+$")),
            Err(why) => assert!(why.contains("Unicode"), "{why}"),
        }
    }

    #[test]
    fn understood_forms() {
        let s = ParamTy::String;
        let n = ParamTy::Number;
        let any = ParamTy::Any;
        for (text, ty, rule) in [
            ("minimum length 1", s, Rule::MinLength(1)),
            ("Min length: 3", s, Rule::MinLength(3)),
            ("minLength=2", s, Rule::MinLength(2)),
            ("maximum length 200", s, Rule::MaxLength(200)),
            ("at most 30 characters", s, Rule::MaxLength(30)),
            ("minimum 1", n, Rule::Minimum(1.0)),
            ("maximum 100", ParamTy::Page, Rule::Maximum(100.0)),
            (">= 0.5", n, Rule::Minimum(0.5)),
            ("pattern: ^[0-9]+$", s, pattern("^[0-9]+$")),
            ("one of: a, b", s, Rule::OneOf(vec!["a".into(), "b".into()])),
            ("greater than 0", n, Rule::ExclusiveMinimum(0.0)),
            ("< 10.5", n, Rule::ExclusiveMaximum(10.5)),
            ("multiple of 0.25", n, Rule::MultipleOf(0.25)),
            ("at least 2 items", any, Rule::MinItems(2)),
            ("maxItems: 5", any, Rule::MaxItems(5)),
            ("at least 1 item", any, Rule::MinItems(1)),
            // `>=` stays an inclusive bound, and characters stay a length.
            (">= 3", n, Rule::Minimum(3.0)),
            ("at least 3 characters", s, Rule::MinLength(3)),
        ] {
            assert_eq!(read(text, ty), Ok(rule), "{text:?}");
        }
    }

    #[test]
    fn everything_else_is_doc_only() {
        for (text, ty) in [
            ("must be an existing public account", ParamTy::String),
            ("minimum length 1", ParamTy::Number),
            ("minimum 5", ParamTy::String),
            ("pattern: ([a-z", ParamTy::String),
            ("minimum five", ParamTy::Number),
            ("multiple of 0", ParamTy::Number),
            ("at least 2 items", ParamTy::String),
            ("greater than 3", ParamTy::String),
            ("at least 3 characters", ParamTy::Number),
            ("", ParamTy::String),
        ] {
            assert!(read(text, ty).is_err(), "{text:?}");
        }
    }

    /// Every rule's words read back as the same rule, so a record written as text and read
    /// again checks what it checked.
    #[test]
    fn a_rule_in_words_reads_back_as_itself() {
        for rule in [
            Rule::MinLength(0),
            Rule::MaxLength(7),
            Rule::Minimum(-1.5),
            Rule::Maximum(1e20),
            Rule::ExclusiveMinimum(0.0),
            Rule::ExclusiveMaximum(3.25),
            Rule::MultipleOf(0.01),
            Rule::MinItems(1),
            Rule::MaxItems(12),
            pattern(r"^[A-Z]{2}\d+$"),
            Rule::OneOf(vec!["S".into(), "M".into()]),
        ] {
            let text = rule.to_string();
            assert_eq!(
                InputRule::read(&text).parsed,
                Parsed::Checked(rule),
                "{text}"
            );
        }
    }
}
