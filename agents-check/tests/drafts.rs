#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The official JSON-Schema-Test-Suite for drafts 4, 6, 7 and 2019-09 (required tests;
//! `tests/json-schema-test-suite-drafts/` in the workspace, MIT, its LICENSE beside it), run on
//! `serde_json` values: every case gets the suite's verdict, every invalid case names at least
//! one breach, and every breach points at its keyword and rule in the schema.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agents_check::Options;
use serde_json::{Value, json};

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/json-schema-test-suite-drafts")
}

/// Every file of `remotes/`, by the URI the suite serves it at.
fn remotes() -> HashMap<String, Value> {
    let mut out = HashMap::new();
    let root = suite().join("remotes");
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let rel = path.strip_prefix(&root).unwrap().to_string_lossy();
                let text = std::fs::read_to_string(&path).unwrap();
                out.insert(
                    format!("http://localhost:1234/{}", rel.replace('\\', "/")),
                    serde_json::from_str(&text).unwrap(),
                );
            }
        }
    }
    out
}

#[test]
fn every_case_of_drafts_4_6_7_and_2019_09_gets_its_verdict() {
    let remotes = remotes();
    let mut wrong = Vec::new();
    for (dir, meta, least) in [
        ("draft4", "http://json-schema.org/draft-04/schema#", 550),
        ("draft6", "http://json-schema.org/draft-06/schema#", 750),
        ("draft7", "http://json-schema.org/draft-07/schema#", 800),
        (
            "draft2019-09",
            "https://json-schema.org/draft/2019-09/schema",
            1100,
        ),
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(suite().join("tests").join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let mut cases = 0;
        for file in files {
            let name = file.file_stem().unwrap().to_string_lossy().into_owned();
            let groups: Vec<Value> =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            for group in groups {
                let mut schema = group["schema"].clone();
                if let Value::Object(map) = &mut schema {
                    map.entry("$schema").or_insert(json!(meta));
                }
                let compiled = Options::new()
                    .directory("http://localhost:1234/", suite().join("remotes"))
                    .compile(&schema);
                for case in group["tests"].as_array().unwrap() {
                    cases += 1;
                    let valid = case["valid"].as_bool().unwrap();
                    let breaches = compiled.check(&case["data"]);
                    let at = || {
                        format!(
                            "{dir}/{name}: {} / {}",
                            group["description"], case["description"]
                        )
                    };
                    if compiled.is_valid(&case["data"]) != valid || breaches.is_empty() != valid {
                        wrong.push(format!(
                            "{}: expected {valid}, breaches {breaches:?}, problems {:?}",
                            at(),
                            compiled.problems()
                        ));
                    }
                    for breach in &breaches {
                        if let Err(why) = common::names_its_rule(breach, &schema, &remotes) {
                            wrong.push(format!("{}: {breach}: {why}", at()));
                        }
                    }
                }
            }
        }
        assert!(
            cases > least,
            "{dir}: the suite was not found: {cases} cases"
        );
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
