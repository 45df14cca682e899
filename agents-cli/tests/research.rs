#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! `cargo agents research` against the emulator over loopback: a question with a schema the user
//! wrote (the agent made on `/v1`, found again on the next run), a text answer by name on `/v2`,
//! progress from the events (resumed without repeats after a cut), a failed run, and a schema
//! refused before anything is sent.

use crate::common;

use std::path::Path;
use std::process::Output;

use agents_emulator::EmulatorHandle;
use common::{KEY, emulator, scratch};
use serde_json::Value;

/// The JSON Schema file a user wrote (also the one the end-to-end tests generate a record from).
fn schema_file() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/json-schema/price_check.output.schema.json")
}

async fn cargo_agents(e: &EmulatorHandle, cwd: &Path, args: &[&str]) -> Output {
    let mut c = common::command(e, cwd, KEY, args);
    c.args(["--rate-limit", "0"]);
    common::output(c).await
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn succeeded(out: &Output) -> String {
    assert!(out.status.success(), "{}", stderr(out));
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The document the same command prints with `--json`.
async fn with_json(e: &EmulatorHandle, cwd: &Path, args: &[&str]) -> Value {
    let out = cargo_agents(e, cwd, &[&["--json"][..], args].concat()).await;
    serde_json::from_str(&succeeded(&out)).unwrap()
}

/// The progress lines of a run (standard error, after the line naming the run).
fn progress(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|l| l.starts_with("  "))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_the_user_wrote_gives_a_cited_answer_that_satisfies_it() {
    let e = emulator().await;
    let dir = scratch("research-schema");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_file()).unwrap()).unwrap();
    let schema_arg = schema_file().display().to_string();

    // /v1 runs agents by id only: the first run makes the agent the file names, the second
    // finds it.
    let first = cargo_agents(
        &e,
        &dir,
        &[
            "research",
            "What does the X100 cost?",
            "--schema",
            &schema_arg,
        ],
    )
    .await;
    let text = succeeded(&first);
    assert!(
        stderr(&first).contains("made research agent price_check"),
        "{}",
        stderr(&first)
    );
    let steps = progress(&first);
    assert_eq!(
        steps.first().map(String::as_str),
        Some("queued"),
        "{steps:?}"
    );
    assert_eq!(
        steps.last().map(String::as_str),
        Some("completed"),
        "{steps:?}"
    );
    assert!(
        steps.iter().any(|s| s.starts_with("searching ")),
        "{steps:?}"
    );
    assert!(steps.iter().any(|s| s.starts_with("reading ")), "{steps:?}");
    assert!(steps.iter().any(|s| s.starts_with("claim ")), "{steps:?}");
    // The record (in the order the file lists its fields), then every claim with the field
    // it supports and numbered pages.
    let at = |key: &str| {
        text.find(&format!("\"{key}\""))
            .unwrap_or_else(|| panic!("{key}: {text}"))
    };
    assert!(
        at("product") < at("currency") && at("currency") < at("lowest_price"),
        "{text}"
    );
    assert!(at("seller") < at("price"), "{text}");
    assert!(text.contains("confidence: "), "{text}");
    assert!(text.contains("\nclaims:\n"), "{text}");
    assert!(text.contains("\n  offers[0].price "), "{text}");
    assert!(text.contains("\npages:\n  [1] "), "{text}");

    let second = cargo_agents(
        &e,
        &dir,
        &[
            "research",
            "And the X200?",
            "--schema",
            &schema_arg,
            "--json",
            "--quiet",
        ],
    )
    .await;
    let printed = succeeded(&second);
    let doc: Value = serde_json::from_str(&printed).unwrap();
    // The content in the order the file lists its fields.
    let tree: agents_schema::Json = serde_json::from_str(&printed).unwrap();
    let fields = tree
        .pointer("/content")
        .and_then(agents_schema::Json::as_object);
    let fields: Vec<&String> = fields.unwrap().keys().collect();
    let listed = ["product", "currency", "lowest_price", "offers", "in_stock"];
    let listed: Vec<&str> = listed
        .into_iter()
        .filter(|k| fields.iter().any(|f| f == k))
        .collect();
    assert_eq!(fields, listed);
    assert!(
        !stderr(&second).contains("made research agent"),
        "the agent is found again: {}",
        stderr(&second)
    );
    assert!(progress(&second).is_empty(), "--quiet: {}", stderr(&second));
    assert_eq!(doc["agent"], "price_check");
    assert_eq!(doc["run"]["status"], "completed");
    let content = &doc["content"];
    let validator = jsonschema::validator_for(&schema).unwrap();
    let wrong: Vec<String> = validator
        .iter_errors(content)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(wrong.is_empty(), "{wrong:?} in {content}");
    let claims = doc["trust"]["claims"].as_array().unwrap();
    assert!(!claims.is_empty());
    for claim in claims {
        let path = claim["path"].as_str().unwrap();
        let pointer = format!(
            "/{}",
            path.replace('[', ".").replace(']', "").replace('.', "/")
        );
        assert!(content.pointer(&pointer).is_some(), "{path} in {content}");
        let cited = claim["citations"].as_array().unwrap();
        assert!(!cited.is_empty(), "{claim}");
        for c in cited {
            assert!(
                c["url"].as_str().unwrap().starts_with(e.base_url()),
                "pages are served on loopback: {c}"
            );
        }
    }
}

