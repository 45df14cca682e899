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
