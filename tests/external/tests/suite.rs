#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The official JSON-Schema-Test-Suite (draft 2020-12, `tests/json-schema-test-suite/`, and
//! draft 7, `tests/json-schema-test-suite-drafts/`, MIT) run through the generator: every
//! group's type (see `agents_tests_external::SUITE` and `SUITE_DRAFT7`) decodes every case, and
//! - a valid case comes back exact (written back, it is the JSON that was read, numbers by
//!   value) with no mismatch and no breach;
//! - an invalid case is reported (a mismatch, a breach, or a decode error).
//!
//! All 1,299 and 850 cases hold, so every failure is listed and fails the test.

use std::collections::BTreeMap;
use std::path::Path;

use agents_tests_external::{SUITE, SUITE_DRAFT7, SuiteGroup};
use serde_json::{Value, json};

fn suite_dir(suite: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(suite)
}

/// Every failing case of the groups `table` (whose files are in `dir`), keyed `file #group
/// #case`, with why.
fn run(dir: &Path, table: &[SuiteGroup]) -> (BTreeMap<String, String>, usize, [usize; 4]) {
    let mut files: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        files.insert(stem, serde_json::from_str(&text).unwrap());
    }
    let mut failures = BTreeMap::new();
    let mut cases = 0;
    // valid exact, valid total, invalid reported, invalid total
    let mut tally = [0; 4];
    for (file, group, decode) in table {
        let tests = files[*file][*group]["tests"].as_array().unwrap();
        for (i, case) in tests.iter().enumerate() {
            cases += 1;
            let key = format!("{file} #{group} #{i}");
            let valid = case["valid"].as_bool().unwrap();
            tally[if valid { 1 } else { 3 }] += 1;
            let wrapped = json!({"value": case["data"]});
            let why = match decode {
                Err(refused) => Some(format!("not generated: {refused}")),
                Ok(decode) => match (decode(&wrapped.to_string()), valid) {
                    (Err(e), true) => Some(format!("valid, but does not decode: {e}")),
                    (Ok(out), _) if out.disagreement.is_some() => out.disagreement,
                    (Err(_), false) => None,
                    (Ok(out), true) if !out.reported.is_empty() => {
                        Some(format!("valid, but reported: {}", out.reported.join("; ")))
                    }
                    (Ok(out), true) if !agents_runtime::check::equal(&out.written, &wrapped) => {
                        Some(format!("valid, but written back as {}", out.written))
                    }
                    (Ok(_), true) => None,
                    (Ok(out), false) if out.reported.is_empty() => {
                        Some("invalid, and nothing is reported".to_owned())
                    }
                    (Ok(_), false) => None,
                },
            };
            match why {
                Some(why) => {
                    failures.insert(key, why);
                }
                None => tally[if valid { 0 } else { 2 }] += 1,
            }
        }
    }
    (failures, cases, tally)
}

#[test]
fn every_group_is_generated_and_every_case_decodes_as_the_suite_says() {
    let dir = suite_dir("json-schema-test-suite/tests/draft2020-12");
    let (failures, cases, tally) = run(&dir, SUITE);
    assert!(cases > 1200, "the suite was not found: {cases} cases");
    report("draft 2020-12", &failures, cases, tally);
}

#[test]
fn every_group_of_draft7_is_generated_and_every_case_decodes_as_the_suite_says() {
    let dir = suite_dir("json-schema-test-suite-drafts/tests/draft7");
    let (failures, cases, tally) = run(&dir, SUITE_DRAFT7);
    assert!(cases > 800, "the suite was not found: {cases} cases");
    report("draft 7", &failures, cases, tally);
}

/// Fails, listing every failing case, unless there is none.
fn report(draft: &str, failures: &BTreeMap<String, String>, cases: usize, tally: [usize; 4]) {
    println!(
        "suite, {draft}: {cases} cases; valid exact {}/{}, invalid reported {}/{}",
        tally[0], tally[1], tally[2], tally[3]
    );
    assert!(
        failures.is_empty(),
        "{} case(s) fail:\n{}",
        failures.len(),
        failures
            .iter()
            .map(|(k, why)| format!("{k}: {why}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
