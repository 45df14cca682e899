//! The official JSON-Schema-Test-Suite's groups as a type generator reads them: each group's
//! schema is the field `value` of an object root declaring the group's draft (the suite's
//! README's reading for a generator), so that every case's data is that field's value. Read by
//! `agents-codegen`'s drafts test; with the feature `suite`, [`unit`] generates the bindings the
//! test crates compile, and with the feature `judge`, `judge` decodes every case into them and
//! says how each is judged.

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
    /// The group's cases as the suite writes them (`data`, `valid`, `description`).
    pub tests: Vec<Value>,
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
        for (index, mut group) in groups.into_iter().enumerate() {
            let mut schema = group["schema"].take();
            if let Value::Object(map) = &mut schema {
                map.entry(id).or_insert_with(|| {
                    json!(format!("https://suite.invalid/{draft}/{file}/{index}.json"))
                });
            }
            let mut wrapped = json!({"type": "object", "properties": {"value": schema}});
            if let (Some(meta), Value::Object(map)) = (meta, &mut wrapped) {
                map.insert("$schema".into(), json!(meta));
            }
            let tests = match group["tests"].take() {
                Value::Array(tests) => tests,
                _ => return Err(format!("{}: group {index} has no tests", path.display()).into()),
            };
            out.push(Group {
                file: file.clone(),
                index,
                schema: wrapped,
                tests,
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

/// How one case of the suite decoded into its group's type.
#[cfg(feature = "judge")]
#[derive(Debug)]
pub struct Outcome {
    /// The record written back as JSON.
    pub written: Value,
    /// Every mismatch and breach, one line each.
    pub reported: Vec<String>,
    /// Where the check the decoder runs (which skips what the record's types already hold)
    /// and the full check of the same record disagree; empty when they agree.
    pub disagreement: Option<String>,
}

/// An entry of a table `unit` writes: a group's file and index, and how to decode its cases
/// (or why the generator refused it).
#[cfg(feature = "judge")]
pub type Entry = (
    &'static str,
    usize,
    Result<fn(&str) -> Result<Outcome, String>, &'static str>,
);

/// Where `Schema::check_generated_into`, which skips what a generated record's types hold,
/// finds other breaches than the full check of the same record; `None` when they agree.
#[cfg(feature = "judge")]
pub fn shortcut_disagreement<T: agents_types::Record>(record: &T) -> Option<String> {
    let schema = T::schema()?;
    let full = schema.check(record);
    let mut fast = Vec::new();
    schema.check_generated_into(record, &mut fast);
    (full != fast).then(|| format!("the full check finds {full:?}, the decoder's {fast:?}"))
}

/// Decodes `text` (`{"value": …}`) as `T` and writes it back: the function a table's entries
/// name (`unit`'s `case`).
#[cfg(feature = "judge")]
pub fn case<T>(text: &str) -> Result<Outcome, String>
where
    T: agents_types::Record + serde::Serialize + serde::de::DeserializeOwned,
{
    let record: T = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let written = serde_json::to_value(&record).map_err(|e| e.to_string())?;
    let reported = record
        .mismatches()
        .iter()
        .map(ToString::to_string)
        .chain(record.breaches().iter().map(ToString::to_string))
        .collect();
    let disagreement = shortcut_disagreement(&record);
    Ok(Outcome {
        written,
        reported,
        disagreement,
    })
}

/// Decodes every case of `draft` in `suite` (as [`groups`] reads them) into its group's type
/// from `table`, and panics, listing every failing case with why, unless
/// - every group of the draft is in `table` (none skipped) and generated;
/// - a valid case comes back exact (written back, it is the JSON that was read, numbers by
///   value) with no mismatch and no breach;
/// - an invalid case is reported (a mismatch, a breach, or a decode error);
/// - the decoder's check, which skips what the types hold, finds what the full check finds.
///
/// Prints the tally.
#[cfg(feature = "judge")]
pub fn judge(suite: &Path, draft: &str, table: &[Entry]) {
    use std::collections::BTreeMap;

    let groups = groups(suite, draft).unwrap_or_else(|e| panic!("{draft}: {e}"));
    assert_eq!(
        table.len(),
        groups.len(),
        "{draft}: the table holds {} groups, the suite's files {}",
        table.len(),
        groups.len()
    );
    let mut failures = BTreeMap::new();
    let mut cases = 0;
    // valid exact, valid total, invalid reported, invalid total
    let mut tally = [0; 4];
    for ((file, index, decode), group) in table.iter().zip(&groups) {
        assert_eq!(
            (*file, *index),
            (group.file.as_str(), group.index),
            "{draft}: the table is not in the suite's order"
        );
        for (i, case) in group.tests.iter().enumerate() {
            cases += 1;
            let valid = case["valid"] == json!(true);
            tally[if valid { 1 } else { 3 }] += 1;
            let wrapped = json!({"value": case["data"]});
            let why = match decode {
                Err(refused) => Some(format!("not generated: {refused}")),
                Ok(decode) => match (decode(&wrapped.to_string()), valid) {
                    (Err(e), true) => Some(format!("valid, but does not decode: {e}")),
                    (Ok(out), _) if out.disagreement.is_some() => out.disagreement,
                    (Err(_), false) => None,
                    (Ok(out), true) if !out.reported.is_empty() => {
                        Some(format!("valid, but reported: {}", out.reported.join("; ")))
                    }
                    (Ok(out), true) if !agents_types::check::equal(&out.written, &wrapped) => {
                        Some(format!("valid, but written back as {}", out.written))
                    }
                    (Ok(_), true) => None,
                    (Ok(out), false) if out.reported.is_empty() => {
                        Some("invalid, and nothing is reported".to_owned())
                    }
                    (Ok(_), false) => None,
                },
            };
            match why {
                Some(why) => {
                    failures.insert(format!("{file} #{index} #{i}"), why);
                }
                None => tally[if valid { 0 } else { 2 }] += 1,
            }
        }
    }
    println!(
        "suite, {draft}: {cases} cases; valid exact {}/{}, invalid reported {}/{}",
        tally[0], tally[1], tally[2], tally[3]
    );
    assert!(
        failures.is_empty(),
        "{draft}: {} case(s) fail:\n{}",
        failures.len(),
        failures
            .iter()
            .map(|(k, why)| format!("{k}: {why}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
