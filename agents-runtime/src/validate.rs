//! Checking agent parameters against the rules of their input properties before anything is
//! sent. Generated `validate()` methods call [`Violations`]; the rule text was parsed by the
//! generator.

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

use regex::Regex;

/// One rule an input parameter broke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON name of the parameter at fault.
    pub param: String,
    /// The rule, as the agent record states it.
    pub rule: String,
    /// What was wrong with the value.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "parameter `{}` breaks rule \"{}\": {}",
            self.param, self.rule, self.message
        )
    }
}

/// Parameters broke the rules of their agent; every broken rule is listed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid parameters for agent `{agent}`: {}", list(.violations))]
pub struct ValidationError {
    /// The agent whose rules were broken.
    pub agent: String,
    /// Every broken rule.
    pub violations: Vec<Violation>,
}

fn list(v: &[Violation]) -> String {
    v.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// A regular expression from an input rule, compiled once on first use.
pub struct Pattern {
    source: Cow<'static, str>,
    compiled: OnceLock<Option<Regex>>,
}

impl Pattern {
    /// A pattern from rule text; compiled lazily.
    pub const fn new(source: &'static str) -> Self {
        Pattern {
            source: Cow::Borrowed(source),
            compiled: OnceLock::new(),
        }
    }

    /// A pattern from rule text known only at run time (the emulator reads rules from records).
    pub fn owned(source: String) -> Self {
        Pattern {
            source: Cow::Owned(source),
            compiled: OnceLock::new(),
        }
    }

    fn regex(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| Regex::new(&self.source).ok())
            .as_ref()
    }
}

/// Collects broken rules while a generated `validate()` walks the parameters.
#[derive(Debug)]
pub struct Violations {
    agent: String,
    found: Vec<Violation>,
}

impl Violations {
    /// Starts checking the parameters of `agent`.
    pub fn new(agent: impl Into<String>) -> Self {
        Violations {
            agent: agent.into(),
            found: Vec::new(),
        }
    }

    fn push(&mut self, param: &str, rule: &str, message: String) {
        self.found.push(Violation {
            param: param.to_owned(),
            rule: rule.to_owned(),
            message,
        });
    }

    /// The value has at least `min` characters.
    pub fn min_length(&mut self, param: &str, rule: &str, value: &str, min: usize) {
        let n = value.chars().count();
        if n < min {
            self.push(
                param,
                rule,
                format!("has {n} characters, needs at least {min}"),
            );
        }
    }

    /// The value has at most `max` characters.
    pub fn max_length(&mut self, param: &str, rule: &str, value: &str, max: usize) {
        let n = value.chars().count();
        if n > max {
            self.push(
                param,
                rule,
                format!("has {n} characters, allows at most {max}"),
            );
        }
    }

    /// The value is at least `min`.
    pub fn minimum(&mut self, param: &str, rule: &str, value: f64, min: f64) {
        if value.is_nan() || value < min {
            self.push(param, rule, format!("is {value}, must be at least {min}"));
        }
    }

    /// The value is at most `max`.
    pub fn maximum(&mut self, param: &str, rule: &str, value: f64, max: f64) {
        if value.is_nan() || value > max {
            self.push(param, rule, format!("is {value}, must be at most {max}"));
        }
    }

    /// The value matches the pattern.
    pub fn pattern(&mut self, param: &str, rule: &str, value: &str, pattern: &Pattern) {
        match pattern.regex() {
            Some(re) if re.is_match(value) => {}
            Some(_) => self.push(
                param,
                rule,
                format!("{value:?} does not match /{}/", pattern.source),
            ),
            None => self.push(
                param,
                rule,
                format!("the pattern /{}/ does not compile", pattern.source),
            ),
        }
    }

    /// The value is one of the allowed values.
    pub fn one_of(&mut self, param: &str, rule: &str, value: &str, allowed: &[&str]) {
        if !allowed.contains(&value) {
            self.push(param, rule, format!("{value:?} is not one of {allowed:?}"));
        }
    }

    /// The value is an ISO 3166-1 alpha-2 country code (two ASCII letters).
    pub fn country_code(&mut self, param: &str, value: &str) {
        if value.len() != 2 || !value.bytes().all(|b| b.is_ascii_alphabetic()) {
            self.push(
                param,
                "ISO 3166-1 alpha-2 code",
                format!("{value:?} is not a two-letter country code"),
            );
        }
    }

