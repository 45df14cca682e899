//! What reading a record reports: every problem with its JSON path, and the paths themselves.

use std::fmt;

use serde_json::Value;

/// Why an agent record could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecordError {
    /// The text is not JSON.
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Syntax {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What the JSON parser said.
        message: String,
    },
    /// The JSON does not have the shape of an agent record; every problem found is listed.
    #[error("{}", ErrorList(.0))]
    Invalid(Vec<FieldError>),
}

/// One problem in a record, at a JSON path such as `$.output_schema.price.type`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct FieldError {
    /// JSON path of the value at fault.
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

struct ErrorList<'a>(&'a [FieldError]);

impl fmt::Display for ErrorList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

/// Appends `key` to a JSON path, quoting keys that are not plain identifiers.
pub fn join_path(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_owned()))
    }
}
