#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! `cargo agents` against the emulator over loopback.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use agents_emulator::EmulatorHandle;
use agents_schema::AgentRecord;
use common::{KEY, emulator, json, scratch};
use serde_json::Value;

async fn cargo_agents(e: &EmulatorHandle, cwd: &Path, key: &str, args: &[&str]) -> Output {
    common::output(common::command(e, cwd, key, args)).await
}

fn schemas() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_then_check_reports_drift_field_by_field() {
    let e = emulator().await;
    let dir = scratch("fetch");
    let out = cargo_agents(
        &e,
        &dir,
        KEY,
        &["--json", "fetch", "retailer_a_pdp", "llm_a"],
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json(&out)["fetched"].as_array().unwrap().len(), 2);
    let cached = std::fs::read_to_string(dir.join("schemas/retailer_a_pdp.json")).unwrap();
    let original = std::fs::read_to_string(schemas().join("retailer_a_pdp.json")).unwrap();
    let (cached_record, original_record) = (
        AgentRecord::from_json(&cached).unwrap(),
        AgentRecord::from_json(&original).unwrap(),
    );
    assert_eq!(cached_record, original_record);
    // In the same order too: the bindings list the fields as the record does.
    let order = |r: &AgentRecord| -> Vec<String> {
        r.output_schema.as_ref().unwrap().keys().cloned().collect()
    };
    assert_eq!(order(&cached_record), order(&original_record));

    let ok = cargo_agents(&e, &dir, KEY, &["check"]).await;
    assert!(ok.status.success());
    assert!(String::from_utf8_lossy(&ok.stdout).contains("retailer_a_pdp: up to date"));

    // A name not cached, or a directory with nothing in it, is not a clean check: an error
    // before anything is sent.
    let before = e.requests_seen(KEY);
    let typo = cargo_agents(&e, &dir, KEY, &["check", "retailer_a_pd"]).await;
    assert_eq!(typo.status.code(), Some(1));
    let err = String::from_utf8_lossy(&typo.stderr);
    assert!(
        err.contains("not in schemas: retailer_a_pd;") && err.contains("fetch retailer_a_pd`"),
        "{err}"
    );
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    let empty = cargo_agents(&e, &dir, KEY, &["--dir", "empty", "check"]).await;
    assert_eq!(empty.status.code(), Some(1));
    let err = String::from_utf8_lossy(&empty.stderr);
    assert!(err.contains("empty holds no schemas"), "{err}");
    assert_eq!(e.requests_seen(KEY), before);

    // The cache says web_price is a string and lacks brand: the live API differs.
    let mut v: Value = serde_json::from_str(&cached).unwrap();
    v["output_schema"]["web_price"]["type"] = "string".into();
    v["output_schema"].as_object_mut().unwrap().remove("brand");
    std::fs::write(dir.join("schemas/retailer_a_pdp.json"), v.to_string()).unwrap();
    let drift = cargo_agents(&e, &dir, KEY, &["--json", "check"]).await;
    assert_eq!(drift.status.code(), Some(1));
    let report = json(&drift);
    assert_eq!(report["drifted"], 1);
    let changes = &report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "retailer_a_pdp")
        .unwrap()["changes"];
    let kinds: Vec<(&str, &str)> = changes
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["kind"].as_str().unwrap(), c["path"].as_str().unwrap()))
        .collect();
    assert!(
        kinds.contains(&("type_changed", "output_schema.web_price")),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("field_added", "output_schema.brand")),
        "{kinds:?}"
    );

    let gen_out = dir.join("bindings.rs");
    let g = cargo_agents(
        &e,
        &dir,
        KEY,
        &["generate", "--out", gen_out.to_str().unwrap()],
    )
    .await;
    assert!(g.status.success(), "{}", String::from_utf8_lossy(&g.stderr));
    let src = std::fs::read_to_string(&gen_out).unwrap();
    assert!(src.contains("pub struct RetailerAPdp"));
    assert!(src.contains("pub struct LlmAParams"));

    // A type JSON Schema does not name, in a cached schema: `check` reports it as `generate`
    // does, with its pointer and the fix, before asking the live API, together with the
    // problems of every other file.
    v["output_schema"]["web_price"]["type"] = "strng".into();
    std::fs::write(dir.join("schemas/retailer_a_pdp.json"), v.to_string()).unwrap();
    let unreadable = dir.join("schemas/unreadable.json");
    std::fs::write(
        &unreadable,
        r#"{"name": "unreadable", "output_schema": {"price": {"type": 5}}}"#,
    )
    .unwrap();
    let before = e.requests_seen(KEY);
    let typo = cargo_agents(&e, &dir, KEY, &["check"]).await;
    assert_eq!(typo.status.code(), Some(1));
    let err = String::from_utf8_lossy(&typo.stderr);
    assert!(
        err.contains("retailer_a_pdp")
            && err.contains("output_schema#/properties/web_price/type")
            && err.contains("fix the type's name"),
        "{err}"
    );
    assert!(
        err.starts_with("error: 2 problems in agent schemas:")
            && err.contains("unreadable.json: agent `unreadable`: $.output_schema.price.type"),
        "{err}"
    );
    // `--json` lists them as data: file, agent, JSON path, message, severity.
    let listed = cargo_agents(&e, &dir, KEY, &["--json", "check"]).await;
    assert_eq!(listed.status.code(), Some(1));
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let problems: Vec<(&str, &str, &str)> = (listed["problems"].as_array().unwrap().iter())
        .map(|p| {
            let field = |k: &str| p[k].as_str().unwrap_or_default();
            (field("file"), field("path"), field("severity"))
        })
        .collect();
    assert_eq!(
        problems,
        [
            (
                "schemas/retailer_a_pdp.json",
                "output_schema#/properties/web_price/type",
                "error"
            ),
            (
                "schemas/unreadable.json",
                "$.output_schema.price.type",
                "error"
            ),
        ],
        "{listed}"
    );
    assert_eq!(e.requests_seen(KEY), before, "{err}");
    std::fs::remove_file(&unreadable).unwrap();

    // The drift names the command that refreshes what changed, and that command does.
    v["output_schema"]["web_price"]["type"] = "string".into();
    std::fs::write(dir.join("schemas/retailer_a_pdp.json"), v.to_string()).unwrap();
    let drift = cargo_agents(&e, &dir, KEY, &["check"]).await;
    let text = String::from_utf8_lossy(&drift.stdout);
    let command = text
        .split('`')
        .find(|part| part.starts_with("cargo agents") && part.contains(" fetch "))
        .unwrap_or_else(|| panic!("no fetch command in {text}"));
    assert_eq!(command, "cargo agents fetch retailer_a_pdp", "{text}");
    let args: Vec<&str> = command.split(' ').skip(2).collect();
    let refreshed = cargo_agents(&e, &dir, KEY, &args).await;
    assert!(
        refreshed.status.success(),
        "{}",
        String::from_utf8_lossy(&refreshed.stderr)
    );
    let ok = cargo_agents(&e, &dir, KEY, &["check"]).await;
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_agent_goes_from_prompt_to_typed_struct() {
    let e = emulator().await;
    let dir = scratch("generate");
    let out = cargo_agents(
        &e,
        &dir,
        KEY,
        &[
            "--json",
            "generate-agent",
            "--prompt",
            "Extract the recipe title, rating and cooking time.",
            "--url",
            "https://recipes.example/r/1",
            "--name",
            "recipe_page",
        ],
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = json(&out);
    assert_eq!(r["agent"], "recipe_page");
    assert_eq!(r["fields"], 3);
    assert!(dir.join("schemas/recipe_page.json").is_file());
    // The record is cached where `agent!` finds it, and the line to use is printed; no stray
    // source file is written unless asked for.
    assert_eq!(r["use"], "agents_runtime::agent!(\"recipe_page\");");
    assert!(r["bindings"].is_null());
    assert!(!dir.join("src").exists());

    // Refined over /v2: the new version's JSON Schema is read back into the cached record.
    let refined = cargo_agents(
        &e,
        &dir,
        KEY,
        &[
            "--api-version",
            "v2",
            "generate-agent",
            "--refine",
            "recipe_page",
            "--prompt",
            "also extract the servings",
            "--out",
            "src/recipe_page.rs",
        ],
    )
    .await;
    assert!(
        refined.status.success(),
        "{}",
        String::from_utf8_lossy(&refined.stderr)
    );
    let src = std::fs::read_to_string(dir.join("src/recipe_page.rs")).unwrap();
    assert!(src.contains("pub struct RecipePage"));
    assert!(src.contains("pub recipe_title: Option<String>"));
    assert!(src.contains("pub servings"));

    // Mistakes are said in this command's flags, not in the methods of the library under it.
    for version in ["v1", "v2"] {
        let again = cargo_agents(
            &e,
            &dir,
            KEY,
            &[
                "--api-version",
                version,
                "generate-agent",
                "--prompt",
                "p",
                "--url",
                "https://recipes.example/r/2",
                "--name",
                "recipe_page",
            ],
        )
        .await;
        assert_eq!(again.status.code(), Some(1));
        let err = String::from_utf8_lossy(&again.stderr);
        assert!(
            err.contains("already exists; refine it with --refine or choose another"),
            "{version}: {err}"
        );
        assert!(!err.contains("GenerationRequest"), "{version}: {err}");
    }
    let bad = cargo_agents(
        &e,
        &dir,
        KEY,
        &[
            "generate-agent",
            "--prompt",
            " ",
            "--url",
            "ftp://recipes.example/",
            "--name",
            "Recipe",
        ],
    )
    .await;
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains(
            "3 invalid options; nothing was sent: `--prompt`: the prompt is empty; \
             `--name`: \"Recipe\" must be lowercase letters, digits and underscores; `--url`: "
        ),
        "{err}"
    );
}

