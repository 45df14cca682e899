#![allow(clippy::unwrap_used)] // test code
//! Research agents end to end: a question goes in, and a typed, cited answer comes out over
//! loopback, its events, its waiter and its result agreeing; the answer is checked against the
//! user's JSON Schema by an independent validator (the `jsonschema` crate); faults end in typed
//! errors within bounded time.

use std::time::{Duration, Instant};

use agents_runtime::client::research::{
    Answer, Confidence, Outcome, ResearchAgentRequest, ResearchEvent, ResearchRunRequest,
    ResearchStatus, RunEvent, StreamEnd,
};
use agents_runtime::{ApiVersion, Error, ErrorKind};
use agents_tests_e2e::{client, client_for, emulator};
use agents_tests_generated::json_schema::{PriceCheck, PriceCheckCurrency, PriceCheckOffer};
use futures::{StreamExt, TryStreamExt};
use serde_json::{Value, json};

/// The user's schema, as written in `tests/json-schema/`.
fn price_schema() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../json-schema/price_check.output.schema.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A `/v2` client of `e`.
fn v2(e: &agents_emulator::EmulatorHandle) -> agents_runtime::Client {
    client_for(e).api_version(ApiVersion::V2).build().unwrap()
}

/// Every event of a run's stream, within a bound.
async fn all_events(
    stream: futures::stream::BoxStream<'static, Result<RunEvent, Error>>,
) -> Vec<Result<RunEvent, Error>> {
    tokio::time::timeout(Duration::from_secs(20), stream.collect())
        .await
        .expect("the event stream ends")
}

#[tokio::test]
async fn a_question_becomes_a_typed_cited_answer_with_events_waiter_and_result_agreeing() {
    let e = emulator().await;
    let client = v2(&e);
    let schema = price_schema();
    let agent = client
        .create_research_agent(
            ResearchAgentRequest::new()
                .agent_name("price-checker")
                .goals(["Find every seller", "Report the lowest price"])
                .output_schema_of::<PriceCheck>(),
        )
        .await
        .unwrap();
    assert!(agent.id.starts_with("wsa_"));
    // The type's schema is the user's file, kept as written.
    assert_eq!(agent.output_schema.as_ref(), Some(&schema));
    assert_eq!(agent.goals[1].goal, "Report the lowest price");
    assert_eq!(agent.goals[1].order, 1);

    let run = client
        .start_research(
            &agent.id,
            ResearchRunRequest::new("What does the X100 cost?").events(true),
        )
        .await
        .unwrap();
    assert_eq!(run.run().status, ResearchStatus::Queued);
    assert!(
        matches!(run.result::<Value>().await.unwrap(), Outcome::NotFinished),
        "409 while the run is active"
    );

    let events: Vec<RunEvent> = all_events(run.events())
        .await
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    let statuses: Vec<&ResearchStatus> = events
        .iter()
        .filter_map(|e| match &e.event {
            ResearchEvent::Status { status } => Some(status),
            _ => None,
        })
        .collect();
    assert_eq!(
        statuses,
        [
            &ResearchStatus::Queued,
            &ResearchStatus::Running,
            &ResearchStatus::Completed
        ]
    );
    let ids: Vec<u64> = events
        .iter()
        .map(|e| e.id.as_deref().unwrap().parse().unwrap())
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    let read: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.event {
            ResearchEvent::Reading { url, .. } => Some(url.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(read.len(), 3);

    let finished = run.wait().await.unwrap();
    assert_eq!(finished.status, ResearchStatus::Completed);
    assert!(!finished.is_active && finished.completed_at.is_some());

    let answer: Answer<PriceCheck> = run.answer().await.unwrap();
    // The typed content: every field the schema requires, enums typed, nothing unexpected.
    let content = &answer.content;
    assert!(content.mismatches.is_empty(), "{:?}", content.mismatches);
    assert!(content.unknown_fields.is_empty());
    assert!(content.product.is_some());
    assert!(matches!(
        content.currency,
        Some(PriceCheckCurrency::Usd | PriceCheckCurrency::Eur | PriceCheckCurrency::Gbp)
    ));
    let offers = content.offers.as_ref().unwrap();
    assert!(!offers.is_empty());
    assert!(offers.iter().all(|o| o.price.unwrap() >= 0.0));
    // The independent oracle: the answer as sent satisfies the user's schema.
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&answer.raw)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    // Claims are anchored in the answer, and their citations reachable from the field.
    assert!(answer.unanchored_claims().is_empty());
    // By the field's typed path, which a misspelt field would not compile with.
    let price = PriceCheck::FIELDS
        .offers
        .at(0)
        .then(PriceCheckOffer::FIELDS.price);
    assert_eq!(price.to_string(), "offers[0].price");
    let cited = answer.citations(&price);
    assert_eq!(cited.len(), 1, "{:?}", answer.trust.claims);
    assert_eq!(
        answer.value(&price).and_then(Value::as_f64),
        offers[0].price
    );
    assert!(answer.citations(PriceCheck::FIELDS.offers).len() >= cited.len());
    // The same answer untyped takes the notations claims use, as text.
    let untyped: Answer<Value> = run.answer().await.unwrap();
    assert_eq!(untyped.citations("offers[0].price"), cited);
    assert_eq!(untyped.citations("$.offers[0].price"), cited);
    assert_eq!(untyped.citations("/offers/0/price"), cited);
    assert!(untyped.citations("no_such_field").is_empty());
    // The cited page exists on loopback and says what the citation quotes.
    let citation = cited[0];
    assert!(read.contains(&citation.url.as_str()));
    let page = reqwest::get(&citation.url)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(&citation.excerpts[0]),
        "{page} / {:?}",
        citation.excerpts
    );
    // Events, waiter and result agree on the run and on the drafted claims.
    assert_eq!(answer.run.status, ResearchStatus::Completed);
    assert_eq!(answer.run.completed_at, finished.completed_at);
    for e in &events {
        if let ResearchEvent::Claim {
            path: Some(path), ..
        } = &e.event
        {
            assert!(
                untyped.claims_for(path.as_str()).next().is_some(),
                "drafted claim {path} is in the answer"
            );
        }
    }
    // The run is listed, newest first.
    let runs: Vec<_> = client.research_runs(&agent.id).try_collect().await.unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].id, run.id());
}

