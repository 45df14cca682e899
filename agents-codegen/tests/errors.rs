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

/// A scratch directory holding an empty `schemas/`, and that `schemas/`.
fn temp_schemas(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = temp_dir(name);
    let schemas = dir.join("schemas");
    fs::create_dir_all(&schemas).unwrap();
    (dir, schemas)
}

#[test]
fn every_bad_file_is_reported_with_file_agent_and_path() {
    let dir = temp_dir("bad");
    fs::write(
        dir.join("a.json"),
        "{\n  \"name\": \"a\",\n  \"output_schema\": {,}\n}",
    )
    .unwrap();
    fs::write(dir.join("b_noname.json"), r#"{"output_schema": {}}"#).unwrap();
    fs::write(
        dir.join("c.json"),
        r#"{"name": "c", "output_schema": {"price": {"type": 5}, "tags": {"type": "array", "items": {"type": true}}}}"#,
    )
    .unwrap();
    fs::write(dir.join("d.json"), r#"{"name": "d"}"#).unwrap();
    fs::write(dir.join("keywords.json"), r#"{"name": "kw_agent"}"#).unwrap();
    fs::write(dir.join("notes.txt"), "not a schema").unwrap();
    let err = load_dir(&dir).unwrap_err();
    let lines: Vec<String> = err.0.iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 5, "{lines:#?}");
    assert!(
        lines[0]
            .ends_with("a.json: agent `a`: line 3, column 21: invalid JSON: key must be a string"),
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
    assert!(lines[2].ends_with("c.json: agent `c`: $.output_schema.price.type: expected a type name (a string), found a number: 5"), "{}", lines[2]);
    assert!(
        lines[3].contains("$.output_schema.tags.items.type"),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].ends_with(
            "keywords.json: agent `kw_agent`: $.name: the file is named for agent `keywords` but \
             holds the record of agent `kw_agent`; rename the file to `kw_agent.json`, or fetch \
             `keywords` with `cargo agents fetch keywords`"
        ),
        "{}",
        lines[4]
    );
    let shown = err.to_string();
    assert!(shown.starts_with("5 problems in agent schemas:"), "{shown}");
    // A build script's `main() -> Result<(), Diagnostics>` prints the Debug form: the same lines.
    assert_eq!(format!("{err:?}"), shown);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_directory_is_named() {
    let err = load_dir(std::path::Path::new("/nonexistent/schemas")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("/nonexistent/schemas: $: no such directory"),
        "{err}"
    );
}

#[test]
fn check_errors_of_all_agents_come_together() {
    let record = |text: &str| AgentRecord::from_json(text).unwrap();
    let err = generate(
        &[
            record(r#"{"name": "b"}"#),
            record(r#"{"name": "b"}"#),
            record(r#"{"name": ""}"#),
            record(r#"{"name": "foo_bar"}"#),
            record(r#"{"name": "foo__bar"}"#),
        ],
        &Options::default(),
    )
    .unwrap_err();
    let lines: Vec<String> = err.0.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "agent `b`: $.name: two records have this agent name",
            "agent ``: $.name: the agent name is empty; every record needs the name it is called by",
            "agent `foo_bar`: $.name: its type `FooBar`, type `FooBarFields`, type `FooBarParams`, \
             module `foo_bar` \
             would also be generated for agent `foo__bar` in the same module; give one of them \
             another type name: \
             `Options::default().rename(\"foo_bar\", \"FooBarAgent\")` in `Builder::options`, \
             `agent!(\"foo_bar\", rename = \"FooBarAgent\")` or \
             `cargo agents generate --rename foo_bar=FooBarAgent`",
        ]
    );
}

#[test]
fn an_input_declared_twice_is_a_warning_and_the_first_declaration_wins() {
    let a = AgentRecord::from_json(
        r#"{"name": "a", "input_properties": [{"name": "q", "type": "string", "required": true},
                                              {"name": "q", "type": "number"}, {"name": "q"}]}"#,
    )
    .unwrap();
    let ok = AgentRecord::from_json(r#"{"name": "b", "output_schema": {"x": {"type": "string"}}}"#)
        .unwrap();
    // One agent's recoverable defect does not stop the others.
    let out = generate(&[a, ok], &Options::default()).unwrap();
    let warnings: Vec<String> = out.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "agent `a`: $.input_properties[1].name: input \"q\" is declared again (first at \
             $.input_properties[0]); the first declaration is used",
            "agent `a`: $.input_properties[2].name: input \"q\" is declared again (first at \
             $.input_properties[0]); the first declaration is used",
        ]
    );
    let src = out.to_source().unwrap();
    assert!(src.contains("pub fn new(q: impl Into<String>)"), "{src}");
    assert!(
        src.contains(
            "The agent record declares this input 3 times; this is the first declaration."
        ),
        "{src}"
    );
    assert!(src.contains("pub struct B {"));
}

#[test]
fn renames_make_clashing_agents_coexist_and_type_names_depend_on_the_agent_alone() {
    let record = |name: &str| {
        AgentRecord::from_json(&format!(
            r#"{{"name": "{name}", "output_schema": {{"nested": {{"type": "object", "properties": {{"a": {{"type": "string"}}}}}}}}}}"#
        ))
        .unwrap()
    };
    let alone = |name: &str| generate(&[record(name)], &Options::default()).unwrap();
    for name in ["foo_bar", "foo__bar", "FooBar"] {
        let src = alone(name).to_source().unwrap();
        assert!(src.contains("pub struct FooBar {"), "{name}: {src}");
        assert!(src.contains("pub struct FooBarNested {"), "{name}");
    }
    let options = Options::default()
        .rename("foo__bar", "FooBarDouble")
        .rename("FooBar", "FooBarCamel");
    let out = generate(
        &[record("foo_bar"), record("foo__bar"), record("FooBar")],
        &options,
    )
    .unwrap();
    let src = out.to_source().unwrap();
    for ty in [
        "FooBar",
        "FooBarNested",
        "FooBarParams",
        "FooBarDouble",
        "FooBarDoubleNested",
        "FooBarDoubleParams",
        "FooBarCamel",
        "FooBarCamelParams",
    ] {
        assert!(src.contains(&format!("pub struct {ty} {{")), "{ty}: {src}");
    }
    assert!(src.contains(r#"const NAME: &'static str = "foo__bar";"#));
    let modules: Vec<&str> = out.agents.iter().map(|a| a.module.as_str()).collect();
    assert_eq!(modules, ["foo_bar_camel", "foo_bar_double", "foo_bar"]);

    // A rename that is not a type name, or names an agent not generated, is refused.
    let bad = Options::default()
        .rename("foo_bar", "not a type")
        .rename("nobody", "Nobody");
    let err = generate(&[record("foo_bar")], &bad).unwrap_err();
    assert_eq!(err.0.len(), 2, "{err}");
}

#[test]
fn a_string_pagination_input_is_a_cursor_not_a_page_number() {
    let r = AgentRecord::from_json(
        r#"{"name": "feed", "feature_flags": {"is_pagination_supported": true},
            "input_properties": [{"name": "cursor", "type": "string", "is_pagination_param": true}]}"#,
    )
    .unwrap();
    let src = generate(&[r], &Options::default())
        .unwrap()
        .to_source()
        .unwrap();
    assert!(src.contains("pub cursor: Option<String>"), "{src}");
    assert!(src.contains("an opaque cursor"), "{src}");
    assert!(!src.contains("Paginated for"), "{src}");
}

#[test]
fn an_unknown_type_is_an_error_and_a_missing_one_is_raw_json_with_a_note() {
    let typo = AgentRecord::from_json(
        r#"{"name": "u", "output_schema": {"when": {"type": "strng"}, "tags": {"type": ["string", "nul"]}}}"#,
    )
    .unwrap();
    let err = generate(&[typo], &Options::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("2 problems"), "{err}");
    assert!(
        err.contains(
            "agent `u`: output_schema#/properties/when/type: `strng` is not a JSON Schema type"
        ),
        "{err}"
    );
    assert!(
        err.contains("output_schema#/properties/tags/type: `nul`"),
        "{err}"
    );
    assert!(err.contains("fix the type's name"), "{err}");

    let r = AgentRecord::from_json(r#"{"name": "u", "output_schema": {"what": {}}}"#).unwrap();
    let src = generate(&[r], &Options::default())
        .unwrap()
        .to_source()
        .unwrap();
    assert!(src.contains("pub what: Option<::agents_runtime::Value>"));
    assert!(src.contains("The schema declares no type"));
}

#[test]
fn a_pattern_that_does_not_compile_is_a_warning_in_every_front_door() {
    let (dir, schemas) = temp_schemas("pattern");
    fs::write(
        schemas.join("names.json"),
        r#"{"name": "names", "output_schema": {"name": {"type": "string", "pattern": "^(?=x)"}}}"#,
    )
    .unwrap();
    let (_, warnings) = agents_codegen::Builder::new()
        .schema_dir(&schemas)
        .cargo_directives(false)
        .generate_with_warnings()
        .unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let warning = warnings[0].to_string();
    let file = schemas.join("names.json");
    assert!(
        warning.starts_with(&format!("{}: agent `names`: output_schema#/properties/name/pattern: the pattern `^(?=x)` does not compile", file.display())),
        "{warning}"
    );
    // The macro shows the same warning as a compiler warning (a deprecated constant's note).
    let expansion =
        agents_codegen::expand::expand_with_warnings("names", &Default::default(), &dir).unwrap();
    assert_eq!(expansion.warnings, [warning]);
    fs::remove_dir_all(&dir).unwrap();
}

/// One run says everything it found: a file that cannot be read does not hide the problems of
/// the others, and an error does not hide the warnings found with it, in `Builder` (and so the
/// CLI) and in `agent!`.
#[test]
fn errors_come_with_the_warnings_and_the_other_files_problems() {
    let (dir, schemas) = temp_schemas("together");
    fs::write(
        schemas.join("broken.json"),
        r#"{"name": "broken", "output_schema": {"price": {"type": 5}}}"#,
    )
    .unwrap();
    fs::write(
        schemas.join("typo.output.schema.json"),
        r##"{"type": "object", "properties": {"when": {"type": "strng"},
            "seller": {"$ref": "#/$defs/missing"}}}"##,
    )
    .unwrap();
    let err = agents_codegen::Builder::new()
        .schema_dir(&schemas)
        .cargo_directives(false)
        .generate()
        .unwrap_err();
    let found: Vec<(agents_codegen::Severity, String)> = (err.0.iter())
        .map(|d| {
            (
                d.severity,
                format!("{}: {}", d.file.as_ref().unwrap().display(), d.path),
            )
        })
        .collect();
    use agents_codegen::Severity::{Error, Warning};
    let at = |file: &str, path: &str| format!("{}: {path}", schemas.join(file).display());
    assert_eq!(
        found,
        [
            (Error, at("broken.json", "$.output_schema.price.type")),
            (
                Error,
                at("typo.output.schema.json", "#/properties/when/type")
            ),
            (
                Warning,
                at("typo.output.schema.json", "#/properties/seller/$ref")
            ),
        ]
    );
    let shown = err.to_string();
    assert!(
        shown.starts_with("2 problems in agent schemas, and 1 warning:\n  - "),
        "{shown}"
    );
    assert!(shown.contains("\n  - warning: "), "{shown}");

    // agent!: the compile error holds the warning too.
    let err = agents_codegen::expand::expand("typo", &Default::default(), &dir).unwrap_err();
    assert!(
        err.contains("`strng` is not a JSON Schema type")
            && err.contains("warning: ")
            && err.contains("points nowhere"),
        "{err}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// An annotation or a bound of the wrong JSON type changes no type: the bindings are generated
/// and a warning at its pointer says it is not read, for `minimum` as for `exclusiveMinimum`, in
/// an agent record as in a JSON Schema file.
#[test]
fn a_bound_or_an_annotation_of_the_wrong_kind_is_a_warning_at_its_pointer() {
    let (dir, schemas) = temp_schemas("wrong-kind");
    fs::write(
        schemas.join("rated.json"),
        r#"{"name": "rated", "output_schema": {"stars": {"type": "integer", "minimum": "zero",
            "maximum": "five", "description": 5, "format": ["int32"]}}}"#,
    )
    .unwrap();
    fs::write(
        schemas.join("priced.output.schema.json"),
        r#"{"type": "object", "properties": {"price": {"type": "number", "minimum": "0",
            "exclusiveMinimum": "0"}}}"#,
    )
    .unwrap();
    let (source, warnings) = agents_codegen::Builder::new()
        .schema_dir(&schemas)
        .cargo_directives(false)
        .generate_with_warnings()
        .unwrap();
    assert!(source.contains("pub stars: Option<i64>"), "{source}");
    assert!(source.contains("pub price: Option<f64>"), "{source}");
    // Sorted: the keys left unread are kept sorted, or as written with `preserve_order`.
    let mut said: Vec<String> = (warnings.iter())
        .map(|w| {
            let file = w.file.as_ref().unwrap().file_name().unwrap();
            format!("{}: {}: {}", file.to_string_lossy(), w.path, w.message)
        })
        .collect();
    said.sort();
    let not_read = |at: &str, key: &str, kind: &str| {
        let takes = match key {
            "description" | "format" => "text",
            _ => "a number",
        };
        format!(
            "{at}/{key}: `{key}` takes {takes}, and this is {kind}: it is not read; fix the \
             schema to have it used"
        )
    };
    let (price, stars) = (
        "priced.output.schema.json: #/properties/price",
        "rated.json: output_schema#/properties/stars",
    );
    assert_eq!(
        said,
        [
            not_read(price, "exclusiveMinimum", "a string"),
            not_read(price, "minimum", "a string"),
            not_read(stars, "description", "a number"),
            not_read(stars, "format", "an array"),
            not_read(stars, "maximum", "a string"),
            not_read(stars, "minimum", "a string"),
        ]
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// Bounds no value keeps are checked as written, and a warning says so at the lower one's
/// pointer: they are most likely a slip (a rating of "at least 5, at most 1").
#[test]
fn bounds_no_value_keeps_are_a_warning_naming_both() {
    let r = AgentRecord::from_json(
        r#"{"name": "u", "input_schema": {"type": "object", "properties": {}},
            "output_schema": {"type": "object", "properties": {
                "stars": {"type": "integer", "minimum": 5, "maximum": 1},
                "code": {"type": "string", "minLength": 4, "maxLength": 3},
                "ok": {"type": "number", "exclusiveMinimum": 2, "maximum": 2},
                "fine": {"type": "number", "minimum": 2, "maximum": 2}}}}"#,
    )
    .unwrap();
    let mut warnings: Vec<String> = generate(&[r], &Options::default())
        .unwrap()
        .warnings
        .iter()
        .map(ToString::to_string)
        .collect();
    warnings.sort();
    assert_eq!(
        warnings,
        [
            "agent `u`: output_schema#/properties/code/minLength: `minLength: 4` with \
             `maxLength: 3`: no string keeps both, so every string here breaks one; they are \
             checked as written",
            "agent `u`: output_schema#/properties/ok/exclusiveMinimum: `exclusiveMinimum: 2` with \
             `maximum: 2`: no number keeps both, so every number here breaks one; they are \
             checked as written",
            "agent `u`: output_schema#/properties/stars/minimum: `minimum: 5` with `maximum: 1`: \
             no number keeps both, so every number here breaks one; they are checked as written",
        ]
    );
}

