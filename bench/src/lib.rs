//! What the benchmark runner (`cargo xtask bench`), its child processes, the criterion benches
//! and the profiling examples share, so that all of them measure the same thing: the decoding
//! inputs, the decoding group, the columnar group, the codegen measurements, and the measuring
//! helpers.

pub mod codegen;
pub mod columnar;
pub mod decoding;
pub mod json_schema;
pub mod measure;
pub mod sse;
pub mod typify_baseline;
pub mod typify_input;

use agents_schema::AgentRecord;

/// The allocation-heavy measurements (the synthetic codegen agents, decoding, columns) as a
/// child process runs them: each starts from a fresh heap, since glibc malloc's speed on these
/// depends on what the heap went through before (the decoding ratio to the strict derive came out
/// 0.72× after the other groups had run in the same process, 0.91–0.95× in a fresh one). Runs the
/// groups `--only` selects, names them with `suffix` (`", mimalloc"`) and prints the rows as lines
/// for the runner.
pub fn child_main(suffix: &str) {
    let mut rows = Vec::new();
    if measure::selected("codegen") {
        codegen::synthetic(&mut rows, &format!("codegen{suffix}"));
    }
    if measure::selected("decode") {
        decoding::bench(&mut rows, &format!("decode{suffix}"));
    }
    if measure::selected("jsonschema") {
        json_schema::bench(&mut rows, &format!("jsonschema{suffix}"));
    }
    if measure::selected("columnar") {
        columnar::bench(&mut rows, &format!("columnar{suffix}"));
    }
    for r in &rows {
        println!("{}", r.to_line());
    }
}

/// typify's types (written by build.rs) for the JSON Schema comparison: retailer_a_pdp's output
/// schema as JSON Schema, and the corpus schemas of [`typify_input::TYPIFY_CORPUS`]; each
/// module's `Root` is its root type.
// typify writes the schemas' descriptions as they are, bare URLs included; its code is a baseline here,
// not documentation.
#[allow(
    missing_docs,
    dead_code,
    clippy::all,
    clippy::unwrap_used,
    rustdoc::all
)]
pub mod typified {
    pub mod retailer_a_pdp {
        include!(concat!(env!("OUT_DIR"), "/typify_retailer_a_pdp.rs"));
    }
    pub mod changie {
        include!(concat!(env!("OUT_DIR"), "/typify_changie.rs"));
    }
    pub mod cloudbuild {
        include!(concat!(env!("OUT_DIR"), "/typify_cloudbuild.rs"));
    }
    pub mod github_discussion {
        include!(concat!(env!("OUT_DIR"), "/typify_github_discussion.rs"));
    }
    pub mod github_issue_config {
        include!(concat!(env!("OUT_DIR"), "/typify_github_issue_config.rs"));
    }
    pub mod snapcraft {
        include!(concat!(env!("OUT_DIR"), "/typify_snapcraft.rs"));
    }
}

/// Our types for the same corpus schemas, as the build-script front door makes them.
pub mod ours {
    include!(concat!(env!("OUT_DIR"), "/ours_corpus.rs"));
}

/// The strict baseline for decoding: plain `#[derive(Deserialize)]` structs with `Option` fields
/// for retailer_a_pdp's output schema (written by build.rs).
pub mod plain {
    #![allow(missing_docs, dead_code)]
    include!(concat!(env!("OUT_DIR"), "/plain.rs"));
}

/// Items per array in the decoding input: with 11 images, reviews, related products and so on,
/// retailer_a_pdp's record is about 26 KB, the size of a real full result.
pub const FULL_ARRAY_LEN: usize = 11;

/// retailer_a_pdp's agent record from `schemas/`.
pub fn pdp() -> AgentRecord {
    let path = agents_test_support::schemas_dir().join("retailer_a_pdp.json");
    match agents_codegen::load_file(&path) {
        Ok(l) => l.record,
        Err(e) => panic!("{e}"),
    }
}

/// The decoding inputs: a full retailer_a_pdp record (every field set, `array_len` items per
/// array; [`FULL_ARRAY_LEN`] for the full size) and the same record with about 10% of its fields
/// drifted, as JSON bytes.
pub fn pdp_inputs(pdp: &AgentRecord, array_len: usize) -> (Vec<u8>, Vec<u8>) {
    let schema = pdp.output_schema.clone().unwrap_or_default();
    let record = agents_schema::sample::record_with_arrays(&schema, 42, array_len);
    let mut drifted = record.clone();
    agents_emulator::synth::drift(pdp, &mut drifted, 42, 10);
    let bytes = |v: &serde_json::Value| match serde_json::to_vec(v) {
        Ok(b) => b,
        Err(e) => panic!("{e}"),
    };
    (bytes(&record), bytes(&drifted))
}
