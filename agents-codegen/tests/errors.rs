#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Bad schemas: every problem is reported together, naming the file, the agent and the JSON path.

use std::fs;

use agents_codegen::{Options, generate, load_dir};
use agents_schema::AgentRecord;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("agents-codegen-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn every_bad_file_is_reported_with_file_agent_and_path() {
    let dir = temp_dir("bad");
    fs::write(
        dir.join("a_syntax.json"),
        "{\n  \"name\": \"a\",\n  \"output_schema\": {,}\n}",
    )
    .unwrap();
    fs::write(dir.join("b_noname.json"), r#"{"output_schema": {}}"#).unwrap();
    fs::write(
        dir.join("c_type.json"),
        r#"{"name": "c", "output_schema": {"price": {"type": 5}, "tags": {"type": "array", "items": {"type": true}}}}"#,
    )
    .unwrap();
    fs::write(dir.join("d_ok.json"), r#"{"name": "d"}"#).unwrap();
    fs::write(dir.join("notes.txt"), "not a schema").unwrap();
    let err = load_dir(&dir).unwrap_err();
    let lines: Vec<String> = err.0.iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 4, "{lines:#?}");
    assert!(
        lines[0].ends_with(
            "a_syntax.json: agent `a_syntax`: line 3, column 21: invalid JSON: key must be a string"
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].ends_with(
            "b_noname.json: agent `b_noname`: $.name: missing: every agent record needs a `name`"
        ),
        "{}",
        lines[1]
    );
    assert!(lines[2].ends_with("c_type.json: agent `c_type`: $.output_schema.price.type: expected a type name (a string), found a number: 5"), "{}", lines[2]);
    assert!(
        lines[3].contains("$.output_schema.tags.items.type"),
        "{}",
        lines[3]
    );
    let shown = err.to_string();
    assert!(shown.starts_with("4 problems in agent schemas:"), "{shown}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_directory_is_named() {
    let err = load_dir(std::path::Path::new("/nonexistent/schemas")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("/nonexistent/schemas: $: cannot read"),
        "{err}"
    );
}

#[test]
fn check_errors_of_all_agents_come_together() {
    let a = AgentRecord::from_json(
        r#"{"name": "a", "input_properties": [{"name": "q"}, {"name": "q"}]}"#,
    )
    .unwrap();
    let b = AgentRecord::from_json(
        r#"{"name": "b", "input_properties": [{"name": "x"}, {"name": "x"}]}"#,
    )
    .unwrap();
    let b2 = AgentRecord::from_json(r#"{"name": "b"}"#).unwrap();
    let err = generate(&[a, b, b2], &Options::default()).unwrap_err();
    let lines: Vec<String> = err.0.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "agent `b`: $.name: two records have this agent name",
            "agent `a`: $.input_properties[1].name: input \"q\" is declared twice (first at $.input_properties[0])",
            "agent `b`: $.input_properties[1].name: input \"x\" is declared twice (first at $.input_properties[0])",
        ]
    );
}

#[test]
fn unknown_and_missing_types_become_raw_json_with_a_note() {
    let r = AgentRecord::from_json(
        r#"{"name": "u", "output_schema": {"when": {"type": "date"}, "what": {}}}"#,
    )
    .unwrap();
    let src = generate(&[r], &Options::default())
        .unwrap()
        .to_source()
        .unwrap();
    assert!(
        src.contains("pub when: Option<::agents_runtime::Value>"),
        "{src}"
    );
    assert!(src.contains("declares type `date`, which the generator does not know"));
    assert!(src.contains("pub what: Option<::agents_runtime::Value>"));
    assert!(src.contains("The schema declares no type"));
}

#[test]
fn a_bad_runtime_path_is_an_error_not_a_panic() {
    let r = AgentRecord::from_json(r#"{"name": "x"}"#).unwrap();
    let options = Options {
        runtime_path: "not a path!".to_owned(),
    };
    let err = generate(&[r], &options).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("runtime_path: \"not a path!\" is not a Rust path"),
        "{err}"
    );
}
