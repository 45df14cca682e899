//! Generated bindings compiled under `#![deny(warnings)]`: if the generator emits anything that
//! warns (a naming lint, a missing doc, an unused item) or does not compile, this crate fails to
//! build. Its doctests run too, so a description that turned into a code block would fail.
#![deny(warnings)]

/// Bindings of the hostile corpus (`tests/corpus/`) and a 2,000-field record.
pub mod hostile {
    include!(concat!(env!("OUT_DIR"), "/hostile.rs"));
}

/// Bindings of agents written as JSON Schema (`tests/json-schema/`): a `/v2` template record
/// and a user's `NAME.output.schema.json` + `NAME.input.schema.json`.
pub mod json_schema {
    include!(concat!(env!("OUT_DIR"), "/json_schema.rs"));
}

/// Bindings of hostile JSON Schemas: `hostile_names` (keywords, names that differ only in case
/// or punctuation, definitions and enum values that collide) and `deep_nest` (objects nested 500
/// deep).
pub mod hostile_json_schema {
    include!(concat!(env!("OUT_DIR"), "/hostile_json_schema.rs"));
}

/// Bindings of a fixed-seed sample of random agent records.
pub mod random {
    include!(concat!(env!("OUT_DIR"), "/random.rs"));
}

/// How many random records were generated into [`random`].
pub const RANDOM_RECORDS: usize = include!(concat!(env!("OUT_DIR"), "/random_count.rs"));

// The build script keeps only records the generator accepted; most of the fixed-seed sample must
// survive, or the compile test has lost its point.
const _: () = assert!(RANDOM_RECORDS >= 40, "too few random records compiled");