#[test]
fn a_bad_runtime_path_is_an_error_not_a_panic() {
    let r = AgentRecord::from_json(r#"{"name": "x"}"#).unwrap();
    let options = Options::default().runtime_path("not a path!");
    let err = generate(std::slice::from_ref(&r), &options).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("runtime_path: \"not a path!\" is not a Rust path"),
        "{err}"
    );
    let options = Options::default().runtime_path("::agents_runtime<T>");
    let err = generate(std::slice::from_ref(&r), &options).unwrap_err();
    assert!(
        err.to_string().starts_with(
            "runtime_path: \"::agents_runtime<T>\" has generic arguments; name the runtime crate"
        ),
        "{err}"
    );
    // However it is spaced, the path is written one way.
    let options = Options::default().runtime_path(" :: agents_runtime ");
    let spaced = generate(std::slice::from_ref(&r), &options)
        .and_then(|o| o.to_source())
        .unwrap();
    let plain = generate(&[r], &Options::default())
        .and_then(|o| o.to_source())
        .unwrap();
    assert_eq!(spaced, plain);
}

#[test]
fn front_doors_refuse_a_file_holding_another_agent_and_pass_warnings_and_renames_on() {
    let (dir, schemas) = temp_schemas("doors");
    fs::write(schemas.join("keywords.json"), r#"{"name": "kw_agent"}"#).unwrap();
    fs::write(
        schemas.join("dup.json"),
        r#"{"name": "dup", "input_properties": [{"name": "q"}, {"name": "q"}]}"#,
    )
    .unwrap();
    fs::write(schemas.join("foo__bar.json"), r#"{"name": "foo__bar"}"#).unwrap();

    // agent!("keywords") does not silently emit `KwAgent`.
    let err = agents_codegen::expand::expand("keywords", &Default::default(), &dir).unwrap_err();
    assert!(
        err.contains("keywords.json") && err.contains("holds the record of agent `kw_agent`"),
        "{err}"
    );
    // agent!("foo__bar", rename = "FooBarDouble")
    let rename = agents_codegen::Options::default().rename("foo__bar", "FooBarDouble");
    let text = agents_codegen::expand::expand("foo__bar", &rename, &dir).unwrap();
    assert!(text.contains("pub struct FooBarDouble"), "{text}");
    assert!(text.contains("pub struct FooBarDoubleParams"), "{text}");

    // Builder: the defect of one agent is a warning, not a failed build of every agent.
    let (source, warnings) = agents_codegen::Builder::new()
        .schema_dir(&schemas)
        .agents(["dup", "foo__bar"])
        .options(rename)
        .cargo_directives(false)
        .generate_with_warnings()
        .unwrap();
    assert!(source.contains("pub struct DupParams"));
    assert!(source.contains("pub struct FooBarDouble {"));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].to_string().contains("declared again"));
    fs::remove_dir_all(&dir).unwrap();
}

