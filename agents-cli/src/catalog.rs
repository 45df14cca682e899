//! `cargo agents list` and `cargo agents describe`: which agents the account can run, and what
//! one takes and gives, without caching anything.

use std::process::ExitCode;

use agents_runtime::ApiVersion;
use agents_runtime::client::agents::Privacy;
use agents_schema::inputs::COMMON_PARAMS;
use agents_schema::{AgentRecord, FieldSchema};
use futures::StreamExt;
use serde_json::{Value, json};

use crate::cache::{about_agent, cached_record, only_v1_filters};
use crate::global::{Failure, Global, client, from_here};

/// A line of text at most this many characters long, in the list's last column and a rule's
/// value.
const SHORT: usize = 72;

/// `text` cut at `max` characters, with `…` when it was longer; only its first line.
fn short(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    if line.chars().count() <= max && !text.trim().contains('\n') {
        return line.to_owned();
    }
    let mut cut: String = line.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// `cargo agents list`: one line per agent the account can run (matching `search`), with its
/// domain and title, and whether `--dir` holds its schema.
pub(crate) async fn list(
    cli: &Global,
    search: Option<&str>,
    private: bool,
) -> Result<ExitCode, Failure> {
    let c = client(cli)?;
    if private {
        only_v1_filters(&c, "drop --private")?;
    }
    // `/v1` searches at the service; `/v2` filters nothing, so its list is matched here.
    let mut query = c.agents();
    if private {
        query = query.privacy(Privacy::Private);
    }
    let local_search = match search {
        Some(text) if c.api_version() == ApiVersion::V1 => {
            query = query.search(text);
            None
        }
        other => other.map(str::to_lowercase),
    };
    let matches = |r: &AgentRecord| {
        local_search.as_deref().is_none_or(|text| {
            [
                Some(r.name.as_str()),
                r.display_name.as_deref(),
                r.description.as_deref(),
                r.domain.as_deref(),
            ]
            .into_iter()
            .flatten()
            .any(|field| field.to_lowercase().contains(text))
        })
    };
    let mut records = Vec::new();
    let mut stream = std::pin::pin!(query.stream());
    while let Some(record) = stream.next().await {
        let record = record?;
        if matches(&record) {
            records.push(record);
        }
    }
    let cached = |name: &str| agents_schema::files::schema_file(&cli.dir, name).is_some();
    if cli.json {
        for r in &records {
            outln!(
                "{}",
                json!({
                    "name": r.name, "display_name": r.display_name, "description": r.description,
                    "domain": r.domain, "vertical": r.vertical, "is_public": r.is_public,
                    "version": r.template_version.as_ref().and_then(|v| v.number),
                    "cached": cached(&r.name),
                })
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let width = records.iter().map(|r| r.name.len()).max().unwrap_or(0);
    let domain_width = records
        .iter()
        .map(|r| r.domain.as_deref().unwrap_or("").len())
        .max()
        .unwrap_or(0);
    for r in &records {
        let title = r
            .display_name
            .as_deref()
            .or(r.description.as_deref())
            .map(|t| short(t, SHORT))
            .unwrap_or_default();
        let mark = if cached(&r.name) { "*" } else { " " };
        let line = format!(
            "{:width$} {mark} {:domain_width$}  {title}",
            r.name,
            r.domain.as_deref().unwrap_or(""),
        );
        outln!("{}", line.trim_end());
    }
    let cached_note = if records.iter().any(|r| cached(&r.name)) {
        format!(
            "; * marks those cached in {}",
            from_here(&cli.dir).display()
        )
    } else {
        String::new()
    };
    eprintln!(
        "{} agent(s){cached_note}; `cargo agents describe NAME` shows what one takes and gives",
        records.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// The name of the record type `agent`'s bindings have (`RetailerAPdp`; its inputs' type is
/// this name and `Params`); none for a schema the generator refuses (`generate` and `check`
/// report why).
/// The names the agent's bindings have: the record type, and how its params are made (the
/// constructor call and the setters of the optional inputs).
struct RustNames {
    record: String,
    new: String,
    setters: Vec<String>,
}

fn rust_names(record: &AgentRecord) -> Option<RustNames> {
    let out = agents_codegen::generate(
        std::slice::from_ref(record),
        &agents_codegen::Options::default(),
    )
    .ok()?;
    let agent = out.agents.first()?;
    let (new, setters) = agent.params_call();
    Some(RustNames {
        record: agent.type_name().to_owned(),
        new,
        setters: setters.into_iter().map(str::to_owned).collect(),
    })
}

/// The keywords of an input's schema that no typed rule states (`uniqueItems`, the rules of a
/// list's items, …), with their values: checked by the input schema itself before sending.
fn judged_keywords(
    input: &agents_schema::InputProperty,
) -> impl Iterator<Item = (String, Value)> + '_ {
    (agents_schema::inputs::unchecked_keywords(input).into_iter())
        .filter_map(|k| Some((k.to_owned(), input.extra.get(k)?.clone())))
}

/// The keywords of the input schema's root that constrain the params as a whole
/// (`additionalProperties`, `dependentRequired`, …), with their values.
fn root_keywords(record: &AgentRecord) -> impl Iterator<Item = (String, Value)> {
    let document = (record.written.input.as_ref())
        .map(|d| d.to_value())
        .unwrap_or_default();
    let keywords = agents_schema::inputs::unchecked_root_keywords(&document);
    keywords
        .into_iter()
        .filter_map(move |k| Some((k.to_owned(), document.get(k)?.clone())))
}

/// `cargo agents describe`: an agent's inputs (type, required, rules, role) and output fields
/// (type and rules, nested records indented), from `--dir` when it holds the agent, else from
/// the service.
pub(crate) async fn describe(cli: &Global, agent: &str) -> Result<ExitCode, Failure> {
    let (record, source) = match cached_record(cli, agent)? {
        Some((record, file)) => (record, from_here(&file).display().to_string()),
        None => {
            let c = client(cli)?;
            let record = c.agent(agent).await.map_err(about_agent(cli, agent))?;
            (record, "the service".to_owned())
        }
    };
    if cli.json {
        let inputs: Vec<Value> = record
            .inputs()
            .iter()
            .map(|i| {
                json!({
                    "name": i.name, "type": i.ty, "required": i.required,
                    "rules": i.rules.iter().map(|r| r.text.as_str()).collect::<Vec<_>>(),
                    "schema_rules": Value::Object(judged_keywords(i).collect()),
                    "localizes": i.is_localization_param, "paginates": i.is_pagination_param,
                    "description": i.description,
                })
            })
            .collect();
        outln!(
            "{}",
            json!({
                "name": record.name, "display_name": record.display_name,
                "description": record.description, "domain": record.domain,
                "version": record.template_version.as_ref().and_then(|v| v.number),
                "source": source, "inputs": inputs,
                "params_rules": Value::Object(root_keywords(&record).collect()),
                "output_schema": agents_schema::json_schema::output_schema(&record),
                "rust": rust_names(&record).map(|r| json!({
                    "record": r.record, "params": format!("{}Params", r.record),
                    "new": r.new, "setters": r.setters,
                })),
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut head = record.name.clone();
    if let Some(title) = &record.display_name {
        head.push_str(&format!(": {title}"));
    }
    if let Some(domain) = &record.domain {
        head.push_str(&format!(" ({domain})"));
    }
    if let Some(n) = record.template_version.as_ref().and_then(|v| v.number) {
        head.push_str(&format!(", version {n}"));
    }
    outln!("{head}");
    if let Some(description) = record.description.as_deref().map(str::trim)
        && !description.is_empty()
        && Some(description) != record.display_name.as_deref()
    {
        for line in description.lines() {
            outln!("  {line}");
        }
    }

    outln!("");
    let inputs = record.inputs();
    // The call to copy: the inputs a run cannot go without, then room for the others.
    let mut call = format!("cargo agents run {}", record.name);
    for i in inputs.iter().filter(|i| i.required) {
        call.push_str(&format!(" -p {}={}", i.name, i.name.to_uppercase()));
    }
    outln!("inputs (`{call} [-p NAME=VALUE]…`):");
    let width = inputs.iter().map(|i| i.name.len()).max().unwrap_or(0);
    for i in inputs {
        let mut notes: Vec<String> = Vec::new();
        if i.required {
            notes.push("required".into());
        }
        notes.extend(i.rules.iter().map(|r| r.text.clone()));
        notes.extend(judged_keywords(i).map(|(k, v)| short(&format!("{k}: {v}"), SHORT)));
        if i.is_localization_param {
            notes.push("localizes".into());
        }
        if i.is_pagination_param {
            notes.push("the page".into());
        }
        if let Some(d) = &i.description {
            notes.push(short(d, SHORT));
        }
        let line = format!(
            "  {:width$}  {:8}  {}",
            i.name,
            i.ty.as_deref().unwrap_or("any"),
            notes.join("; ")
        );
        outln!("{}", line.trim_end());
    }
    let common: Vec<&str> = COMMON_PARAMS.iter().map(|(name, _)| *name).collect();
    outln!("  (every agent also takes {})", common.join(", "));
    let whole: Vec<String> = root_keywords(&record)
        .map(|(k, v)| short(&format!("{k}: {v}"), SHORT))
        .collect();
    if !whole.is_empty() {
        outln!("  (the params: {})", whole.join("; "));
    }

    let fields = record.output_schema.clone().unwrap_or_default();
    outln!("");
    outln!("output fields ({}):", fields.len());
    let doc = record.output_document_read();
    let whole = record
        .output_document
        .as_deref()
        .map(|d| d.rules_in(doc.meta()))
        .unwrap_or_default();
    let whole = rules_text(&whole);
    if !whole.is_empty() {
        outln!("  (the record: {whole})");
    }
    print_fields(&fields.iter().collect::<Vec<_>>(), 1, &doc, &mut Vec::new());
    if let Some(rust) = rust_names(&record) {
        outln!("");
        outln!(
            "in Rust: `{}` (a record), run with `client.run({})`",
            rust.record,
            rust.new
        );
        if !rust.setters.is_empty() {
            let setters: Vec<String> = rust.setters.iter().map(|s| format!(".{s}(…)")).collect();
            outln!("  (optional inputs are methods: {})", setters.join(" "));
        }
    }
    eprintln!("from {source}");
    Ok(ExitCode::SUCCESS)
}

/// `minimum 0; maximum 5; required ["a","b"]`, each value cut to a line. Keywords of `$`
/// (`$schema`, `$id`, `$defs`) and draft 7's `definitions` name and hold schemas rather than
/// say what a value must be.
fn rules_text(rules: &indexmap::IndexMap<String, Value>) -> String {
    rules
        .iter()
        .filter(|(k, _)| !k.starts_with('$') && *k != "definitions")
        .map(|(k, v)| format!("{k} {}", short(&v.to_string(), SHORT / 2)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The local reference (`#/$defs/Person`) a schema is, when it is one.
fn local_ref(f: &FieldSchema) -> Option<&str> {
    f.reference.as_deref().filter(|r| r.starts_with('#'))
}

/// What `f` says, read through a local reference into `doc` (and its items' one): the type
/// and fields the generated type has for it, where the schema as written says only `$ref`. The
/// rules written beside a reference are kept.
fn resolved(f: &FieldSchema, doc: &FieldSchema) -> FieldSchema {
    let target = |f: &FieldSchema| doc.resolve(local_ref(f)?).cloned();
    let mut out = match target(f) {
        Some(mut t) => {
            for (k, v) in &f.extra {
                t.extra.entry(k.clone()).or_insert_with(|| v.clone());
            }
            t
        }
        None => f.clone(),
    };
    if let Some(items) = out.items.as_deref()
        && let Some(t) = target(items)
    {
        out.items = Some(Box::new(t));
    }
    out
}

/// One line per field, its nested record's fields (or its items') indented below it. A field
/// that refers to a record is shown as that record; one that refers to a record it is inside
/// (`replies` of a reply) says so rather than showing it again and again. `doc` is the whole
/// output document, where references resolve; `above` holds the references being shown.
fn print_fields(
    fields: &[(&String, &FieldSchema)],
    depth: usize,
    doc: &FieldSchema,
    above: &mut Vec<String>,
) {
    let width = fields.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    let indent = "  ".repeat(depth);
    for (name, f) in fields {
        let refers = local_ref(f)
            .or_else(|| f.items.as_deref().and_then(local_ref))
            .map(str::to_owned);
        let f = resolved(f, doc);
        let again = refers.as_ref().is_some_and(|r| above.contains(r));
        let mut rules = rules_text(&f.rules_in(doc.meta()));
        if let (true, Some(r)) = (again, &refers) {
            let note = format!("the record {r} above, again");
            rules = if rules.is_empty() {
                note
            } else {
                format!("{rules}; {note}")
            };
        }
        let line = format!("{indent}{name:width$}  {}  {rules}", f.type_name());
        outln!("{}", line.trim_end());
        if again {
            continue;
        }
        let nested = f
            .properties
            .as_ref()
            .or_else(|| f.items.as_ref().and_then(|i| i.properties.as_ref()));
        if let Some(nested) = nested {
            above.extend(refers.clone());
            print_fields(&nested.iter().collect::<Vec<_>>(), depth + 1, doc, above);
            if refers.is_some() {
                above.pop();
            }
        }
    }
}
