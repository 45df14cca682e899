//! The official JSON-Schema-Test-Suite's groups as a type generator reads them: each group's
//! schema is the field `value` of an object root declaring the group's draft (the suite's
//! README's reading for a generator), so that every case's data is that field's value. Read by
//! `agents-codegen`'s drafts test; with the feature `suite`, [`unit`] generates the bindings the
//! test crates compile and decode every case with.

use std::path::Path;

use serde_json::{Value, json};

/// The drafts of `tests/json-schema-test-suite-drafts/tests/`, each with the `$schema` its groups
/// declare. Draft 2020-12 (`tests/json-schema-test-suite/`) declares none: it is the default.
pub const OLDER_DRAFTS: [(&str, &str); 4] = [
    ("draft4", "http://json-schema.org/draft-04/schema#"),
    ("draft6", "http://json-schema.org/draft-06/schema#"),
    ("draft7", "http://json-schema.org/draft-07/schema#"),
    (
        "draft2019-09",
        "https://json-schema.org/draft/2019-09/schema",
    ),
];

/// One group of the suite, ready for the generator.
pub struct Group {
    /// The file it is in, without `.json`.
    pub file: String,
    /// Its position in that file.
    pub index: usize,
    /// The object root holding the group's schema as the property `value`.
    pub schema: Value,
}

/// Every group of `draft` (a directory of `suite`'s `tests/`: `draft2020-12`, or one of
/// [`OLDER_DRAFTS`]), in file order, each wrapped for its draft. A group's schema without a base
/// URI is given its own (`id` in draft 4, `$id` after it), so that its `#` references still mean
/// it and not the root that wraps it.
pub fn groups(suite: &Path, draft: &str) -> Result<Vec<Group>, Box<dyn std::error::Error>> {
    let meta = match OLDER_DRAFTS.iter().find(|(name, _)| *name == draft) {
        Some((_, meta)) => Some(*meta),
        None if draft == "draft2020-12" => None,
        None => return Err(format!("no draft {draft:?} in the suite's tests").into()),
    };
    let id = if draft == "draft4" { "id" } else { "$id" };
    let dir = suite.join("tests").join(draft);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in &files {
        let file = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let groups: Vec<Value> =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        for (index, group) in groups.iter().enumerate() {
            let mut schema = group["schema"].clone();
            if let Value::Object(map) = &mut schema {
                map.entry(id).or_insert_with(|| {
                    json!(format!("https://suite.invalid/{draft}/{file}/{index}.json"))
                });
            }
            let mut wrapped = json!({"type": "object", "properties": {"value": schema}});
            if let (Some(meta), Value::Object(map)) = (meta, &mut wrapped) {
                map.insert("$schema".into(), json!(meta));
            }
            out.push(Group {
                file: file.clone(),
                index,
                schema: wrapped,
            });
        }
    }
    Ok(out)
}

/// Bindings of every group of `draft` in `suite` (see [`groups`]; remote references are read from
/// `suite`'s `remotes/`), generated as one unit, each root renamed `Suite{n}`; and the table of groups,
/// a Rust expression of type `&[(&str, usize, Result<fn(&str) -> _, &str>)]` whose entry `n`
/// decodes a case with `{case}::<{types}::Suite{n}>` (`types` being the module the unit is
/// included in). A group the generator refuses is left out and its entry holds the generator's
/// message, so that a test counts it as failed, not skipped.
#[cfg(feature = "suite")]
pub fn unit(
    suite: &Path,
    draft: &str,
    case: &str,
    types: &str,
) -> Result<(String, String), Box<dyn std::error::Error>> {
    use std::collections::BTreeMap;

    let mut options = agents_codegen::Options::default()
        .documents("http://localhost:1234/", suite.join("remotes"));
    let groups = groups(suite, draft)?;
    let mut records = Vec::new();
    for (n, group) in groups.iter().enumerate() {
        let agent = format!("suite_{n}");
        let record = agents_schema::json_schema::record(
            &agent,
            None,
            Some(&agents_schema::Json::from(&group.schema)),
            None,
        )?;
        options = options.rename(&agent, format!("Suite{n}"));
        records.push(record);
    }
    // A group the generator refuses is reported by agent; it is left out and the rest retried.
    let mut refused: BTreeMap<String, String> = BTreeMap::new();
    let source = loop {
        let kept: Vec<_> = records
            .iter()
            .filter(|r| !refused.contains_key(&r.name))
            .collect();
        match agents_codegen::generate_refs(&kept, &options) {
            Ok(output) => break output.to_source()?,
            Err(diagnostics) => {
                let before = refused.len();
                for d in &diagnostics.0 {
                    if let Some(agent) = &d.agent {
                        refused
                            .entry(agent.clone())
                            .or_insert_with(|| d.to_string());
                    }
                }
                if refused.len() == before {
                    return Err(diagnostics.into());
                }
            }
        }
    };
    let mut table = String::from("&[\n");
    for (n, group) in groups.iter().enumerate() {
        let decode = match refused.get(&format!("suite_{n}")) {
            Some(why) => format!("Err({why:?})"),
            None => format!("Ok({case}::<{types}::Suite{n}>)"),
        };
        table.push_str(&format!(
            "    ({:?}, {}, {decode}),\n",
            group.file, group.index
        ));
    }
    table.push_str("]\n");
    Ok((source, table))
}