/// A key given twice in one object of a schema file: every JSON reader keeps one of the two
/// without a word, so a property defined twice would be typed from whichever came last. It is
/// an error at its path, in the file it is in, from the loader, `agent!` and `Builder` alike.
#[test]
fn a_key_given_twice_is_an_error_at_its_path_in_every_front_door() {
    let (dir, schemas) = temp_schemas("twice");
    fs::write(
        schemas.join("shop.output.schema.json"),
        r#"{"type": "object", "properties": {
            "price": {"type": "number"}, "title": {"type": "string"}, "price": {"type": "string"}}}"#,
    )
    .unwrap();
    fs::write(
        schemas.join("shop.input.schema.json"),
        r#"{"type": "object", "properties": {"url": {"type": "string"}},
            "required": ["url"], "required": []}"#,
    )
    .unwrap();

    let lines: Vec<String> = load_dir(&schemas)
        .unwrap_err()
        .0
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert!(
        lines[0].ends_with(
            "shop.input.schema.json: agent `shop`: $.required: `required` is given twice in this \
             object, and a JSON reader keeps only the last; remove or rename one"
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].ends_with("shop.output.schema.json: agent `shop`: $.properties.price: `price` is given twice in this object, and a JSON reader keeps only the last; remove or rename one"),
        "{}",
        lines[1]
    );

    let err = agents_codegen::expand::expand("shop", &Default::default(), &dir).unwrap_err();
    assert!(
        err.contains("shop.output.schema.json") && err.contains("$.properties.price"),
        "{err}"
    );
    let err = agents_codegen::Builder::new()
        .schema_dir(&schemas)
        .cargo_directives(false)
        .generate_with_warnings()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("$.properties.price: `price` is given twice"),
        "{err}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// Files an editor saved with a byte order mark first (Windows' Notepad does) read as the same