/// An answer is checked against the schema it was asked to satisfy: a rule it breaks is a
/// warning after the answer, and `breaches` in `--json`. A schema no value satisfies (at least
/// 5, at most 3) makes every answer break one, as the `jsonschema` crate agrees.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_that_breaks_its_schema_says_which_rule() {
    let e = emulator().await;
    let dir = scratch("research-breaches");
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 3}},
        "required": ["n"]
    });
    std::fs::write(dir.join("odd.output.schema.json"), schema.to_string()).unwrap();
    let args = [
        "research",
        "q",
        "--quiet",
        "--schema",
        "odd.output.schema.json",
    ];
    let text = cargo_agents(&e, &dir, &args).await;
    succeeded(&text);
    let err = stderr(&text);
    assert!(
        err.contains(
            "warning: the answer breaks 1 rule(s) of `odd`'s output schema:\n  n: breaks `"
        ),
        "{err}"
    );
    let doc = with_json(&e, &dir, &args).await;
    let breaches = doc["breaches"].as_array().unwrap();
    assert_eq!(breaches.len(), 1, "{doc}");
    assert_eq!(breaches[0]["path"], "n");
    assert!(
        ["minimum", "maximum"].contains(&breaches[0]["keyword"].as_str().unwrap()),
        "{doc}"
    );
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(!validator.is_valid(&doc["content"]));
}

