#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The official JSON-Schema-Test-Suite (draft 2020-12, required tests; `tests/json-schema-test-suite/`
//! in the workspace, MIT, its LICENSE beside it), run on `serde_json` values: every case's
//! verdict is the suite's, and every invalid case names at least one breach.

mod common;

use agents_check::Options;
use common::{remotes, suite, test_files};
use serde_json::Value;

#[test]
fn every_case_of_the_suite_gets_its_verdict() {
    let remotes = remotes();
    let files = test_files();
    let (mut cases, mut wrong, mut reported) = (0, Vec::new(), Vec::new());
    let mut groups_seen = 0;
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let groups: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for group in groups {
            // Odd groups read the remotes from their directory, even ones get them as documents.
            let schema = if groups_seen % 2 == 1 {
                Options::new()
                    .directory("http://localhost:1234/", suite().join("remotes"))
                    .compile(&group["schema"])
            } else {
                let mut options = Options::new();
                for (uri, doc) in &remotes {
                    options = options.document(uri.clone(), doc.clone());
                }
                options.compile(&group["schema"])
            };
            groups_seen += 1;
            // What a generated record carries: the schema with what it refers to, alone.
            let bundled = agents_check::Schema::compile(&schema.bundled());
            // What the generator's types are lowered from: every reference a pointer from the
            // root. It means the same, except in the two groups where one `$dynamicRef` means
            // two schemas depending on the path taken to it (a pointer means one).
            let mut options = Options::new();
            for (uri, doc) in &remotes {
                options = options.document(uri.clone(), doc.clone());
            }
            let localized = options.compile(&schema.localized());
            let dynamic = [
                "multiple dynamic paths to the $dynamicRef keyword",
                "after leaving a dynamic scope, it is not used by a $dynamicRef",
            ]
            .contains(&group["description"].as_str().unwrap());
            for case in group["tests"].as_array().unwrap() {
                cases += 1;
                let valid = case["valid"].as_bool().unwrap();
                let breaches = schema.check(&case["data"]);
                for breach in &breaches {
                    if let Err(why) = common::names_its_rule(breach, &group["schema"], &remotes) {
                        wrong.push(format!(
                            "{name}: {} / {}: {breach}: {why}",
                            group["description"], case["description"]
                        ));
                    }
                }
                let verdict = schema.is_valid(&case["data"]);
                if bundled.is_valid(&case["data"]) != verdict {
                    wrong.push(format!(
                        "{name}: {} / {}: the bundled schema disagrees: {}",
                        group["description"],
                        case["description"],
                        schema.bundled()
                    ));
                }
                if !dynamic && localized.is_valid(&case["data"]) != verdict {
                    wrong.push(format!(
                        "{name}: {} / {}: the localized schema disagrees: {}",
                        group["description"],
                        case["description"],
                        schema.localized()
                    ));
                }
                if verdict != valid || breaches.is_empty() != valid {
                    // A keyword that cannot be honoured is a problem of the schema, reported
                    // when it is compiled (at generation, for generated types).
                    let list = if schema.problems().is_empty() {
                        &mut wrong
                    } else {
                        &mut reported
                    };
                    list.push(format!(
                        "{name}: {} / {}: expected {valid}, is_valid {verdict}, breaches {:?}, problems {:?}",
                        group["description"],
                        case["description"],
                        breaches.iter().map(ToString::to_string).collect::<Vec<_>>(),
                        schema.problems(),
                    ));
                }
            }
        }
    }
    assert!(cases > 1200, "the suite was not found: {cases} cases");
    assert!(
        wrong.is_empty(),
        "{} of {cases} cases wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // Without the feature `unicode`, one pattern (`\p{Letter}`) is a reported problem.
    let allowed = if cfg!(feature = "unicode") { 0 } else { 1 };
    assert_eq!(
        reported.len(),
        allowed,
        "cases decided by a reported problem:\n{}",
        reported.join("\n")
    );
}
