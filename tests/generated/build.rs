//! Generates bindings for the hostile corpus (`tests/corpus/`, plus a 2,000-field record), for
//! the agents written as JSON Schema (`tests/json-schema/`), for hostile JSON Schemas (names that
//! collide, nesting 500 deep), and for a fixed-seed sample of random records, each as one unit,
//! into OUT_DIR. Schemas written outside this project are `tests/external`'s.

use std::path::PathBuf;

use agents_codegen::{Options, generate, generate_refs, load_dir, write_if_changed};
use agents_test_support::{corpus_dir, fixed_sample, hostile_json_schemas, wide_record};

/// How many random records the compiled sample draws.
const SAMPLE: usize = 60;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("cargo sets OUT_DIR")?);
    let corpus = corpus_dir();
    println!("cargo:rerun-if-changed={}", corpus.display());
    let json_schema = corpus.join("../json-schema");
    println!("cargo:rerun-if-changed={}", json_schema.display());
    println!("cargo:rerun-if-changed=build.rs");
    let options = Options::default();

    let mut records: Vec<_> = load_dir(&corpus)?.into_iter().map(|l| l.record).collect();
    records.push(wide_record("wide_2000", 2000));
    // `foo_bar` and `foo_params` would declare `foo`'s nested and params types: renamed.
    let corpus_options = Options::default()
        .rename("foo_bar", "FooBarAgent")
        .rename("foo_params", "FooParamsAgent");
    let hostile = generate(&records, &corpus_options)?.to_source()?;
    write_if_changed(&out.join("hostile.rs"), &hostile)?;

    // Agents written as JSON Schema: a `/v2` template record and a user's schema pair.
    let records: Vec<_> = load_dir(&json_schema)?
        .into_iter()
        .map(|l| l.record)
        .collect();
    let json_schema = generate(&records, &options)?.to_source()?;
    write_if_changed(&out.join("json_schema.rs"), &json_schema)?;

    // Hostile JSON Schemas: names that collide, and objects nested 500 deep.
    let hostile = generate(&hostile_json_schemas(500), &options)?.to_source()?;
    write_if_changed(&out.join("hostile_json_schema.rs"), &hostile)?;

    // Random records that the generator accepts together, generated as one unit: each is kept
    // when the records kept so far and it still generate (two random names may give the same
    // types).
    let mut sample: Vec<_> = Vec::new();
    for record in fixed_sample(SAMPLE, 7) {
        sample.push(record);
        if generate(&sample, &options).is_err() {
            sample.pop();
        }
    }
    let refs: Vec<_> = sample.iter().collect();
    let random = generate_refs(&refs, &options)?.to_source()?;
    write_if_changed(&out.join("random.rs"), &random)?;
    write_if_changed(&out.join("random_count.rs"), &format!("{}\n", sample.len()))?;

    Ok(())
}
