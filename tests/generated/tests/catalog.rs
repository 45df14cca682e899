#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The checked-in catalog bindings against data: a full retailer_a_pdp record round-trips, and
//! every drift case of the live service behaves as specified.

use agents_runtime::catalog::{RetailerAPdp, RetailerASerp, SearchEngineSearch};
use agents_runtime::decode::{self, Expected, Parsing};
use agents_runtime::{Agent, AgentParams, Record};
use agents_schema::AgentRecord;
use serde_json::{Value, json};

fn schema(name: &str) -> AgentRecord {
    let path = agents_test_support::schemas_dir().join(format!("{name}.json"));
    AgentRecord::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn full_pdp() -> Value {
    let record = schema("retailer_a_pdp");
    agents_schema::sample::record(record.output_schema.as_ref().unwrap(), 42)
}

#[test]
fn full_record_round_trips_with_every_field_set() {
    let raw = full_pdp();
    let fields = raw.as_object().unwrap();
    assert_eq!(fields.len(), 112);
    let rec: RetailerAPdp = serde_json::from_value(raw.clone()).unwrap();
    assert!(rec.mismatches().is_empty(), "{:?}", rec.mismatches());
    assert!(rec.unknown_fields().is_empty());
    // Every declared field came through typed: serializing gives back exactly the input.
    let back = serde_json::to_value(&rec).unwrap();
    assert_eq!(back, raw);
    // And through text, once more.
    let text = serde_json::to_string(&rec).unwrap();
    let again: RetailerAPdp = serde_json::from_str(&text).unwrap();
    assert_eq!(again, rec);
    // Spot checks of renamed and nested fields.
    assert!(rec._4_stars_and_above.as_ref().unwrap().len() == 3);
    assert_eq!(rec.unspsc.as_deref(), raw["UNSPSC"].as_str());
    assert_eq!(rec.retailer_as_choice, raw["retailer_as_choice"].as_bool());
    let avg = rec.average_of_reviews.unwrap();
    assert!((0.0..=5.0).contains(&avg));
    let stats = rec
        .reviews_statistics_percentage_five_to_zero
        .as_ref()
        .unwrap();
    assert_eq!(
        stats._5_star.as_deref(),
        raw["reviews_statistics_percentage_five_to_zero"]["5_star"].as_str()
    );
    let fbw = rec.frequently_bought_with.as_ref().unwrap();
    assert_eq!(fbw.products.as_ref().unwrap().len(), 3);
}

#[test]
fn absent_and_null_fields_are_none() {
    let rec: RetailerAPdp =
        serde_json::from_value(json!({"product_title": null, "asin": "B0"})).unwrap();
    assert_eq!(rec.product_title, None);
    assert_eq!(rec.web_price, None);
    assert_eq!(rec.asin.as_deref(), Some("B0"));
    assert!(rec.mismatches().is_empty());
}

#[test]
fn numeric_strings_are_coerced_and_recorded() {
    let rec: RetailerAPdp = serde_json::from_str(
        r#"{"web_price": "$1,299.00", "list_price": " 12.5 ",
            "number_of_reviews": "1,024", "availability": "true"}"#,
    )
    .unwrap();
    assert_eq!(rec.web_price, Some(1299.0));
    assert_eq!(rec.list_price, Some(12.5));
    assert_eq!(rec.number_of_reviews, Some(1024.0));
    assert_eq!(rec.availability, Some(true));
    let m = rec.mismatches();
    assert_eq!(m.len(), 4);
    assert_eq!(m[0].path, "web_price");
    assert_eq!(m[0].expected, Expected::Number);
    assert_eq!(m[0].found, json!("$1,299.00"));
    assert!(m.iter().all(|m| m.coerced));
}

#[test]
fn values_that_cannot_be_coerced_leave_the_field_empty_and_are_recorded() {
    let rec: RetailerAPdp = serde_json::from_str(
        r#"{
        "web_price": "call for price",
        "frequently_bought_with": "none",
        "product_hierarchy": "Electronics > Audio",
        "top_reviews": {"stars": 5},
        "reviews_statistics_percentage_five_to_zero": [1, 2],
        "availability": 1,
        "product_title": "still here"
    }"#,
    )
    .unwrap();
    assert_eq!(rec.web_price, None);
    assert_eq!(rec.frequently_bought_with, None);
    assert_eq!(rec.product_hierarchy, None);
    assert_eq!(rec.top_reviews, None);
    assert_eq!(rec.reviews_statistics_percentage_five_to_zero, None);
    assert_eq!(rec.availability, None);
    assert_eq!(rec.product_title.as_deref(), Some("still here"));
    let found: Vec<(&str, Expected, &Value, bool)> = rec
        .mismatches()
        .iter()
        .map(|m| (m.path.as_str(), m.expected, &m.found, m.coerced))
        .collect();
    assert_eq!(
        found,
        vec![
            (
                "web_price",
                Expected::Number,
                &json!("call for price"),
                false
            ),
            (
                "frequently_bought_with",
                Expected::Object,
                &json!("none"),
                false
            ),
            (
                "product_hierarchy",
                Expected::Array,
                &json!("Electronics > Audio"),
                false
            ),
            ("top_reviews", Expected::Array, &json!({"stars": 5}), false),
            (
                "reviews_statistics_percentage_five_to_zero",
                Expected::Object,
                &json!([1, 2]),
                false
            ),
            ("availability", Expected::Boolean, &json!(1), false),
        ]
    );
}

