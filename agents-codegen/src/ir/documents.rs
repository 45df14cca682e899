//! Compiling a record's JSON Schema documents (the output schema a record carries, the input
//! document `validate()` judges by): the references read, where each problem is said, and the
//! text a generated item holds.

use std::collections::BTreeMap;

use crate::docs;
use agents_schema::diag::Diagnostic;

/// The options that compile a record's documents: references under a prefix of `documents` are
/// read from its directory.
pub(super) fn check_options(
    documents: &BTreeMap<String, std::path::PathBuf>,
) -> agents_check::Options {
    let mut options = agents_check::Options::new();
    for (prefix, dir) in documents {
        options = options.directory(prefix.clone(), dir.clone());
    }
    options
}

/// A problem found compiling agent `agent`'s document `doc` (`output_schema`), said as
/// `message`: placed in the file a reference read (or under its URI), where the user goes to
/// fix it, else at its pointer in the document.
pub(super) fn placed(
    agent: &str,
    problem: &agents_check::Problem,
    doc: &str,
    message: &str,
) -> Diagnostic {
    match (&problem.file, &problem.document) {
        (Some(file), _) => {
            Diagnostic::new(agent, &format!("#{}", problem.pointer), message).file(file)
        }
        (None, Some(uri)) => Diagnostic::new(agent, &format!("{uri}#{}", problem.pointer), message),
        (None, None) => Diagnostic::new(agent, &format!("{doc}#{}", problem.pointer), message),
    }
}

/// A JSON Schema document `schema`, pretty-printed (it is read in generated files), with
/// control and bidirectional characters written as `\u` escapes: the same JSON, and rustc
/// refuses them in a literal. A raw newline in pretty JSON is always between tokens (serde_json
/// escapes the ones inside strings), so it stays.
pub(super) fn schema_text(schema: &agents_schema::Json) -> String {
    let text = schema.to_pretty();
    // In ASCII text the only hazards are control characters (a byte test is enough).
    let safe = if text.is_ascii() {
        !text.bytes().any(|b| (b < b' ' && b != b'\n') || b == 0x7f)
    } else {
        !text.chars().any(|c| c != '\n' && docs::is_hazard(c))
    };
    if safe {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c != '\n' && docs::is_hazard(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}
