#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The official JSON-Schema-Test-Suite for drafts 4, 6, 7 and 2019-09 (required tests;
//! `tests/json-schema-test-suite-drafts/` in the workspace, MIT, its LICENSE beside it), run on
//! `serde_json` values: every case gets the suite's verdict, every invalid case names at least
//! one breach, and every breach points at its keyword and rule in the schema.

mod common;

use agents_check::Options;
use serde_json::{Value, json};

#[test]
fn every_case_of_drafts_4_6_7_and_2019_09_gets_its_verdict() {
    let suite = common::older_drafts();
    let remotes = common::remotes_of(&suite);
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
        let mut cases = 0;
        for file in common::files_in(&suite.join("tests").join(dir)) {
            let name = file.file_stem().unwrap().to_string_lossy().into_owned();
            let groups: Vec<Value> =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            for group in groups {
                let mut schema = group["schema"].clone();
                if let Value::Object(map) = &mut schema {
                    map.entry("$schema").or_insert(json!(meta));
                }
                let compiled = Options::new()
                    .directory("http://localhost:1234/", suite.join("remotes"))
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