/// Records given as a list are answered as a list, each record shaped as the schema says: each
/// is checked on its own (a breach named from the list, `[0].price`) and printed in the
/// schema's order, where the list as a whole would be "not an object". The `jsonschema` crate
/// judges each record the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_given_as_a_list_are_each_checked_against_the_schema() {
    let e = emulator().await;
    let dir = scratch("research-rows");
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "price": {"type": "number", "minimum": 0},
            "name": {"type": "string"}
        },
        "required": ["price"]
    });
    // As written, `price` before `name`: the order the answer is printed in.
    let written = r#"{"type": "object", "properties": {"price": {"type": "number", "minimum": 0},
        "name": {"type": "string"}}, "required": ["price"]}"#;
    assert_eq!(serde_json::from_str::<Value>(written).unwrap(), schema);
    std::fs::write(dir.join("rows.output.schema.json"), written).unwrap();
    std::fs::write(
        dir.join("rows.json"),
        r#"[{"price": -1}, {"name": "kettle"}]"#,
    )
    .unwrap();
    let args = [
        "--api-version",
        "v2",
        "research",
        "prices",
        "--quiet",
        "--schema",
        "rows.output.schema.json",
        "--input-data",
        "rows.json",
    ];
    let text = cargo_agents(&e, &dir, &args).await;
    let out = succeeded(&text);
    let err = stderr(&text);
    // Said before the run as well: the given value is kept, so the answer breaks the rule too.
    // The record without `price` is one to fill in, not a breach.
    assert!(
        err.starts_with(
            "warning: --input-data rows.json breaks 1 rule(s) of `rows`'s output schema:\n  \
             [0].price: breaks `minimum: 0` (/properties/price/minimum), found -1\n  the agent \
             keeps a given value"
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "warning: the answer breaks 1 rule(s) of `rows`'s output schema:\n  [0].price: \
             breaks `minimum: 0` (/properties/price/minimum), found -1"
        ),
        "{err}"
    );
    // Each record's fields in the schema's order, not the alphabet's.
    assert!(
        out.starts_with("[\n  {\n    \"price\": -1,\n    \"name\": "),
        "{out}"
    );

    let doc = with_json(&e, &dir, &args).await;
    let records = doc["content"].as_array().unwrap();
    assert_eq!(records.len(), 2, "{doc}");
    assert_eq!(records[1]["name"], "kettle", "{doc}");
    let validator = jsonschema::validator_for(&schema).unwrap();
    let judged: Vec<bool> = records.iter().map(|r| validator.is_valid(r)).collect();
    assert_eq!(judged, [false, true], "{doc}");
    let paths: Vec<&Value> = doc["breaches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["path"])
        .collect();
    assert_eq!(paths, ["[0].price"], "{doc}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_answer_by_name_on_v2_resumes_a_cut_stream_without_repeats() {
    let e = emulator().await;
    let dir = scratch("research-text");
    let before = e.requests_seen(KEY);
    let whole = cargo_agents(
        &e,
        &dir,
        &[
            "--api-version",
            "v2",
            "research",
            "Summarize the market",
            "--agent",
            "analyst",
        ],
    )
    .await;
    let text = succeeded(&whole);
    let whole_requests = e.requests_seen(KEY) - before;
    assert!(text.contains("[1]"), "{text}");
    assert!(text.contains("\n  [1] in the text "), "{text}");
    let cut = cargo_agents(
        &e,
        &dir,
        &[
            "--api-version",
            "v2",
            "-H",
            "x-emulator-events: cut",
            "research",
            "Summarize the market",
            "--agent",
            "analyst",
        ],
    )
    .await;
    succeeded(&cut);
    let cut_requests = e.requests_seen(KEY) - before - whole_requests;
    assert!(
        cut_requests >= whole_requests + 2,
        "the stream was cut and resumed: {cut_requests} requests, {whole_requests} uncut"
    );
    assert!(
        !stderr(&cut).contains("warning"),
        "resumed, not given up: {}",
        stderr(&cut)
    );
    // Same steps in the same order: the resumed stream repeats nothing and misses nothing
    // (pages differ by run id only).
    let shape = |steps: Vec<String>| -> Vec<String> {
        steps
            .into_iter()
            .map(|s| s.split(" <").next().unwrap_or_default().to_owned())
            .collect()
    };
    assert_eq!(shape(progress(&cut)), shape(progress(&whole)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_name_the_run_the_agent_or_the_schema_and_what_to_do() {
    let e = emulator().await;
    let dir = scratch("research-failures");

    let failed = cargo_agents(
        &e,
        &dir,
        &[
            "--api-version",
            "v2",
            "-H",
            "x-emulator-task: error",
            "research",
            "q",
            "--agent",
            "analyst",
        ],
    )
    .await;
    assert_eq!(failed.status.code(), Some(1));
    let err = stderr(&failed);
    assert!(
        err.contains("ended failed without an answer") && err.contains("(ref task_run_"),
        "{err}"
    );
    assert_eq!(progress(&failed).last().map(String::as_str), Some("failed"));

    let seen = e.requests_seen(KEY);
    let unknown = cargo_agents(&e, &dir, &["research", "q", "--agent", "nobody"]).await;
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        stderr(&unknown).contains("no active research agent is named nobody; pass --schema"),
        "{}",
        stderr(&unknown)
    );

    // Each refused before anything is sent, every problem said with its file and path:
    // a schema that does not read; a type JSON Schema does not name (the generator's error,
    // with its pointer and the fix); a property defined twice, of which a JSON reader keeps the
    // last without a word; records with a key twice; records that are no objects, said in the
    // command's flags.
    for (name, text) in [
        (
            "broken.output.schema.json",
            r#"{"type": "object", "properties": {"a": 5, "b": {"type": 7}}}"#,
        ),
        (
            "typo.output.schema.json",
            r#"{"type": "object", "properties": {"when": {"type": "strng"}}}"#,
        ),
        (
            "twice.output.schema.json",
            r#"{"type": "object", "properties": {"when": {"type": "string"}, "when": {}}}"#,
        ),
        (
            "once.output.schema.json",
            r#"{"type": "object", "properties": {"when": {"type": "string"}}}"#,
        ),
        (
            "rows.json",
            r#"[{"when": "now"}, {"when": "a", "when": "b"}]"#,
        ),
        ("numbers.json", "[1]"),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let with_rows = |rows: &'static str| {
        [
            "research",
            "q",
            "--schema",
            "once.output.schema.json",
            "--input-data",
            rows,
        ]
    };
    for (args, said) in [
        (
            &["research", "q", "--schema", "broken.output.schema.json"][..],
            &[
                "broken.output.schema.json",
                "$.properties.a",
                "$.properties.b.type",
            ][..],
        ),
        (
            &["research", "q", "--schema", "typo.output.schema.json"],
            &[
                "typo.output.schema.json: agent `typo`: #/properties/when/type",
                "fix the type's name",
            ],
        ),
        (
            &["research", "q", "--schema", "twice.output.schema.json"],
            &["twice.output.schema.json: $.properties.when: `when` is given twice"],
        ),
        (
            &with_rows("rows.json"),
            &["rows.json: $[1].when: `when` is given twice"],
        ),
        (
            &with_rows("numbers.json"),
            &["invalid --input-data[0]: each row of --input-data is an object, not a number"],
        ),
    ] {
        let before = e.requests_seen(KEY);
        let out = cargo_agents(&e, &dir, args).await;
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        for part in said {
            assert!(err.contains(part), "{args:?}: {part:?} in {err}");
        }
        assert_eq!(e.requests_seen(KEY), before, "{args:?}: nothing sent");
    }
    std::fs::write(
        dir.join("odd.output.schema.json"),
        r#"{"type": "object", "properties": {"when": {"type": "string", "$id": "http://[bad"}}}"#,
    )
    .unwrap();
    let odd = cargo_agents(
        &e,
        &dir,
        &["research", "q", "--schema", "odd.output.schema.json"],
    )
    .await;
    let err = stderr(&odd);
    let warning = err
        .split_inclusive('\n')
        .find(|l| l.starts_with("warning: "))
        .unwrap_or_else(|| panic!("no warning: {err}"));
    assert!(
        warning.contains("odd.output.schema.json: agent `odd`: #/properties/when/$id")
            && warning.ends_with('\n'),
        "{warning:?}"
    );
    succeeded(&odd);

    let before = e.requests_seen(KEY);
    let refused = cargo_agents(
        &e,
        &dir,
        &["research", "q", "--agent", "analyst", "--effort", "5x-high"],
    )
    .await;
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("effort must be one of low, medium, high, x-high, max"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(
        e.requests_seen(KEY),
        before,
        "nothing sent for a refused run"
    );
    assert!(
        before > seen,
        "the agent list was read for the unknown agent"
    );
}

/// `research --schema FILE --documents PREFIX=DIR`: a schema whose references read a shared file
/// is checked with that file (no warning), and the service gets it whole (the file embedded
/// under `$defs`), so the answer satisfies the schema with the shared file's rules.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_with_shared_files_is_sent_whole() {
    let e = emulator().await;
    let dir = scratch("research-documents");
    let modes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/modes");
    let file = modes.join("schemas/shop_refs.output.schema.json");
    let shared = format!(
        "https://example.com/schemas/={}",
        modes.join("shared").display()
    );
    let alone = cargo_agents(
        &e,
        &dir,
        &[
            "research",
            "q",
            "--schema",
            file.to_str().unwrap(),
            "--quiet",
        ],
    )
    .await;
    assert!(
        stderr(&alone).contains(&format!(
            "{}: agent `shop_refs`: #/properties/price/$ref",
            file.display()
        )),
        "{}",
        stderr(&alone)
    );
    // The question with the schema, its documents from `documents`, and `more`.
    let ask = |documents: &str, more: &[&str]| {
        let mut args = vec![
            "research".to_owned(),
            "What does the kettle cost?".to_owned(),
            "--schema".to_owned(),
            file.display().to_string(),
            "--documents".to_owned(),
            documents.to_owned(),
        ];
        args.extend(more.iter().map(|a| (*a).to_owned()));
        args
    };
    let args = ask(&shared, &["--agent", "shop_whole", "--json", "--quiet"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let with = cargo_agents(&e, &dir, &args).await;
    assert!(!stderr(&with).contains("warning"), "{}", stderr(&with));
    let doc: Value = serde_json::from_str(&succeeded(&with)).unwrap();
    // What the service was given stands alone: the shared file under `$defs`, by its URI.
    let bundled = agents_runtime::check::Options::new()
        .directory("https://example.com/schemas/", modes.join("shared"))
        .compile(&serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap())
        .bundled()
        .into_owned();
    assert!(
        bundled["$defs"]
            .as_object()
            .unwrap()
            .contains_key("https://example.com/schemas/price.json")
    );
    let validator = jsonschema::validator_for(&bundled).unwrap();
    let content = &doc["content"];
    let wrong: Vec<String> = validator
        .iter_errors(content)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(wrong.is_empty(), "{wrong:?} in {content}");
    assert!(content["price"]["amount"].is_number(), "{content}");

    // A key the shared file gives twice is refused there, before anything is sent: the file
    // and its pointer named, not the schema file's (which has no such place).
    let twice = dir.join("shared");
    std::fs::create_dir_all(&twice).unwrap();
    let price = std::fs::read_to_string(modes.join("shared/price.json")).unwrap();
    let price = price.replacen(
        r#""currency": "#,
        r#""amount": {"type": "string"}, "currency": "#,
        1,
    );
    std::fs::write(twice.join("price.json"), price).unwrap();
    let before = e.requests_seen(KEY);
    let args = ask(
        &format!("https://example.com/schemas/={}", twice.display()),
        &["--quiet"],
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let refused = cargo_agents(&e, &dir, &args).await;
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains(
            "shared/price.json: agent `shop_refs`: #/properties/amount: `amount` is given twice"
        ),
        "{}",
        stderr(&refused)
    );
    assert!(
        !stderr(&refused).contains(&file.display().to_string()),
        "{}",
        stderr(&refused)
    );
    assert_eq!(e.requests_seen(KEY), before, "a refused schema was sent");
}
