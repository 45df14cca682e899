//! Reading agent records from schema files: one file per agent, named after it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::diag::{Collector, Diagnostic, Diagnostics};
use crate::{AgentRecord, RecordError};

/// A record and the file it was read from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The schema file.
    pub path: PathBuf,
    /// The record in it.
    pub record: AgentRecord,
}

fn diagnostics(path: &Path, err: RecordError) -> Vec<Diagnostic> {
    let agent = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    match err {
        RecordError::Syntax {
            line,
            column,
            message,
        } => {
            let d = Diagnostic::at(
                format!("line {line}, column {column}"),
                format!("invalid JSON: {message}"),
            )
            .file(path);
            vec![match agent {
                Some(a) => d.agent(a),
                None => d,
            }]
        }
        RecordError::Invalid(errors) => errors
            .into_iter()
            .map(|e| {
                let d = Diagnostic::at(e.path, e.message).file(path);
                match &agent {
                    Some(a) => d.agent(a.clone()),
                    None => d,
                }
            })
            .collect(),
    }
}

fn io_diagnostic(path: &Path, err: &io::Error) -> Diagnostic {
    Diagnostic::at("$", format!("cannot read: {err}")).file(path)
}

/// Reads one schema file. A file is named after the agent whose record it holds
/// (`retailer_a_pdp.json`), since agents are found by file name: a record of another name is an
/// error naming both.
pub fn load_file(path: &Path) -> Result<Loaded, Diagnostics> {
    let text = fs::read_to_string(path).map_err(|e| io_diagnostic(path, &e))?;
    let record = AgentRecord::from_json(&text).map_err(|e| Diagnostics(diagnostics(path, e)))?;
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    if let Some(stem) = stem.filter(|s| *s != record.name) {
        let message = format!(
            "the file is named for agent `{stem}` but holds the record of agent `{}`; rename the \
             file to `{}.json`, or fetch `{stem}` with `cargo agents fetch {stem}`",
            record.name, record.name
        );
        let d = Diagnostic::at("$.name", message)
            .file(path)
            .agent(&record.name);
        return Err(d.into());
    }
    Ok(Loaded {
        path: path.to_owned(),
        record,
    })
}

/// The `*.json` files of a directory, sorted by name.
pub fn schema_files(dir: &Path) -> Result<Vec<PathBuf>, Diagnostics> {
    let entries = fs::read_dir(dir).map_err(|e| io_diagnostic(dir, &e))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| io_diagnostic(dir, &e))?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "json") && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Reads every `*.json` file of `dir` (sorted by name); problems of all files are reported
/// together.
pub fn load_dir(dir: &Path) -> Result<Vec<Loaded>, Diagnostics> {
    let mut found = Collector::default();
    let mut loaded = Vec::new();
    for path in schema_files(dir)? {
        loaded.extend(found.take(load_file(&path)));
    }
    found.finish(loaded)
}
