#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! `cargo agents publish` against the emulator over loopback: templates as code — a plan that
//! changes nothing, then created, unchanged, a new version for a changed file, and a bad file
//! refused before anything is sent.

use crate::common;

use std::path::Path;
use std::process::Output;

use agents_emulator::EmulatorHandle;
use common::{KEY, emulator, scratch};

async fn cargo_agents(e: &EmulatorHandle, cwd: &Path, args: &[&str]) -> Output {
    let mut c = common::command(e, cwd, KEY, args);
    c.args(["--rate-limit", "0"]);
    common::output(c).await
}

fn lines(out: &Output) -> Vec<String> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The user's schema files of `tests/json-schema/` for `names`, copied into `dir`.
fn copy(dir: &Path, names: &[&str]) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/json-schema");
    for name in names {
        std::fs::copy(from.join(name), dir.join(name)).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schema_files_are_planned_then_published_once_and_a_changed_file_is_the_next_version() {
    let e = emulator().await;
    let dir = scratch("publish");
    let schemas = dir.join("templates");
    std::fs::create_dir_all(&schemas).unwrap();
    copy(
        &schemas,
        &[
            "review.output.schema.json",
            "review.input.schema.json",
            "price_check.output.schema.json",
        ],
    );
    let v2 = ["--api-version", "v2", "publish", "templates"];

    let plan = [&v2[..], &["--plan"]].concat();
    let expected = ["price_check: create", "review: create"];
    assert_eq!(lines(&cargo_agents(&e, &dir, &plan).await), expected);
    // A plan sends nothing that changes: asked again, the same.
    assert_eq!(lines(&cargo_agents(&e, &dir, &plan).await), expected);
    // Run before it is published: the refusal says how to publish it.
    let run = [
        "--api-version",
        "v2",
        "--dir",
        "templates",
        "run",
        "review",
        "-p",
        "url=https://shop.example/r/1",
    ];
    let unpublished = cargo_agents(&e, &dir, &run).await;
    let err = String::from_utf8_lossy(&unpublished.stderr);
    assert!(
        unpublished.status.code() == Some(1)
            && err.contains(
                "`review` is written as templates/review.output.schema.json: if it is not \
                 published yet, `cargo agents publish templates/review.output.schema.json` \
                 publishes it"
            ),
        "{err}"
    );
    // So does a batch of it, before any row is written.
    let batch = [
        "--api-version",
        "v2",
        "--dir",
        "templates",
        "batch",
        "review",
        "--input",
        "urls.csv",
        "--out",
        "out.jsonl",
    ];
    std::fs::write(dir.join("urls.csv"), "url\nhttps://shop.example/r/1\n").unwrap();
    let refused = cargo_agents(&e, &dir, &batch).await;
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        refused.status.code() == Some(1)
            && err.contains("`cargo agents publish templates/review.output.schema.json`"),
        "{err}"
    );
    // So does a job made of it.
    let job = [
        "--api-version",
        "v2",
        "--dir",
        "templates",
        "jobs",
        "create",
        "nightly",
        "--agent",
        "review",
        "--input",
        "urls.csv",
    ];
    let refused = cargo_agents(&e, &dir, &job).await;
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        refused.status.code() == Some(1)
            && err.contains("`cargo agents publish templates/review.output.schema.json`"),
        "{err}"
    );

    assert_eq!(
        lines(&cargo_agents(&e, &dir, &v2).await),
        [
            "price_check: created, version 1",
            "review: created, version 1"
        ]
    );
    // Fetched back elsewhere, the record lists the fields in the file's order: the order of
    // the fields generated from it.
    let fetched = ["--api-version", "v2", "--dir", "fetched", "fetch", "review"];
    assert!(cargo_agents(&e, &dir, &fetched).await.status.success());
    let text = std::fs::read_to_string(dir.join("fetched/review.json")).unwrap();
    let record = agents_schema::AgentRecord::from_json(&text).unwrap();
    let names: Vec<&String> = record.output_schema.as_ref().unwrap().keys().collect();
    let file: agents_schema::Json = serde_json::from_str(
        &std::fs::read_to_string(schemas.join("review.output.schema.json")).unwrap(),
    )
    .unwrap();
    let in_file = file
        .get("properties")
        .and_then(agents_schema::Json::as_object);
    assert_eq!(names, in_file.unwrap().keys().collect::<Vec<_>>());
    assert_ne!(
        names.first().map(|n| n.as_str()),
        Some("author"),
        "not sorted"
    );
    let again = cargo_agents(&e, &dir, &[&v2[..], &["--json"]].concat()).await;
    let report = common::json(&again);
    let plans: Vec<(&str, &str, u64)> = report["templates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap(),
                t["plan"].as_str().unwrap(),
                t["version"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        plans,
        [("price_check", "unchanged", 1), ("review", "unchanged", 1)]
    );

    // The file changes: only its template moves, to the next version.
    let output = schemas.join("review.output.schema.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    doc["properties"]["stars"]["maximum"] = 10.into();
    std::fs::write(&output, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    // `check` sees a changed rule as drift, says it as the change publishing makes, and points
    // at `publish`, not at `fetch` (which would put the service's record beside the files).
    let check = ["--api-version", "v2", "--dir", "templates", "check"];
    let drift = cargo_agents(&e, &dir, &check).await;
    assert_eq!(drift.status.code(), Some(1));
    let said = String::from_utf8_lossy(&drift.stdout);
    assert!(
        said.contains("rule changed   output_schema.stars: maximum 5 → 10")
            && said.contains("`cargo agents publish templates`")
            && !said.contains("fetch"),
        "{said}"
    );
    assert_eq!(
        lines(&cargo_agents(&e, &dir, &plan).await),
        [
            "price_check: unchanged, version 1",
            "review: update version 1 (output schema changed)"
        ]
    );
    assert_eq!(
        lines(&cargo_agents(&e, &dir, &v2).await),
        [
            "price_check: unchanged, version 1",
            "review: updated, version 1 → 2"
        ]
    );
    assert_eq!(
        lines(&cargo_agents(&e, &dir, &check).await),
        ["price_check: up to date", "review: up to date"]
    );
    assert!(!lines(&cargo_agents(&e, &dir, &run).await).is_empty());

    // The service's record is not cached over the files that are the template's source: named,
    // it is refused before anything is sent; listed by --all, passed over with a note.
    let fetch = ["--api-version", "v2", "--dir", "templates", "fetch"];
    let before = e.requests_seen(KEY);
    let refused = cargo_agents(&e, &dir, &[&fetch[..], &["review"]].concat()).await;
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.starts_with("error: templates/review.output.schema.json already defines `review`")
            && err.contains("`cargo agents publish`"),
        "{err}"
    );
    assert_eq!(e.requests_seen(KEY), before, "nothing is sent");
    let all = cargo_agents(&e, &dir, &[&fetch[..], &["--all"]].concat()).await;
    let err = String::from_utf8_lossy(&all.stderr);
    assert!(
        all.status.success()
            && err.contains(
                "note: `review` not fetched: templates/review.output.schema.json defines it"
            ),
        "{err}"
    );
    assert!(!schemas.join("review.json").exists() && schemas.join("retailer_a_pdp.json").is_file());
    let private = cargo_agents(&e, &dir, &[&fetch[..], &["--private"]].concat()).await;
    let err = String::from_utf8_lossy(&private.stderr);
    assert!(
        private.status.code() == Some(1) && err.contains("pass --api-version v1, or --all"),
        "{err}"
    );
    // A record written beside the files by hand: both files are named.
    std::fs::copy(
        schemas.join("retailer_a_pdp.json"),
        schemas.join("review.json"),
    )
    .unwrap();
    let text = std::fs::read_to_string(schemas.join("review.json")).unwrap();
    std::fs::write(
        schemas.join("review.json"),
        text.replace("\"retailer_a_pdp\"", "\"review\""),
    )
    .unwrap();
    let twice = cargo_agents(&e, &dir, &["--dir", "templates", "generate"]).await;
    let err = String::from_utf8_lossy(&twice.stderr);
    assert!(
        err.contains(
            "templates/review.output.schema.json: agent `review`: $.name: review.json defines this \
             agent too; keep one of the two files"
        ),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_schema_file_is_refused_before_anything_is_sent_and_v1_is_named() {
    let e = emulator().await;
    let dir = scratch("publish-bad");
    copy(
        &dir,
        &["review.output.schema.json", "review.input.schema.json"],
    );
    std::fs::write(
        dir.join("typo.output.schema.json"),
        r#"{"type": "object", "properties": {"when": {"type": "strng"}}}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("kind.output.schema.json"),
        r#"{"type": "object", "properties": {"n": {"type": 3}}}"#,
    )
    .unwrap();
    // A bound of the wrong kind changes no type: a warning, not a fourth problem.
    std::fs::write(
        dir.join("bound.output.schema.json"),
        r#"{"type": "object", "properties": {"n": {"type": "integer", "minimum": "3"}}}"#,
    )
    .unwrap();
    // A name the service takes for no template of one's own; `--plan` would say "create".
    std::fs::write(
        dir.join("My Shop.output.schema.json"),
        r#"{"type": "object", "properties": {"n": {"type": "integer"}}}"#,
    )
    .unwrap();
    let before = e.requests_seen(KEY);
    let out = cargo_agents(&e, &dir, &["--api-version", "v2", "publish", "."]).await;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    // Every file's problems in one list, each naming its file as the user did and the pointer
    // in that file.
    assert!(
        err.contains(
            "warning: bound.output.schema.json: agent `bound`: #/properties/n/minimum: `minimum` \
             takes a number, and this is a string: it is not read"
        ),
        "{err}"
    );
    assert!(
        err.contains("error: 3 problems in agent schemas:\n"),
        "{err}"
    );
    assert!(
        err.contains(
            "  - My Shop.output.schema.json: agent `My Shop`: $: the file names template \
             \"My Shop\", and a template's name is lowercase letters, digits and underscores: \
             rename the file (and a record's `name`) to `my_shop`"
        ),
        "{err}"
    );
    assert!(
        err.contains("  - typo.output.schema.json: agent `typo`: #/properties/when/type: `strng`"),
        "{err}"
    );
    assert!(
        err.contains("  - kind.output.schema.json: agent `kind`: $.properties.n.type:"),
        "{err}"
    );
    assert!(err.ends_with('\n'), "{err:?}");
    assert_eq!(e.requests_seen(KEY), before, "nothing is sent");

    std::fs::remove_file(dir.join("typo.output.schema.json")).unwrap();
    std::fs::remove_file(dir.join("bound.output.schema.json")).unwrap();
    std::fs::remove_file(dir.join("kind.output.schema.json")).unwrap();
    std::fs::remove_file(dir.join("My Shop.output.schema.json")).unwrap();
    let out = cargo_agents(&e, &dir, &["--api-version", "v1", "publish", "."]).await;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/v2"), "{err}");
    assert_eq!(e.requests_seen(KEY), before, "nothing is sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_with_shared_files_is_published_whole() {
    let e = emulator().await;
    let dir = scratch("publish-documents");
    let modes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/modes");
    let file = modes.join("schemas/shop_refs.output.schema.json");
    std::fs::copy(&file, dir.join("shop_refs.output.schema.json")).unwrap();
    std::fs::write(
        dir.join("shop_refs.input.schema.json"),
        r#"{"type": "object", "required": ["product"], "properties": {
            "product": {"type": "string"},
            "budget": {"$ref": "https://example.com/schemas/price.json"}
        }}"#,
    )
    .unwrap();
    let shared = format!(
        "https://example.com/schemas/={}",
        modes.join("shared").display()
    );
    let v2 = ["--api-version", "v2", "publish", "."];

    // Without the shared files the references dangle: a warning naming the pointer and how to
    // supply them, and nothing else changes.
    let alone = cargo_agents(&e, &dir, &[&v2[..], &["--plan"]].concat()).await;
    let err = String::from_utf8_lossy(&alone.stderr);
    assert!(err.contains("/properties/price/$ref"), "{err}");
    assert!(err.contains("--documents"), "{err}");

    let with = cargo_agents(&e, &dir, &[&v2[..], &["--documents", &shared]].concat()).await;
    assert_eq!(lines(&with), ["shop_refs: created, version 1"]);
    let err = String::from_utf8_lossy(&with.stderr);
    assert!(!err.contains("warning"), "{err}");

    // What the service holds stands alone: the shared file under `$defs`, by its URI, and a
    // value its rules accept or refuse as the original with the file at hand does.
    let client = agents_runtime::Client::builder()
        .base_url(e.base_url())
        .api_key(KEY)
        .api_version(agents_runtime::ApiVersion::V2)
        .build()
        .unwrap();
    let held = client.template("shop_refs").await.unwrap();
    let held = serde_json::Value::Object(held.published_version.unwrap().output_schema);
    assert!(
        held["$defs"]
            .as_object()
            .unwrap()
            .contains_key("https://example.com/schemas/price.json"),
        "{held}"
    );
    let validator = jsonschema::validator_for(&held).unwrap();
    let ok = serde_json::json!({"product": "kettle", "price": {"amount": 12.5, "currency": "EUR"}});
    let bad = serde_json::json!({"product": "kettle", "price": {"amount": -1, "currency": "EUR"}});
    let original = agents_runtime::check::Options::new()
        .directory("https://example.com/schemas/", modes.join("shared"))
        .compile(&serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap());
    for value in [ok, bad] {
        assert_eq!(
            validator.is_valid(&value),
            original.is_valid(&value),
            "{value} against {held}"
        );
    }

    // In the order the file wrote its properties (the order of the fields generated from it).
    let record = client.agent("shop_refs").await.unwrap();
    let names: Vec<&String> = record.output_schema.as_ref().unwrap().keys().collect();
    assert_eq!(names, ["product", "price", "was", "seller"]);

    // Published again with the same files: unchanged.
    let again = cargo_agents(&e, &dir, &[&v2[..], &["--documents", &shared]].concat()).await;
    assert_eq!(lines(&again), ["shop_refs: unchanged, version 1"]);
    // `check` compares the files as `publish` sends them: up to date with the shared files;
    // without them, what publishing the dangling references would change.
    let check = ["--api-version", "v2", "--dir", ".", "check"];
    let checked = cargo_agents(&e, &dir, &[&check[..], &["--documents", &shared]].concat()).await;
    assert_eq!(lines(&checked), ["shop_refs: up to date"]);
    let alone = cargo_agents(&e, &dir, &check).await;
    assert!(!alone.status.success());
    let out = String::from_utf8_lossy(&alone.stdout);
    assert!(
        out.contains("shop_refs: ") && out.contains("rule changed") && out.contains("$defs"),
        "{out}"
    );

    // The input schema is sent whole too, so the service judges params by what the shared
    // file says; so does `run` with the same files, before sending anything.
    let held = client.template("shop_refs").await.unwrap();
    let input = &held.published_version.unwrap().input_schema;
    assert!(
        input["$defs"]
            .as_object()
            .is_some_and(|d| d.contains_key("https://example.com/schemas/price.json")),
        "{input:?}"
    );
    let run = [
        "--api-version",
        "v2",
        "--dir",
        ".",
        "run",
        "shop_refs",
        "-p",
        "product=kettle",
        "-p",
        r#"budget={"amount": -1}"#,
    ];
    let before = e.requests_seen(KEY);
    let checked = cargo_agents(&e, &dir, &[&run[..], &["--documents", &shared]].concat()).await;
    let err = String::from_utf8_lossy(&checked.stderr);
    assert!(!checked.status.success());
    assert!(
        err.contains("nothing was sent") && err.contains("breaks `minimum: 0`"),
        "{err}"
    );
    assert_eq!(e.requests_seen(KEY), before, "nothing is sent");
    // Without them, a warning says what the check cannot judge, and the service refuses.
    let unchecked = cargo_agents(&e, &dir, &run).await;
    let err = String::from_utf8_lossy(&unchecked.stderr);
    assert!(!unchecked.status.success());
    assert!(
        err.contains("warning: agent `shop_refs`: input_schema#/properties/budget/$ref")
            && err.contains("--documents")
            && err.contains("HTTP 422")
            && err.contains("breaks `minimum: 0`"),
        "{err}"
    );
}
