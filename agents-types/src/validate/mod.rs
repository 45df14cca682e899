//! Checking agent parameters against the rules of their input properties before anything is
//! sent. Generated `validate()` methods call [`Violations`] (this file) and judge the keywords
//! no typed rule covers by the input schema ([`InputSchema`], `judged.rs`); the request check of
//! raw requests, the CLI and the emulator reads an agent record (`request.rs`, feature
//! `records`); what status a problem earns is `problem.rs`'s.

use std::fmt;
use std::sync::OnceLock;

use agents_check::Pattern as Compiled;

/// One rule an input parameter broke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON name of the parameter at fault; empty for a rule of the params as a whole.
    pub param: String,
    /// The rule, as the agent record states it.
    pub rule: String,
    /// What was wrong with the value.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.param.is_empty() {
            // A rule of the params as a whole (the input schema's `dependentRequired`, …).
            return write!(f, "params break rule \"{}\": {}", self.rule, self.message);
        }
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

/// A regular expression of a generated `validate()`, compiled once on first use by the engine
/// the decoder's checks use.
pub struct Pattern {
    source: &'static str,
    compiled: OnceLock<Option<Compiled>>,
}

impl Pattern {
    /// A pattern as the generator wrote it; compiled lazily.
    pub const fn new(source: &'static str) -> Self {
        Pattern {
            source,
            compiled: OnceLock::new(),
        }
    }

    fn compiled(&self) -> Option<&Compiled> {
        self.compiled
            .get_or_init(|| Compiled::new(self.source))
            .as_ref()
    }
}

/// Collects broken rules while a generated `validate()` walks the parameters.
#[derive(Debug)]
pub struct Violations {
    agent: String,
    found: Vec<Violation>,
}

/// What the item-count rules read: a list input's number of items. A typed list (`Vec<T>`)
/// always has one; a JSON value has one when it is a list.
pub trait Items {
    /// The number of items, or `None` when the value is not a list.
    fn items(&self) -> Option<usize>;
}

impl Items for serde_json::Value {
    fn items(&self) -> Option<usize> {
        self.as_array().map(Vec::len)
    }
}

impl<T> Items for [T] {
    fn items(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<T: Items + ?Sized> Items for &T {
    fn items(&self) -> Option<usize> {
        (**self).items()
    }
}

impl<T> Items for Vec<T> {
    fn items(&self) -> Option<usize> {
        Some(self.len())
    }
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
    pub fn min_items(
        &mut self,
        param: &str,
        rule: &str,
        value: &(impl Items + ?Sized),
        min: usize,
    ) {
        if let Some(n) = value.items().filter(|n| *n < min) {
            self.push(param, rule, format!("has {n} items, needs at least {min}"));
        }
    }

    /// The value, when it is a list, has at most `max` items.
    pub fn max_items(
        &mut self,
        param: &str,
        rule: &str,
        value: &(impl Items + ?Sized),
        max: usize,
    ) {
        if let Some(n) = value.items().filter(|n| *n > max) {
            self.push(param, rule, format!("has {n} items, takes at most {max}"));
        }
    }

    /// The value matches the pattern.
    pub fn pattern(&mut self, param: &str, rule: &str, value: &str, pattern: &Pattern) {
        match pattern.compiled() {
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
    pub(crate) fn matches(&mut self, param: &str, rule: &str, value: &str, re: &Compiled) {
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

    /// A value given with `.param(param, …)` for an input the agent declares: the value read
    /// as the input's type (the one `typed`, its setter or constructor, takes), or `None` with
    /// the violation recorded. `set` says the input is also set by its setter (or is required):
    /// one of the two would be lost, so that is a violation too.
    pub fn given<T>(
        &mut self,
        param: &str,
        typed: &str,
        set: bool,
        given: &serde_json::Value,
    ) -> Option<T>
    where
        T: serde::de::DeserializeOwned,
    {
        if set {
            self.push(
                param,
                "set once",
                format!(
                    "`{param}` is given by `.param(\"{param}\", …)` and set by its setter or \
                     constructor as well; set it once, with `{typed}`"
                ),
            );
        }
        match T::deserialize(given) {
            Ok(value) => Some(value),
            Err(e) => {
                self.push(
                    param,
                    "type",
                    format!(
                        "{given} given by `.param(\"{param}\", …)` is not what the input takes \
                         ({e}); use `{typed}`, which takes the input's type"
                    ),
                );
                None
            }
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

mod judged;
mod problem;
#[cfg(feature = "records")]
mod request;

/// The JSON kind of a value, for messages (`a string`, `an object`, `null`).
pub use agents_wire::json::kind as json_kind;
pub use judged::InputSchema;
pub use problem::{Problem, ProblemKind, RequestProblems};
#[cfg(feature = "records")]
pub use request::{
    COMMON_PARAMS, LOCALIZATION_PARAMS, Localization, RequestCheck, WrongType, check_request,
    expected,
};
