//! `cargo agents research`: one question to a research agent, its progress as it happens (read
//! from the run's events, on standard error), then the answer with the pages behind each part.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use agents_codegen::{Diagnostic, Diagnostics};
use agents_runtime::client::Document;
use agents_runtime::client::WaitOptions;
use agents_runtime::client::research::{
    Answer, Effort, ResearchAgentRequest, ResearchEvent, ResearchRunHandle, ResearchRunRequest,
};
use agents_runtime::{ApiVersion, Client, Error};
use agents_schema::Json;
use futures::StreamExt;
use serde_json::{Value, json};

use crate::global::{Failure, Global};

/// The arguments of `cargo agents research`.
#[derive(Debug, clap::Args)]
pub struct ResearchArgs {
    /// The question, or instructions.
    question: String,
    /// The research agent, by its stable name; on /v2 an unseen name makes a new agent.
    #[arg(long, required_unless_present = "schema")]
    agent: Option<String>,
    /// A JSON Schema file the answer must satisfy, checked before anything is sent. Without
    /// --agent, the agent is named after the file (`price_check` for
    /// price_check.output.schema.json) and made with this schema when it does not exist.
    #[arg(long, value_name = "FILE.json")]
    schema: Option<PathBuf>,
    /// How hard the agent works (default: the agent's).
    #[arg(long, value_name = "low|medium|high|x-high|5x-high|max")]
    effort: Option<String>,
    /// Records to fill in, shaped as the answer (a JSON file: one object or a list).
    #[arg(long, value_name = "FILE.json")]
    input_data: Option<PathBuf>,
    /// Print no progress: wait for the answer without following the run's events.
    #[arg(long)]
    quiet: bool,
    /// Give up waiting after this many seconds (the run goes on at the service).
    #[arg(long, default_value_t = 1200)]
    timeout: u64,
    #[command(flatten)]
    documents: crate::documents::Documents,
}

pub async fn research(cli: &Global, args: &ResearchArgs) -> Result<ExitCode, Failure> {
    let name = match (&args.agent, &args.schema) {
        (Some(agent), _) => agent.clone(),
        (None, Some(path)) => name_of(path)?,
        (None, None) => {
            return Err(Failure::new(
                "say which agent: --agent NAME or --schema FILE",
            ));
        }
    };
    let schema = args
        .schema
        .as_deref()
        .map(|path| read_schema(path, &name, &args.documents))
        .transpose()?;
    let mut request = ResearchRunRequest::new(&args.question).events(!args.quiet);
    if let Some(effort) = &args.effort {
        request = request.effort(Effort::from(effort.as_str()));
    }
    if let Some(schema) = &schema {
        request = request.output_schema(schema.clone());
    }
    // Records given as a list are answered as a list of records, each shaped as the schema says.
    let mut rows = false;
    if let Some(path) = &args.input_data {
        let (data, text) = read_json::<Value>(path)?;
        // A field given twice in a record would fill in the last value and drop the other.
        let twice: Vec<String> = agents_schema::duplicate_keys(&text)
            .iter()
            .map(|e| format!("{}: {e}", path.display()))
            .collect();
        if !twice.is_empty() {
            return Err(Failure::new(twice.join("\n")));
        }
        rows = data.is_array();
        if let Some(schema) = &schema {
            warn_given(path, &name, &Shape { rows }.breaches(schema, &data));
        }
        request = request.input_data(data);
    }
    let c = crate::global::client(cli)?;
    // Before the agent is looked up, so a request the service would refuse costs nothing.
    request.check(c.api_version()).map_err(|e| {
        // The request is this command's flags: its `input_data` is `--input-data`.
        let Failure(text, problems) = Failure::from(e);
        Failure(
            text.replace("invalid option `request`: ", "invalid ")
                .replace("input_data", "--input-data"),
            problems,
        )
    })?;
    let timeout = Duration::from_secs(args.timeout);
    let handle = start(&c, &name, schema.as_ref(), request)
        .await?
        .with_wait(WaitOptions::TASK.max_wait(timeout));
    eprintln!(
        "research run {} of agent {name} ({})",
        handle.id(),
        handle.agent_id()
    );
    let answer = tokio::select! {
        answer = tokio::time::timeout(timeout, follow(&handle, !args.quiet)) => match answer {
            Ok(answer) => answer?,
            Err(_) => {
                return Err(Failure::new(format!(
                    "gave up waiting after {} s; {}",
                    timeout.as_secs(),
                    goes_on(&handle)
                )));
            }
        },
        _ = tokio::signal::ctrl_c() => {
            eprintln!("interrupted; {}", goes_on(&handle));
            return Ok(ExitCode::from(130));
        }
    };
    // The answer against the schema it was asked to satisfy: a model may break its rules.
    let shape = Shape { rows };
    let breaches = schema
        .as_ref()
        .map(|s| shape.breaches(s, &answer.raw))
        .unwrap_or_default();
    for claim in answer.unanchored_claims() {
        eprintln!(
            "warning: a claim about `{}`, which the answer does not have",
            claim.path.as_deref().unwrap_or_default()
        );
    }
    let written: Option<Json> = schema
        .as_ref()
        .and_then(|s| serde_json::from_str(s.text()).ok());
    if cli.json {
        let mut doc = Json::from(json!({
            "agent": name,
            "agent_id": handle.agent_id(),
            "run": answer.run,
            "trust": answer.trust,
            "breaches": breaches,
        }));
        if let Json::Object(doc) = &mut doc {
            doc.insert(
                "content".into(),
                shape.in_order(&answer.raw, written.as_ref()),
            );
        }
        outln!("{doc}");
    } else {
        print_answer(&answer, shape, written.as_ref());
        crate::global::warn_breaches("the answer", &name, &breaches);
    }
    Ok(ExitCode::SUCCESS)
}