/// A generation takes minutes at the service and goes on when the wait for it stops: its id is
/// printed as it starts, Ctrl-C ends with 130 and says how to wait again, and `--resume ID`
/// waits for it and caches the agent as a wait from the start would.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_generation_is_waited_for_again_by_its_id() {
    let e = emulator().await;
    let dir = scratch("generate-resume");
    // Every answer late, so the wait is still at its first poll when Ctrl-C comes.
    e.inject(
        KEY,
        agents_emulator::Fault::Latency(std::time::Duration::from_secs(3)),
        None,
    );
    let start = common::command(
        &e,
        &dir,
        KEY,
        &[
            "generate-agent",
            "--prompt",
            "Extract the title and price.",
            "--url",
            "https://shop.example/p/1",
            "--name",
            "shop_page",
        ],
    );
    let (started, status, rest) = common::interrupted(start).await;
    e.clear_faults(KEY);
    assert!(
        started.starts_with("generation ") && started.contains("of `shop_page` started"),
        "{started}"
    );
    let id = started.split_whitespace().nth(1).unwrap().to_owned();
    assert_eq!(status.code(), Some(130), "{rest}");
    let again = format!("`cargo agents generate-agent --resume {id}`");
    assert!(
        rest.contains(&format!(
            "interrupted; generation {id} goes on at the service: {again}"
        )),
        "{rest}"
    );
    assert!(!dir.join("schemas/shop_page.json").exists());

    let resumed = cargo_agents(
        &e,
        &dir,
        KEY,
        &["--json", "generate-agent", "--resume", &id],
    )
    .await;
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let r = json(&resumed);
    assert_eq!(
        (r["agent"].as_str(), r["generation_id"].as_str()),
        (Some("shop_page"), Some(id.as_str()))
    );
    assert!(dir.join("schemas/shop_page.json").is_file());

    let unknown = cargo_agents(&e, &dir, KEY, &["generate-agent", "--resume", "no-such-id"]).await;
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains("404"),
        "{}",
        String::from_utf8_lossy(&unknown.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_failures_are_clear() {
    let e = emulator().await;
    let dir = scratch("errors");
    let out = cargo_agents(&e, &dir, "wrong-key", &["fetch", "llm_a"]).await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("401") && err.contains("AGENTS_API_KEY"),
        "{err}"
    );
    let out = cargo_agents(&e, &dir, KEY, &["--json", "fetch", "no_such_agent"]).await;
    assert_eq!(out.status.code(), Some(1));
    let err = json(&out)["error"].as_str().unwrap().to_owned();
    assert!(
        err.contains("404") && err.contains("unknown agent `no_such_agent` (field"),
        "{err}"
    );
    // A 404 about an agent name says how to see the names, and the nearest ones when any are.
    let out = cargo_agents(&e, &dir, KEY, &["fetch", "retailer_a_pd"]).await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("(did you mean `retailer_a_pdp`,")
            && err.contains("`cargo agents list` lists every agent"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_and_check_work_over_v2_from_json_schema_records() {
    let e = emulator().await;
    let dir = scratch("fetch-v2");
    let out = cargo_agents(
        &e,
        &dir,
        KEY,
        &["--api-version", "v2", "fetch", "retailer_a_pdp"],
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The record read back from /v2's JSON Schema generates the same typed fields.
    let cached = AgentRecord::from_json(
        &std::fs::read_to_string(dir.join("schemas/retailer_a_pdp.json")).unwrap(),
    )
    .unwrap();
    let original = AgentRecord::from_json(
        &std::fs::read_to_string(schemas().join("retailer_a_pdp.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(cached.output_schema, original.output_schema);
    let ok = cargo_agents(&e, &dir, KEY, &["--api-version", "v2", "check"]).await;
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );
    // Without --api-version, a record cached from /v2 is still compared with /v2's.
    let ok = cargo_agents(&e, &dir, KEY, &["check"]).await;
    let said = String::from_utf8_lossy(&ok.stdout);
    assert!(
        ok.status.success() && said.contains("retailer_a_pdp: up to date"),
        "{said}"
    );
}

/// A template's versions: the generation flow caches the version it produced, `check` says when
/// the published version moved on (even with no field changed, the bindings' version constants
/// would be stale), and `fetch --version N` pins one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn template_versions_are_cached_checked_and_pinned() {
    let e = emulator().await;
    let dir = scratch("versions");
    let made = cargo_agents(
        &e,
        &dir,
        KEY,
        &[
            "--api-version",
            "v2",
            "--json",
            "generate-agent",
            "--prompt",
            "Extract the title and the price.",
            "--url",
            "https://shop.example/p/1",
            "--name",
            "shop_page",
        ],
    )
    .await;
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let produced = json(&made)["generated_version_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let cached = |dir: &Path| {
        AgentRecord::from_json(
            &std::fs::read_to_string(dir.join("schemas/shop_page.json")).unwrap(),
        )
        .unwrap()
    };
    let v1 = cached(&dir).template_version.unwrap();
    assert_eq!((v1.id.as_str(), v1.number), (produced.as_str(), Some(1)));
    let ok = cargo_agents(&e, &dir, KEY, &["check"]).await;
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );

    // Someone publishes version 2 with one more field.
    let client = agents_runtime::Client::builder()
        .base_url(e.base_url())
        .api_key(KEY)
        .api_version(agents_runtime::ApiVersion::V2)
        .rate_limit(None)
        .build()
        .unwrap();
    let patch = serde_json::from_value(serde_json::json!([{
        "op": "add",
        "path": "/published_version/output_schema/properties/seller",
        "value": {"type": "string"}
    }]))
    .unwrap();
    client.update_template("shop_page", &patch).await.unwrap();

    let drift = cargo_agents(&e, &dir, KEY, &["check"]).await;
    assert_eq!(drift.status.code(), Some(1));
    let said = String::from_utf8_lossy(&drift.stdout);
    assert!(
        said.contains(&format!(
            "version        template_version: 1 (id {produced}) → 2 (id "
        )),
        "{said}"
    );
    assert!(
        said.contains("added          output_schema.seller: string"),
        "{said}"
    );
    assert!(said.contains("--version N"), "says what to run: {said}");
    // The default interface is /v1 here: a template is fetched over /v2.
    assert!(
        said.contains("`cargo agents --api-version v2 fetch shop_page` refreshes"),
        "{said}"
    );

    // Pinned: version 1 is what is cached already; the latest is version 2.
    let pinned = cargo_agents(&e, &dir, KEY, &["fetch", "shop_page", "--version", "1"]).await;
    assert!(
        pinned.status.success(),
        "{}",
        String::from_utf8_lossy(&pinned.stderr)
    );
    assert!(String::from_utf8_lossy(&pinned.stdout).starts_with("unchanged "));
    let latest = cargo_agents(
        &e,
        &dir,
        KEY,
        &["--api-version", "v2", "fetch", "shop_page"],
    )
    .await;
    assert!(latest.status.success());
    assert_eq!(cached(&dir).template_version.unwrap().number, Some(2));
    let ok = cargo_agents(&e, &dir, KEY, &["check"]).await;
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );

    let missing = cargo_agents(&e, &dir, KEY, &["fetch", "shop_page", "--version", "9"]).await;
    assert_eq!(missing.status.code(), Some(1));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(err.contains("has no version 9 (it has 1, 2)"), "{err}");
    let v1_only = cargo_agents(
        &e,
        &dir,
        KEY,
        &[
            "--api-version",
            "v1",
            "fetch",
            "shop_page",
            "--version",
            "1",
        ],
    )
    .await;
    assert_eq!(v1_only.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&v1_only.stderr).contains("exist only in /v2"),
        "{}",
        String::from_utf8_lossy(&v1_only.stderr)
    );
}

/// `generate --localized` / `--paginated` set what the inputs' names would not: the same switch
/// as `Options::localized` (in `Builder::options`) and `agent!(…, localized = […])`, and a wrong one is named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_takes_localization_and_pagination_by_hand() {
    let e = emulator().await;
    let dir = scratch("capabilities");
    let schemas = dir.join("schemas");
    std::fs::create_dir_all(&schemas).unwrap();
    let modes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/modes/schemas");
    for file in [
        "store_finder.input.schema.json",
        "store_finder.output.schema.json",
    ] {
        std::fs::copy(modes.join(file), schemas.join(file)).unwrap();
    }
    let plain = cargo_agents(&e, &dir, KEY, &["generate"]).await;
    assert!(
        plain.status.success(),
        "{}",
        String::from_utf8_lossy(&plain.stderr)
    );
    let plain = String::from_utf8_lossy(&plain.stdout).into_owned();
    assert!(!plain.contains("Localized for"), "{plain}");
    assert!(!plain.contains("Paginated for"), "{plain}");

    let set = cargo_agents(
        &e,
        &dir,
        KEY,
        &[
            "generate",
            "--localized",
            "store_finder=postcode",
            "--paginated",
            "store_finder=page_no",
        ],
    )
    .await;
    assert!(
        set.status.success(),
        "{}",
        String::from_utf8_lossy(&set.stderr)
    );
    let set = String::from_utf8_lossy(&set.stdout).into_owned();
    assert!(
        set.contains("impl ::agents_runtime::Localized for StoreFinder {"),
        "{set}"
    );
    assert!(
        set.contains("\"postcode\" => params.postcode = Some(value)"),
        "{set}"
    );
    assert!(
        set.contains("const PAGE_PARAM: &'static str = \"page_no\";"),
        "{set}"
    );

    let wrong = cargo_agents(
        &e,
        &dir,
        KEY,
        &[
            "generate",
            "--localized",
            "store_finder=zip",
            "--paginated",
            "nope",
        ],
    )
    .await;
    assert!(!wrong.status.success());
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert!(err.contains("expected AGENT=INPUT"), "{err}");
    let wrong = cargo_agents(
        &e,
        &dir,
        KEY,
        &["generate", "--localized", "store_finder=zip"],
    )
    .await;
    assert_eq!(
        wrong.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&wrong.stderr)
    );
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        err.contains("the record has no input `zip`; its inputs are: query, postcode, page_no"),
        "{err}"
    );
}

