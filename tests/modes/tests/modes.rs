#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The three modes produce the same items for the same schemas.

use agents_codegen::{Builder, Options, expand, format, generate_refs, load_file};
use agents_runtime::{Agent, AgentParams, Record};
use agents_test_support::{schemas_dir, workspace_root};

fn strip_include(text: String) -> proc_macro2::TokenStream {
    // The macro adds `const _: &[u8] = include_bytes!(…);` after the items, to track the schema
    // file and the documents its references read.
    let cut = text.find("const _ : & [u8] = include_bytes !").unwrap();
    text[..cut].parse().unwrap()
}

#[test]
fn macro_and_build_script_produce_identical_source() {
    let root = workspace_root().join("tests/modes");
    for agent in ["retailer_a_pdp", "llm_a"] {
        let macro_src = format(strip_include(
            expand::expand(agent, &Default::default(), &root).unwrap(),
        ))
        .unwrap();
        let built = Builder::new()
            .schema_dir(schemas_dir())
            .agents([agent])
            .cargo_directives(false)
            .generate()
            .unwrap();
        assert_eq!(macro_src, built, "{agent}");
    }
}

#[test]
fn checked_in_bindings_are_the_same_generator_with_the_types_crate_path() {
    let record = load_file(&schemas_dir().join("retailer_a_pdp.json"))
        .unwrap()
        .record;
    let options = Options::default().runtime_path("::agents_types");
    let ours = generate_refs(&[&record], &options)
        .unwrap()
        .to_source()
        .unwrap();
    let ours = agents_codegen::rustfmt(&ours).unwrap();
    let checked_in =
        std::fs::read_to_string(workspace_root().join("agents-catalog/src/retailer_a_pdp.rs"))
            .unwrap();
    assert!(checked_in.ends_with(&ours), "cargo xtask codegen is stale");
}

#[test]
fn the_three_types_decode_and_encode_alike() {
    use agents_runtime::catalog::RetailerAPdp as CheckedIn;
    use agents_tests_modes::built::RetailerAPdp as Built;
    use agents_tests_modes::expanded::RetailerAPdp as Expanded;
    let record = load_file(&schemas_dir().join("retailer_a_pdp.json"))
        .unwrap()
        .record;
    let mut sample = agents_schema::sample::record(record.output_schema.as_ref().unwrap(), 7);
    sample["web_price"] = "$1,299.00".into();
    let a: CheckedIn = serde_json::from_value(sample.clone()).unwrap();
    let b: Built = serde_json::from_value(sample.clone()).unwrap();
    let c: Expanded = serde_json::from_value(sample).unwrap();
    assert_eq!(
        serde_json::to_value(&a).unwrap(),
        serde_json::to_value(&b).unwrap()
    );
    assert_eq!(
        serde_json::to_value(&a).unwrap(),
        serde_json::to_value(&c).unwrap()
    );
    assert_eq!(a.mismatches().len(), 1);
    assert_eq!(b.mismatches(), a.mismatches());
    assert_eq!(c.mismatches(), a.mismatches());
    assert_eq!(<Built as Agent>::NAME, <CheckedIn as Agent>::NAME);
    let p = agents_tests_modes::expanded::RetailerAPdpParams::new("");
    assert!(p.validate().is_err());
    assert!(!AgentParams::uses_localization(&p));
}

/// A user's JSON Schema file (this package's `schemas/`, found before the workspace's) makes the
/// same items through the macro, the build script and `cargo agents generate` (the checked-in
/// route for schemas outside the catalog), and the types read an instance of the schema alike.
#[test]
fn a_json_schema_file_gives_the_same_types_in_every_mode() {
    let root = workspace_root().join("tests/modes");
    let dir = root.join("schemas");
    let macro_src = format(strip_include(
        expand::expand("price_check", &Default::default(), &root).unwrap(),
    ))
    .unwrap();
    let built = Builder::new()
        .schema_dir(&dir)
        .agents(["price_check"])
        .cargo_directives(false)
        .generate()
        .unwrap();
    assert_eq!(macro_src, built);
    let loaded = load_file(&dir.join("price_check.output.schema.json")).unwrap();
    let generated = generate_refs(&[&loaded.record], &Options::default())
        .unwrap()
        .to_source()
        .unwrap();
    assert_eq!(agents_codegen::rustfmt(&generated).unwrap(), built);

    use agents_tests_modes::built::PriceCheck as Built;
    use agents_tests_modes::expanded::PriceCheck as Expanded;
    let doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("price_check.output.schema.json")).unwrap(),
    )
    .unwrap();
    let schema = agents_schema::FieldSchema::from_document(&doc).unwrap();
    for seed in 0..20 {
        let instance = agents_schema::sample::document(&schema, seed);
        let a: Built = serde_json::from_value(instance.clone()).unwrap();
        let b: Expanded = serde_json::from_value(instance.clone()).unwrap();
        assert!(
            a.mismatches().is_empty(),
            "{:?} for {instance}",
            a.mismatches()
        );
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            serde_json::to_value(&b).unwrap()
        );
        assert_eq!(serde_json::to_value(&a).unwrap(), instance, "nothing lost");
    }
    assert_eq!(<Built as Agent>::NAME, "price_check");
}

