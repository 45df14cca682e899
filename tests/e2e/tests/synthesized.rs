#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! What the emulator makes follows what it was given, judged by a validator nobody here wrote
//! (the `jsonschema` crate): every template — the embedded catalog, the user's schema files of
//! `tests/json-schema/` and the real-world corpus served as templates — keeps its schemas as
//! written, and every record a run of it answers validates against its output schema and gives
//! its fields in the order the schema lists them.

use agents_emulator::EmulatorHandle;
use agents_runtime::{ApiVersion, Client};
use agents_schema::Json;
use agents_test_support::instances::Offline;
use agents_test_support::workspace_root;
use agents_tests_e2e::{client_for, read_in_order, start};
use futures::TryStreamExt;
use serde_json::Value;

const UNCOMPILABLE: [&str; 2] = ["shop_v2", "drone_ci"];

/// The order problem of one record of `template` against the `declared` properties, if any:
/// the fields it gives must come in the order the schema lists them.
fn order_problem(template: &str, record: &Json, declared: &[&String]) -> Option<String> {
    let given: Vec<&String> = record.as_object()?.keys().collect();
    let expected: Vec<&String> = declared
        .iter()
        .copied()
        .filter(|k| given.contains(k))
        .collect();
    let listed: Vec<&String> = given.into_iter().filter(|k| declared.contains(k)).collect();
    (listed != expected)
        .then(|| format!("{template}: fields {listed:?}, the schema lists {expected:?}"))
}

/// The problems with the order of what a run of `template` answers, read as bytes (a client's
/// `Value` would sort it): its records' fields against the order its served schema lists them.
async fn order_problems(e: &EmulatorHandle, template: &str, params: &Value) -> Vec<String> {
    let http = reqwest::Client::new();
    let base = e.base_url().trim_end_matches('/');
    let served = read_in_order(http.get(format!("{base}/v2/extract/templates/{template}"))).await;
    // A root that lists no properties of its own (its fields come through a `$ref` or an
    // `allOf`) has no order to read here without resolving references: it is checked for
    // validity only.
    let Some(declared) = served
        .pointer("/published_version/output_schema/properties")
        .and_then(Json::as_object)
    else {
        return Vec::new();
    };
    let declared: Vec<&String> = declared.keys().collect();
    let body = serde_json::json!({"template": template, "params": params});
    let run = read_in_order(
        http.post(format!("{base}/v2/extract/templates/run"))
            .json(&body),
    )
    .await;
    let records = match run.pointer("/data/parsing") {
        Some(Json::Array(items)) => items.iter().collect(),
        other => other.into_iter().collect::<Vec<_>>(),
    };
    records
        .into_iter()
        .filter_map(|r| order_problem(template, r, &declared))
        .take(1)
        .collect()
}

/// Every template's runs, checked; the problems, one line each.
async fn check_every_template(
    e: &EmulatorHandle,
    c: &Client,
    files: Option<&std::path::Path>,
) -> (usize, Vec<String>) {
    let templates: Vec<_> = c.templates().try_collect().await.unwrap();
    let mut problems = Vec::new();
    let mut checked = 0;
    for t in templates {
        let Some(version) = t.published_version else {
            continue;
        };
        let output = Value::Object(version.output_schema.clone());
        if let Some(dir) = files {
            let file = dir.join(format!("{}.output.schema.json", t.name));
            if let Ok(text) = std::fs::read_to_string(&file) {
                let written: Value = serde_json::from_str(&text).unwrap();
                if written != output {
                    problems.push(format!("{}: the output schema is not as written", t.name));
                }
            }
        }
        let validator = match jsonschema::options()
            .with_retriever(Offline)
            .should_validate_formats(true)
            .build(&output)
        {
            Ok(v) => v,
            Err(e) => {
                // Two files refer to what is not there: shop_v2 to a `$defs` entry it lacks (on
                // purpose: generation warns of it), drone_ci into Kubernetes' definitions on the
                // web. Anything else that does not compile is a problem.
                if !UNCOMPILABLE.contains(&t.name.as_str()) {
                    problems.push(format!(
                        "{}: the served schema does not compile: {e}",
                        t.name
                    ));
                }
                continue;
            }
        };
        let input = Value::Object(version.input_schema.clone());
        let doc = agents_schema::FieldSchema::from_document(&input).unwrap();
        let params = agents_schema::sample::document(&doc, 7);
        let run = match c.run_raw(&t.name, params.clone()).await {
            Ok(run) => run,
            Err(e) => {
                problems.push(format!("{}: the run with {params} failed: {e}", t.name));
                continue;
            }
        };
        problems.extend(order_problems(e, &t.name, &params).await);
        for record in run.records() {
            checked += 1;
            for error in validator.iter_errors(record).take(3) {
                problems.push(format!(
                    "{}: {} at {}: {error}",
                    t.name,
                    error.kind().keyword(),
                    error.instance_path()
                ));
            }
        }
    }
    (checked, problems)
}

async fn checked(dir: Option<&std::path::Path>) -> (usize, Vec<String>) {
    let mut builder = agents_emulator::Emulator::builder().rate_limit(None);
    if let Some(dir) = dir {
        builder = builder.schema_dir(dir);
    }
    let e = start(builder).await;
    let c = client_for(&e).api_version(ApiVersion::V2).build().unwrap();
    check_every_template(&e, &c, dir).await
}

#[tokio::test]
async fn every_value_made_for_the_catalog_and_the_users_files_follows_its_schema() {
    let json_schema = workspace_root().join("tests").join("json-schema");
    let (catalog, mut problems) = checked(None).await;
    let (files, more) = checked(Some(&json_schema)).await;
    problems.extend(more);
    assert!(
        catalog >= 40 && files > catalog,
        "only {catalog} + {files} records checked"
    );
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The real-world corpus served as templates: every schema keeps its text, and every record made
/// for it validates (`oneOf` exactly-one, `not`, patterns, `uniqueItems`, `minProperties` and
/// the rest of what 25 projects' schemas say).
#[tokio::test]
async fn the_corpus_keeps_its_text_and_its_records_validate() {
    let corpus = workspace_root()
        .join("tests")
        .join("json-schema")
        .join("corpus")
        .join("schemas");
    let (records, problems) = checked(Some(&corpus)).await;
    assert!(records >= 24, "only {records} records checked");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