#[test]
fn nested_mismatches_carry_full_paths_and_text_is_kept_for_numbers() {
    let rec: RetailerAPdp = serde_json::from_str(
        r#"{
        "frequently_bought_with": {"total_price": 99.5, "products": [
            {"price": "1", "title": "a"}, "junk", null, {"asin": {"x": 1}}
        ]},
        "top_reviews": [{"stars": "4.5", "review_title": "ok"}]
    }"#,
    )
    .unwrap();
    let fbw = rec.frequently_bought_with.as_ref().unwrap();
    assert_eq!(fbw.total_price.as_deref(), Some("99.5"));
    assert_eq!(fbw.products.as_ref().unwrap().len(), 2);
    assert_eq!(rec.top_reviews.as_ref().unwrap()[0].stars, Some(4.5));
    let paths: Vec<(&str, bool)> = rec
        .mismatches()
        .iter()
        .map(|m| (m.path.as_str(), m.coerced))
        .collect();
    assert_eq!(
        paths,
        [
            ("frequently_bought_with.total_price", true),
            ("frequently_bought_with.products[1]", false),
            ("frequently_bought_with.products[2]", false),
            ("frequently_bought_with.products[3].asin", false),
            ("top_reviews[0].stars", true),
        ]
    );
    // Nested objects report on the root only.
    assert!(fbw.mismatches.is_empty());
}

/// One value decoded as `T` at the field `x`, with the mismatches it recorded.
fn decode_field<T: decode::Decode>(text: &str) -> (Option<T>, Vec<decode::Mismatch>) {
    use serde::de::DeserializeSeed as _;
    let mut sink = Vec::new();
    // The decoder's own seed, as generated records use it for each field.
    use agents_runtime::__private::decode::{Path, Seed};
    let root = Path::Root;
    let mut null = false;
    let seed = Seed::<T>::field(&mut sink, &root, "x", &mut null);
    let value = seed
        .deserialize(&mut serde_json::Deserializer::from_str(text))
        .unwrap();
    (value, sink)
}

#[test]
fn boxed_values_decode_exactly_as_the_values_they_hold() {
    // Array items of records are boxed; `Box<T>` must coerce, reject and record like `T`.
    use agents_runtime::catalog::RetailerAPdpTopReviewsItem as Review;
    let texts = [
        r#""$1,299.00""#,
        "12.5",
        "7",
        "true",
        r#""true""#,
        r#""n/a""#,
        "null",
        "[1, 2]",
        r#"{"stars": "4", "review_title": 5, "colour": "red"}"#,
    ];
    fn alike<T: decode::Decode + PartialEq + std::fmt::Debug>(text: &str) {
        let (plain, plain_found) = decode_field::<T>(text);
        let (boxed, boxed_found) = decode_field::<Box<T>>(text);
        assert_eq!(boxed.map(|b| *b), plain, "{text}");
        assert_eq!(boxed_found, plain_found, "{text}");
    }
    for text in texts {
        alike::<f64>(text);
        alike::<String>(text);
        alike::<bool>(text);
        alike::<Review>(text);
    }
    // The texts cover coercion, rejection and a decoded record.
    let (review, found) = decode_field::<Box<Review>>(texts[8]);
    let review = review.unwrap();
    assert_eq!(review.stars, Some(4.0));
    assert_eq!(review.review_title.as_deref(), Some("5"));
    assert!(review.unknown_fields.contains_key("colour"));
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].path, "x.stars");
    let (_, found) = decode_field::<Box<f64>>(texts[5]);
    assert!(!found[0].coerced);
}

