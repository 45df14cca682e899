//! Generated bindings of JSON Schemas written outside this project, compiled under
//! `#![deny(warnings)]` like `agents-tests-generated`'s: a corpus of real-world schemas and the
//! official JSON-Schema-Test-Suite. Its tests judge the decoded records against oracles nobody
//! here wrote (the suite's verdicts, the `jsonschema` crate). Its doctests run too.
#![deny(warnings)]

/// Bindings of real-world JSON Schemas (`tests/json-schema/corpus/`), one agent per schema.
pub mod corpus {
    include!(concat!(env!("OUT_DIR"), "/corpus.rs"));
}

/// Bindings of the JSON-Schema-Test-Suite's draft 2020-12 groups
/// (`tests/json-schema-test-suite/`): each group's schema is the field `value` of `Suite{n}`.
pub mod suite {
    include!(concat!(env!("OUT_DIR"), "/suite.rs"));
}

/// How one case of the suite decoded into its group's type.
#[derive(Debug)]
pub struct SuiteOutcome {
    /// The record written back as JSON.
    pub written: serde_json::Value,
    /// Every mismatch and breach, one line each.
    pub reported: Vec<String>,
    /// Where the check the decoder runs (which skips what the record's types already hold)
    /// and the full check of the same record disagree; empty when they agree.
    pub disagreement: Option<String>,
}

/// Where `Schema::check_generated_into`, which skips what a generated record's types hold,
/// finds other breaches than the full check of the same record; `None` when they agree.
pub fn shortcut_disagreement<T: agents_runtime::Record>(record: &T) -> Option<String> {
    let schema = T::schema()?;
    let full = schema.check(record);
    let mut fast = Vec::new();
    schema.check_generated_into(record, &mut fast);
    (full != fast).then(|| format!("the full check finds {full:?}, the decoder's {fast:?}"))
}

/// Decodes `text` (`{"value": …}`) as `T` and writes it back.
pub fn suite_case<T>(text: &str) -> Result<SuiteOutcome, String>
where
    T: agents_runtime::Record + serde::Serialize + serde::de::DeserializeOwned,
{
    let record: T = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let written = serde_json::to_value(&record).map_err(|e| e.to_string())?;
    let reported = record
        .mismatches()
        .iter()
        .map(ToString::to_string)
        .chain(record.breaches().iter().map(ToString::to_string))
        .collect();
    let disagreement = shortcut_disagreement(&record);
    Ok(SuiteOutcome {
        written,
        reported,
        disagreement,
    })
}

/// A group of the suite: its file, its index there, and how to decode its cases (or why the
/// generator refused it).
pub type SuiteGroup = (
    &'static str,
    usize,
    Result<fn(&str) -> Result<SuiteOutcome, String>, &'static str>,
);

/// Every group of the suite, in file order.
pub const SUITE: &[SuiteGroup] = include!(concat!(env!("OUT_DIR"), "/suite_table.rs"));

/// Decodes every case of `draft` (a directory of `suite`'s `tests/`) into its group's type from
/// `table`, and panics, listing every failing case with why, unless
/// - every group of the draft's files is in `table` (none skipped) and generated;
/// - a valid case comes back exact (written back, it is the JSON that was read, numbers by
///   value) with no mismatch and no breach;
/// - an invalid case is reported (a mismatch, a breach, or a decode error);
/// - the decoder's check, which skips what the types hold, finds what the full check finds.
///
/// Prints the tally.
pub fn judge(suite: &std::path::Path, draft: &str, table: &[SuiteGroup]) {
    use serde_json::{Value, json};
    use std::collections::BTreeMap;

    let dir = suite.join("tests").join(draft);
    let mut files: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for path in entries.filter_map(Result::ok).map(|e| e.path()) {
        let Some(stem) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let groups =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        files.insert(stem, groups);
    }
    let groups: usize = files.values().map(Vec::len).sum();
    assert_eq!(
        table.len(),
        groups,
        "{draft}: the table holds {} groups, the suite's files {groups}",
        table.len()
    );
    let mut failures = BTreeMap::new();
    let mut cases = 0;
    // valid exact, valid total, invalid reported, invalid total
    let mut tally = [0; 4];
    for (file, group, decode) in table {
        let tests = files
            .get(*file)
            .and_then(|groups| groups.get(*group))
            .and_then(|group| group["tests"].as_array())
            .unwrap_or_else(|| panic!("{draft}: no group {file} #{group}"));
        for (i, case) in tests.iter().enumerate() {
            cases += 1;
            let key = format!("{file} #{group} #{i}");
            let valid = case["valid"] == json!(true);
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
    println!(
        "suite, {draft}: {cases} cases; valid exact {}/{}, invalid reported {}/{}",
        tally[0], tally[1], tally[2], tally[3]
    );
    assert!(
        failures.is_empty(),
        "{draft}: {} case(s) fail:\n{}",
        failures.len(),
        failures
            .iter()
            .map(|(k, why)| format!("{k}: {why}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
