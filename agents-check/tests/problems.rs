//! A problem names the document it is in: the schema's own pointer, or the URI (and file) of a
//! document a reference read, with the pointer read from that document's root.

use agents_check::{Options, ProblemKind, Schema};
use serde_json::json;

#[test]
fn a_problem_in_the_schema_names_no_other_document() {
    let compiled = Schema::compile(&json!({"properties": {"when": {"type": "strng"}}}));
    let problem = &compiled.problems()[0];
    assert_eq!(problem.kind, ProblemKind::UnknownType);
    assert_eq!(problem.pointer, "/properties/when/type");
    assert_eq!((&problem.document, &problem.file), (&None, &None));
    assert!(
        problem
            .to_string()
            .starts_with("/properties/when/type: `strng`")
    );
}

#[test]
fn a_problem_in_a_supplied_document_names_its_uri() {
    let compiled = Options::new()
        .document(
            "https://example.com/given.json",
            json!({"properties": {"n": {"minimum": 5, "maximum": 1}}}),
        )
        .compile(&json!({"$ref": "https://example.com/given.json"}));
    let problem = &compiled.problems()[0];
    assert_eq!(problem.kind, ProblemKind::Unsatisfiable);
    assert_eq!(problem.pointer, "/properties/n/minimum");
    assert_eq!(
        problem.document.as_deref(),
        Some("https://example.com/given.json")
    );
    assert_eq!(problem.file, None);
    assert!(
        (problem.to_string()).starts_with("https://example.com/given.json#/properties/n/minimum: ")
    );
}

/// A file a reference reads is a user's text: a key it gives twice in one object is a problem
/// there (the value read keeps the last), and so is text that is not JSON; each names the file.
#[test]
fn a_file_a_reference_reads_is_checked_for_keys_given_twice_and_named() {
    let dir = std::env::temp_dir().join(format!("agents-check-problems-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("part.json"),
        r#"{"properties": {"tags": {"items": [{"type": "string", "type": "number"}]}}}"#,
    )
    .unwrap();
    std::fs::write(dir.join("broken.json"), "{\"type\": ").unwrap();
    let compiled = Options::new()
        .directory("https://example.com/s/", &dir)
        .compile(&json!({"properties": {
            "part": {"$ref": "https://example.com/s/part.json"},
            "broken": {"$ref": "https://example.com/s/broken.json"},
        }}));
    std::fs::remove_dir_all(&dir).unwrap();

    let twice = (compiled.problems().iter())
        .find(|p| p.kind == ProblemKind::RepeatedKey)
        .unwrap();
    assert_eq!(twice.pointer, "/properties/tags/items/0/type");
    assert_eq!(twice.file.as_deref(), Some(dir.join("part.json").as_path()));
    assert_eq!(
        twice.document.as_deref(),
        Some("https://example.com/s/part.json")
    );
    assert!(twice.kind.breaks_the_type());
    assert!(twice.message.contains("`type` is given twice"), "{twice}");

    let broken = (compiled.problems().iter())
        .find(|p| p.kind == ProblemKind::Unreadable)
        .unwrap();
    assert_eq!(
        broken.file.as_deref(),
        Some(dir.join("broken.json").as_path())
    );
    assert_eq!(broken.pointer, "");
    assert!(broken.message.contains("not JSON"), "{broken}");
    // The reference to it points nowhere, at the reference.
    assert!(
        (compiled.problems().iter()).any(|p| p.kind == ProblemKind::Reference
            && p.pointer == "/properties/broken/$ref"
            && p.document.is_none()),
        "{:?}",
        compiled.problems()
    );
}

/// A keyword whose value is of a JSON type it does not take is not read, and said so at its
/// pointer; a keyword of its draft's own spelling (draft 4's boolean `exclusiveMinimum`), a
/// count written `2.0`, and a key that is no keyword of the schema's draft are not problems.
#[test]
fn a_keyword_of_the_wrong_kind_is_a_problem_at_its_pointer() {
    let compiled = Schema::compile(&json!({"properties": {
        "stars": {"type": "integer", "minimum": "zero", "maxLength": -1, "pattern": 5},
        "tags": {"type": "array", "minItems": 2.0, "uniqueItems": "yes", "required": [1]},
    }}));
    let mut found: Vec<(String, String)> = (compiled.problems().iter())
        .inspect(|p| assert_eq!(p.kind, ProblemKind::WrongKind, "{p}"))
        .map(|p| (p.pointer.clone(), p.message.clone()))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            (
                "/properties/stars/maxLength".to_owned(),
                "`maxLength` takes a whole number, not negative, and this is a number: it is not \
                 read; fix the schema to have it used"
                    .to_owned()
            ),
            (
                "/properties/stars/minimum".to_owned(),
                "`minimum` takes a number, and this is a string: it is not read; fix the schema \
                 to have it used"
                    .to_owned()
            ),
            (
                "/properties/stars/pattern".to_owned(),
                "`pattern` takes text, and this is a number: it is not read; fix the schema to \
                 have it used"
                    .to_owned()
            ),
            (
                "/properties/tags/required".to_owned(),
                "`required` takes a list of property names, and this is an array: it is not read; \
                 fix the schema to have it used"
                    .to_owned()
            ),
            (
                "/properties/tags/uniqueItems".to_owned(),
                "`uniqueItems` takes a boolean, and this is a string: it is not read; fix the \
                 schema to have it used"
                    .to_owned()
            ),
        ]
    );
    // Draft 4 spells an exclusive bound as a boolean; `dependentRequired` is no draft 7 keyword,
    // so its value is anything (it is reported once, as of another draft).
    let draft4 = Schema::compile(
        &json!({"$schema": "http://json-schema.org/draft-04/schema#",
        "minimum": 1, "exclusiveMinimum": true}),
    );
    assert!(draft4.problems().is_empty(), "{:?}", draft4.problems());
    let draft7 = Schema::compile(
        &json!({"$schema": "http://json-schema.org/draft-07/schema#",
        "dependentRequired": 5}),
    );
    let kinds: Vec<ProblemKind> = draft7.problems().iter().map(|p| p.kind).collect();
    assert_eq!(kinds, [ProblemKind::OtherDraft]);
}