/// Warns of the rules of the output schema the records to fill in already break, before a run
/// is paid for: the agent keeps a given value as it is, so the answer would break them too. A
/// field left out, or `null`, is one to fill in, so what only says that fields are missing
/// (`required`, `dependentRequired`, `minProperties`) is not a breach of a record to fill in.
fn warn_given(path: &Path, agent: &str, breaches: &[agents_runtime::check::Breach]) {
    let given: Vec<agents_runtime::check::Breach> = breaches
        .iter()
        .filter(|b| {
            !matches!(
                b.keyword.as_str(),
                "required" | "dependentRequired" | "dependencies" | "minProperties"
            ) && !matches!(b.found, Some(Value::Null))
        })
        .cloned()
        .collect();
    if !given.is_empty() {
        crate::global::warn_breaches(&format!("--input-data {}", path.display()), agent, &given);
        eprintln!(
            "  the agent keeps a given value as it is: correct it, or leave the field out for the \
             agent to fill in"
        );
    }
}

/// What happens to a run this command stops waiting for.
fn goes_on(handle: &ResearchRunHandle) -> String {
    format!(
        "run {} of agent {} goes on at the service",
        handle.id(),
        handle.agent_id()
    )
}

/// Starts the run: by name on `/v2` (the service finds or makes the agent); on `/v1`, which runs
/// agents only by id, the active agent of that name, made first when a schema says how.
async fn start(
    c: &Client,
    name: &str,
    schema: Option<&Document>,
    request: ResearchRunRequest,
) -> Result<ResearchRunHandle, Failure> {
    if c.api_version() == ApiVersion::V2 {
        return c
            .start_research_by_name(name, request)
            .await
            .map_err(run_lost);
    }
    let mut agents = c.research_agents();
    let mut found = None;
    while let Some(agent) = agents.next().await {
        let agent = agent?;
        if agent.is_active && agent.agent_name.as_deref() == Some(name) {
            found = Some(agent.id);
            break;
        }
    }
    let id = match (found, schema) {
        (Some(id), _) => id,
        (None, Some(schema)) => {
            let made = c
                .create_research_agent(
                    ResearchAgentRequest::new()
                        .agent_name(name)
                        .output_schema(schema.clone()),
                )
                .await?;
            eprintln!("made research agent {name} ({})", made.id);
            made.id
        }
        (None, None) => {
            return Err(Failure::new(format!(
                "no active research agent is named {name}; pass --schema FILE.json to make one, \
                 or use --api-version v2, where a run by name makes its agent"
            )));
        }
    };
    c.start_research(&id, request).await.map_err(run_lost)
}

