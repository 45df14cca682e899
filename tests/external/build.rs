//! Generates bindings for JSON Schemas written outside this project, into OUT_DIR: a corpus of
//! real-world schemas (`tests/json-schema/corpus/`) and the JSON-Schema-Test-Suite's groups of
//! draft 2020-12 (`tests/json-schema-test-suite/`), as one unit (`agents_test_support::suite`).

use std::path::PathBuf;

use agents_codegen::{Builder, write_if_changed};
use agents_test_support::{corpus_dir, suite};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("cargo sets OUT_DIR")?);
    let corpus = corpus_dir();
    println!("cargo:rerun-if-changed=build.rs");

    // Real-world JSON Schemas (`tests/json-schema/corpus/`), through the build-script front door.
    let corpus_schemas = corpus.join("../json-schema/corpus/schemas");
    println!("cargo:rerun-if-changed={}", corpus_schemas.display());
    let corpus_source = Builder::new()
        .schema_dir(&corpus_schemas)
        .cargo_directives(false)
        .generate()?;
    write_if_changed(&out.join("corpus.rs"), &corpus_source)?;

    // The JSON-Schema-Test-Suite's draft 2020-12 groups, one agent each (the older drafts are
    // `tests/drafts`').
    let suite_dir = corpus.join("../json-schema-test-suite");
    println!("cargo:rerun-if-changed={}", suite_dir.display());
    let (source, table) = suite::unit(
        &suite_dir,
        "draft2020-12",
        "agents_test_support::suite::case",
        "agents_tests_external::suite",
    )?;
    write_if_changed(&out.join("suite.rs"), &source)?;
    write_if_changed(&out.join("suite_table.rs"), &table)?;
    Ok(())
}
