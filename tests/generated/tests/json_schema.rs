#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Agents written as JSON Schema, decoded: enums keep unknown values, definitions are shared
//! types, recursion is boxed, typed maps, required fields, and nothing sent is lost.

use agents_runtime::Agent;
use agents_runtime::decode::Expected;
use agents_tests_generated::json_schema::*;
use serde_json::{Value, json};

fn round_trip<T: serde::Serialize>(record: &T, sent: &Value) {
    assert_eq!(&serde_json::to_value(record).unwrap(), sent, "nothing lost");
}

#[test]
fn a_v2_template_decodes_into_its_types() {
    let sent = json!({
        "title": "Lamp",
        "price": 12.5,
        "availability": "pre-order",
        "condition": "used",
        "seller": {"name": "Ada", "tier": "gold"},
        "other_sellers": [{"name": "Bob", "tier": ""}, {"name": "Cy", "tier": "platinum"}],
        "category": {"name": "Home", "parent": {"name": "All"},
                     "children": [{"name": "Lamps", "children": []}]},
        "attributes": {"color": "red", "material": "brass"},
        "stock_by_store": {"s1": 4, "s2": "7"},
        "dimensions": {"width": 3.0, "height": 9.5},
        "location": [52.5, 13.4],
        "kind": "product",
        "type": "lamp",
        "Type": "LAMP",
        "extra_key": [1, 2]
    });
    let r: ShopV2 = serde_json::from_value(sent.clone()).unwrap();
    assert_eq!(r.availability, Some(ShopV2Availability::PreOrder));
    assert_eq!(r.condition, Some(ShopV2Condition::Used));
    let seller = r.seller.as_ref().unwrap();
    assert_eq!(seller.tier, Some(ShopV2Tier::Gold));
    let others = r.other_sellers.as_ref().unwrap();
    assert_eq!(others[0].tier, Some(ShopV2Tier::Empty));
    assert_eq!(others[1].tier, Some(ShopV2Tier::Unknown("platinum".into())));
    let category = r.category.as_ref().unwrap();
    assert_eq!(
        category.parent.as_ref().unwrap().name.as_deref(),
        Some("All")
    );
    assert_eq!(
        category.children.as_ref().unwrap()[0].name.as_deref(),
        Some("Lamps")
    );
    assert_eq!(r.attributes.as_ref().unwrap()["material"], "brass");
    assert_eq!(r.stock_by_store.as_ref().unwrap()["s2"], 7);
    assert_eq!(r.dimensions.as_ref().unwrap().height, Some(9.5));
    assert_eq!(r.location, Some(json!([52.5, 13.4])));
    assert_eq!(
        (r.r#type.as_deref(), r.type_2.as_deref()),
        (Some("lamp"), Some("LAMP"))
    );
    assert_eq!(r.unknown_fields["extra_key"], json!([1, 2]));
    // Drift is recorded with its path: an unlisted enum value, a number sent as text.
    let paths: Vec<(&str, Expected)> = r
        .mismatches
        .iter()
        .map(|m| (m.path.as_str(), m.expected))
        .collect();
    assert_eq!(
        paths,
        [
            ("other_sellers[1].tier", Expected::Listed),
            ("stock_by_store.s2", Expected::Integer),
        ]
    );
    let mut back = sent.clone();
    back["stock_by_store"]["s2"] = json!(7);
    round_trip(&r, &back);
}

#[test]
fn required_fields_that_are_missing_are_recorded_not_fatal() {
    // `title` is required and not nullable; `price` is required but may be null; `height` is
    // required inside `dimensions` (an `allOf`).
    let r: ShopV2 =
        serde_json::from_value(json!({"price": null, "dimensions": {"width": 1}})).unwrap();
    let missing: Vec<&str> = r.mismatches.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(missing, ["dimensions.height", "title"]);
    assert!(r.mismatches.iter().all(|m| m.found.is_null() && !m.coerced));

    // A required field sent with a value of another type is one mismatch, holding what was
    // sent, not also a "missing" one.
    // (Keys written in name order, the order `json!` gives without `preserve_order` too.)
    let r: ShopV2 = serde_json::from_value(json!({"dimensions": {"height": [2], "width": 1},
        "price": 1, "title": {"en": "x"}}))
    .unwrap();
    let found: Vec<(&str, &serde_json::Value)> = r
        .mismatches
        .iter()
        .map(|m| (m.path.as_str(), &m.found))
        .collect();
    assert_eq!(
        found,
        [
            ("dimensions.height", &json!([2])),
            ("title", &json!({"en": "x"}))
        ]
    );
}

#[test]
fn the_template_version_is_on_the_type() {
    assert_eq!(ShopV2::NAME, "shop_v2");
    assert_eq!(ShopV2::TEMPLATE_VERSION_ID, "ver_3");
    assert_eq!(ShopV2::TEMPLATE_VERSION, 3);
}

#[test]
fn inputs_from_json_schema_are_checked_before_sending() {
    use agents_runtime::{Localized, Paginated};
    fn localized<T: Localized>() {}
    localized::<ShopV2>();
    assert_eq!(<ShopV2 as Paginated>::PAGE_PARAM, "page");
    let err = ShopV2Params::new("ab").page(0).validate().unwrap_err();
    let rules: Vec<String> = err.violations.iter().map(|v| v.rule.clone()).collect();
    assert_eq!(
        rules,
        ["minimum length 3", "pattern ^[A-Z0-9-]+$", "minimum 1"]
    );
    assert!(
        ShopV2Params::new("AB-123")
            .sort("rating")
            .validate()
            .is_ok()
    );

    // Exclusive bounds, steps and item counts, every broken one reported.
    let err = ReviewParams::new("https://shop.example/r/1")
        .min_rating(0.0)
        .tags(Vec::<String>::new())
        .validate()
        .unwrap_err();
    let rules: Vec<(&str, &str)> = err
        .violations
        .iter()
        .map(|v| (v.param.as_str(), v.rule.as_str()))
        .collect();
    assert_eq!(
        rules,
        [
            ("min_rating", "greater than 0"),
            ("tags", "at least 1 item")
        ]
    );
    let err = ReviewParams::new("https://shop.example/r/1")
        .min_rating(2.25)
        .tags(["a", "b", "c", "d"])
        .validate()
        .unwrap_err();
    let rules: Vec<&str> = err.violations.iter().map(|v| v.rule.as_str()).collect();
    assert_eq!(rules, ["multiple of 0.5", "at most 3 items"]);
    assert!(
        ReviewParams::new("https://shop.example/r/1")
            .min_rating(4.5)
            .tags(["a"])
            .validate()
            .is_ok()
    );
    // The request check the CLI and the emulator use says the same of raw JSON.
    let record = agents_codegen::load_file(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../json-schema/review.output.schema.json"),
    )
    .unwrap()
    .record;
    let problems = agents_runtime::validate::check_request(
        &record,
        &json!({"url": "https://shop.example/r/1", "min_rating": 5.25, "tags": []}),
        agents_runtime::validate::Localization::Derived,
    )
    .unwrap_err();
    let rules: Vec<Option<&str>> = problems
        .problems
        .iter()
        .map(|p| p.rule.as_deref())
        .collect();
    assert_eq!(
        rules,
        [
            Some("maximum 5"),
            Some("multiple of 0.5"),
            Some("at least 1 item")
        ]
    );
    assert_eq!(problems.status(), 422);

    // A list input is a `Vec` of its items' type: its kind and its items' kinds are checked,
    // in the typed value, in a value given by name, and in raw JSON.
    let tags: &Option<Vec<String>> = &ReviewParams::new("https://shop.example/r/1")
        .tags(["a", "b"])
        .tags;
    assert_eq!(tags.as_deref(), Some(&["a".to_owned(), "b".to_owned()][..]));
    let err = ReviewParams::new("https://shop.example/r/1")
        .param("tags", "a")
        .validate()
        .unwrap_err();
    assert_eq!(err.violations[0].param, "tags");
    assert_eq!(err.violations[0].rule, "type");
    let err = ReviewParams::new("https://shop.example/r/1")
        .param("tags", json!([]))
        .validate()
        .unwrap_err();
    assert_eq!(err.violations[0].rule, "at least 1 item");
    for (tags, message) in [
        (
            json!("a"),
            "parameter `tags` must be an array of strings, not a string",
        ),
        (
            json!(["a", 2]),
            "parameter `tags[1]` must be a string, not a number",
        ),
    ] {
        let problems = agents_runtime::validate::check_request(
            &record,
            &json!({"url": "https://shop.example/r/1", "tags": tags}),
            agents_runtime::validate::Localization::Derived,
        )
        .unwrap_err();
        let messages: Vec<&str> = problems
            .problems
            .iter()
            .map(|p| p.message.as_str())
            .collect();
        assert_eq!(messages, [message]);
        assert_eq!(problems.problems[0].param, "tags");
    }
}

#[test]
fn a_users_schema_pair_decodes_with_its_definitions() {
    let sent = json!({
        "stars": "4",
        "author": {"name": "Ada", "email": "ada@example.com"},
        "replies": [{"text": "thanks", "replies": [{"text": "welcome", "author": {"name": "Bob"}}]}],
        "posted": "2026-11-01"
    });
    let r: Review = serde_json::from_value(sent).unwrap();
    assert_eq!(r.stars, Some(4));
    assert_eq!(r.author.as_ref().unwrap().name.as_deref(), Some("Ada"));
    let inner = &r.replies.as_ref().unwrap()[0].replies.as_ref().unwrap()[0];
    assert_eq!(inner.author.as_ref().unwrap().name.as_deref(), Some("Bob"));
    assert_eq!(r.mismatches.len(), 1, "{:?}", r.mismatches);
    assert!(
        ReviewParams::new("https://shop.example/r/1")
            .validate()
            .is_ok()
    );
    assert!(ReviewParams::new("x").language("es").validate().is_err());
}

/// Keywords of an input schema the typed rules do not cover (`uniqueItems`, `const`, the rules
/// of a list's items) are judged by the schema itself in the request check the CLI, the raw
/// paths and the emulator share: each breach named with its input, keyword and value, none of
/// what the typed check says said twice, a value of the wrong kind not judged again.
#[test]
fn the_request_check_judges_input_keywords_the_typed_rules_do_not_cover() {
    use agents_runtime::validate::{Localization, check_request};
    type Problems = Vec<(String, Option<String>, String)>;
    // The check of params against an agent of input schema `input_schema`: each problem's
    // param, rule and message.
    fn checker(input_schema: serde_json::Value) -> impl Fn(serde_json::Value) -> Problems {
        let record = agents_schema::AgentRecord::from_value(&json!({
            "name": "shop",
            "input_schema": input_schema,
            "output_schema": {"type": "object", "properties": {}},
        }))
        .unwrap();
        move |params| match check_request(&record, &params, Localization::Derived) {
            Ok(()) => Vec::new(),
            Err(e) => (e.problems.into_iter())
                .map(|p| (p.param, p.rule, p.message))
                .collect(),
        }
    }
    let problems = checker(json!({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string", "minLength": 2},
                 "uniqueItems": true, "maxItems": 3},
        "code": {"type": "string", "const": "x"},
    }}));
    assert!(problems(json!({"tags": ["ab", "cd"], "code": "x"})).is_empty());
    let found = problems(json!({"tags": ["ab", "a", "ab", "cd"], "code": "y"}));
    // The schema's breaches come in the order the params map keeps (serde_json's
    // `preserve_order` changes it), so they are compared as a set.
    let mut said: Vec<(&str, Option<&str>)> = found
        .iter()
        .map(|(p, r, _)| (p.as_str(), r.as_deref()))
        .collect();
    said.sort();
    assert_eq!(
        said,
        [
            ("code", Some("const")),
            ("tags", Some("at most 3 items")),
            ("tags", Some("minLength")),
            ("tags", Some("uniqueItems")),
        ],
        "{found:#?}"
    );
    assert!(
        found
            .iter()
            .any(|(_, _, m)| m.starts_with("parameter tags[1]: breaks `minLength: 2`")),
        "{found:#?}"
    );
    // The wrong kind is said once, as the wrong kind.
    let found = problems(json!({"code": 5}));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(
        found[0].2,
        "parameter `code` must be a string, not a number"
    );

    // The root's keywords too; the common params are taken whatever it says of the others.
    let problems = checker(
        json!({"type": "object", "properties": {"q": {"type": "string"}},
                                  "additionalProperties": false, "minProperties": 2}),
    );
    assert!(problems(json!({"q": "kettle", "country": "DE"})).is_empty());
    let found = problems(json!({"colour": "red"}));
    let mut said: Vec<(&str, Option<&str>)> = found
        .iter()
        .map(|(p, r, _)| (p.as_str(), r.as_deref()))
        .collect();
    said.sort();
    assert_eq!(
        said,
        [
            ("", Some("minProperties")),
            ("colour", Some("additionalProperties"))
        ],
        "{found:#?}"
    );
    assert!(
        found.iter().any(|(_, _, m)| m
            == "params: breaks `minProperties: 2` (/minProperties), found {\"colour\":\"red\"}"),
        "{found:#?}"
    );
}