#[test]
fn unknown_fields_are_kept_at_every_level_and_serialized_back() {
    let raw = json!({
        "asin": "B0",
        "new_field": {"deep": [1, 2]},
        "frequently_bought_with": {"total_price": "$3", "bundle_id": 7},
    });
    let rec: RetailerAPdp = serde_json::from_value(raw.clone()).unwrap();
    assert_eq!(rec.unknown_fields()["new_field"], json!({"deep": [1, 2]}));
    let fbw = rec.frequently_bought_with.as_ref().unwrap();
    assert_eq!(fbw.unknown_fields["bundle_id"], json!(7));
    assert_eq!(serde_json::to_value(&rec).unwrap(), raw);
}

#[test]
fn strict_mode_errors_on_any_mismatch() {
    let clean: RetailerAPdp = serde_json::from_value(full_pdp()).unwrap();
    assert!(decode::strict(clean).is_ok());
    let drifted: RetailerAPdp =
        serde_json::from_str(r#"{"web_price": "$5", "variants": "one"}"#).unwrap();
    let err = decode::strict(drifted).unwrap_err();
    assert_eq!(err.mismatches.len(), 2);
    assert!(
        err.to_string().contains("web_price: expected number"),
        "{err}"
    );
}

#[test]
fn parsing_is_one_record_or_many() {
    let one: Parsing<RetailerAPdp> = serde_json::from_value(json!({"asin": "A"})).unwrap();
    assert_eq!(one.single().unwrap().asin.as_deref(), Some("A"));
    let many: Parsing<RetailerASerp> = serde_json::from_value(json!([
        {"position": 1, "asin": "A", "price": "$9.99"},
        {"position": 2, "asin": "B"},
        "not a record",
    ]))
    .unwrap();
    let records = many.records();
    assert_eq!(records.len(), 3);
    assert_eq!(records[0].price, Some(9.99));
    assert_eq!(records[0].mismatches().len(), 1);
    assert_eq!(records[1].asin.as_deref(), Some("B"));
    assert_eq!(records[2].mismatches()[0].found, json!("not a record"));
    assert_eq!(records[2].mismatches()[0].expected, Expected::Object);
}

#[test]
fn web_search_entities_shape_decodes() {
    let rec: SearchEngineSearch = serde_json::from_value(json!({
        "entities": {"OrganicResult": [{"position": 1, "title": "t", "url": "https://a.example"}],
                     "Video": [{"title": "kept as unknown"}]},
        "total_entities_count": 2,
        "entities_count": {"OrganicResult": 1, "Video": 1}
    }))
    .unwrap();
    let entities = rec.entities.as_ref().unwrap();
    assert_eq!(
        entities.organic_result.as_ref().unwrap()[0]
            .title
            .as_deref(),
        Some("t")
    );
    assert!(entities.unknown_fields.contains_key("Video"));
    assert_eq!(rec.entities_count.as_ref().unwrap()["Video"], json!(1));
}

#[test]
fn params_serialize_to_the_wire_names_and_validate() {
    use agents_runtime::catalog::RetailerAPdpParams;
    let p = RetailerAPdpParams::new("B08N5WRWNW")
        .zip_code("90210")
        .country("US")
        .param("x_custom", 1);
    assert_eq!(
        serde_json::to_value(&p).unwrap(),
        json!({"asin": "B08N5WRWNW", "zip_code": "90210", "country": "US", "x_custom": 1})
    );
    assert!(p.uses_localization());
    assert!(!RetailerAPdpParams::new("B0").uses_localization());
    assert!(p.validate().is_ok());
    let err = RetailerAPdpParams::new("")
        .zip_code("")
        .country("USA")
        .validate()
        .unwrap_err();
    let params: Vec<&str> = err.violations.iter().map(|v| v.param.as_str()).collect();
    assert_eq!(params, ["asin", "zip_code", "country"]);
    assert!(
        err.to_string()
            .contains("parameter `asin` breaks rule \"minimum length 1\""),
        "{err}"
    );
    assert_eq!(<RetailerAPdp as Agent>::NAME, "retailer_a_pdp");
}

#[test]
fn patterns_and_bounds_from_rule_text_are_checked() {
    use agents_runtime::catalog::{RetailerASerpParams, RetailerBPdpParams, RetailerCPdpParams};
    assert!(RetailerBPdpParams::new("5129928603").validate().is_ok());
    let err = RetailerBPdpParams::new("51x").validate().unwrap_err();
    assert!(
        err.violations[0].message.contains("does not match"),
        "{err}"
    );
    let err = RetailerCPdpParams::new("1234").validate().unwrap_err();
    assert_eq!(err.violations.len(), 2, "{err}");
    let err = RetailerASerpParams::new("tv")
        .page(0)
        .validate()
        .unwrap_err();
    assert_eq!(err.violations[0].param, "page");
    assert!(RetailerASerpParams::new("tv").page(100).validate().is_ok());
    assert!(RetailerASerpParams::new("tv").page(101).validate().is_err());
}