/// `generate --documents PREFIX=DIR` (and `check`'s) reads what a schema's references name from
/// local files (the same switch as `Options::documents` and `agent!(…, documents = {…})`):
/// without it the reference is a warning naming its file (as the user would, from where the
/// command runs), its pointer in that file and the way out; with it the shared file's types.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_reads_referenced_documents_from_a_directory() {
    let e = emulator().await;
    let dir = scratch("documents");
    let schemas = dir.join("schemas");
    std::fs::create_dir_all(&schemas).unwrap();
    let modes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/modes");
    std::fs::copy(
        modes.join("schemas/shop_refs.output.schema.json"),
        schemas.join("shop_refs.output.schema.json"),
    )
    .unwrap();
    let alone = cargo_agents(&e, &dir, KEY, &["generate"]).await;
    assert!(alone.status.success());
    let err = String::from_utf8_lossy(&alone.stderr);
    assert!(
        err.contains(
            "warning: schemas/shop_refs.output.schema.json: agent `shop_refs`: #/properties/price/$ref"
        ) && err.contains("--documents"),
        "{err}"
    );
    assert!(err.ends_with('\n'), "{err:?}");
    let shared = format!(
        "https://example.com/schemas/={}",
        modes.join("shared").display()
    );
    let with = cargo_agents(&e, &dir, KEY, &["generate", "--documents", &shared]).await;
    let err = String::from_utf8_lossy(&with.stderr);
    assert!(with.status.success() && !err.contains("warning"), "{err}");
    let out = String::from_utf8_lossy(&with.stdout);
    assert!(out.contains("pub price: Option<ShopRefsPrice>,"), "{out}");
    assert!(out.contains("pub struct ShopRefsPrice {"), "{out}");
    // `check` reads the same switch: the shared file, and no warning.
    let checked = cargo_agents(&e, &dir, KEY, &["check", "--documents", &shared]).await;
    let err = String::from_utf8_lossy(&checked.stderr);
    assert!(!err.contains("warning"), "{err}");
    let checked = cargo_agents(&e, &dir, KEY, &["check"]).await;
    let err = String::from_utf8_lossy(&checked.stderr);
    assert!(
        err.contains(
            "schemas/shop_refs.output.schema.json: agent `shop_refs`: #/properties/price/$ref"
        ),
        "{err}"
    );
    let wrong = cargo_agents(&e, &dir, KEY, &["generate", "--documents", "shared"]).await;
    assert!(!wrong.status.success());
    assert!(
        String::from_utf8_lossy(&wrong.stderr).contains("expected PREFIX=DIR"),
        "{}",
        String::from_utf8_lossy(&wrong.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configuration_problems_name_what_is_at_fault_and_nothing_else() {
    let e = emulator().await;
    let dir = scratch("config");
    let stderr = |out: &Output| {
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };

    // Nothing set: both settings, with the variables and the flag that set them.
    let mut c = common::command(&e, &dir, KEY, &["run", "llm_a", "-p", "prompt=hi"]);
    c.env_remove("AGENTS_BASE_URL").env_remove("AGENTS_API_KEY");
    let err = stderr(&common::output(c).await);
    for said in [
        "2 problems",
        "AGENTS_BASE_URL",
        "AGENTS_API_KEY",
        "--base-url sets the base URL too",
    ] {
        assert!(err.contains(said), "{said:?} missing from {err}");
    }

    // A bad header with everything else in place: the header, and no advice about the rest.
    let out = cargo_agents(
        &e,
        &dir,
        KEY,
        &["-H", "x y: 1", "run", "llm_a", "-p", "prompt=hi"],
    )
    .await;
    let err = stderr(&out);
    assert!(err.contains("invalid header name \"x y\""), "{err}");
    assert!(
        !err.contains("AGENTS_API_KEY") && !err.contains("--base-url"),
        "{err}"
    );

    // A base URL given by flag is not what is missing: only the key is named.
    let mut c = common::command(
        &e,
        &dir,
        KEY,
        &[
            "--base-url",
            e.base_url(),
            "run",
            "llm_a",
            "-p",
            "prompt=hi",
        ],
    );
    c.env_remove("AGENTS_API_KEY");
    let err = stderr(&common::output(c).await);
    assert!(err.contains("no API key: set AGENTS_API_KEY"), "{err}");
    assert!(!err.contains("base URL"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_output_it_cannot_write_is_refused_before_anything_is_asked() {
    let e = emulator().await;
    // No cached record here: reading the agent's would be a request.
    let dir = scratch("unwritable");
    let out = cargo_agents(
        &e,
        &dir,
        KEY,
        &[
            "batch",
            "retailer_a_pdp",
            "--input",
            "asins.csv",
            "--out",
            "results.txt",
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: results.txt: write to a .jsonl, .csv or .parquet file"),
        "{err}"
    );
    assert_eq!(e.requests_seen(KEY), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_log_shows_the_clients_retries_and_nothing_else_does() {
    let e = emulator().await;
    let dir = scratch("rust-log");
    let fetch = |log: Option<&str>| {
        e.inject(KEY, agents_emulator::Fault::Status(429), Some(1));
        let mut c = common::command(&e, &dir, KEY, &["fetch", "llm_a"]);
        c.env_remove("RUST_LOG");
        if let Some(log) = log {
            c.env("RUST_LOG", log);
        }
        common::output(c)
    };
    let quiet = fetch(None).await;
    assert!(quiet.status.success());
    let err = String::from_utf8_lossy(&quiet.stderr);
    assert!(!err.contains("retrying"), "{err}");

    let logged = fetch(Some("agents_client=debug")).await;
    assert!(logged.status.success());
    let err = String::from_utf8_lossy(&logged.stderr);
    assert!(err.contains("retrying") && err.contains("429"), "{err}");
    // Not a terminal: plain text, and never the key.
    assert!(!err.contains('\u{1b}') && !err.contains(KEY), "{err}");

    let bad = fetch(Some("agents_client=loud")).await;
    assert!(bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.starts_with("warning: RUST_LOG not used: "), "{err}");
}

/// `list` names every agent the account can run (searched at the service on `/v1`, matched here
/// on `/v2`, marked when cached), and `describe` says what one takes and gives: from the
/// service, or from the user's own files without asking it anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_and_describe_say_what_agents_there_are_and_what_one_takes() {
    let e = emulator().await;
    let dir = scratch("list");
    let names = |out: &Output| -> Vec<String> {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.split_whitespace().next().unwrap_or_default().to_owned())
            .collect()
    };
    let mut catalog: Vec<String> = std::fs::read_dir(schemas())
        .unwrap()
        .filter_map(|f| {
            let name = f.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".json").map(str::to_owned)
        })
        .collect();
    catalog.sort();
    for version in ["v1", "v2"] {
        let listed = names(&cargo_agents(&e, &dir, KEY, &["--api-version", version, "list"]).await);
        assert_eq!(listed, catalog, "{version}");
        let found = names(
            &cargo_agents(
                &e,
                &dir,
                KEY,
                &["--api-version", version, "list", "--search", "Maps"],
            )
            .await,
        );
        assert_eq!(found, ["search_engine_maps_search"], "{version}");
    }
    let private = cargo_agents(&e, &dir, KEY, &["--api-version", "v2", "list", "--private"]).await;
    assert_eq!(private.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&private.stderr).contains("drop --private"));

    // A cached agent is marked.
    let fetched = cargo_agents(&e, &dir, KEY, &["fetch", "llm_a"]).await;
    assert!(fetched.status.success());
    let out = cargo_agents(&e, &dir, KEY, &["list"]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    let marked: Vec<&str> = text
        .lines()
        .filter(|l| l.split_whitespace().nth(1) == Some("*"))
        .collect();
    assert_eq!(marked.len(), 1, "{text}");
    assert!(marked[0].starts_with("llm_a "), "{text}");

    // From the service: every input with its rules, every output field with its type.
    let record = AgentRecord::from_json(
        &std::fs::read_to_string(schemas().join("search_engine_maps_search.json")).unwrap(),
    )
    .unwrap();
    let out = cargo_agents(&e, &dir, KEY, &["describe", "search_engine_maps_search"]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("from the service"));
    for input in record.inputs() {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(input.name.as_str()))
            .unwrap_or_else(|| panic!("no line for input {}: {text}", input.name));
        assert_eq!(line.contains("required"), input.required, "{line}");
        for rule in &input.rules {
            assert!(line.contains(&rule.text), "{line}");
        }
    }
    assert!(
        text.contains(
            "inputs (`cargo agents run search_engine_maps_search -p query=QUERY \
             [-p NAME=VALUE]…`):"
        ),
        "{text}"
    );
    let fields = record.output_schema.as_ref().unwrap();
    assert!(
        text.contains(&format!("output fields ({}):", fields.len())),
        "{text}"
    );
    // The names the bindings have: those of the checked-in catalog, and a call that compiles.
    assert!(
        text.contains(
            "in Rust: `SearchEngineMapsSearch` (a record), run with \
             `client.run(SearchEngineMapsSearchParams::new(query))`\n  \
             (optional inputs are methods: .page(…) .zip_code(…) .country(…) .locale(…) .tag(…) \
             .parse(…))"
        ),
        "{text}"
    );
    let _ = |query: &str| {
        agents_runtime::catalog::SearchEngineMapsSearchParams::new(query)
            .page(2)
            .zip_code("10001")
    };
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("rating ") && l.contains("maximum 5")),
        "{text}"
    );
    let out = cargo_agents(
        &e,
        &dir,
        KEY,
        &["--json", "describe", "search_engine_maps_search"],
    )
    .await;
    let described = json(&out);
    assert_eq!(
        described["rust"]["params"], "SearchEngineMapsSearchParams",
        "{described}"
    );
    assert_eq!(
        described["rust"]["new"], "SearchEngineMapsSearchParams::new(query)",
        "{described}"
    );
    assert_eq!(
        described["rust"]["setters"],
        serde_json::json!(["page", "zip_code", "country", "locale", "tag", "parse"])
    );
    assert_eq!(
        described["output_schema"],
        serde_json::to_value(agents_schema::json_schema::output_schema(&record)).unwrap()
    );

    // The user's own files are read where they are: no request, not even a valid key.
    std::fs::write(
        dir.join("schemas/price_check.output.schema.json"),
        r#"{"type": "object", "properties": {"price": {"type": "number", "minimum": 0}},
            "required": ["price"]}"#,
    )
    .unwrap();
    let before = e.requests_seen(KEY);
    let out = cargo_agents(&e, &dir, "no-such-key", &["describe", "price_check"]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("(the record: required [\"price\"])")
            && text.lines().any(|l| l.trim() == "price  number  minimum 0"),
        "{text}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("from schemas/price_check.output.schema.json")
    );
    assert_eq!(e.requests_seen(KEY), before);

    // A keyword is shown as the schema's draft spells it: a draft 7 tuple is `items`.
    std::fs::write(
        dir.join("schemas/pair.output.schema.json"),
        r#"{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"pair": {"type": "array", "items": [{"type": "string"}],
                "additionalItems": false}}}"#,
    )
    .unwrap();
    let out = cargo_agents(&e, &dir, "no-such-key", &["describe", "pair"]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(|l| l.trim()
            == r#"pair  array  items [{"type":"string"}]; additionalItems false"#),
        "{text}"
    );

    // What the input schema says beyond the typed rules is shown too, the input's and the
    // root's, as they are checked before sending.
    std::fs::write(
        dir.join("schemas/price_check.input.schema.json"),
        r#"{"type": "object", "properties": {
              "skus": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}},
            "additionalProperties": false}"#,
    )
    .unwrap();
    let out = cargo_agents(&e, &dir, "no-such-key", &["describe", "price_check"]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.trim_end() == "  skus  array     uniqueItems: true")
            && text.contains("\n  (the params: additionalProperties: false)\n"),
        "{text}"
    );
    let out = cargo_agents(
        &e,
        &dir,
        "no-such-key",
        &["--json", "describe", "price_check"],
    )
    .await;
    let described = json(&out);
    assert_eq!(
        described["inputs"][0]["schema_rules"],
        serde_json::json!({"uniqueItems": true})
    );
    assert_eq!(
        described["params_rules"],
        serde_json::json!({"additionalProperties": false})
    );

    // Fields that refer to records are shown as those records, as their types are generated;
    // one that refers to a record it is inside says so once; `definitions` is no rule.
    std::fs::write(
        dir.join("schemas/thread.output.schema.json"),
        r##"{"type": "object", "properties": {
              "author": {"$ref": "#/definitions/Person"},
              "replies": {"type": "array", "items": {"$ref": "#/definitions/Reply"}}},
            "definitions": {
              "Person": {"type": "object", "properties": {"name": {"type": "string"}}},
              "Reply": {"type": "object", "properties": {
                "text": {"type": "string", "maxLength": 280},
                "replies": {"type": "array", "items": {"$ref": "#/definitions/Reply"}}}}}}"##,
    )
    .unwrap();
    let out = cargo_agents(&e, &dir, "no-such-key", &["describe", "thread"]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    let fields: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("output fields"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(str::trim_end)
        .collect();
    assert_eq!(
        fields,
        [
            "  author   object",
            "    name  string",
            "  replies  array of object",
            "    text     string  maxLength 280",
            "    replies  array of object  the record #/definitions/Reply above, again",
        ],
        "{text}"
    );
}