/// References by URI into a shared file and by `$anchor`, read from the package's `shared/`:
/// every front door gives the same typed items, the macro watches the file it read, and the
/// types hold what the schema describes.
#[test]
fn references_to_a_shared_file_are_typed_alike_in_every_mode() {
    let root = workspace_root().join("tests/modes");
    let options = Options::default().documents("https://example.com/schemas/", root.join("shared"));
    let expanded = expand::expand("shop_refs", &options, &root).unwrap();
    assert!(
        expanded.contains("shared/price.json"),
        "the macro does not watch the file: {expanded}"
    );
    let macro_src = format(strip_include(expanded)).unwrap();
    let built = Builder::new()
        .schema_dir(root.join("schemas"))
        .agents(["shop_refs"])
        .options(options.clone())
        .cargo_directives(false)
        .generate_with_warnings()
        .unwrap();
    assert!(built.1.is_empty(), "{:?}", built.1);
    assert_eq!(macro_src, built.0);
    let loaded = load_file(&root.join("schemas/shop_refs.output.schema.json")).unwrap();
    let output = generate_refs(&[&loaded.record], &options).unwrap();
    assert_eq!(output.files, [root.join("shared/price.json")]);
    assert_eq!(
        agents_codegen::rustfmt(&output.to_source().unwrap()).unwrap(),
        built.0
    );

    use agents_tests_modes::expanded::{ShopRefs, ShopRefsPrice, ShopRefsPriceCurrency};
    let shop: ShopRefs = serde_json::from_value(serde_json::json!({
        "product": "kettle",
        "price": {"amount": 20.5, "currency": "EUR"},
        "was": 25,
        "seller": {"name": "A", "rating": 4.5}
    }))
    .unwrap();
    let price: &ShopRefsPrice = shop.price.as_ref().unwrap();
    assert_eq!(price.amount, Some(20.5));
    assert_eq!(price.currency, Some(ShopRefsPriceCurrency::Eur));
    assert_eq!(shop.was, Some(25.0));
    assert_eq!(shop.seller.as_ref().unwrap().rating, Some(4.5));
    assert!(shop.mismatches().is_empty() && shop.breaches().is_empty());
    // The shared file's rules are checked too, from the schema the record carries.
    let broken: ShopRefs = serde_json::from_value(serde_json::json!({
        "product": "kettle",
        "price": {"amount": -1, "currency": "EUR"}
    }))
    .unwrap();
    let breaches: Vec<String> = broken.breaches().iter().map(|b| b.path.clone()).collect();
    assert_eq!(breaches, ["price.amount"]);
}