#[tokio::test]
async fn v1_task_agents_answer_text_with_callouts_and_read_their_templates() {
    let e = emulator().await;
    let client = client_for(&e).api_version(ApiVersion::V1).build().unwrap();
    let templates: Vec<_> = client.research_templates().try_collect().await.unwrap();
    assert!(templates.len() >= 2);
    let brief = client.research_template("market-brief").await.unwrap();
    assert_eq!(brief.skill, "market analysis", "read from domain_expertise");
    let agent = client
        .create_research_agent(
            ResearchAgentRequest::new()
                .template("market-brief")
                .skill("e-bikes"),
        )
        .await
        .unwrap();
    assert_eq!(agent.skill, "e-bikes");
    assert_eq!(
        agent.rest.get("domain_expertise"),
        None,
        "aliased into skill"
    );
    assert!(agent.output_schema.is_none());
    let run = client
        .start_research(
            &agent.id,
            ResearchRunRequest::new("How big is the e-bike market?"),
        )
        .await
        .unwrap();
    let answer: Answer<String> = run.answer().await.unwrap();
    assert!(answer.content.contains("[1]"));
    assert_eq!(answer.callout(1).len(), 1);
    assert_eq!(answer.trust.sources.len(), 3);
    // A JSON record asked of a text answer says what to do.
    let wrong = run.answer::<PriceCheck>().await.unwrap_err();
    assert!(wrong.to_string().contains("Answer<String>"), "{wrong}");
    // `/v1` has no `skill` on runs and no `5x-high`: refused before sending.
    let seen = e.requests_seen(agents_tests_e2e::KEY);
    let refused = client
        .start_research(&agent.id, ResearchRunRequest::new("q").skill("x"))
        .await
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Invalid);
    assert_eq!(e.requests_seen(agents_tests_e2e::KEY), seen, "nothing sent");
}

