//! What the suite tests share: where the official JSON-Schema-Test-Suite is (draft 2020-12,
//! required tests; `tests/json-schema-test-suite/` in the workspace, MIT, its LICENSE beside it)
//! and its remote documents.
#![allow(clippy::unwrap_used, dead_code)] // test helpers outside #[test] fns; each test uses some

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The suite's directory.
pub fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/json-schema-test-suite")
}

/// The copy of the suite's drafts 4, 6, 7 and 2019-09 (another version of the suite, whose
/// `remotes/` are laid out differently).
pub fn older_drafts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/json-schema-test-suite-drafts")
}

/// The suite's test files for draft 2020-12, in name order.
pub fn test_files() -> Vec<PathBuf> {
    files_in(&suite().join("tests/draft2020-12"))
}

/// The files of `dir`, in name order.
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// Every file of `remotes/`, by the URI the suite serves it at.
pub fn remotes() -> HashMap<String, Value> {
    remotes_of(&suite())
}

/// Every file of `remotes/` under the suite copy `suite`, by the URI the suite serves it at.
pub fn remotes_of(suite: &Path) -> HashMap<String, Value> {
    fn walk(dir: &Path, root: &Path, out: &mut HashMap<String, Value>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "json") {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                let text = std::fs::read_to_string(&path).unwrap();
                out.insert(
                    format!("http://localhost:1234/{rel}"),
                    serde_json::from_str(&text).unwrap(),
                );
            }
        }
    }
    let root = suite.join("remotes");
    let mut out = HashMap::new();
    walk(&root, &root, &mut out);
    out
}

/// Whether `breach` points at what it names: its `schema_path` leads to the keyword in `root` (or
/// in the remote document its URI names), the pointer ends with `keyword`, and `rule` is the
/// keyword's value there; a `false` schema is named by the keyword it stands under.
pub fn names_its_rule(
    breach: &agents_check::Breach,
    root: &Value,
    remotes: &HashMap<String, Value>,
) -> Result<(), String> {
    if breach.keyword == agents_check::DEPTH_KEYWORD {
        return Ok(());
    }
    let (doc, pointer) = match breach.schema_path.split_once('#') {
        None => (root, breach.schema_path.as_str()),
        Some((uri, pointer)) => match remotes.get(uri) {
            Some(doc) => (doc, pointer),
            // An embedded resource of the root, named by its `$id`.
            None => return Ok(()),
        },
    };
    let Some(at) = doc.pointer(pointer) else {
        return Err(format!(
            "schema_path {:?} leads nowhere",
            breach.schema_path
        ));
    };
    if at == &Value::Bool(false) {
        return Ok(());
    }
    let last = pointer.rsplit('/').next().unwrap_or_default();
    if last != breach.keyword {
        return Err(format!(
            "schema_path {:?} does not end with the keyword {:?}",
            breach.schema_path, breach.keyword
        ));
    }
    if *at != breach.rule {
        return Err(format!(
            "rule {} is not the keyword's value {at}",
            breach.rule
        ));
    }
    Ok(())
}
