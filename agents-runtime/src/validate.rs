//! Checking agent parameters against the rules of their input properties before anything is
//! sent. Generated `validate()` methods call [`Violations`]; [`check_request`] takes the typed
//! rules read with the record ([`agents_schema::rules`]), patterns already compiled.

use std::fmt;
use std::sync::OnceLock;

use regex_lite::Regex;

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

/// A regular expression of a generated `validate()`, compiled once on first use.
pub struct Pattern {
    source: &'static str,
    compiled: OnceLock<Option<Regex>>,
}

impl Pattern {
    /// A pattern as the generator wrote it; compiled lazily.
    pub const fn new(source: &'static str) -> Self {
        Pattern {
            source,
            compiled: OnceLock::new(),
        }
    }

    fn regex(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| Regex::new(self.source).ok())
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

    /// The value is greater than `min`.
    pub fn exclusive_minimum(&mut self, param: &str, rule: &str, value: f64, min: f64) {
        if value.is_nan() || value <= min {
            self.push(
                param,
                rule,
                format!("is {value}, must be greater than {min}"),
            );
        }
    }

    /// The value is less than `max`.
    pub fn exclusive_maximum(&mut self, param: &str, rule: &str, value: f64, max: f64) {
        if value.is_nan() || value >= max {
            self.push(param, rule, format!("is {value}, must be less than {max}"));
        }
    }

    /// The value is a whole multiple of `step` (within floating-point rounding, so that
    /// `0.3` is a multiple of `0.1`).
    pub fn multiple_of(&mut self, param: &str, rule: &str, value: f64, step: f64) {
        let q = value / step;
        if !q.is_finite() || (q - q.round()).abs() > 1e-9 * q.abs().max(1.0) {
            self.push(param, rule, format!("is {value}, not a multiple of {step}"));
        }
    }

    /// The value, when it is a list, has at least `min` items.
    pub fn min_items(&mut self, param: &str, rule: &str, value: &serde_json::Value, min: usize) {
        if let Some(n) = value.as_array().map(Vec::len).filter(|n| *n < min) {
            self.push(param, rule, format!("has {n} items, needs at least {min}"));
        }
    }

    /// The value, when it is a list, has at most `max` items.
    pub fn max_items(&mut self, param: &str, rule: &str, value: &serde_json::Value, max: usize) {
        if let Some(n) = value.as_array().map(Vec::len).filter(|n| *n > max) {
            self.push(param, rule, format!("has {n} items, takes at most {max}"));
        }
    }

    /// The value matches the pattern.
    pub fn pattern(&mut self, param: &str, rule: &str, value: &str, pattern: &Pattern) {
        match pattern.regex() {
            Some(re) => self.matches(param, rule, value, re),
            None => self.push(
                param,
                rule,
                format!("the pattern /{}/ does not compile", pattern.source),
            ),
        }
    }