#[tokio::test]
async fn enrichment_keeps_given_values_as_pre_existing() {
    let e = emulator().await;
    let client = v2(&e);
    let run = client
        .start_research_by_name(
            "enricher",
            ResearchRunRequest::new("Fill in the prices")
                .output_schema(price_schema())
                .input_data(json!([{"product": "X100"}, {"product": "Y200"}])),
        )
        .await
        .unwrap();
    let answer: Answer<Vec<PriceCheck>> = run.answer().await.unwrap();
    let products: Vec<_> = answer
        .content
        .iter()
        .map(|r| r.product.as_deref().unwrap())
        .collect();
    assert_eq!(products, ["X100", "Y200"]);
    let given: Vec<_> = answer.claims_for((1, PriceCheck::FIELDS.product)).collect();
    assert_eq!(given.len(), 1);
    assert_eq!(given[0].confidence, Confidence::PreExisting);
    assert!(given[0].citations.is_empty());
    // From the type: the records given typed, the run's schema the type's own, the same answer.
    let known = ["X100", "Y200"].map(|product| PriceCheck {
        product: Some(product.into()),
        ..PriceCheck::default()
    });
    let typed = client
        .start_research_by_name(
            "enricher",
            ResearchRunRequest::new("Fill in the prices").fill_in(&known),
        )
        .await
        .unwrap();
    // Read as one record, the list is refused with the way to read it.
    let wrong = typed.answer::<PriceCheck>().await.unwrap_err();
    assert!(
        wrong
            .to_string()
            .contains("read it as Answer<Vec<PriceCheck>>"),
        "{wrong}"
    );
    let typed: Answer<Vec<PriceCheck>> = typed.answer().await.unwrap();
    let products: Vec<_> = (typed.content.iter())
        .map(|r| r.product.as_deref().unwrap())
        .collect();
    assert_eq!(products, ["X100", "Y200"]);
    assert!(
        typed.content.iter().all(|r| r.breaches.is_empty()),
        "{:?}",
        typed.content
    );
    let given: Vec<_> = typed.claims_for((0, PriceCheck::FIELDS.product)).collect();
    assert_eq!(given[0].confidence, Confidence::PreExisting);
    // The same name runs the same agent again.
    let again = client
        .start_research_by_name(
            "enricher",
            ResearchRunRequest::new("Again").input_data(json!({"product": "Z"})),
        )
        .await
        .unwrap();
    assert_eq!(again.agent_id(), run.agent_id());
    // input_data needs an output schema: the service says which field.
    let other = client
        .start_research_by_name(
            "plain",
            ResearchRunRequest::new("q").input_data(json!({"a": 1})),
        )
        .await
        .unwrap_err();
    assert_eq!(other.status(), Some(422));
    assert_eq!(other.api().unwrap().field.as_deref(), Some("input_data"));
}

#[tokio::test]
async fn agents_change_by_json_patch_and_deactivate() {
    use agents_runtime::client::patch::Patch;

    let e = emulator().await;
    let client = client(&e);
    let agent = client
        .create_research_agent(ResearchAgentRequest::new().agent_name("a").goals(["g"]))
        .await
        .unwrap();
    let patch: Patch = serde_json::from_value(json!([
        {"op": "replace", "path": "/display_name", "value": "Analyst"},
        {"op": "replace", "path": "/goals/0/goal", "value": "Find the price"},
    ]))
    .unwrap();
    let changed = client
        .update_research_agent(&agent.id, &patch)
        .await
        .unwrap();
    assert_eq!(changed.display_name, "Analyst");
    assert_eq!(changed.goals[0].goal, "Find the price");
    let bad: Patch = serde_json::from_value(json!([
        {"op": "replace", "path": "/effort", "value": "extreme"},
    ]))
    .unwrap();
    let refused = client
        .update_research_agent(&agent.id, &bad)
        .await
        .unwrap_err();
    assert_eq!(refused.api().unwrap().field.as_deref(), Some("effort"));
    // A patch that leaves something other than an agent record is refused, naming the field,
    // so the account's list stays readable.
    for (path, value, field) in [
        ("/goals", json!("x"), "goals"),
        ("/sources", json!(3), "sources"),
        ("/display_name", json!(null), "display_name"),
        ("/goals/0", json!({"order": 0}), "goals[0].goal"),
    ] {
        let bad: Patch =
            serde_json::from_value(json!([{"op": "replace", "path": path, "value": value}]))
                .unwrap();
        let refused = client
            .update_research_agent(&agent.id, &bad)
            .await
            .unwrap_err();
        assert_eq!(refused.status(), Some(422), "{path}: {refused}");
        assert_eq!(
            refused.api().unwrap().field.as_deref(),
            Some(field),
            "{path}: {refused}"
        );
    }
    let names: Vec<_> = client.research_agents().try_collect().await.unwrap();
    assert_eq!(names.len(), 1);

    client.deactivate_research_agent(&agent.id).await.unwrap();
    assert!(!client.research_agent(&agent.id).await.unwrap().is_active);
    let refused = client
        .start_research(&agent.id, ResearchRunRequest::new("q"))
        .await
        .unwrap_err();
    assert_eq!(refused.status(), Some(422));
}