/// The failure of starting a run, which may have started although the answer was lost.
fn run_lost(e: Error) -> Failure {
    crate::global::noting_effect(
        e,
        Failure::from,
        "the run may have started before its answer was lost (and be billed)",
    )
}

/// Prints the run's progress from its events until it ends, then waits for the answer; a stream
/// that stalls or cannot be resumed costs the progress, not the answer.
async fn follow(handle: &ResearchRunHandle, live: bool) -> Result<Answer<Value>, Error> {
    if live {
        let mut events = handle.events();
        while let Some(event) = events.next().await {
            match event {
                Ok(e) => match e.event {
                    ResearchEvent::Status { status } => eprintln!("  {}", status.as_str()),
                    ResearchEvent::Searching { query } => eprintln!("  searching  {query}"),
                    ResearchEvent::Reading { url, title } => match title {
                        Some(title) => eprintln!("  reading    {title} <{url}>"),
                        None => eprintln!("  reading    <{url}>"),
                    },
                    ResearchEvent::Claim { path, callout, .. } => match (path, callout) {
                        (Some(path), _) => eprintln!("  claim      {path}"),
                        (None, Some(n)) => eprintln!("  claim      [{n}]"),
                        (None, None) => eprintln!("  claim"),
                    },
                    _ => {}
                },
                Err(e) => {
                    eprintln!("warning: {e}; waiting for the answer without progress");
                    break;
                }
            }
        }
    }
    handle.answer::<Value>().await
}

/// The answer (in the order `schema` lists its fields, when it is known), then how far to
/// trust it: each claim with the part it supports, its confidence, the pages behind it
/// (numbered once, listed at the end) and the passages it rests on.
fn print_answer(answer: &Answer<Value>, shape: Shape, schema: Option<&Json>) {
    match &answer.content {
        Value::String(text) => outln!("{text}"),
        other => outln!("{}", shape.in_order(other, schema).to_pretty()),
    }
    let trust = &answer.trust;
    outln!("");
    outln!("confidence: {}", trust.confidence.as_str());
    if !trust.reasoning.is_empty() {
        outln!("  {}", trust.reasoning);
    }
    // Pages in the order the agent lists its sources, then any other page a claim cites.
    let mut pages: Vec<Page<'_>> = trust
        .sources
        .iter()
        .map(|s| (s.url.as_str(), s.title.as_deref(), Some(s.kind.as_str())))
        .collect();
    let mut claims = Vec::new();
    for claim in &trust.claims {
        let about = match (&claim.path, claim.callout) {
            (Some(path), _) => path.clone(),
            (None, Some(n)) => format!("[{n}] in the text"),
            (None, None) => "the answer".into(),
        };
        let cited: Vec<(usize, &[String])> = claim
            .citations
            .iter()
            .map(|c| {
                (
                    number(&mut pages, &c.url, c.title.as_deref()),
                    c.excerpts.as_slice(),
                )
            })
            .collect();
        claims.push((about, claim.confidence.as_str(), cited));
    }
    if !claims.is_empty() {
        outln!("");
        outln!("claims:");
        let width = claims.iter().map(|c| c.0.len()).max().unwrap_or(0);
        for (about, confidence, cited) in &claims {
            let refs: String = cited.iter().map(|(n, _)| format!(" [{n}]")).collect();
            outln!("  {about:<width$}  {confidence:<12}{refs}");
            for (n, excerpts) in cited {
                for excerpt in excerpts.iter() {
                    outln!("      [{n}] \"{excerpt}\"");
                }
            }
        }
    }
    if !pages.is_empty() {
        outln!("");
        outln!("pages:");
        for (i, (url, title, kind)) in pages.iter().enumerate() {
            let kind = kind.map(|k| format!(" ({k})")).unwrap_or_default();
            match title {
                Some(title) => outln!("  [{}] {title} <{url}>{kind}", i + 1),
                None => outln!("  [{}] <{url}>{kind}", i + 1),
            }
        }
    }
}

/// The number of the page at `url` (from 1), listed at the end when it is new.
fn number<'a>(pages: &mut Vec<Page<'a>>, url: &'a str, title: Option<&'a str>) -> usize {
    match pages.iter().position(|p| p.0 == url) {
        Some(i) => i + 1,
        None => {
            pages.push((url, title, None));
            pages.len()
        }
    }
}

