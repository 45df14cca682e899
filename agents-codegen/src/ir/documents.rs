//! Compiling a record's JSON Schema documents (the output schema a record carries, the input
//! document `validate()` judges by): the references read, and where each problem is said.

use std::collections::BTreeMap;

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
