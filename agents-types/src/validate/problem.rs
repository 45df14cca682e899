//! What kind of problem a request has, and the one place that decides which status it earns
//! (400 or 422), for agent params and, in the emulator, every other field of every endpoint.

use std::fmt;

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
