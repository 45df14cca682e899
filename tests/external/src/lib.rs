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

/// Bindings of the same suite's draft 7 groups (`tests/json-schema-test-suite-drafts/`), each
/// declaring draft 7: each group's schema is the field `value` of `Suite{n}`.
pub mod suite_draft7 {
    include!(concat!(env!("OUT_DIR"), "/suite_draft7.rs"));
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

/// Every group of the suite's draft 7, in file order.
pub const SUITE_DRAFT7: &[SuiteGroup] =
    include!(concat!(env!("OUT_DIR"), "/suite_draft7_table.rs"));