/// files without: schema pairs, records, and documents references read, none refused as "not
/// JSON at line 1, column 1" nor left untyped.
#[test]
fn files_saved_with_a_byte_order_mark_read_as_without() {
    let dir = temp_dir("bom");
    let schemas = dir.join("schemas");
    let shared = dir.join("shared");
    fs::create_dir_all(&schemas).unwrap();
    fs::create_dir_all(&shared).unwrap();
    let bom = |text: &str| format!("\u{feff}{text}");
    fs::write(
        schemas.join("shop.output.schema.json"),
        bom(
            r#"{"type": "object", "properties": {"price": {"type": "number"},
            "seller": {"$ref": "https://example.com/s/seller.json"}}}"#,
        ),
    )
    .unwrap();
    fs::write(
        schemas.join("shop.input.schema.json"),
        bom(
            r#"{"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}"#,
        ),
    )
    .unwrap();
    fs::write(
        schemas.join("plain.json"),
        bom(r#"{"name": "plain", "output_schema": {"title": {"type": "string"}}}"#),
    )
    .unwrap();
    fs::write(
        shared.join("seller.json"),
        bom(r#"{"type": "object", "properties": {"name": {"type": "string"}}}"#),
    )
    .unwrap();
    let loaded = load_dir(&schemas).unwrap();
    let records: Vec<AgentRecord> = loaded.into_iter().map(|l| l.record).collect();
    let options = Options::default().documents("https://example.com/s/", &shared);
    let generated = generate(&records, &options).unwrap();
    assert!(generated.warnings.is_empty(), "{:?}", generated.warnings);
    let source = generated.to_source().unwrap();
    fs::remove_dir_all(&dir).unwrap();
    assert!(source.contains("pub struct ShopParams"), "{source}");
    assert!(source.contains("pub url: String"), "{source}");
    assert!(
        source.contains("pub seller: Option<ShopSeller>"),
        "{source}"
    );
    assert!(source.contains("pub name: Option<String>"), "{source}");
    assert!(source.contains("pub struct Plain"), "{source}");
}

/// A problem in a document a reference read is placed in that file, at its pointer there, as
/// one in the schema file is: a key given twice is an error (any JSON reader keeps the last
/// definition without a word), the rest warnings; nothing is said to be at a pointer of the
/// schema file that has no such place, or in the bundled copy the generator lowers.
#[test]
fn problems_in_a_referenced_file_name_that_file_and_its_pointer() {
    let dir = temp_dir("in-reference");
    let schemas = dir.join("schemas");
    let shared = dir.join("shared");
    fs::create_dir_all(&schemas).unwrap();
    fs::create_dir_all(&shared).unwrap();
    let shop = r#"{"type": "object", "properties": {"name": {"type": "string"},
        "price": {"$ref": "https://example.com/s/price.json"}}}"#;
    fs::write(schemas.join("shop.output.schema.json"), shop).unwrap();
    let price = shared.join("price.json");
    let records = || -> Vec<AgentRecord> {
        (load_dir(&schemas).unwrap().into_iter())
            .map(|l| l.record)
            .collect()
    };
    let options = Options::default().documents("https://example.com/s/", &shared);

    fs::write(
        &price,
        r#"{"type": "object", "properties": {"amount": {"type": "number"},
            "amount": {"type": "string"}, "cur": {"type": "strng"}}}"#,
    )
    .unwrap();
    let agents_codegen::Diagnostics(errors) = generate(&records(), &options).unwrap_err();
    let at: Vec<(Option<&std::path::Path>, &str)> = (errors.iter())
        .map(|d| (d.file.as_deref(), d.path.as_str()))
        .collect();
    assert_eq!(
        at,
        [
            (Some(price.as_path()), "#/properties/amount"),
            (Some(price.as_path()), "#/properties/cur/type"),
        ],
        "{errors:?}"
    );
    assert!(
        errors[0].message.contains("`amount` is given twice"),
        "{errors:?}"
    );

    fs::write(
        &price,
        r##"{"type": "object", "properties": {"amount": {"type": "number", "minimum": 5, "maximum": 1},
            "code": {"type": "string", "pattern": "^(?=x)"},
            "cur": {"$ref": "#/$defs/nothing"}, "tax": {"$ref": "tax.json"}}}"##,
    )
    .unwrap();
    let tax = shared.join("tax.json");
    fs::write(&tax, "{\"type\": \"object\",\n").unwrap();
    let generated = generate(&records(), &options).unwrap();
    let mut at: Vec<(Option<&std::path::Path>, &str)> = (generated.warnings.iter())
        .map(|d| (d.file.as_deref(), d.path.as_str()))
        .collect();
    at.sort();
    assert_eq!(
        at,
        [
            (Some(price.as_path()), "#/properties/amount/minimum"),
            (Some(price.as_path()), "#/properties/code/pattern"),
            (Some(price.as_path()), "#/properties/cur/$ref"),
            (Some(price.as_path()), "#/properties/tax/$ref"),
            (Some(tax.as_path()), "#"),
        ],
        "{:?}",
        generated.warnings
    );
    let unreadable = (generated.warnings.iter())
        .find(|d| d.file.as_deref() == Some(tax.as_path()))
        .unwrap();
    assert!(
        unreadable.message.contains("not JSON") && unreadable.message.contains("line 2"),
        "{unreadable:?}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// The generated text from `start` up to `end` (a static, up to the call that judges by it: the
/// raw string's end would be a guess, as the document holds `"#` itself); empty when either is
/// missing.
fn between<'a>(source: &'a str, start: &str, end: &str) -> &'a str {
    source
        .split_once(start)
        .and_then(|(_, rest)| rest.split_once(end))
        .map_or("", |(text, _)| text)
}

