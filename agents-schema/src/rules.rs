//! The `rules` text of input properties, parsed where it is understood.
//!
//! Understood forms (case-insensitive; `:` `=` and `of` are optional):
//! `minimum length N`, `min length N`, `min_length N`, `minLength N`, `at least N characters`;
//! `maximum length N`, `max length N`, `max_length N`, `maxLength N`, `at most N characters`;
//! `minimum N`, `min N`, `>= N`; `maximum N`, `max N`, `<= N`;
//! `pattern REGEX`, `regex REGEX`, `must match REGEX`; `one of a, b, c`.
//!
//! A rule that is not understood, that does not apply to the parameter's type, or whose pattern
//! does not parse is kept in the docs and not checked.

use crate::inputs::ParamTy;

/// A rule the generated `validate()` checks.
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
    Pattern(String),
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

/// The outcome of reading one rule's text.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// Checked by `validate()`.
    Checked(Rule),
    /// Kept in the docs only, with the reason.
    DocOnly(String),
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

/// Reads one rule for a parameter of type `ty`.
pub fn parse(text: &str, ty: ParamTy) -> Parsed {
    let t = text.trim();
    let is_text = matches!(ty, ParamTy::String);
    let is_number = matches!(ty, ParamTy::Number | ParamTy::Integer | ParamTy::Page);
    let not_for = |what: &str| Parsed::DocOnly(format!("applies to {what} only"));

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
        return match (count(rest), is_text) {
            (Some(n), true) => Parsed::Checked(Rule::MinLength(n)),
            (Some(_), false) => not_for("text"),
            (None, _) => Parsed::DocOnly("length not understood".to_owned()),
        };
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
        return match (count(rest), is_text) {
            (Some(n), true) => Parsed::Checked(Rule::MaxLength(n)),
            (Some(_), false) => not_for("text"),
            (None, _) => Parsed::DocOnly("length not understood".to_owned()),
        };
    }
    for (prefixes, min) in [(&["at least"], true), (&["at most"], false)] {
        if let Some(rest) = strip_prefix_ci(t, prefixes)
            && is_text
            && rest.to_ascii_lowercase().ends_with("characters")
            && let Some(n) = count(rest)
        {
            return Parsed::Checked(if min {
                Rule::MinLength(n)
            } else {
                Rule::MaxLength(n)
            });
        }
    }
    // Item counts apply to lists, which inputs take as raw JSON.
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
            && !rest.to_ascii_lowercase().ends_with("characters")
        {
            return match (matches!(ty, ParamTy::Any), min) {
                (true, true) => Parsed::Checked(Rule::MinItems(n)),
                (true, false) => Parsed::Checked(Rule::MaxItems(n)),
                (false, _) => not_for("lists"),
            };
        }
    }
    if let Some(rest) = strip_prefix_ci(t, &["multiple of", "multipleof"])
        && rest.split_whitespace().count() == 1
        && let Some(v) = number(rest).filter(|v| *v > 0.0)
    {
        return if is_number {
            Parsed::Checked(Rule::MultipleOf(v))
        } else {
            not_for("numbers")
        };
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
            return match (is_number, min) {
                (true, true) => Parsed::Checked(Rule::Minimum(v)),
                (true, false) => Parsed::Checked(Rule::Maximum(v)),
                (false, _) => not_for("numbers"),
            };
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
            return match (is_number, min) {
                (true, true) => Parsed::Checked(Rule::ExclusiveMinimum(v)),
                (true, false) => Parsed::Checked(Rule::ExclusiveMaximum(v)),
                (false, _) => not_for("numbers"),
            };
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
        if !is_text {
            return not_for("text");
        }
        // What the runtime compiles (regex-lite: JSON Schema's ASCII `\d` and `\w`, no `\p{..}`
        // classes) is what the generator accepts as a check; any other pattern stays in the docs.
        return match regex_lite::Regex::new(pattern) {
            Ok(_) => Parsed::Checked(Rule::Pattern(pattern.to_owned())),
            Err(e) => Parsed::DocOnly(format!(
                "the pattern does not parse: {}",
                e.to_string().lines().last().unwrap_or("invalid")
            )),
        };
    }
    if let Some(rest) = strip_prefix_ci(t, &["one of", "must be one of", "enum"]) {
        let values: Vec<String> = rest
            .split(',')
            .map(|v| v.trim().trim_matches(['"', '\'', '`']).to_owned())
            .filter(|v| !v.is_empty())
            .collect();
        if !values.is_empty() && is_text {
            return Parsed::Checked(Rule::OneOf(values));
        }
    }
    Parsed::DocOnly("not understood by the generator".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_is_checked_only_when_the_runtime_compiles_it() {
        let s = ParamTy::String;
        assert_eq!(
            parse(r"pattern ^\d{3}-\w+$", s),
            Parsed::Checked(Rule::Pattern(r"^\d{3}-\w+$".into()))
        );
        for unsupported in [r"pattern ^\p{L}+$", "pattern ^(a"] {
            match parse(unsupported, s) {
                Parsed::DocOnly(why) => {
                    assert!(why.starts_with("the pattern does not parse"), "{why}")
                }
                other => panic!("{unsupported}: {other:?}"),
            }
        }
    }

    #[test]
    fn understood_forms() {
        use Parsed::Checked;
        let s = ParamTy::String;
        let n = ParamTy::Number;
        assert_eq!(parse("minimum length 1", s), Checked(Rule::MinLength(1)));
        assert_eq!(parse("Min length: 3", s), Checked(Rule::MinLength(3)));
        assert_eq!(parse("minLength=2", s), Checked(Rule::MinLength(2)));
        assert_eq!(
            parse("maximum length 200", s),
            Checked(Rule::MaxLength(200))
        );
        assert_eq!(
            parse("at most 30 characters", s),
            Checked(Rule::MaxLength(30))
        );
        assert_eq!(parse("minimum 1", n), Checked(Rule::Minimum(1.0)));
        assert_eq!(
            parse("maximum 100", ParamTy::Page),
            Checked(Rule::Maximum(100.0))
        );
        assert_eq!(parse(">= 0.5", n), Checked(Rule::Minimum(0.5)));
        assert_eq!(
            parse("pattern: ^[0-9]+$", s),
            Checked(Rule::Pattern("^[0-9]+$".into()))
        );
        assert_eq!(
            parse("one of: a, b", s),
            Checked(Rule::OneOf(vec!["a".into(), "b".into()]))
        );
        let any = ParamTy::Any;
        assert_eq!(
            parse("greater than 0", n),
            Checked(Rule::ExclusiveMinimum(0.0))
        );
        assert_eq!(parse("< 10.5", n), Checked(Rule::ExclusiveMaximum(10.5)));
        assert_eq!(
            parse("multiple of 0.25", n),
            Checked(Rule::MultipleOf(0.25))
        );
        assert_eq!(parse("at least 2 items", any), Checked(Rule::MinItems(2)));
        assert_eq!(parse("maxItems: 5", any), Checked(Rule::MaxItems(5)));
        assert_eq!(parse("at least 1 item", any), Checked(Rule::MinItems(1)));
        // `>=` stays an inclusive bound, and characters stay a length.
        assert_eq!(parse(">= 3", n), Checked(Rule::Minimum(3.0)));
        assert_eq!(
            parse("at least 3 characters", s),
            Checked(Rule::MinLength(3))
        );
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
            ("", ParamTy::String),
        ] {
            assert!(matches!(parse(text, ty), Parsed::DocOnly(_)), "{text:?}");
        }
    }
}
