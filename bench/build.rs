//! Writes the baselines of the decoding benchmarks: plain `#[derive(Deserialize)]` structs with
//! `Option` fields for retailer_a_pdp's output schema, the way a hand-written binding would look
//! (no drift tolerance, no unknown-field capture); typify's types for the same schema and for the
//! corpus schemas typify accepts; and ours for those corpus schemas.

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
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    let dest = out_dir.join("plain.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));

    // The JSON Schema comparison: typify's types and ours for the same documents.
    let typified = typify_input::record_schema(record["output_schema"].clone(), "RetailerAPdp");
    write(
        &out_dir.join("typify_retailer_a_pdp.rs"),
        &typify(&typified),
    );
    let corpus = root.join("tests/json-schema/corpus/schemas");
    println!("cargo:rerun-if-changed={}", corpus.display());
    for name in typify_input::TYPIFY_CORPUS {
        let path = corpus.join(format!("{name}.output.schema.json"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let schema: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        write(&out_dir.join(format!("typify_{name}.rs")), &typify(&schema));
    }
    let ours = agents_codegen::Builder::new()
        .schema_dir(&corpus)
        .agents(typify_input::TYPIFY_CORPUS)
        .cargo_directives(false)
        .generate()
        .unwrap_or_else(|e| panic!("{e}"));
    write(&out_dir.join("ours_corpus.rs"), &ours);
}

#[path = "src/typify_input.rs"]
mod typify_input;

/// typify's code for `schema`, ending with `pub type Root = …;` naming its root type.
fn typify(schema: &Value) -> String {
    let root: schemars::schema::RootSchema =
        serde_json::from_value(typify_input::for_typify(schema))
            .unwrap_or_else(|e| panic!("not a schemars RootSchema: {e}"));
    let mut space = typify::TypeSpace::new(&typify::TypeSpaceSettings::default());
    let id = space
        .add_root_schema(root)
        .unwrap_or_else(|e| panic!("typify: {e}"))
        .unwrap_or_else(|| panic!("typify gave the root no type"));
    let name = space
        .get_type(&id)
        .map(|t| t.name())
        .unwrap_or_else(|e| panic!("typify: {e}"));
    let alias = if name == "Root" {
        String::new()
    } else {
        format!("pub type Root = {name};\n")
    };
    format!("{}\n{alias}", space.to_stream())
}

fn write(path: &std::path::Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
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