/// `value` in the order `schema` lists its fields, when it is known.
/// What the output schema describes: the answer, or each record of a list answer (the answer
/// to records given as a list in `input_data`, each shaped as the answer).
#[derive(Clone, Copy)]
struct Shape {
    rows: bool,
}

impl Shape {
    /// The rules of `schema` that `content` breaks: a list answer's records each checked on its
    /// own, its breaches' paths written from the list (`[1].price`).
    fn breaches(self, schema: &Document, content: &Value) -> Vec<agents_runtime::check::Breach> {
        let compiled = agents_runtime::Schema::compile(schema.value());
        match content {
            Value::Array(records) if self.rows => records
                .iter()
                .enumerate()
                .flat_map(|(i, record)| {
                    compiled.check(record).into_iter().map(move |mut b| {
                        b.path = agents_runtime::check::path::in_item(i, &b.path);
                        b
                    })
                })
                .collect(),
            other => compiled.check(other),
        }
    }

    /// `value` with its fields in the order `schema` lists them, a list answer's records each.
    fn in_order(self, value: &Value, schema: Option<&Json>) -> Json {
        let Some(schema) = schema else {
            return Json::from(value);
        };
        match value {
            Value::Array(records) if self.rows => {
                let mut order = agents_schema::SchemaOrder::new(schema);
                Json::Array(records.iter().map(|r| order.arrange(r)).collect())
            }
            other => agents_schema::SchemaOrder::new(schema).arrange(other),
        }
    }
}

/// A page's URL, title and kind of source (`primary`, …), when the agent listed it.
type Page<'a> = (&'a str, Option<&'a str>, Option<&'a str>);

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<(T, String), Failure> {
    let text = agents_schema::files::read_text(path)
        .map_err(|e| Failure::new(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map(|read| (read, text))
        .map_err(|e| Failure::new(format!("{} is not JSON: {e}", path.display())))
}

/// The file's JSON Schema document, read and checked as the generator checks it, so a schema
/// that cannot make bindings (a `type` JSON Schema does not name, a dangling reference) is
/// refused before a run is paid for, and what it cannot honour is a warning naming its pointer.
/// With `--documents`, what its references read is embedded under `$defs`, so that the service
/// gets a schema that stands alone. The document is sent as written: the order of its
/// properties is the order the agent fills them in.
fn read_schema(
    path: &Path,
    agent: &str,
    documents: &crate::documents::Documents,
) -> Result<Document, Failure> {
    let (written, text): (Json, _) = read_json(path)?;
    let doc = written.to_value();
    if !doc.is_object() {
        return Err(Failure::new(format!(
            "{}: a JSON Schema document is an object, not {}",
            path.display(),
            agents_schema::diag::json_kind(&doc)
        )));
    }
    // Shape problems first, with paths from the file's own root.
    agents_schema::FieldSchema::from_text(&text)
        .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    let record = agents_schema::json_schema::record(agent, None, Some(&written), None)
        .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    // Each problem names the file and its pointer in it, as `generate` and `publish` do: this
    // one, or a file its references read, which the problem names already.
    let place = |d: Diagnostic| {
        let d = match d.file {
            Some(_) => d,
            None => d
                .in_document("output_schema", path)
                .unwrap_or_else(|d| d.file(path)),
        };
        crate::global::placed_here(d)
    };
    let generated = agents_codegen::generate(
        &[record],
        &documents.apply(agents_codegen::Options::default()),
    )
    .map_err(|Diagnostics(d)| Failure::from(Diagnostics(d.into_iter().map(place).collect())))?;
    for w in generated.warnings {
        eprintln!("warning: {}", place(w));
    }
    let sent = if documents.list.is_empty() {
        text
    } else {
        documents.bundle(&written).to_string()
    };
    sent.parse()
        .map_err(|e| Failure::new(format!("{}: {e}", path.display())))
}

/// The agent a schema file stands for: `price_check` of `price_check.output.schema.json`, as the
/// generator names it.
fn name_of(path: &Path) -> Result<String, Failure> {
    agents_schema::files::agent_name(path).ok_or_else(|| {
        Failure::new(format!(
            "cannot name an agent after {}; pass --agent NAME",
            path.display()
        ))
    })
}