    /// `Ok` when no rule was broken, else every broken rule.
    pub fn finish(self) -> Result<(), ValidationError> {
        if self.found.is_empty() {
            Ok(())
        } else {
            Err(ValidationError {
                agent: self.agent,
                violations: self.found,
            })
        }
    }
}

/// A JSON parameter whose value is not of its input's type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("parameter `{param}` must be {expected}, not {found}")]
pub struct WrongType {
    /// The parameter.
    pub param: String,
    /// What its input takes (`a number`).
    pub expected: &'static str,
    /// What it was (`a string`).
    pub found: &'static str,
}

/// Checks JSON `params` against the rules of `record`'s inputs, as generated `validate()` checks
/// typed params: each declared value is read as its input's type and every rule the generator
/// understands is applied, broken rules going to `violations`. A value of the wrong type is
/// returned at once. Required inputs and the common params are the caller's to check.
///
/// This is how tools without generated types (the CLI, the emulator) check an agent's inputs
/// with the same rules.
pub fn check_json(
    record: &agents_schema::AgentRecord,
    params: &serde_json::Map<String, serde_json::Value>,
    violations: &mut Violations,
) -> Result<(), WrongType> {
    use agents_schema::inputs::param_type;
    use agents_schema::rules::{self, Parsed};

    let page = record.pagination_param().map(|p| p.name.as_str());
    for input in record.inputs() {
        let Some(value) = params.get(&input.name).filter(|v| !v.is_null()) else {
            continue;
        };
        let (ty, _) = param_type(input, page == Some(input.name.as_str()));
        let typed = typed_value(ty, value).ok_or_else(|| WrongType {
            param: input.name.clone(),
            expected: expected(ty),
            found: json_kind(value),
        })?;
        for text in &input.rules {
            if let Parsed::Checked(rule) = rules::parse(text, ty) {
                apply(violations, &input.name, text, &rule, &typed);
            }
        }
    }
    Ok(())
}

/// A parameter value read as its declared type.
enum Typed<'a> {
    Text(&'a str),
    Number(f64),
    Other,
}

fn typed_value(ty: agents_schema::inputs::ParamTy, value: &serde_json::Value) -> Option<Typed<'_>> {
    use agents_schema::inputs::ParamTy;
    use serde_json::Value;
    match (ty, value) {
        (ParamTy::String, Value::String(s)) => Some(Typed::Text(s)),
        (ParamTy::Number, Value::Number(n)) => n.as_f64().map(Typed::Number),
        (ParamTy::Integer, Value::Number(n)) if n.is_i64() || n.is_u64() => {
            n.as_f64().map(Typed::Number)
        }
        // A page arrives as a number, sometimes as a string ("1").
        (ParamTy::Page, Value::Number(n)) if n.is_u64() => n.as_f64().map(Typed::Number),
        (ParamTy::Page, Value::String(s)) => s
            .trim()
            .parse::<u32>()
            .ok()
            .map(|p| Typed::Number(p.into())),
        (ParamTy::Boolean, Value::Bool(_)) | (ParamTy::Any, _) => Some(Typed::Other),
        _ => None,
    }
}

fn apply(
    v: &mut Violations,
    param: &str,
    text: &str,
    rule: &agents_schema::rules::Rule,
    value: &Typed<'_>,
) {
    use agents_schema::rules::Rule;
    match (rule, value) {
        (Rule::MinLength(n), Typed::Text(s)) => v.min_length(param, text, s, *n),
        (Rule::MaxLength(n), Typed::Text(s)) => v.max_length(param, text, s, *n),
        (Rule::Minimum(m), Typed::Number(x)) => v.minimum(param, text, *x, *m),
        (Rule::Maximum(m), Typed::Number(x)) => v.maximum(param, text, *x, *m),
        (Rule::Pattern(p), Typed::Text(s)) => v.pattern(param, text, s, &Pattern::owned(p.clone())),
        (Rule::OneOf(values), Typed::Text(s)) => {
            let allowed: Vec<&str> = values.iter().map(String::as_str).collect();
            v.one_of(param, text, s, &allowed);
        }
        _ => {}
    }
}

/// What an input of type `ty` takes, for messages.
pub fn expected(ty: agents_schema::inputs::ParamTy) -> &'static str {
    use agents_schema::inputs::ParamTy;
    match ty {
        ParamTy::String => "a string",
        ParamTy::Number => "a number",
        ParamTy::Integer => "an integer",
        ParamTy::Page => "a positive integer (or its decimal string)",
        ParamTy::Boolean => "a boolean",
        ParamTy::Any => "any JSON value",
    }
}

/// The JSON kind of a value, for messages.
pub fn json_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
