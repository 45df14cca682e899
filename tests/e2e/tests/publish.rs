#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Publishing a template from the type generated from it: created once, unchanged after, a new
//! version when the schema changes, never a public template overwritten.

use agents_runtime::catalog::RetailerAPdp;
use agents_runtime::client::publish::{Plan, TemplateSource};
use agents_runtime::{Agent, ApiVersion, Record};
use agents_runtime::{Delivery, RunOptions};
use agents_schema::Json;
use agents_test_support::workspace_root;
use agents_tests_e2e::{client_for, emulator, read_in_order};
use agents_tests_generated::json_schema::{Review, ReviewParams};
use serde_json::Value;

/// The keys of the object at the JSON pointer `at` of `record`, in order.
fn keys(record: &Json, at: &str) -> Vec<String> {
    let object = record.pointer(at).and_then(Json::as_object);
    object.unwrap().keys().cloned().collect()
}

/// The names of `present` in the order `order` lists them.
fn in_order_of(order: &[&str], present: &[String]) -> Vec<String> {
    order
        .iter()
        .filter(|k| present.iter().any(|p| p == *k))
        .map(|k| k.to_string())
        .collect()
}

fn file(name: &str) -> Value {
    let path = workspace_root().join("tests/json-schema").join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn a_type_publishes_its_template_once_and_a_changed_schema_as_the_next_version() {
    let e = emulator().await;
    let c = client_for(&e).api_version(ApiVersion::V2).build().unwrap();

    // What the type carries is what the files say (so the CLI's `publish`, from the files,
    // and the type's agree).
    assert_eq!(
        TemplateSource::of::<Review>().unwrap(),
        TemplateSource::new(
            "review",
            file("review.input.schema.json"),
            file("review.output.schema.json")
        )
    );
    let first = c.publish::<Review>().await.unwrap();
    assert_eq!(first.plan, Plan::Create);
    assert_eq!(first.version(), Some(1));
    assert_eq!(first.to_string(), "review: created, version 1");
    // The service keeps the documents as the files say them, so the next run compares equal.
    let version = first.template.published_version.clone().unwrap();
    assert_eq!(
        Value::Object(version.output_schema),
        file("review.output.schema.json")
    );
    assert_eq!(
        Value::Object(version.input_schema),
        file("review.input.schema.json")
    );
    assert_eq!(version.metadata.display_name.as_deref(), Some("Review"));

    // A program that publishes and runs, run again: nothing is sent but the read.
    let before = e.requests_seen(agents_tests_e2e::KEY);
    let again = c.publish::<Review>().await.unwrap();
    assert_eq!(again.plan, Plan::Unchanged { version: 1 });
    assert_eq!(again.to_string(), "review: unchanged, version 1");
    assert_eq!(e.requests_seen(agents_tests_e2e::KEY), before + 1);
    let run = c
        .run(ReviewParams::new("https://shop.example/reviews/1"))
        .await
        .unwrap();
    assert!(run.record().unwrap().stars.is_some());

    // A changed output schema: the next version, its inputs left as they were.
    let mut output: Value = serde_json::from_str(Review::schema_text().unwrap()).unwrap();
    output["properties"]["stars"]["maximum"] = 10.into();
    let input: Value = serde_json::from_str(Review::INPUT_SCHEMA).unwrap();
    let changed = TemplateSource::new("review", input.clone(), output.clone());
    assert_eq!(
        c.plan_template(&changed).await.unwrap(),
        Plan::Update {
            version: 1,
            input: false,
            output: true
        }
    );
    let updated = c.publish_template(changed.clone()).await.unwrap();
    assert_eq!(updated.to_string(), "review: updated, version 1 → 2");
    let v2 = updated.template.published_version.unwrap();
    assert_eq!(Value::Object(v2.output_schema), output);
    assert_eq!(Value::Object(v2.input_schema), input);
    assert_eq!(
        c.plan_template(&changed).await.unwrap(),
        Plan::Unchanged { version: 2 }
    );
    // And the type's own schema again is one more version, not a conflict.
    assert_eq!(c.publish::<Review>().await.unwrap().version(), Some(3));
}

/// The order of a schema's properties is the order of the fields generated from it: publishing
/// from the type, an update from a text, and reading the template back as a record (what
/// `cargo agents fetch` caches and bindings are generated from) all keep the order written.
#[tokio::test]
async fn a_published_template_keeps_its_properties_in_the_order_written() {
    let e = emulator().await;
    let c = client_for(&e).api_version(ApiVersion::V2).build().unwrap();
    let names = |record: &agents_schema::AgentRecord| -> Vec<String> {
        record
            .output_schema
            .as_ref()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    let written = [
        "stars",
        "headline",
        "body",
        "author",
        "helpful_votes",
        "verified",
        "photos",
        "replies",
        "posted",
    ];
    c.publish::<Review>().await.unwrap();
    assert_eq!(names(&c.agent("review").await.unwrap()), written);
    let inputs: Vec<String> = c
        .agent("review")
        .await
        .unwrap()
        .inputs()
        .iter()
        .map(|i| i.name.clone())
        .collect();
    assert_eq!(
        inputs,
        ["url", "max_reviews", "language", "min_rating", "tags"]
    );

    // A field added in the middle, by an update (a JSON Patch the service applies): in its
    // place, and the rest where they were.
    let text = Review::schema_text().unwrap();
    let changed = text.replacen(
        "\"headline\": {",
        "\"title\": {\"type\": \"string\"}, \"headline\": {",
        1,
    );
    assert_ne!(changed, text);
    let source = TemplateSource::from_text("review", Review::INPUT_SCHEMA, &changed).unwrap();
    let updated = c.publish_template(source).await.unwrap();
    assert_eq!(updated.version(), Some(2));
    let mut now = written.to_vec();
    now.insert(1, "title");
    assert_eq!(names(&c.agent("review").await.unwrap()), now);
    assert_eq!(names(&c.agent_version("review", 1).await.unwrap()), written);

    // A run answers its record in that order too, and its envelope in the order the service
    // documents, whether it is answered at once or read as a task's result.
    let base = e.base_url().trim_end_matches('/').to_owned();
    let http = reqwest::Client::new();
    let params = serde_json::json!({"url": "https://shop.example/reviews/1"});
    let body = serde_json::json!({"template": "review", "params": params, "formats": ["markdown"]});
    let sent = http.post(format!("{base}/v2/extract/templates/run"));
    let answer = read_in_order(sent.json(&body)).await;
    let task = c
        .run_async_raw("review", params, &RunOptions::new(), &Delivery::new())
        .await
        .unwrap();
    task.wait().await.unwrap();
    let result = read_in_order(http.get(format!("{base}/v2/tasks/{}/results", task.id()))).await;
    for run in [&answer, &result] {
        let fields = keys(run, "/data/parsing");
        assert!(fields.len() >= 5, "{fields:?}");
        assert_eq!(fields, in_order_of(&now, &fields));
        let envelope = [
            "url",
            "task_id",
            "status",
            "data",
            "status_code",
            "metadata",
        ];
        assert_eq!(keys(run, ""), envelope);
    }
    assert_eq!(keys(&answer, "/data"), ["parsing", "markdown"]);
    // The markdown lists the fields as the record holds them.
    let markdown = answer
        .pointer("/data/markdown")
        .and_then(Json::as_str)
        .unwrap();
    let at = |field: &str| markdown.find(&format!("**{field}**")).unwrap();
    assert!(
        at("stars") < at("title") && at("title") < at("headline"),
        "{markdown}"
    );

    // A text that is not JSON is named before anything is sent.
    let before = e.requests_seen(agents_tests_e2e::KEY);
    let err = TemplateSource::from_text("review", "{", &changed).unwrap_err();
    assert!(
        err.to_string()
            .contains("the input schema of template `review` does not read"),
        "{err}"
    );
    assert_eq!(e.requests_seen(agents_tests_e2e::KEY), before);
}

/// A generation given its schemas as text: the finished generation's record describes the new
/// version with them in the order they were written, as the template then does.
#[tokio::test]
async fn a_generation_gives_back_its_schemas_in_the_order_written() {
    let e = emulator().await;
    let c = client_for(&e).api_version(ApiVersion::V2).build().unwrap();
    let base = e.base_url().trim_end_matches('/').to_owned();
    let http = reqwest::Client::new();
    let body = r#"{"prompt": "Extract the shoe", "url": "https://shop.example/p/1",
        "name": "shoe",
        "input_schema": {"type": "object", "properties": {"url": {"type": "string"}, "country": {"type": "string"}}},
        "output_schema": {"type": "object", "properties": {"zeta": {"type": "string"}, "alpha": {"type": "integer"}}}}"#;
    let created: Value = http
        .post(format!("{base}/v2/extract/templates/generations"))
        .bearer_auth(agents_tests_e2e::KEY)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap();
    c.generation_handle(id).wait().await.unwrap();
    let text = http
        .get(format!("{base}/v2/extract/templates/generations/{id}"))
        .bearer_auth(agents_tests_e2e::KEY)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let at = |key: &str| {
        text.find(&format!("\"{key}\""))
            .unwrap_or_else(|| panic!("{key}: {text}"))
    };
    assert!(
        at("zeta") < at("alpha") && at("url") < at("country"),
        "{text}"
    );
    let names: Vec<String> = c
        .agent("shoe")
        .await
        .unwrap()
        .output_schema
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(names, ["zeta", "alpha"]);
}

/// A typed run, async run or batch of a template written as schema files and not yet
/// published: the service does not know it, and the error says which call makes it.
#[tokio::test]
async fn a_typed_call_of_an_unpublished_template_says_how_to_publish_it() {
    let e = emulator().await;
    for version in [ApiVersion::V2, ApiVersion::V1] {
        let c = client_for(&e).api_version(version).build().unwrap();
        let params = || ReviewParams::new("https://shop.example/reviews/1");
        let errors = [
            c.run(params()).await.map(|_| ()).unwrap_err(),
            c.run_async(params()).await.map(|_| ()).unwrap_err(),
            c.batch::<Review>()
                .submit([params()])
                .await
                .map(|_| ())
                .unwrap_err(),
        ];
        for err in errors {
            assert!(err.refuses_agent_name(), "{version}: {err}");
            let said = err.to_string();
            assert!(
                said.contains(
                    "if `review` is a template of your own, `client.publish::<Review>()`"
                ),
                "{version}: {said}"
            );
            assert_eq!(
                said.contains("Client::v2_from_env"),
                version == ApiVersion::V1,
                "{said}"
            );
        }
        // An untyped run names no type to publish.
        let raw = c
            .run_raw(
                "review",
                serde_json::json!({"url": "https://shop.example/r"}),
            )
            .await
            .map(|_| ())
            .unwrap_err();
        assert!(
            raw.refuses_agent_name() && !raw.to_string().contains("publish"),
            "{raw}"
        );
    }
    let c = client_for(&e).api_version(ApiVersion::V2).build().unwrap();
    c.publish::<Review>().await.unwrap();
    assert!(
        c.run(ReviewParams::new("https://shop.example/reviews/1"))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_public_template_is_not_overwritten_and_the_message_says_to_rename() {
    let e = emulator().await;
    let c = client_for(&e).api_version(ApiVersion::V2).build().unwrap();
    // The catalog's own type, unchanged, is already what the public template says.
    let same = c.publish::<RetailerAPdp>().await.unwrap();
    assert!(matches!(same.plan, Plan::Unchanged { .. }), "{same}");

    let mut output: Value = serde_json::from_str(RetailerAPdp::schema_text().unwrap()).unwrap();
    output["title"] = "Mine".into();
    let input: Value = serde_json::from_str(RetailerAPdp::INPUT_SCHEMA).unwrap();
    let err = c
        .publish_template(TemplateSource::new(
            RetailerAPdp::NAME,
            input.clone(),
            output.clone(),
        ))
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(message.contains("public template"), "{message}");
    assert!(
        message.contains(".name(\"my_retailer_a_pdp\")"),
        "{message}"
    );

    // A name the service takes for no template of one's own is refused before anything is
    // sent; a plan would otherwise say "create".
    let before = e.requests_seen(agents_tests_e2e::KEY);
    let spaced = TemplateSource::new("My Retailer", input.clone(), output.clone());
    let err = c.plan_template(&spaced).await.unwrap_err();
    assert!(
        matches!(
            &err,
            agents_runtime::Error::InvalidOption {
                option: "TemplateSource::name",
                ..
            }
        ),
        "{err}"
    );
    assert!(c.publish_template(spaced).await.is_err());
    assert_eq!(e.requests_seen(agents_tests_e2e::KEY), before);

    let mine = TemplateSource::new(RetailerAPdp::NAME, input, output).name("my_retailer_a_pdp");
    let created = c.publish_template(mine).await.unwrap();
    assert_eq!(created.to_string(), "my_retailer_a_pdp: created, version 1");
    assert_eq!(
        created
            .template
            .published_version
            .unwrap()
            .metadata
            .display_name
            .as_deref(),
        Some("Mine")
    );
}

#[tokio::test]
async fn publishing_is_a_v2_call_and_says_so_on_v1() {
    let e = emulator().await;
    let c = client_for(&e).api_version(ApiVersion::V1).build().unwrap();
    let err = c.publish::<Review>().await.unwrap_err().to_string();
    assert!(err.contains("`Client::publish`"), "{err}");
    assert!(err.contains("ApiVersion::V2"), "{err}");
    assert_eq!(e.requests_seen(agents_tests_e2e::KEY), 0);
}

#[tokio::test]
async fn a_research_agent_publishes_from_its_type_once_and_changes_only_what_differs() {
    use agents_runtime::client::research::{AgentPlan, ResearchAgentRequest, SourceGroup, Sources};
    use agents_tests_generated::json_schema::PriceCheck;

    let e = emulator().await;
    let c = client_for(&e).api_version(ApiVersion::V2).build().unwrap();
    // Goals and source groups come back as records with ids: publishing again must not take
    // that for a change.
    let request = || {
        ResearchAgentRequest::new()
            .agent_name("price-checker")
            .goals(["Find every seller"])
            .sources(Sources::new().allow(SourceGroup::new("shops", ["shop.example"])))
            .output_schema_of::<PriceCheck>()
    };
    let first = c.publish_research_agent(request()).await.unwrap();
    assert_eq!(first.plan, AgentPlan::Create);
    assert_eq!(
        first.agent.output_schema,
        Some(file("price_check.output.schema.json"))
    );

    let before = e.requests_seen(agents_tests_e2e::KEY);
    let again = c.publish_research_agent(request()).await.unwrap();
    assert_eq!(again.plan, AgentPlan::Unchanged, "{again}");
    assert_eq!(again.to_string(), "price-checker: unchanged");
    assert_eq!(again.agent.id, first.agent.id);
    // One page of the list and one read; nothing written.
    assert_eq!(e.requests_seen(agents_tests_e2e::KEY), before + 2);

    let changed = c
        .publish_research_agent(request().description("Checks prices"))
        .await
        .unwrap();
    assert_eq!(changed.plan, AgentPlan::Update(vec!["description".into()]));
    assert_eq!(changed.agent.id, first.agent.id);
    assert_eq!(changed.agent.description, "Checks prices");
    assert_eq!(changed.agent.goals[0].goal, "Find every seller");

    let unnamed = c
        .publish_research_agent(ResearchAgentRequest::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(unnamed.contains("agent_name"), "{unnamed}");
}

/// The order a research agent's output schema is written in is the order a model fills its
/// properties in: an agent published from its type, a schema changed from a text and an agent
/// a run by name makes all keep it, read one by one and in a list.
#[tokio::test]
async fn a_research_agent_keeps_its_output_schema_in_the_order_written() {
    use agents_runtime::client::Document;
    use agents_runtime::client::research::{AgentPlan, ResearchAgentRequest, ResearchRunRequest};
    use agents_tests_generated::json_schema::PriceCheck;

    let e = emulator().await;
    let c = client_for(&e).api_version(ApiVersion::V2).build().unwrap();
    let base = e.base_url().trim_end_matches('/').to_owned();
    let http = reqwest::Client::new();
    let read = |path: String| read_in_order(http.get(format!("{base}{path}")));
    let written = ["product", "currency", "lowest_price", "offers", "in_stock"];

    let made = c
        .publish_research_agent(ResearchAgentRequest::of::<PriceCheck>("price-checker"))
        .await
        .unwrap();
    let id = made.agent.id;
    let record = read(format!("/v2/agents/{id}")).await;
    assert_eq!(keys(&record, "/output_schema/properties"), written);
    assert_eq!(
        keys(&record, "/output_schema/$defs/offer/properties"),
        ["seller", "price", "url"]
    );
    let listed = read("/v2/agents".into()).await;
    assert_eq!(keys(&listed, "/items/0/output_schema/properties"), written);

    // A property added in the middle, from a text: published as one patch, in its place.
    let mut changed: Json = serde_json::from_str(PriceCheck::schema_text().unwrap()).unwrap();
    if let Json::Object(root) = &mut changed
        && let Some(Json::Object(properties)) = root.get_mut("properties")
    {
        properties.shift_insert(
            1,
            "brand".into(),
            serde_json::json!({"type": "string"}).into(),
        );
    }
    let text: Document = changed.to_string().parse().unwrap();
    let updated = c
        .publish_research_agent(
            ResearchAgentRequest::new()
                .agent_name("price-checker")
                .output_schema(text.clone()),
        )
        .await
        .unwrap();
    assert_eq!(
        updated.plan,
        AgentPlan::Update(vec!["output_schema".into()])
    );
    let mut now = written.to_vec();
    now.insert(1, "brand");
    let record = read(format!("/v2/agents/{id}")).await;
    assert_eq!(keys(&record, "/output_schema/properties"), now);

    // A run by an unseen name makes its agent with the run's schema, as written.
    let run = c
        .start_research_by_name(
            "brand-checker",
            ResearchRunRequest::new("Who sells it?").output_schema(text),
        )
        .await
        .unwrap();
    let record = read(format!("/v2/agents/{}", run.agent_id())).await;
    assert_eq!(keys(&record, "/output_schema/properties"), now);

    // Its answer's fields come in that order too, as a model fills them in.
    run.wait().await.unwrap();
    let answer = read(format!(
        "/v2/agents/{}/runs/{}/result",
        run.agent_id(),
        run.id()
    ))
    .await;
    let content = keys(&answer, "/output/content");
    assert!(content.len() >= 2, "{content:?}");
    assert_eq!(content, in_order_of(&now, &content));
    // And so do the claims on its top-level fields.
    let claims = answer
        .pointer("/output/trust/claims")
        .and_then(Json::as_array)
        .unwrap();
    let claimed: Vec<String> = claims
        .iter()
        .filter_map(|c| c.get("path").and_then(Json::as_str))
        .filter(|path| !path.contains(['.', '[']))
        .map(str::to_owned)
        .collect();
    assert!(claimed.len() >= 2, "{claimed:?}");
    assert_eq!(claimed, in_order_of(&now, &claimed));
}