/// Localization and pagination set by hand in every front door: the same code, and params that
/// are `Localized` and `Paginated` where the inputs' names alone would make neither.
#[test]
fn localization_and_pagination_set_by_hand_are_the_same_in_every_mode() {
    use agents_runtime::{Localized, Paginated};
    fn localized<A: Localized>() {}
    fn page_param<A: Paginated>() -> &'static str {
        A::PAGE_PARAM
    }
    localized::<agents_tests_modes::built::StoreFinder>();
    localized::<agents_tests_modes::expanded::StoreFinder>();
    assert_eq!(
        page_param::<agents_tests_modes::built::StoreFinder>(),
        "page_no"
    );
    assert_eq!(
        page_param::<agents_tests_modes::expanded::StoreFinder>(),
        "page_no"
    );
    let p = agents_tests_modes::built::StoreFinderParams::new("coffee").postcode("10115");
    assert!(AgentParams::uses_localization(&p));
    // Lists are a `Vec` of their items' type (any JSON value where the items are objects),
    // and an object input a JSON map; the macro's types are the builder's.
    let mut filters = agents_runtime::JsonMap::new();
    filters.insert("open_now".into(), true.into());
    let p = agents_tests_modes::expanded::StoreFinderParams::new("coffee")
        .store_ids([7, 9, 11, 13])
        .near([serde_json::json!({"lat": 52.5, "lon": 13.4})])
        .filters(filters);
    let ids: &Option<Vec<i64>> = &p.store_ids;
    assert_eq!(ids.as_deref(), Some(&[7, 9, 11, 13][..]));
    let near: &Option<Vec<serde_json::Value>> = &p.near;
    assert_eq!(near.as_ref().map(Vec::len), Some(1));
    let err = p.validate().unwrap_err();
    assert_eq!(err.violations[0].param, "store_ids");
    assert_eq!(err.violations[0].rule, "at most 3 items");

    // What no typed rule covers (`uniqueItems`, an `enum` of numbers, the root's
    // `dependentRequired` and `additionalProperties: false`) is judged by the input schema, in
    // both front doors alike; the common params are taken whatever the schema says of other
    // properties.
    fn judged(err: agents_runtime::ValidationError) -> Vec<(String, String)> {
        let mut said: Vec<(String, String)> = (err.violations.into_iter())
            .map(|v| (v.param, v.rule))
            .collect();
        said.sort();
        said
    }
    let expected = [
        ("colour".to_owned(), "additionalProperties".to_owned()),
        ("postcode".to_owned(), "dependentRequired".to_owned()),
        ("radius_km".to_owned(), "enum".to_owned()),
        ("store_ids".to_owned(), "uniqueItems".to_owned()),
    ];
    let built = agents_tests_modes::built::StoreFinderParams::new("coffee")
        .store_ids([7, 7])
        .radius_km(3)
        .near([serde_json::json!({"lat": 52.5})])
        .country("DE")
        .param("colour", "red");
    let err = built.validate().unwrap_err();
    assert!(
        err.to_string().contains(
            "parameter `postcode` breaks rule \"dependentRequired\": postcode: missing, and \
             `dependentRequired: {\"near\":[\"postcode\"]}` (/dependentRequired) requires it"
        ),
        "{err}"
    );
    assert_eq!(judged(err), expected);
    let expanded = agents_tests_modes::expanded::StoreFinderParams::new("coffee")
        .store_ids([7, 7])
        .radius_km(3)
        .near([serde_json::json!({"lat": 52.5})])
        .country("DE")
        .param("colour", "red");
    assert_eq!(judged(expanded.validate().unwrap_err()), expected);
    let fine = agents_tests_modes::expanded::StoreFinderParams::new("coffee")
        .store_ids([7, 9])
        .near([serde_json::json!({"lat": 52.5})])
        .postcode("10115")
        .radius_km(5)
        .country("DE");
    assert_eq!(fine.validate(), Ok(()));

    let root = workspace_root().join("tests/modes");
    // One settings value, handed to both front doors.
    let options = agents_codegen::Options::default()
        .localized("store_finder", ["postcode"])
        .paginated("store_finder", Some("page_no"));
    let macro_src = format(strip_include(
        expand::expand("store_finder", &options, &root).unwrap(),
    ))
    .unwrap();
    let dir = root.join("schemas");
    let built = Builder::new()
        .schema_dir(&dir)
        .agents(["store_finder"])
        .options(options)
        .cargo_directives(false)
        .generate()
        .unwrap();
    assert_eq!(macro_src, built);
    let plain = Builder::new()
        .schema_dir(&dir)
        .agents(["store_finder"])
        .cargo_directives(false)
        .generate()
        .unwrap();
    assert!(!plain.contains("Localized for"), "{plain}");
    assert!(!plain.contains("Paginated for"), "{plain}");
    assert!(built.contains("Localized for StoreFinder {"), "{built}");
    // The input chosen by hand is one `Localized::localize` sets by name.
    assert!(
        built.contains("\"postcode\" => params.postcode = Some(value)"),
        "{built}"
    );

    // Overrides that name what is not there are reported together, each with what to do.
    let err = Builder::new()
        .schema_dir(&dir)
        .agents(["store_finder"])
        .options(
            agents_codegen::Options::default()
                .localized("store_finder", ["zip", "postcode", "city"])
                .paginated("store_finder", Some("query"))
                .paginated("store_fnder", None),
        )
        .cargo_directives(false)
        .generate()
        .unwrap_err()
        .to_string();
    for expected in [
        "agent `store_fnder`: capabilities: localization or pagination is set for this agent, which is not among the agents generated",
        "agent `store_finder`: localized: the record has no input `zip`, `city`; its inputs are: query, postcode, page_no, store_ids, near, filters",
        "agent `store_finder`: paginated: input `query` takes a string, and a page number is a number",
    ] {
        assert!(err.contains(expected), "{expected}\nin\n{err}");
    }
}

#[test]
fn ten_expansions_generate_once() {
    let root = workspace_root().join("tests/modes");
    let file = schemas_dir().join("llm_b.json");
    let before = expand::times_generated(&file);
    for _ in 0..10 {
        expand::expand("llm_b", &Default::default(), &root).unwrap();
    }
    assert_eq!(expand::times_generated(&file) - before, 1);
}

#[test]
fn macro_errors_name_the_agent_and_the_fix() {
    let root = workspace_root().join("tests/modes");
    let err = expand::expand("retailer_a_pbp", &Default::default(), &root).unwrap_err();
    assert!(
        err.contains("no cached schema for agent `retailer_a_pbp`"),
        "{err}"
    );
    assert!(err.contains("did you mean `retailer_a_pdp`"), "{err}");
    // Only names that are near are suggested.
    assert!(
        !err.contains("llm_a") && !err.contains("social_b_page"),
        "{err}"
    );
    assert!(err.contains("cargo agents fetch retailer_a_pbp"), "{err}");
}
