//! Problems found in agent records, each naming the file (when read from one), the agent and the
//! JSON path, collected and reported together.

use std::fmt;
use std::path::PathBuf;

/// How serious a [`Diagnostic`] is; serialized as `"error"` or `"warning"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The bindings would be wrong: nothing is generated.
    #[default]
    Error,
    /// The generator handled it (a check left out, a value kept as raw JSON) and still
    /// generates; front doors print it as a warning.
    Warning,
}

/// Where a problem was found: file (when read from one), agent, JSON path. Serialized with
/// its fields' names (`file` and `agent` `null` when unknown), as `cargo agents --json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// The schema file, when the record was read from one.
    pub file: Option<PathBuf>,
    /// The agent name, when known.
    pub agent: Option<String>,
    /// JSON path inside the record (`$` for the whole file), with line and column for syntax
    /// errors.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// An error (the default) or a warning.
    pub severity: Severity,
}

impl Diagnostic {
    /// A problem of `agent` at JSON `path`.
    pub fn new(agent: &str, path: &str, message: &str) -> Self {
        Diagnostic::at(path, message).agent(agent)
    }

    /// A problem at `path` (a JSON path, or the name of the setting at fault), of no agent yet.
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            file: None,
            agent: None,
            path: path.into(),
            message: message.into(),
            severity: Severity::Error,
        }
    }

    /// The same problem as a warning: the generator handled it.
    #[must_use]
    pub fn warning(mut self) -> Self {
        self.severity = Severity::Warning;
        self
    }

    /// Names the agent.
    #[must_use]
    pub fn agent(mut self, agent: impl Into<String>) -> Self {
        self.agent = Some(agent.into());
        self
    }

    /// Names the file.
    #[must_use]
    pub fn file(mut self, file: impl Into<PathBuf>) -> Self {
        self.file = Some(file.into());
        self
    }

    /// Names `file`, the JSON Schema document the record's `field` (`output_schema`,
    /// `input_schema`) was read from, when the problem's pointer is in that document, read from
    /// the document's root: `output_schema#/properties/price` becomes `#/properties/price` of
    /// `file`. `Err` hands the problem back unchanged when its pointer is elsewhere.
    pub fn in_document(self, field: &str, file: impl Into<PathBuf>) -> Result<Self, Self> {
        match self
            .path
            .strip_prefix(field)
            .filter(|rest| rest.starts_with('#'))
        {
            Some(pointer) => Ok(Diagnostic {
                path: pointer.to_owned(),
                ..self
            }
            .file(file)),
            None => Err(self),
        }
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}

/// Collects problems while a stage goes on, so that every one is reported, not only the first
/// (as serde_derive's `Ctxt`).
///
/// Its problems reach the caller only through [`Collector::finish`]: a collector dropped without
/// it would lose them silently, so that is a bug of the stage, caught in debug builds (as
/// serde_derive's `Ctxt` catches it).
#[derive(Debug, Default)]
#[must_use = "the problems collected reach the caller only through `finish`"]
pub struct Collector {
    found: Vec<Diagnostic>,
    finished: bool,
}

impl Drop for Collector {
    fn drop(&mut self) {
        debug_assert!(
            self.finished || self.found.is_empty() || std::thread::panicking(),
            "a diagnostics Collector holding {} problem(s) was dropped without `finish`",
            self.found.len()
        );
    }
}

impl Collector {
    /// Records a problem.
    pub fn push(&mut self, d: Diagnostic) {
        self.found.push(d);
    }

    /// Records every problem of a failed step, or hands back what it made.
    pub fn take<T>(&mut self, result: Result<T, Diagnostics>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(Diagnostics(d)) => {
                self.found.extend(d);
                None
            }
        }
    }

    /// [`Collector::finish`] for a stage that also found `warnings`: `value` made with them
    /// (each marked a warning) when no error was recorded; else every error followed by the
    /// warnings, so that one report says everything the stage found.
    pub fn finish_warned<T>(
        mut self,
        warnings: Vec<Diagnostic>,
        value: impl FnOnce(Vec<Diagnostic>) -> T,
    ) -> Result<T, Diagnostics> {
        let warnings = warnings.into_iter().map(Diagnostic::warning);
        if self.found.is_empty() {
            self.finish(value(warnings.collect()))
        } else {
            self.found.extend(warnings);
            self.finish(value(Vec::new()))
        }
    }

    /// `value` when nothing was recorded, else every problem.
    pub fn finish<T>(mut self, value: T) -> Result<T, Diagnostics> {
        self.finished = true;
        let found = std::mem::take(&mut self.found);
        if found.is_empty() {
            Ok(value)
        } else {
            Err(Diagnostics(found))
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", file.display())?;
        }
        if let Some(agent) = &self.agent {
            write!(f, "agent `{agent}`: ")?;
        }
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Every problem found in one run of the generator.
///
/// Its `Debug` form is its `Display` form, so that a build script's
/// `fn main() -> Result<(), Diagnostics>` prints readable lines, one per problem.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Debug for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let warnings = self.0.iter().filter(|d| d.severity == Severity::Warning);
        match (self.0.as_slice(), warnings.count()) {
            ([one], 0) => write!(f, "{one}"),
            (many, 0) => {
                write!(f, "{} problems in agent schemas:", many.len())?;
                for d in many {
                    write!(f, "\n  - {d}")?;
                }
                Ok(())
            }
            (all, warnings) => {
                let errors = all.len() - warnings;
                let plural = |n: usize| if n == 1 { "" } else { "s" };
                write!(
                    f,
                    "{errors} problem{} in agent schemas, and {warnings} warning{}:",
                    plural(errors),
                    plural(warnings)
                )?;
                for d in all {
                    match d.severity {
                        Severity::Error => write!(f, "\n  - {d}")?,
                        Severity::Warning => write!(f, "\n  - warning: {d}")?,
                    }
                }
                Ok(())
            }
        }
    }
}

/// The JSON kind of a value, for messages (`a string`, `an object`, `null`).
pub use agents_wire::json::kind as json_kind;

#[cfg(test)]
mod collector_tests {
    use super::*;

    #[test]
    fn finish_hands_back_every_problem() {
        let mut c = Collector::default();
        c.push(Diagnostic::at("$.a", "one"));
        assert!(
            c.take::<()>(Err(Diagnostics(vec![Diagnostic::at("$.b", "two")])))
                .is_none()
        );
        let found = c.finish(()).unwrap_err();
        assert_eq!(found.0.len(), 2);
        Collector::default()
            .finish(())
            .unwrap_or_else(|_| unreachable!());
    }

    #[test]
    fn warnings_come_with_the_errors_of_their_stage_or_with_its_value() {
        let warned = || vec![Diagnostic::at("$.w", "kept as raw JSON")];
        let mut failed = Collector::default();
        failed.push(Diagnostic::at("$.e", "no value has this type"));
        let found = failed.finish_warned(warned(), |w| w).unwrap_err();
        assert_eq!(
            found.to_string(),
            "1 problem in agent schemas, and 1 warning:\n  - $.e: no value has this type\n  \
             - warning: $.w: kept as raw JSON"
        );
        let made = Collector::default().finish_warned(warned(), |w| w).unwrap();
        assert_eq!(made, [Diagnostic::at("$.w", "kept as raw JSON").warning()]);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "dropped without `finish`")]
    fn dropping_problems_unfinished_is_caught() {
        let mut c = Collector::default();
        c.push(Diagnostic::at("$", "lost"));
        drop(c);
    }
}
