//! Problems found in agent records, each naming the file (when read from one), the agent and the
//! JSON path, collected and reported together.

use std::fmt;
use std::path::PathBuf;

/// Where a problem was found: file (when read from one), agent, JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
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
}

impl Diagnostic {
    /// A problem of `agent` at JSON `path`.
    pub fn new(agent: &str, path: &str, message: &str) -> Self {
        Diagnostic {
            file: None,
            agent: Some(agent.to_owned()),
            path: path.to_owned(),
            message: message.to_owned(),
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
        match self.0.as_slice() {
            [one] => write!(f, "{one}"),
            many => {
                write!(f, "{} problems in agent schemas:", many.len())?;
                for d in many {
                    write!(f, "\n  - {d}")?;
                }
                Ok(())
            }
        }
    }
}
