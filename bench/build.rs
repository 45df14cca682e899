//! Writes the strict baseline for the decoding benchmark: plain `#[derive(Deserialize)]` structs
//! with `Option` fields for retailer_a_pdp's output schema, the way a hand-written binding would
//! look (no drift tolerance, no unknown-field capture).

use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::Value;

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default()).join("..");
    let path = root.join("schemas/retailer_a_pdp.json");
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let record: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = String::new();
    let mut n = 0;
    emit("Plain", &record["output_schema"], &mut out, &mut n);
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("plain.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}

fn emit(name: &str, props: &Value, out: &mut String, n: &mut usize) {
    let mut fields = String::new();
    let mut nested = Vec::new();
    for (i, (json, d)) in props.as_object().into_iter().flatten().enumerate() {
        let ty = ty(d, n, &mut nested);
        let _ = writeln!(
            fields,
            "    #[serde(rename = {json:?})]\n    pub f{i}: Option<{ty}>,"
        );
    }
    let _ = writeln!(
        out,
        "/// Strict baseline struct.\n#[derive(Debug, serde::Deserialize)]\n#[allow(dead_code)]\npub struct {name} {{\n{fields}}}\n"
    );
    for (nested_name, props) in nested {
        emit(&nested_name, &props, out, n);
    }
}

fn ty(d: &Value, n: &mut usize, nested: &mut Vec<(String, Value)>) -> String {
    match d["type"].as_str() {
        Some("string") => "String".into(),
        Some("number") => "f64".into(),
        Some("integer") => "i64".into(),
        Some("boolean") => "bool".into(),
        Some("array") => match d.get("items") {
            Some(items) => format!("Vec<{}>", ty(items, n, nested)),
            None => "Vec<serde_json::Value>".into(),
        },
        Some("object") => match d.get("properties") {
            Some(p) => {
                *n += 1;
                let name = format!("Plain{n}");
                nested.push((name.clone(), p.clone()));
                name
            }
            None => "serde_json::Map<String, serde_json::Value>".into(),
        },
        _ => "serde_json::Value".into(),
    }
}
