//! A JSON Schema document read into a record is given back as it was written: every schema of
//! `tests/json-schema/` (the user's files and the real-world corpus), compared as text, key
//! order included. A reading that normalizes (`1` to `1.0`, `false` to `{"not": {}}`, draft 7's
//! `items` list to `prefixItems`, properties sorted by name) would change the user's contract
//! on its way to the service and back; the order of the properties is the order of the fields.

use std::path::{Path, PathBuf};

use agents_schema::{Json, json_schema};
use serde_json::json;

fn schema_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(|p| p.join("tests").join("json-schema"))
        .unwrap_or_default();
    let mut files: Vec<PathBuf> = [root.clone(), root.join("corpus").join("schemas")]
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".schema.json"))
        .collect();
    files.sort();
    assert!(
        files.len() > 20,
        "the corpus is missing: {}",
        root.display()
    );
    files
}

fn read(path: &Path) -> Json {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn documents_come_back_as_written() {
    let empty_output = Json::from(json!({"type": "object", "properties": {}}));
    for path in schema_files() {
        let doc = read(&path);
        let is_input = path.to_string_lossy().ends_with(".input.schema.json");
        let (input, output) = if is_input {
            (Some(&doc), Some(&empty_output))
        } else {
            (None, Some(&doc))
        };
        let record = json_schema::record("t", input, output, None)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let back = if is_input {
            json_schema::input_schema(&record)
        } else {
            json_schema::output_schema(&record)
        };
        assert_eq!(
            back.to_string(),
            doc.to_string(),
            "{} changed on the way back",
            path.display()
        );
        // A `Written` made by hand, without what the reader kept, gives the same back.
        let mut by_hand = record.clone();
        by_hand.written.output_read = None;
        if !is_input {
            let back = json_schema::output_schema(&by_hand);
            assert_eq!(
                back.to_string(),
                doc.to_string(),
                "{} changed without output_read",
                path.display()
            );
        }
    }
}

#[test]
fn a_changed_record_describes_only_what_changed() {
    let doc: Json = serde_json::from_str(
        r#"{
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "required": ["price"],
        "properties": {
            "price": {"type": "number", "minimum": 0},
            "pair": {"type": "array", "items": [{"type": "string"}, false]}
        }
    }"#,
    )
    .expect("JSON");
    let mut record = json_schema::record("t", None, Some(&doc), None).expect("record");
    let added = agents_schema::FieldSchema {
        description: Some("added by a refinement".into()),
        ..Default::default()
    };
    record
        .output_schema
        .get_or_insert_with(Default::default)
        .insert("seller".into(), added);
    if let Some(price) = record
        .output_schema
        .as_mut()
        .and_then(|s| s.get_mut("price"))
    {
        price.maximum = Some(10_000.0);
    }
    let back = json_schema::output_schema(&record);
    // In the document's order, the added field last.
    let names: Vec<&String> = back
        .get("properties")
        .and_then(Json::as_object)
        .map(|p| p.keys().collect())
        .unwrap_or_default();
    assert_eq!(names, ["price", "pair", "seller"]);
    let keys: Vec<&String> = back
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["$schema", "type", "required", "properties"]);
    let (back, doc) = (back.to_value(), doc.to_value());
    // Untouched: the root and `pair`, number and boolean schema as written.
    assert_eq!(back["$schema"], doc["$schema"]);
    assert_eq!(back["required"], doc["required"]);
    assert_eq!(back["properties"]["pair"], doc["properties"]["pair"]);
    // Changed and added: written from the record.
    assert_eq!(back["properties"]["price"]["maximum"], json!(10_000));
    assert_eq!(
        back["properties"]["seller"]["description"],
        "added by a refinement"
    );
}

/// A pair of files read as the generator reads them (the text's order of properties kept)
/// gives its input document back too.
#[test]
fn a_pair_of_files_gives_its_input_document_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(|p| p.join("tests").join("json-schema"))
        .unwrap_or_default();
    let loaded = agents_schema::files::load_file(&root.join("review.output.schema.json"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        json_schema::input_schema(&loaded.record).to_string(),
        read(&root.join("review.input.schema.json")).to_string()
    );
    assert_eq!(
        json_schema::output_schema(&loaded.record).to_string(),
        read(&root.join("review.output.schema.json")).to_string()
    );
}

#[test]
fn an_input_schema_without_its_output_schema_is_named_not_skipped() {
    let dir = std::env::temp_dir().join(format!("agents-schema-alone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let object = r#"{"type": "object", "properties": {"url": {"type": "string"}}}"#;
    for file in [
        "paired.input.schema.json",
        "paired.output.schema.json",
        "shop.input.schema.json",
        // The output file the user meant for `shop`, misnamed.
        "shop.output.json",
    ] {
        std::fs::write(dir.join(file), object).unwrap();
    }
    let found = agents_schema::files::schema_files(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    let err = found.unwrap_err().to_string();
    assert!(
        err.contains("shop.input.schema.json")
            && err.contains("needs `shop.output.schema.json` beside it")
            && !err.contains("paired"),
        "{err}"
    );
}