#[tokio::test]
async fn faults_end_in_typed_errors_within_bounded_time() {
    let e = emulator().await;
    let plain = v2(&e);
    let agent = plain
        .create_research_agent(ResearchAgentRequest::new())
        .await
        .unwrap();
    let question = || ResearchRunRequest::new("Why?").events(true);

    // A run that fails: the waiter sees it end, the result is a typed failure, the events end
    // with it.
    let failing = client_for(&e)
        .api_version(ApiVersion::V2)
        .header("x-emulator-task", "error")
        .build()
        .unwrap();
    let run = failing.start_research(&agent.id, question()).await.unwrap();
    let events = all_events(run.events()).await;
    let last = events.last().unwrap().as_ref().unwrap();
    assert_eq!(
        last.event,
        ResearchEvent::Status {
            status: ResearchStatus::Failed
        }
    );
    match run.answer::<String>().await.unwrap_err() {
        Error::ResearchFailed(f) => {
            assert_eq!(f.status, ResearchStatus::Failed);
            assert_eq!(f.ref_id.as_deref(), Some(run.id()));
            assert!(f.message.contains("injected"), "{}", f.message);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        run.result::<String>().await.unwrap(),
        Outcome::Ended(_)
    ));

    // A stream cut every two events: resumed from the last id, nothing lost or repeated.
    let whole = plain.start_research(&agent.id, question()).await.unwrap();
    let expected = all_events(whole.events()).await.len();
    let cutting = client_for(&e)
        .api_version(ApiVersion::V2)
        .header("x-emulator-events", "cut")
        .build()
        .unwrap();
    let run = cutting.start_research(&agent.id, question()).await.unwrap();
    let events: Vec<RunEvent> = all_events(run.events())
        .await
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(events.len(), expected);
    let ids: Vec<u64> = events
        .iter()
        .map(|e| e.id.as_deref().unwrap().parse().unwrap())
        .collect();
    assert_eq!(ids, (1..=expected as u64).collect::<Vec<_>>());
    assert!(events.last().unwrap().is_final());

    // A stream that goes silent, keep-alives included: a typed error once the silence lasts.
    let stalling = client_for(&e)
        .api_version(ApiVersion::V2)
        .header("x-emulator-events", "stall")
        .build()
        .unwrap();
    let run = stalling
        .start_research(&agent.id, question())
        .await
        .unwrap()
        .with_stall_after(Duration::from_millis(500));
    let started = Instant::now();
    let events = all_events(run.events()).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(events[0].is_ok());
    match events.last().unwrap() {
        Err(Error::EventStream {
            end: StreamEnd::Stalled(d),
            run_id,
        }) => {
            assert_eq!(*d, Duration::from_millis(500));
            assert_eq!(run_id, run.id());
        }
        other => panic!("{other:?}"),
    }
    // Keep-alives alone keep a slow stream open: the same silence allowance, no fault.
    let slow = plain
        .start_research(&agent.id, question())
        .await
        .unwrap()
        .with_stall_after(Duration::from_millis(500));
    assert!(all_events(slow.events()).await.iter().all(Result::is_ok));

    // A run started without events: the stream is refused, naming the field.
    let quiet = plain
        .start_research(&agent.id, ResearchRunRequest::new("q"))
        .await
        .unwrap();
    let events = all_events(quiet.events()).await;
    assert_eq!(events.len(), 1);
    let refused = events[0].as_ref().unwrap_err();
    assert_eq!(
        refused.api().unwrap().field.as_deref(),
        Some("enable_events")
    );
}

/// A stranger's schema whose 16 properties each refer back to the root once made a 44 MB
/// answer and took the emulator to 2 GB; the answer is now bounded, still valid against the
/// schema, and the same on every request.
#[tokio::test]
async fn a_schema_that_refers_back_everywhere_gets_a_bounded_valid_answer() {
    let e = emulator().await;
    let client = v2(&e);
    let properties: serde_json::Map<String, Value> = (0..16)
        .map(|i| (format!("p{i}"), json!({"$ref": "#"})))
        .collect();
    let schema = json!({"type": "object", "properties": properties});
    let agent = client
        .create_research_agent(ResearchAgentRequest::new().output_schema(schema.clone()))
        .await
        .unwrap();
    let run = client
        .start_research(&agent.id, ResearchRunRequest::new("everything"))
        .await
        .unwrap();
    run.wait().await.unwrap();
    let answer: Answer<Value> = run.answer().await.unwrap();
    let size = answer.raw.to_string().len();
    assert!(size < 1_000_000, "{size} bytes");
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&answer.raw));
    let again: Answer<Value> = run.answer().await.unwrap();
    assert_eq!(again.raw, answer.raw);
}