/// The input document `validate()` judges by refers to nothing outside itself: a document a
/// reference reads is embedded, and a reference that points nowhere is a warning at its
/// pointer, since what it stands for cannot be checked.
#[test]
fn the_judged_input_document_embeds_what_it_refers_to() {
    let dir = temp_dir("judged-refs");
    let schemas = dir.join("schemas");
    let shared = dir.join("shared");
    fs::create_dir_all(&schemas).unwrap();
    fs::create_dir_all(&shared).unwrap();
    fs::write(
        shared.join("sku.json"),
        r#"{"type": "string", "pattern": "^SKU-"}"#,
    )
    .unwrap();
    fs::write(
        schemas.join("shop.output.schema.json"),
        r#"{"type": "object", "properties": {"title": {"type": "string"}}}"#,
    )
    .unwrap();
    fs::write(
        schemas.join("shop.input.schema.json"),
        r##"{"type": "object", "properties": {
            "skus": {"type": "array", "items": {"$ref": "https://example.com/s/sku.json"}},
            "lost": {"type": "array", "items": {"$ref": "#/$defs/nowhere"}}
        }}"##,
    )
    .unwrap();
    let (source, warnings) = agents_codegen::Builder::new()
        .schema_dir(&schemas)
        .options(agents_codegen::Options::default().documents("https://example.com/s/", &shared))
        .cargo_directives(false)
        .generate_with_warnings()
        .unwrap();
    let said: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_eq!(said.len(), 1, "{said:#?}");
    assert!(
        said[0].contains("#/properties/lost/items/$ref")
            && said[0].contains("`validate()` judges the params by the input schema without it"),
        "{said:#?}"
    );
    let judged = between(&source, "static INPUT_SCHEMA", "INPUT_SCHEMA.judge");
    assert!(judged.contains("\"^SKU-\""), "{judged}");
    // The input schema the type carries (what `publish` sends) stands alone as well.
    let carried = between(&source, "const INPUT_SCHEMA: &'static str =", "type Params");
    assert!(
        carried.contains("\"^SKU-\"")
            && carried.contains("\"$id\": \"https://example.com/s/sku.json\""),
        "{carried}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// An input schema's keywords that no typed rule covers (the rules of a list's items,
/// `uniqueItems`, `const`, a branch's bounds, the root's `dependentRequired`) are judged by
/// `validate()` through the input schema, and said in the docs, in every front door alike; a
/// nullable type and the items' type are the input's kind, read, and say nothing.
#[test]
fn input_keywords_no_typed_rule_covers_are_judged_by_validate() {
    let (dir, schemas) = temp_schemas("unchecked-inputs");
    fs::write(
        schemas.join("shop.output.schema.json"),
        r#"{"type": "object", "properties": {"title": {"type": "string"}}}"#,
    )
    .unwrap();
    fs::write(
        schemas.join("shop.input.schema.json"),
        r#"{"type": "object", "properties": {
            "tags": {"type": "array", "items": {"type": "string", "minLength": 2}, "uniqueItems": true, "maxItems": 3},
            "plain": {"type": "array", "items": {"type": "string", "description": "a tag"}},
            "code": {"type": "string", "const": "x\u202e"},
            "near": {"anyOf": [{"type": "number", "minimum": 0}, {"type": "null"}]},
            "zip/code": {"type": ["string", "null"], "minLength": 5},
            "size": {"type": "integer", "enum": [1, 2, 3]},
            "loose": {"minLength": 2}
        }, "dependentRequired": {"near": ["code"]}}"#,
    )
    .unwrap();
    let (source, warnings) = agents_codegen::Builder::new()
        .schema_dir(&schemas)
        .cargo_directives(false)
        .generate_with_warnings()
        .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    for said in [
        "/// Also checked by `validate()`, by the input schema itself: `uniqueItems`, `items`.",
        "/// Also checked by `validate()`, by the input schema itself: `const`.",
        "/// Also checked by `validate()`, by the input schema itself: `anyOf`.",
        "/// Also checked by `validate()`, by the input schema itself: `enum`.",
        "/// Also checked by `validate()`, by the input schema itself: `minLength`.",
        "/// `validate()` also judges the params as a whole by the input schema's `dependentRequired`.",
        "static INPUT_SCHEMA: ::agents_runtime::validate::InputSchema",
        "INPUT_SCHEMA.judge(&mut v, self);",
    ] {
        assert!(source.contains(said), "{said}\nin\n{source}");
    }
    // Only `zip/code`'s nullable type and `plain`'s items' type: nothing left to judge. A rule
    // the input's kind lets no typed check apply (an `enum` of numbers, a bound on an input of
    // no one type) is judged by the schema, not left as a doc line.
    assert_eq!(source.matches("Also checked by `validate()`").count(), 5);
    assert!(!source.contains("Rule not checked"), "{source}");
    // The document is held in the order the schema writes it, a character rustc refuses in a
    // literal written as its escape.
    let judged = between(&source, "static INPUT_SCHEMA", "INPUT_SCHEMA.judge");
    assert!(
        judged.contains(r#""const": "x\u202e""#) && !judged.contains('\u{202e}'),
        "{judged}"
    );
    let at = |key: &str| judged.find(key).unwrap_or(usize::MAX);
    assert!(at("\"tags\"") < at("\"plain\"") && at("\"plain\"") < at("\"code\""));
    assert!(
        at("\"properties\"") < at("\"dependentRequired\""),
        "{judged}"
    );
    // The macro says the same.
    let expansion =
        agents_codegen::expand::expand_with_warnings("shop", &Default::default(), &dir).unwrap();
    assert!(expansion.warnings.is_empty(), "{:?}", expansion.warnings);
    assert!(expansion.text.contains("INPUT_SCHEMA"));
    fs::remove_dir_all(&dir).unwrap();
}
