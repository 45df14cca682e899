//! A version's name, an endpoint's path or name, and every word a version spells its own way
//! live in two tables, the `agents-wire` crate (`endpoint`, `words`). This test reads the
//! library and server sources and fails when one of them is written out as a string literal
//! anywhere else, so a difference between versions cannot creep back into code.
//!
//! What it does not read: comments and doc text (prose may name `/v2`), tests (they compare
//! against the wire on purpose), and `#[serde(...)]` attributes, whose `alias` lists let one
//! answer type decode either version's spelling (an attribute cannot name a constant).

use std::path::{Path, PathBuf};

use agents_runtime::ApiVersion;
use agents_runtime::endpoint;

/// The crates whose code talks to the service or serves it (`agents-wire` holds the tables).
const CRATES: [&str; 9] = [
    "agents-types",
    "agents-catalog",
    "agents-client",
    "agents-runtime",
    "agents-emulator",
    "agents-cli",
    "agents-codegen",
    "agents-schema",
    "agents-macro",
];

/// Words of the table that are also, by the service's choice, the name of something else in
/// the same version; they may be spelled in the files that mean that other thing.
const ALSO_ELSEWHERE: [(&str, &str, &str); 2] = [
    (
        "agent_name",
        "research",
        "a /v2 research agent's own name and a run's by-name field",
    ),
    (
        "extract_template_name",
        "research",
        "a research citation's field naming the template that read the page",
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every string literal of the file's code, with the line it starts on: comments, `#[serde]`
/// attributes and everything from the first `#[cfg(test)]` on are left out. Raw strings are
/// read as plain ones, which is enough for the sources this reads.
fn literals(text: &str) -> Vec<(usize, String)> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let chars: Vec<char> = code.chars().collect();
    let at = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let c = chars[i];
        if at(i, "//") {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        } else if at(i, "/*") {
            while i < chars.len() && !at(i, "*/") {
                line += usize::from(chars[i] == '\n');
                i += 1;
            }
            i += 2;
            continue;
        } else if at(i, "#[serde(") {
            while i < chars.len() && chars[i] != ']' {
                line += usize::from(chars[i] == '\n');
                i += 1;
            }
        } else if at(i, "'\"'") {
            i += 3;
            continue;
        } else if at(i, "'\\\"'") {
            i += 4;
            continue;
        } else if c == '"' {
            let start = line;
            let mut lit = String::new();
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                line += usize::from(chars[i] == '\n');
                if chars[i] == '\\' {
                    lit.push(chars[i]);
                    i += 1;
                }
                if let Some(&c) = chars.get(i) {
                    lit.push(c);
                }
                i += 1;
            }
            out.push((start, lit));
            i += 1;
            continue;
        } else if c == '\n' {
            line += 1;
        }
        i += 1;
    }
    out
}

/// Whether `literal` names the version `name` as a path segment (`/v2`, `/v2/…`) or alone.
fn names_version(literal: &str, name: &str) -> bool {
    if literal == name {
        return true;
    }
    let needle = format!("/{name}");
    literal.match_indices(&needle).any(|(at, _)| {
        literal[at + needle.len()..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric())
    })
}

#[test]
fn versions_paths_and_differing_words_are_spelled_only_in_their_tables() {
    let root = root();
    let mut files = Vec::new();
    for krate in CRATES {
        sources(&root.join(krate).join("src"), &mut files);
    }
    assert!(files.len() > 50, "found only {} source files", files.len());

    // Words a version spells its own way and that are distinctive enough to search for.
    let mut words: Vec<(&str, &str)> = Vec::new();
    let columns: Vec<_> = ApiVersion::ALL.iter().map(|v| v.words().texts()).collect();
    for (i, (row, _)) in columns[0].iter().enumerate() {
        let spellings: Vec<&str> = columns.iter().map(|c| c[i].1).collect();
        if spellings.iter().any(|s| *s != spellings[0]) {
            for s in spellings {
                if s.contains('_') && !words.iter().any(|(_, w)| *w == s) {
                    words.push((row, s));
                }
            }
        }
    }
    assert!(
        words.len() >= 4,
        "the table lost its distinctive words: {words:?}"
    );

    let mut found = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{rel}: {e}"));
        for (line, lit) in literals(&text) {
            let at = format!("{rel}:{line}: \"{lit}\"");
            for v in ApiVersion::ALL {
                if names_version(&lit, v.as_str()) {
                    found.push(format!(
                        "{at} names /{v}: build it from ApiVersion or the endpoint table"
                    ));
                }
            }
            for e in endpoint::ALL {
                if lit == e.name {
                    found.push(format!(
                        "{at} is the endpoint `{}`: pass &endpoint::… instead",
                        e.name
                    ));
                }
            }
            for (row, word) in &words {
                let excused = ALSO_ELSEWHERE
                    .iter()
                    .any(|(w, files, _)| w == word && rel.contains(files));
                if lit == *word && !excused {
                    found.push(format!(
                        "{at} spells the `{row}` row of agents_runtime::words: use version.words().{row}"
                    ));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "{} spelling(s) outside the tables:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_check_finds_what_it_looks_for() {
    let code = r#"
        let a = "/v2/extract/templates"; // "/v1/ignored"
        let b = json!({"from_agent": 1});
        #[serde(alias = "domain_expertise")]
        /* "extract_template_name" */
        let q = '"';
        let c = "two \"lines\",
                 v2x";
        #[cfg(test)]
        let d = "/v1/tasks";
    "#;
    let lits = literals(code);
    assert_eq!(
        lits,
        [
            (2, "/v2/extract/templates".to_owned()),
            (3, "from_agent".to_owned()),
            (7, "two \\\"lines\\\",\n                 v2x".to_owned()),
        ]
    );
    assert!(names_version("/v2/extract/templates", "v2"));
    assert!(names_version("v2", "v2"));
    assert!(!names_version("v2x", "v2"));
    assert!(!names_version("/v21", "v2"));
    assert!(names_version("exist only in /v2; drop", "v2"));
}