    /// The value matches a compiled pattern (the request check's, compiled when the record was
    /// read).
    fn matches(&mut self, param: &str, rule: &str, value: &str, re: &Regex) {
        if !re.is_match(value) {
            self.push(
                param,
                rule,
                format!("{value:?} does not match /{}/", re.as_str()),
            );
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

/// A parameter value read as its declared type.
enum Typed<'a> {
    Text(&'a str),
    Number(f64),
    /// An input the record does not type (lists among them).
    Json(&'a serde_json::Value),
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
        (ParamTy::Any, v) => Some(Typed::Json(v)),
        (ParamTy::Boolean, Value::Bool(_)) => Some(Typed::Other),
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
        (Rule::Pattern(p), Typed::Text(s)) => v.matches(param, text, s, p.regex()),
        (Rule::OneOf(values), Typed::Text(s)) => {
            let allowed: Vec<&str> = values.iter().map(String::as_str).collect();
            v.one_of(param, text, s, &allowed);
        }
        (Rule::ExclusiveMinimum(m), Typed::Number(x)) => v.exclusive_minimum(param, text, *x, *m),
        (Rule::ExclusiveMaximum(m), Typed::Number(x)) => v.exclusive_maximum(param, text, *x, *m),
        (Rule::MultipleOf(m), Typed::Number(x)) => v.multiple_of(param, text, *x, *m),
        (Rule::MinItems(n), Typed::Json(j)) => v.min_items(param, text, j, *n),
        (Rule::MaxItems(n), Typed::Json(j)) => v.max_items(param, text, j, *n),
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

pub use agents_schema::diag::json_kind;

pub use agents_schema::inputs::{COMMON_PARAMS, LOCALIZATION_PARAMS};

/// What kind of problem a request has; the kind decides the service's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProblemKind {
    /// `params` is not a JSON object.
    NotAnObject,
    /// Not the shape the service reads, outside an agent's params: a body that is not JSON, a
    /// list where an object belongs, a list that is empty or too long, a URL that does not parse.
    Malformed,
    /// A required input is missing.
    Missing,
    /// A value is not of its input's (or common param's) type.
    WrongType,
    /// A value breaks one of its input's rules (or is not a country code).
    Rule,
    /// A localization input (or `localization`) on an agent that is not localized.
    NotLocalized,
    /// A localization input without `localization` on.
    LocalizationRequired,
    /// `localization` is neither a boolean nor an object.
    BadLocalization,
}

impl ProblemKind {
    /// The status the service answers a request with this problem: 400 when the request is
    /// malformed or incomplete, 422 when a value is refused. The one place that decides, for
    /// agent params and (in the emulator) every other field of every endpoint.
    pub fn status(self) -> u16 {
        match self {
            ProblemKind::NotAnObject
            | ProblemKind::Malformed
            | ProblemKind::Missing
            | ProblemKind::LocalizationRequired => 400,
            ProblemKind::WrongType
            | ProblemKind::Rule
            | ProblemKind::NotLocalized
            | ProblemKind::BadLocalization => 422,
        }
    }
}

/// One problem of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What is wrong.
    pub kind: ProblemKind,
    /// The param at fault (its JSON name), `localization`, or empty for `params` itself.
    pub param: String,
    /// The rule as the record states it, for broken rules.
    pub rule: Option<String>,
    /// What is wrong, for people.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Every problem of one agent request, in the order of the record's inputs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("agent `{agent}`: {}", self.problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
pub struct RequestProblems {
    /// The agent.
    pub agent: String,
    /// Every problem found (never empty).
    pub problems: Vec<Problem>,
}

impl RequestProblems {
    /// The status the service answers with: 400 when any problem is a malformed or incomplete
    /// request, else 422.
    pub fn status(&self) -> u16 {
        self.problems
            .iter()
            .map(|p| p.kind.status())
            .find(|s| *s == 400)
            .unwrap_or(422)
    }
}

/// How a request's `localization` is known.
#[derive(Debug, Clone, Copy)]
pub enum Localization<'a> {
    /// The client sends it when the params localize (the runtime and the CLI do).
    Derived,
    /// As the request carries it (the emulator reads it).
    Sent(Option<&'a serde_json::Value>),
}

/// Checks one agent request against `record`, collecting every problem: `params` being an
/// object, required inputs, each value's type and rules (as generated `validate()` applies
/// them), the common params ([`COMMON_PARAMS`], `country` a two-letter code), and localization
/// (inputs such as `zip_code` only on localized agents; with [`Localization::Sent`], also
/// `localization` on when they are given).
///
/// The one request check of the runtime's raw paths, the CLI and the emulator.
pub fn check_request(
    record: &agents_schema::AgentRecord,
    params: &serde_json::Value,
    localization: Localization<'_>,
) -> Result<(), RequestProblems> {
    use serde_json::Value;

    let mut problems = Vec::new();
    let mut push = |kind, param: &str, rule: Option<String>, message: String| {
        problems.push(Problem {
            kind,
            param: param.to_owned(),
            rule,
            message,
        });
    };
    let fail = |problems: Vec<Problem>| {
        if problems.is_empty() {
            Ok(())
        } else {
            Err(RequestProblems {
                agent: record.name.clone(),
                problems,
            })
        }
    };
    let Some(map) = params.as_object() else {
        push(
            ProblemKind::NotAnObject,
            "",
            None,
            format!("params must be a JSON object, not {}", json_kind(params)),
        );
        return fail(problems);
    };

    let page = record.pagination_param().map(|p| p.name.as_str());
    for input in record.inputs() {
        let is_page = page == Some(input.name.as_str());
        if input.required && !is_page && map.get(&input.name).is_none_or(Value::is_null) {
            push(
                ProblemKind::Missing,
                &input.name,
                None,
                format!(
                    "missing required parameter `{}` of agent `{}`",
                    input.name, record.name
                ),
            );
        }
    }

    // Types and rules of the declared inputs, every one of them.
    let mut violations = Violations::new(record.name.clone());
    {
        use agents_schema::inputs::param_type;
        for input in record.inputs() {
            let Some(value) = map.get(&input.name).filter(|v| !v.is_null()) else {
                continue;
            };
            let (ty, _) = param_type(input, page == Some(input.name.as_str()));
            let Some(typed) = typed_value(ty, value) else {
                push(
                    ProblemKind::WrongType,
                    &input.name,
                    None,
                    WrongType {
                        param: input.name.clone(),
                        expected: expected(ty),
                        found: json_kind(value),
                    }
                    .to_string(),
                );
                continue;
            };
            for rule in &input.rules {
                if let Ok(checked) = rule.check(ty) {
                    apply(&mut violations, &input.name, &rule.text, checked, &typed);
                }
            }
        }
    }
    let declared = |name: &str| record.inputs().iter().any(|i| i.name == name);
    for (name, ty) in COMMON_PARAMS {
        if declared(name) {
            continue;
        }
        match (map.get(name), ty) {
            (None | Some(Value::Null), _) => {}
            (Some(Value::String(s)), agents_schema::inputs::ParamTy::String) => {
                if name == "country" {
                    violations.country_code(name, s);
                }
            }
            (Some(Value::Bool(_)), agents_schema::inputs::ParamTy::Boolean) => {}
            (Some(v), ty) => push(
                ProblemKind::WrongType,
                name,
                None,
                format!(
                    "parameter `{name}` must be {}, not {}",
                    expected(ty),
                    json_kind(v)
                ),
            ),
        }
    }
    if let Err(e) = violations.finish() {
        for v in e.violations {
            let message = v.to_string();
            push(ProblemKind::Rule, &v.param, Some(v.rule), message);
        }
    }

    let localizing: Vec<&str> = map
        .iter()
        .filter(|(k, v)| {
            !v.is_null()
                && (LOCALIZATION_PARAMS.contains(&k.as_str())
                    || record
                        .inputs()
                        .iter()
                        .any(|i| i.is_localization_param && i.name == **k))
        })
        .map(|(k, _)| k.as_str())
        .collect();
    let sent = match localization {
        Localization::Derived => None,
        Localization::Sent(v) => Some(v),
    };
    let on = matches!(sent, Some(Some(Value::Bool(true) | Value::Object(_))));
    if !record.supports_localization() {
        for k in &localizing {
            push(
                ProblemKind::NotLocalized,
                k,
                None,
                format!(
                    "agent `{}` is not localized (it does not support localization), so `{k}` \
                     is not accepted",
                    record.name
                ),
            );
        }
        if localizing.is_empty() && on {
            push(
                ProblemKind::NotLocalized,
                "localization",
                None,
                format!("agent `{}` does not support localization", record.name),
            );
        }
    } else if let (Some(k), Some(_)) = (localizing.first(), sent)
        && !on
    {
        push(
            ProblemKind::LocalizationRequired,
            "localization",
            None,
            format!("localization is required when params contains `{k}`"),
        );
    }
    if let Some(Some(v)) = sent
        && !matches!(v, Value::Bool(_) | Value::Object(_) | Value::Null)
    {
        push(
            ProblemKind::BadLocalization,
            "localization",
            None,
            format!(
                "localization must be a boolean or an object, not {}",
                json_kind(v)
            ),
        );
    }
    fail(problems)
}
