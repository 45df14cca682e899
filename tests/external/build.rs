//! Generates bindings for JSON Schemas written outside this project, into OUT_DIR: a corpus of
//! real-world schemas (`tests/json-schema/corpus/`) and the JSON-Schema-Test-Suite's groups of
//! draft 2020-12 (`tests/json-schema-test-suite/`) and draft 7
//! (`tests/json-schema-test-suite-drafts/`), each as one unit.

use std::path::PathBuf;

use agents_codegen::{Builder, Options, write_if_changed};
use agents_test_support::corpus_dir;

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

    // The JSON-Schema-Test-Suite's draft 2020-12 groups, one agent each, and its draft 7 ones.
    let suite = corpus.join("../json-schema-test-suite");
    println!("cargo:rerun-if-changed={}", suite.display());
    let (source, table) = suite_unit(&suite.join("tests/draft2020-12"), &suite, None, "suite")?;
    write_if_changed(&out.join("suite.rs"), &source)?;
    write_if_changed(&out.join("suite_table.rs"), &table)?;
    let drafts = corpus.join("../json-schema-test-suite-drafts");
    println!("cargo:rerun-if-changed={}", drafts.display());
    let (source, table) = suite_unit(
        &drafts.join("tests/draft7"),
        &drafts,
        Some("http://json-schema.org/draft-07/schema#"),
        "suite_draft7",
    )?;
    write_if_changed(&out.join("suite_draft7.rs"), &source)?;
    write_if_changed(&out.join("suite_draft7_table.rs"), &table)?;
    Ok(())
}

/// Each group's schema in `dir` as the field `value` of an object root (the suite's README's
/// reading for a type generator) declaring the draft `meta` (2020-12 without it), given its own
/// `$id` when it has none so that its `#` references still mean it; remote references are read
/// from `suite`'s `remotes/`. Generated as one unit, module `module`, with each root renamed
/// `Suite{n}`; a group the generator refuses is left out and named in the table with the
/// generator's message, so the test counts it as failed, not skipped.
fn suite_unit(
    dir: &std::path::Path,
    suite: &std::path::Path,
    meta: Option<&str>,
    module: &str,
) -> Result<(String, String), Box<dyn std::error::Error>> {
    use serde_json::{Value, json};
    let mut files: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut options = Options::default().documents("http://localhost:1234/", suite.join("remotes"));
    let mut records = Vec::new();
    let mut entries = Vec::new();
    for file in &files {
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let groups: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(file)?)?;
        for (i, group) in groups.iter().enumerate() {
            let n = entries.len();
            let agent = format!("suite_{n}");
            let mut schema = group["schema"].clone();
            if let Value::Object(map) = &mut schema {
                map.entry("$id")
                    .or_insert_with(|| json!(format!("https://suite.invalid/{stem}/{i}.json")));
            }
            let mut wrapped = json!({"type": "object", "properties": {"value": schema}});
            if let (Some(meta), Value::Object(map)) = (meta, &mut wrapped) {
                map.insert("$schema".into(), json!(meta));
            }
            let record = agents_schema::json_schema::record(
                &agent,
                None,
                Some(&agents_schema::Json::from(&wrapped)),
                None,
            )?;
            options = options.rename(&agent, format!("Suite{n}"));
            records.push(record);
            entries.push((stem.clone(), i, agent));
        }
    }
    // A group the generator refuses is reported by agent; it is left out and the rest retried.
    let mut refused: std::collections::BTreeMap<String, String> = Default::default();
    let source = loop {
        let kept: Vec<_> = records
            .iter()
            .filter(|r| !refused.contains_key(&r.name))
            .collect();
        match agents_codegen::generate_refs(&kept, &options) {
            Ok(output) => break output.to_source()?,
            Err(diagnostics) => {
                let before = refused.len();
                for d in &diagnostics.0 {
                    if let Some(agent) = &d.agent {
                        refused
                            .entry(agent.clone())
                            .or_insert_with(|| d.to_string());
                    }
                }
                if refused.len() == before {
                    return Err(diagnostics.into());
                }
            }
        }
    };
    let mut table = String::from("&[\n");
    for (n, (stem, i, agent)) in entries.iter().enumerate() {
        let decode = match refused.get(agent) {
            Some(why) => format!("Err({why:?})"),
            None => format!("Ok(crate::suite_case::<crate::{module}::Suite{n}>)"),
        };
        table.push_str(&format!("    ({stem:?}, {i}, {decode}),\n"));
    }
    table.push_str("]\n");
    Ok((source, table))
}
