#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Bindings of the hostile corpus: every JSON name maps to a usable field and back.

use agents_runtime::{Agent, AgentParams, Localized, Paginated, Record};
use agents_test_support::numbers_as_f64;
use agents_tests_generated::hostile::*;
use serde_json::{Value, json};

fn localized<A: Localized>() {}
fn paginated<A: Paginated>() -> &'static str {
    A::PAGE_PARAM
}

#[test]
fn hostile_names_decode_into_their_fields_and_serialize_back_exactly() {
    let raw = json!({
        "type": "t", "match": "m", "self": "s", "Self": "S", "crate": "c", "super": "u",
        "gen": "g", "async": "a", "4_stars_and_above": 4, "5_star": "5", "UNSPSC": "x",
        "UPC": "y", "price ($)": 1.5, "a b": "ab", "café": "c", "日本": "j", "": "empty",
        "product_url": "p1", "productURL": "p2", "unknown_fields": "uf", "mismatches": 3,
        "params": {"x": "px"}, "nested": {"value": "v"}, "Nested": {"other": "o"},
        "TypeNested": "tn", "bidi\u{202e}name": "b", "truly_unknown": [1]
    });
    let rec: Type = serde_json::from_value(raw.clone()).unwrap();
    assert_eq!(rec.r#type.as_deref(), Some("t"));
    assert_eq!(rec.r#match.as_deref(), Some("m"));
    assert_eq!(rec.self_.as_deref(), Some("s"));
    assert_eq!(rec.self_2.as_deref(), Some("S"));
    assert_eq!(rec.crate_.as_deref(), Some("c"));
    assert_eq!(rec.super_.as_deref(), Some("u"));
    assert_eq!(rec.r#gen.as_deref(), Some("g"));
    assert_eq!(rec.r#async.as_deref(), Some("a"));
    assert_eq!(rec._4_stars_and_above, Some(4.0));
    assert_eq!(rec._5_star.as_deref(), Some("5"));
    assert_eq!(rec.unspsc.as_deref(), Some("x"));
    assert_eq!(rec.upc.as_deref(), Some("y"));
    assert_eq!(rec.price, Some(1.5));
    assert_eq!(rec.a_b.as_deref(), Some("ab"));
    assert_eq!(rec.caf_ue9.as_deref(), Some("c"));
    assert_eq!(rec.u65e5_u672c.as_deref(), Some("j"));
    assert_eq!(rec.field.as_deref(), Some("empty"));
    assert_eq!(rec.product_url.as_deref(), Some("p1"));
    assert_eq!(rec.product_url_2.as_deref(), Some("p2"));
    assert_eq!(rec.unknown_fields_2.as_deref(), Some("uf"));
    assert_eq!(rec.mismatches_2, Some(3.0));
    let params: &TypeParams2 = rec.params.as_ref().unwrap();
    assert_eq!(params.x.as_deref(), Some("px"));
    let nested: &TypeNested = rec.nested.as_ref().unwrap();
    assert_eq!(nested.value.as_deref(), Some("v"));
    let nested2: &TypeNested2 = rec.nested_2.as_ref().unwrap();
    assert_eq!(nested2.other.as_deref(), Some("o"));
    assert_eq!(rec.type_nested.as_deref(), Some("tn"));
    assert_eq!(rec.bidi_name.as_deref(), Some("b"));
    assert_eq!(rec.unknown_fields()["truly_unknown"], json!([1]));
    assert!(rec.mismatches().is_empty());
    assert_eq!(
        numbers_as_f64(&serde_json::to_value(&rec).unwrap()),
        numbers_as_f64(&raw)
    );
}

#[test]
fn hostile_params_keep_their_wire_names() {
    let p = TypeParams::new("ab")
        .validate_2(true)
        .param_2(3.0)
        .extra_2("e")
        .r#type("a")
        .self_("s")
        .zip_code("1")
        .page(2)
        .when(json!({"any": "json"}))
        .param("not_declared", "kept");
    assert_eq!(
        serde_json::to_value(&p).unwrap(),
        json!({"new": "ab", "validate": true, "param": 3.0, "extra": "e", "type": "a",
               "self": "s", "zip_code": "1", "page": 2, "when": {"any": "json"},
               "not_declared": "kept"})
    );
    assert!(p.uses_localization());
    assert!(p.validate().is_ok());
    let err = TypeParams::new("a")
        .param_2(11.0)
        .r#type("c")
        .code("abc")
        .validate()
        .unwrap_err();
    let broken: Vec<(&str, &str)> = err
        .violations
        .iter()
        .map(|v| (v.param.as_str(), v.rule.as_str()))
        .collect();
    assert_eq!(
        broken,
        [
            ("new", "minimum length 2"),
            ("param", "maximum 10"),
            ("type", "one of: a, b"),
            ("code", "pattern: ^[A-Z]{3}$"),
        ]
    );
}

/// Every kind of input rule is checked by `validate()` on inputs of every type, on the field
/// and on a value given with `.param(name, …)` under the input's name; each broken rule is
/// reported once, with the text the record states it in.
#[test]
fn every_kind_of_input_rule_is_checked() {
    let rules = |p: EveryRuleParams| -> Vec<(String, String)> {
        match p.validate() {
            Ok(()) => Vec::new(),
            Err(e) => e
                .violations
                .into_iter()
                .map(|v| (v.param, v.rule))
                .collect(),
        }
    };
    let kept = EveryRuleParams::new("bb", 5.0, 4, [1])
        .s_opt("x")
        .n_opt(2.5)
        .i_opt(3)
        .list_opt([1, 2])
        .page(1)
        .r#type("abcd");
    assert_eq!(rules(kept), Vec::<(String, String)>::new());
    let broken = EveryRuleParams::new("DDDDDDDDDD", 10.25, 101, [1, 2, 3, 4])
        .s_opt("y")
        .n_opt(3.5)
        .i_opt(2)
        .list_opt([1])
        .page(0)
        .r#type("long!");
    let expected = [
        ("s", "maximum length 9"),
        ("s", "pattern: ^[a-z]+$"),
        ("s", "one of a, bb, ccc"),
        ("s_opt", "regex ^x"),
        ("n", "maximum 10"),
        ("n", "multiple of 0.5"),
        ("n_opt", "< 3"),
        ("i", "maximum 100"),
        ("i", "multiple of 2"),
        ("i_opt", ">= 3"),
        ("list", "at most 3 items"),
        ("list_opt", "minItems 2"),
        ("page", "minimum 1"),
        ("type", "maxLength 4"),
    ]
    .map(|(p, r)| (p.to_owned(), r.to_owned()));
    assert_eq!(rules(broken), expected);
    // A value given under an input's name is read as the input's type and checked too.
    let given = EveryRuleParams::new("bb", 5.0, 4, [1])
        .param("s_opt", "zz")
        .param("i_opt", 1);
    assert_eq!(
        rules(given),
        [("s_opt", "regex ^x"), ("i_opt", ">= 3")].map(|(p, r)| (p.to_owned(), r.to_owned()))
    );
}

#[test]
fn capabilities_follow_the_records() {
    localized::<Type>();
    assert_eq!(paginated::<Type>(), "page");
    assert_eq!(paginated::<_4chanThread>(), "page");
    let mut p = _4chanThreadParams::new("t");
    <_4chanThread as Paginated>::set_page(&mut p, 3);
    assert_eq!(<_4chanThread as Paginated>::page(&p), Some(3));
    assert_eq!(<Type as Agent>::NAME, "type");
    assert_eq!(<_4chanThread as Agent>::NAME, "4chan_thread");
    assert_eq!(<Option2 as Agent>::NAME, "option");
    assert_eq!(<FooParamsAgent as Agent>::NAME, "foo_params");
    assert_eq!(<FooBarAgent as Agent>::NAME, "foo_bar");
    let _: Option<FooBar> = Foo::default().bar;
}

#[test]
fn every_type_maps_as_documented() {
    let raw = json!({
        "text": "t", "link": "https://x", "amount": 2.5, "count": 3, "flag": false,
        "tags": ["a"], "scores": [1, 2.5], "untyped": [1, "a", null, {"k": 1}],
        "matrix": [[1, 2], [3]], "grid": [[{"c": "x"}]], "rows": [{"k": "a", "v": 1}],
        "obj": {"inner": true}, "bag": {"any": [1]}, "empty_props": {"e": 1},
        "no_type": {"x": 1}, "no_type_object": {"z": "zz"}, "no_type_array": ["q"],
        "nullable": "n", "either": 5, "nothing": null
    });
    let rec: EveryType = serde_json::from_value(raw.clone()).unwrap();
    assert!(rec.mismatches().is_empty(), "{:?}", rec.mismatches());
    let _: Option<i64> = rec.count;
    let _: &Option<Vec<Vec<i64>>> = &rec.matrix;
    let _: &Option<Vec<Value>> = &rec.untyped;
    let _: &Option<agents_runtime::JsonMap> = &rec.bag;
    let _: &Option<agents_runtime::JsonMap> = &rec.empty_props;
    let _: &Option<Value> = &rec.no_type;
    let _: &Option<Value> = &rec.either;
    let _: &Option<String> = &rec.nullable;
    assert_eq!(
        rec.untyped.as_ref().unwrap().len(),
        4,
        "raw JSON arrays keep nulls"
    );
    assert_eq!(rec.grid.as_ref().unwrap()[0][0].c.as_deref(), Some("x"));
    assert_eq!(
        rec.no_type_object.as_ref().unwrap().z.as_deref(),
        Some("zz")
    );
    assert_eq!(rec.no_type_array.as_deref(), Some(&["q".to_owned()][..]));
    // Written back exactly, `"nothing": null` included.
    assert_eq!(
        numbers_as_f64(&serde_json::to_value(&rec).unwrap()),
        numbers_as_f64(&raw)
    );
    let drift: EveryType =
        serde_json::from_str(r#"{"count": "7", "matrix": [[1, "x"]], "either": "s"}"#).unwrap();
    assert_eq!(drift.count, Some(7));
    assert_eq!(drift.matrix, Some(vec![vec![1]]));
    assert_eq!(drift.mismatches()[1].path, "matrix[0][1]");
    let _params = EveryTypeParams::new("s", 1.0, 2, true, "s2", "s3", "s4", "s5").raw(json!([1]));
}

#[test]
fn deep_and_wide_records_decode() {
    let raw =
        json!({"l1": {"l2": [{"l3": {"l4": [{"l5": {"l6": {"leaf": "$2", "tags": ["t"]}}}]}}]}});
    let rec: Deep = serde_json::from_value(raw).unwrap();
    let leaf = rec.l1.as_ref().unwrap().l2.as_ref().unwrap()[0]
        .l3
        .as_ref()
        .unwrap()
        .l4
        .as_ref()
        .unwrap()[0]
        .l5
        .as_ref()
        .unwrap()
        .l6
        .as_ref()
        .unwrap()
        .leaf;
    assert_eq!(leaf, Some(2.0));
    assert_eq!(rec.mismatches()[0].path, "l1.l2[0].l3.l4[0].l5.l6.leaf");

    let wide = agents_test_support::wide_record("wide_2000", 2000);
    let sample = agents_schema::sample::record(wide.output_schema.as_ref().unwrap(), 1);
    let rec: Wide2000 = serde_json::from_value(sample.clone()).unwrap();
    assert!(rec.mismatches().is_empty());
    assert_eq!(rec.field_1997.as_deref(), sample["field_1997"].as_str());
    assert_eq!(rec.field_1999, sample["field_1999"].as_f64());
    assert_eq!(serde_json::to_value(&rec).unwrap(), sample);
    let _ = Empty::default();
    let _ = EmptyParams::new();
}
