//! Reading agent records from schema files: one file per agent, named after it
//! (`NAME.json`: a `/v1` agent record or a `/v2` template record, told apart by shape), or a
//! pair of JSON Schema documents a user wrote: `NAME.output.schema.json` (the record the agent
//! returns; its `title` and `description` document the generated type) and, beside it,
//! `NAME.input.schema.json` (the agent's inputs; when it is missing the agent takes only the
//! params every agent takes).

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

impl Loaded {
    /// Names the file a problem of this record's text is in, when it names none: this record's
    /// file, or for a pair of schema documents the one the problem's pointer is in, with the
    /// pointer then read from that document's root (`output_schema#/properties/price` of
    /// `shop.output.schema.json` becomes `#/properties/price`). A problem of another agent, or
    /// of a setting (`rename`, `localized`) rather than of the text, is left as it is.
    pub fn place(&self, d: Diagnostic) -> Diagnostic {
        let in_text = d.path.starts_with('$') || d.path.contains('#');
        if d.file.is_some() || d.agent.as_deref() != Some(self.record.name.as_str()) || !in_text {
            return d;
        }
        let is_pair = self
            .path
            .file_name()
            .and_then(|f| f.to_str())
            .is_some_and(|f| f.ends_with(OUTPUT_SUFFIX));
        if !is_pair {
            return d.file(&self.path);
        }
        let input = self
            .path
            .with_file_name(format!("{}{INPUT_SUFFIX}", self.record.name));
        d.in_document("output_schema", &self.path)
            .or_else(|d| d.in_document("input_schema", input))
            .unwrap_or_else(|d| d.file(&self.path))
    }
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

/// The text of a JSON file a user wrote, without the byte order mark an editor may have saved
/// before it (`agents_wire::json::text_without_bom`).
pub fn read_text(path: &Path) -> io::Result<String> {
    let text = fs::read_to_string(path)?;
    Ok(match agents_wire::json::text_without_bom(&text) {
        rest if rest.len() < text.len() => rest.to_owned(),
        _ => text,
    })
}

fn io_diagnostic(path: &Path, err: &io::Error) -> Diagnostic {
    Diagnostic::at("$", format!("cannot read: {err}")).file(path)
}

/// The suffix of a user's output schema file.
pub const OUTPUT_SUFFIX: &str = ".output.schema.json";
/// The suffix of a user's input schema file.
pub const INPUT_SUFFIX: &str = ".input.schema.json";

/// The agent a schema file is for: `NAME` of `NAME.json`, `NAME.output.schema.json` or
/// `NAME.input.schema.json`.
pub fn agent_name(path: &Path) -> Option<String> {
    let file = path.file_name()?.to_str()?;
    [OUTPUT_SUFFIX, INPUT_SUFFIX, ".json"]
        .iter()
        .find_map(|suffix| file.strip_suffix(suffix))
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
}

/// The file in `dir` that holds agent `name`'s schema: `NAME.json` (a service record), else
/// `NAME.output.schema.json` (a user's JSON Schema file); `None` when neither exists.
pub fn schema_file(dir: &Path, name: &str) -> Option<PathBuf> {
    [format!("{name}.json"), format!("{name}{OUTPUT_SUFFIX}")]
        .into_iter()
        .map(|f| dir.join(f))
        .find(|f| f.is_file())
}

/// Reads one schema file. A file is named after the agent whose record it holds
/// (`retailer_a_pdp.json`), since agents are found by file name: a record of another name is an
/// error naming both. `NAME.output.schema.json` is read with the `NAME.input.schema.json` beside
/// it.
pub fn load_file(path: &Path) -> Result<Loaded, Diagnostics> {
    let file = path
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or_default();
    if file.ends_with(INPUT_SUFFIX) {
        let name = agent_name(path).unwrap_or_default();
        return Err(Diagnostic::at(
            "$",
            format!(
                "an input schema is read with its output schema: load `{name}{OUTPUT_SUFFIX}`, \
                 which every agent written as JSON Schema needs"
            ),
        )
        .file(path)
        .into());
    }
    if file.ends_with(OUTPUT_SUFFIX) {
        return load_pair(path);
    }
    let text = read_text(path).map_err(|e| io_diagnostic(path, &e))?;
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

/// One file of a pair, parsed: its text and value, or a syntax error naming the file.
fn read_json(path: &Path, name: &str) -> Result<(String, serde_json::Value), Diagnostics> {
    let text = read_text(path).map_err(|e| io_diagnostic(path, &e))?;
    let value = serde_json::from_str(&text).map_err(|e| {
        Diagnostic::at(
            format!("line {}, column {}", e.line(), e.column()),
            format!("invalid JSON: {e}"),
        )
        .file(path)
        .agent(name)
    })?;
    Ok((text, value))
}

/// `NAME.output.schema.json` and, when there is one, `NAME.input.schema.json`, read as the
/// version record of a template named `NAME` (so the order of properties is kept); each
/// problem names the file it is in.
fn load_pair(output_path: &Path) -> Result<Loaded, Diagnostics> {
    let name = agent_name(output_path).unwrap_or_default();
    let input_path = output_path.with_file_name(format!("{name}{INPUT_SUFFIX}"));
    let mut found = Collector::default();
    let output = found.take(read_json(output_path, &name));
    let input_text = if input_path.is_file() {
        found
            .take(read_json(&input_path, &name))
            .map(|(text, _)| text)
    } else {
        Some(r#"{"type": "object", "properties": {}}"#.to_owned())
    };
    found.finish(())?;
    let (Some((output_text, output)), Some(input_text)) = (output, input_text) else {
        // Both reads succeeded when `found` holds nothing.
        return Err(Diagnostic::at("$", "the schema files could not be read")
            .file(output_path)
            .into());
    };
    let text_of = |key: &str| output.get(key).and_then(serde_json::Value::as_str);
    let metadata = serde_json::json!({
        "display_name": text_of("title"),
        "description": text_of("description"),
    });
    // The two documents go into one version record as they are written, so that the order of
    // their properties is the order of the generated fields.
    let composed = format!(
        "{{\"name\": {}, \"metadata\": {metadata}, \"input_schema\": {input_text}, \"output_schema\": {output_text}}}",
        serde_json::Value::String(name.clone())
    );
    let record = AgentRecord::from_json(&composed).map_err(|e| match e {
        RecordError::Invalid(errors) => Diagnostics(
            errors
                .into_iter()
                .map(|e| {
                    let (file, path) = match (
                        e.path.strip_prefix("$.output_schema"),
                        e.path.strip_prefix("$.input_schema"),
                    ) {
                        (Some(rest), _) => (output_path, format!("${rest}")),
                        (_, Some(rest)) => (input_path.as_path(), format!("${rest}")),
                        _ => (output_path, e.path),
                    };
                    Diagnostic::at(path, e.message).file(file).agent(&name)
                })
                .collect(),
        ),
        other => Diagnostics(diagnostics(output_path, other)),
    })?;
    Ok(Loaded {
        path: output_path.to_owned(),
        record,
    })
}

/// The schema files of a directory, one per agent, sorted by name: `NAME.json`, and
/// `NAME.output.schema.json` for agents written as JSON Schema (their `NAME.input.schema.json`
/// is read with it). An input schema without its output schema is an error naming it: the
/// agent it was written for would otherwise be left out without a word (an output file named
/// `shop.output.json`, say).
pub fn schema_files(dir: &Path) -> Result<Vec<PathBuf>, Diagnostics> {
    let entries = fs::read_dir(dir).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => Diagnostic::at("$", "no such directory").file(dir),
        _ => io_diagnostic(dir, &e),
    })?;
    let mut files = Vec::new();
    let mut inputs = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| io_diagnostic(dir, &e))?;
        let path = entry.path();
        let name = path
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or_default();
        if !name.ends_with(".json") || !path.is_file() {
            continue;
        }
        if name.ends_with(INPUT_SUFFIX) {
            inputs.push(path);
        } else {
            files.push(path);
        }
    }
    files.sort();
    inputs.sort();
    let alone: Vec<Diagnostic> = inputs
        .iter()
        .filter_map(|input| {
            let name = agent_name(input)?;
            let output = dir.join(format!("{name}{OUTPUT_SUFFIX}"));
            (!files.contains(&output)).then(|| {
                Diagnostic::at(
                    "$",
                    format!(
                        "an input schema without its output schema: agent `{name}` needs \
                         `{name}{OUTPUT_SUFFIX}` beside it (rename the output file so, or \
                         remove this one)"
                    ),
                )
                .file(input)
                .agent(&name)
            })
        })
        .collect();
    if alone.is_empty() {
        Ok(files)
    } else {
        Err(Diagnostics(alone))
    }
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
