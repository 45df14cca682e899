//! `cargo agents`: run agents (once, or over a file of inputs with resume), fetch agent schemas
//! into `schemas/`, generate bindings, check the cache for drift against the live API, generate
//! custom agents from a prompt, run jobs, and ask research agents questions.
//!
//! Reads `AGENTS_API_KEY`, `AGENTS_BASE_URL` and `AGENTS_REDIS_URL` (a rate limit shared with
//! the other processes on the key; feature `redis`) like the runtime. `--json` prints one JSON
//! document for scripts. Exit codes: 0 success, 1 failure or drift found, 2 usage.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use agents_codegen::{Builder, write_if_changed};
use agents_runtime::client::agents::Privacy;
use agents_runtime::client::generation::{GenerationRequest, GenerationStatus};
use agents_runtime::{ApiVersion, Client, Error};
use agents_schema::AgentRecord;
use agents_schema::diff::diff;
use clap::{Parser, Subcommand};

/// `println!` that ends the command quietly when standard output is closed (`cargo agents run
/// … | head`), as Unix tools do, instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::write_out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` with [`outln!`]'s handling of a closed standard output.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::write_out(format_args!($($arg)*))
    };
}

mod batch;
mod inputs;
mod jobs;
mod output;
#[cfg(feature = "parquet")]
mod parquet;
mod research;
use futures::StreamExt;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Value, json};

/// Cargo invokes `cargo-agents agents ARGS`; run directly, `cargo-agents ARGS`.
#[derive(Debug, Parser)]
#[command(name = "cargo agents", bin_name = "cargo agents", version)]
struct Cli {
    /// Print one JSON document instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// The schema cache.
    #[arg(long, global = true, default_value = "schemas")]
    dir: PathBuf,
    /// The service's base URL (default: AGENTS_BASE_URL).
    #[arg(long, global = true, env = "AGENTS_BASE_URL", hide_env_values = true)]
    base_url: Option<String>,
    /// Which version of the service's interface to speak: v1 (agents) or v2 (extract
    /// templates); runs, batches and generations work the same on both (default:
    /// AGENTS_API_VERSION, else v1).
    #[arg(long, global = true, value_name = "v1|v2")]
    api_version: Option<agents_runtime::ApiVersion>,
    /// Requests per second this command may send (default: the client's, the service's plan
    /// limit; 0: no limit, for a local emulator).
    #[arg(long, global = true, value_name = "PER_SECOND")]
    rate_limit: Option<u32>,
    /// A header sent with every request, as `NAME: VALUE` (repeatable): a proxy's or a
    /// tracer's, or a local emulator's fault switches (`agents-emulator --help` lists them).
    #[arg(long = "header", short = 'H', global = true, value_name = "NAME: VALUE", value_parser = parse_header)]
    headers: Vec<(String, String)>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run an agent once and print its records; inputs are checked against the agent's rules
    /// before anything is sent.
    Run {
        /// The agent.
        agent: String,
        /// An input as NAME=VALUE, typed by the agent's record (repeatable).
        #[arg(long = "param", short = 'p', value_name = "NAME=VALUE")]
        params: Vec<String>,
    },
    /// Run an agent over every row of a CSV (a header of input names) or JSONL file, in batches
    /// of at most 1,000; results go to OUT, failures with their reasons to OUT.failures.jsonl.
    ///
    /// Every result starts with `_row` (the input's row: 1 is the first data row of a CSV file,
    /// the first line of a JSONL file), `_task_id` and `_input` (the row's inputs: an object in
    /// JSONL, `_input.NAME` columns in CSV, a struct column in Parquet), then the record's
    /// fields. OUT may be .jsonl, .csv, or .parquet for catalog agents (typed columns); a
    /// Parquet file is written when every row is done, and until then rows go to
    /// OUT.partial.jsonl beside it.
    Batch {
        /// The agent.
        agent: String,
        /// The inputs: a .csv or .jsonl file.
        #[arg(long)]
        input: PathBuf,
        /// The results: a .jsonl, .csv or .parquet file.
        #[arg(long)]
        out: PathBuf,
        /// Continue an interrupted run: rows already in OUT (or OUT.partial.jsonl) or its
        /// failures file are skipped and never sent again.
        #[arg(long)]
        resume: bool,
    },
    /// Write agent records (GET /v1/agents/{name}) into the schema cache.
    Fetch {
        /// Agents to fetch.
        names: Vec<String>,
        /// Every private agent of the account.
        #[arg(long)]
        private: bool,
        /// Every agent the account can see.
        #[arg(long, conflicts_with = "private")]
        all: bool,
        /// This version of a `/v2` template instead of its published one (one name; speaks
        /// `/v2`, where versions are).
        #[arg(long, value_name = "N", conflicts_with_all = ["private", "all"])]
        version: Option<u64>,
    },
    /// Write bindings for every cached schema.
    Generate {
        /// Output file (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Path of the runtime crate in the generated code.
        #[arg(long, default_value = "::agents_runtime")]
        runtime: String,
        #[command(flatten)]
        overrides: Overrides,
    },
    /// Compare cached schemas with the live API, field by field; exit 1 on drift.
    Check {
        /// Agents to check (default: every cached schema).
        names: Vec<String>,
    },
    /// Create a custom agent from a prompt (or refine one) and cache its record as
    /// schemas/NAME.json, where `agent!("NAME")` and build scripts find it.
    GenerateAgent {
        /// What to extract, in words.
        #[arg(long)]
        prompt: String,
        /// A sample page (new agents).
        #[arg(long, required_unless_present = "refine")]
        url: Option<String>,
        /// Name of the new agent (lowercase letters and underscores).
        #[arg(long, conflicts_with = "refine")]
        name: Option<String>,
        /// Refine this agent of yours into a new version instead.
        #[arg(long, conflicts_with = "url")]
        refine: Option<String>,
        /// Also write the bindings to this file (to check in and `mod` yourself).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Give up waiting after this many seconds.
        #[arg(long, default_value_t = 1200)]
        timeout: u64,
    },
    /// Jobs: a template run over stored inputs on a schedule or on demand, writing its results
    /// as artifacts to download.
    #[command(subcommand)]
    Jobs(jobs::JobsCommand),
    /// Ask a research agent a question: its progress as it searches and reads (on standard
    /// error), then the answer with the claims and pages behind each part of it.
    Research(research::ResearchArgs),
}

/// A failure with what to do about it.
struct Failure(String);

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        let hint = match &e {
            Error::Unauthorized(_) => "; check AGENTS_API_KEY",
            Error::PaymentRequired(_) => "; the account has no budget or reached a limit",
            Error::Forbidden(_) => "; the account is blocked or not activated",
            Error::NotFound(_) => "; check the agent name with `cargo agents fetch --all`",
            Error::Config(_) => "; set AGENTS_API_KEY and AGENTS_BASE_URL (or --base-url)",
            Error::Transport(_) | Error::Timeout(_) => "; check AGENTS_BASE_URL and the network",
            _ => "",
        };
        Failure(format!("{e}{hint}"))
    }
}

impl From<String> for Failure {
    fn from(s: String) -> Self {
        Failure(s)
    }
}

/// Writes to standard output; a reader that went away ends the process with success (nothing is
/// left to say to anyone), any other failure with an error.
fn write_out(args: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!("error: cannot write to standard output: {e}");
            std::process::exit(1);
        }
    }
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("agents") {
        args.remove(1);
    }
    let mut cli = Cli::parse_from(args);
    // Relative to where the command runs (not to any CARGO_MANIFEST_DIR in the environment).
    if cli.dir.is_relative()
        && let Ok(cwd) = std::env::current_dir()
    {
        cli.dir = cwd.join(&cli.dir);
    }
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(run(&cli)) {
        Ok(code) => code,
        Err(Failure(message)) => {
            if cli.json {
                outln!("{}", json!({ "error": message }));
            } else {
                eprintln!("error: {message}");
            }
            ExitCode::FAILURE
        }
    }
}

/// The client of a command: the environment's settings (`AGENTS_API_KEY`, `AGENTS_BASE_URL`,
/// `AGENTS_API_VERSION`, `AGENTS_REDIS_URL` for a limit shared with other processes on the key),
/// then the flags.
fn client(cli: &Cli) -> Result<Client, Failure> {
    client_at(cli, cli.api_version)
}

/// The client of a command that needs `/v2` (template versions): refused when `--api-version v1`
/// says otherwise.
fn client_v2(cli: &Cli, why: &str) -> Result<Client, Failure> {
    if cli.api_version == Some(ApiVersion::V1) {
        return Err(Failure(format!(
            "{why} exist only in /v2; drop --api-version v1"
        )));
    }
    client_at(cli, Some(ApiVersion::V2))
}

fn client_at(cli: &Cli, version: Option<ApiVersion>) -> Result<Client, Failure> {
    let mut b = agents_runtime::ClientBuilder::from_env()?;
    if let Some(url) = &cli.base_url {
        b = b.base_url(url.clone());
    }
    if let Some(version) = version {
        b = b.api_version(version);
    }
    if let Some(per_second) = cli.rate_limit {
        b = b.rate_limit((per_second > 0).then_some(per_second));
    }
    for (name, value) in &cli.headers {
        b = b.header(name.clone(), value.clone());
    }
    Ok(b.build()?)
}

async fn run(cli: &Cli) -> Result<ExitCode, Failure> {
    match &cli.command {
        Command::Run { agent, params } => run_agent(cli, agent, params).await,
        Command::Batch {
            agent,
            input,
            out,
            resume,
        } => batch::batch(cli, agent, input, out, *resume).await,
        Command::Fetch {
            names,
            private,
            all,
            version,
        } => match version {
            Some(n) => fetch_version(cli, names, *n).await,
            None => fetch(cli, names, *private, *all).await,
        },
        Command::Generate {
            out,
            runtime,
            overrides,
        } => generate(cli, out.as_deref(), runtime, overrides),
        Command::Check { names } => check(cli, names).await,
        Command::Jobs(command) => jobs::jobs(cli, command).await,
        Command::Research(args) => research::research(cli, args).await,
        Command::GenerateAgent {
            prompt,
            url,
            name,
            refine,
            out,
            timeout,
        } => {
            generate_agent(
                cli,
                prompt,
                url.as_deref(),
                name.as_deref(),
                refine.as_deref(),
                out.as_deref(),
                Duration::from_secs(*timeout),
            )
            .await
        }
    }
}

/// The record of `agent`: the cached schema in `--dir` when there is one (`NAME.json`, or a
/// user's `NAME.output.schema.json`), else the service's.
async fn agent_record(cli: &Cli, c: &Client, agent: &str) -> Result<AgentRecord, Failure> {
    if let Some(cached) = agents_schema::files::schema_file(&cli.dir, agent) {
        return agents_schema::files::load_file(&cached)
            .map(|l| l.record)
            .map_err(|e| Failure(e.to_string()));
    }
    Ok(c.agent(agent).await?)
}

async fn run_agent(cli: &Cli, agent: &str, pairs: &[String]) -> Result<ExitCode, Failure> {
    let c = client(cli)?;
    let record = agent_record(cli, &c, agent).await?;
    let params = inputs::from_pairs(&record, pairs)?;
    if let Some(problems) = inputs::problems(&record, &params) {
        return Err(Failure(format!("nothing was sent: {problems}")));
    }
    let result = c.run_raw(agent, serde_json::Value::Object(params)).await?;
    let records = result.records();
    if cli.json {
        outln!(
            "{}",
            json!({
                "agent": agent,
                "task_id": result.task_id.as_ref().or(result.response.task_id.as_ref()),
                "status": result.status.as_str(),
                "records": records,
            })
        );
    } else {
        for r in records {
            outln!(
                "{}",
                serde_json::to_string_pretty(r).map_err(|e| e.to_string())?
            );
        }
        eprintln!(
            "{agent}: {} record(s), status {}, task {}",
            records.len(),
            result.status.as_str(),
            result
                .task_id
                .as_deref()
                .or(result.response.task_id.as_deref())
                .unwrap_or("?")
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn write_record(dir: &Path, record: &AgentRecord) -> Result<(PathBuf, bool), Failure> {
    // The name comes from the service: it names a file in `dir` and nothing else.
    let plain = !record.name.is_empty()
        && !record.name.starts_with('.')
        && !record.name.contains(['/', '\\', '\0']);
    if !plain {
        return Err(Failure(format!(
            "the service sent an agent named {:?}, which cannot name a file in {}",
            record.name,
            dir.display()
        )));
    }
    let path = dir.join(format!("{}.json", record.name));
    let text = serde_json::to_string_pretty(record)
        .map_err(|e| format!("cannot serialize {}: {e}", record.name))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let changed = write_if_changed(&path, &format!("{text}\n"))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok((path, changed))
}

async fn fetch(cli: &Cli, names: &[String], private: bool, all: bool) -> Result<ExitCode, Failure> {
    let c = client(cli)?;
    let mut names = names.to_vec();
    if private || all {
        let q = c.agents().privacy(if private {
            Privacy::Private
        } else {
            Privacy::All
        });
        let mut stream = std::pin::pin!(q.stream());
        while let Some(item) = stream.next().await {
            names.push(item?.name);
        }
    }
    if names.is_empty() {
        return Err(Failure(
            "name agents to fetch, or pass --private or --all".into(),
        ));
    }
    let bar = if cli.json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(names.len() as u64)
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut written = Vec::new();
    for name in &names {
        bar.set_message(name.clone());
        let record = c.agent(name).await?;
        let (path, changed) = write_record(&cli.dir, &record)?;
        written.push(json!({ "agent": name, "file": path, "changed": changed }));
        bar.inc(1);
    }
    bar.finish_and_clear();
    if cli.json {
        outln!("{}", json!({ "fetched": written }));
    } else {
        for w in &written {
            outln!(
                "{} {}",
                if w["changed"] == true {
                    "wrote"
                } else {
                    "unchanged"
                },
                w["file"].as_str().unwrap_or("")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `fetch NAME --version N`: one version of a `/v2` template, cached as `NAME.json` (its id and
/// number in the record, so bindings say which version they are and `check` compares).
async fn fetch_version(cli: &Cli, names: &[String], number: u64) -> Result<ExitCode, Failure> {
    let [name] = names else {
        return Err(Failure(format!(
            "--version fetches one template's version; name one template, not {}",
            names.len()
        )));
    };
    let c = client_v2(cli, "template versions")?;
    let record = c.agent_version(name, number).await?;
    let (path, changed) = write_record(&cli.dir, &record)?;
    if cli.json {
        outln!(
            "{}",
            json!({ "fetched": [{ "agent": name, "version": number, "file": path, "changed": changed }] })
        );
    } else {
        outln!(
            "{} {} (version {number})",
            if changed { "wrote" } else { "unchanged" },
            path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `NAME: VALUE`, as curl takes it; the client checks that both can be sent as a header.
fn parse_header(text: &str) -> Result<(String, String), String> {
    match text.split_once(':') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(format!(
            "expected NAME: VALUE, like 'x-request-source: nightly', not {text:?}"
        )),
    }
}

/// What `generate` is told about agents beyond their records.
#[derive(Debug, Clone, Default, clap::Args)]
struct Overrides {
    /// Another type name for an agent's record, for two agents whose names give the same
    /// types (repeatable).
    #[arg(long, value_name = "AGENT=TYPE", value_parser = parse_rename)]
    rename: Vec<(String, String)>,
    /// The inputs that localize an agent's requests, instead of those its record flags or those
    /// named zip_code or store_id; `AGENT=` for none (repeatable).
    #[arg(long, value_name = "AGENT=INPUT[,INPUT]", value_parser = parse_localized)]
    localized: Vec<(String, Vec<String>)>,
    /// The input that is an agent's page number, instead of the one its record flags or a
    /// numeric one named page; `AGENT=` for none (repeatable).
    #[arg(long, value_name = "AGENT=INPUT", value_parser = parse_paginated)]
    paginated: Vec<(String, Option<String>)>,
}

/// `AGENT=REST` with a non-empty agent name.
fn agent_and(text: &str, form: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((agent, rest)) if !agent.trim().is_empty() => {
            Ok((agent.trim().to_owned(), rest.trim().to_owned()))
        }
        _ => Err(format!("expected {form}, not {text:?}")),
    }
}

fn parse_localized(text: &str) -> Result<(String, Vec<String>), String> {
    let (agent, inputs) = agent_and(text, "AGENT=INPUT[,INPUT], like store_finder=postcode")?;
    let inputs = inputs
        .split(',')
        .map(str::trim)
        .filter(|i| !i.is_empty())
        .map(str::to_owned)
        .collect();
    Ok((agent, inputs))
}

fn parse_paginated(text: &str) -> Result<(String, Option<String>), String> {
    let (agent, input) = agent_and(text, "AGENT=INPUT, like store_finder=page_no")?;
    Ok((agent, (!input.is_empty()).then_some(input)))
}

fn parse_rename(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((agent, ty)) if !agent.trim().is_empty() && !ty.trim().is_empty() => {
            Ok((agent.trim().to_owned(), ty.trim().to_owned()))
        }
        _ => Err(format!(
            "expected AGENT=TYPE, like foo__bar=FooBarDouble, not {text:?}"
        )),
    }
}

/// Generates bindings; warnings (record defects the generator handled) go to standard error.
fn bindings(
    dir: &Path,
    agents: Option<&[String]>,
    runtime: &str,
    overrides: &Overrides,
) -> Result<String, Failure> {
    let mut b = Builder::new()
        .schema_dir(dir)
        .runtime_path(runtime)
        .cargo_directives(false);
    if let Some(agents) = agents {
        b = b.agents(agents.iter().cloned());
    }
    for (agent, ty) in &overrides.rename {
        b = b.rename(agent.clone(), ty.clone());
    }
    for (agent, inputs) in &overrides.localized {
        b = b.localized(agent.clone(), inputs.iter().cloned());
    }
    for (agent, input) in &overrides.paginated {
        b = b.paginated(agent.clone(), input.as_deref());
    }
    let (source, warnings) = b
        .generate_with_warnings()
        .map_err(|d| Failure(d.to_string()))?;
    for w in warnings {
        eprintln!("warning: {w}");
    }
    Ok(source)
}

fn generate(
    cli: &Cli,
    out: Option<&Path>,
    runtime: &str,
    overrides: &Overrides,
) -> Result<ExitCode, Failure> {
    let source = bindings(&cli.dir, None, runtime, overrides)?;
    match out {
        Some(path) => {
            let changed = write_if_changed(path, &source)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            if cli.json {
                outln!(
                    "{}",
                    json!({ "file": path, "changed": changed, "bytes": source.len() })
                );
            } else {
                outln!(
                    "{} {}",
                    if changed { "wrote" } else { "unchanged" },
                    path.display()
                );
            }
        }
        None => out!("{source}"),
    }
    Ok(ExitCode::SUCCESS)
}

async fn check(cli: &Cli, names: &[String]) -> Result<ExitCode, Failure> {
    let files = agents_codegen::schema_files(&cli.dir).map_err(|d| Failure(d.to_string()))?;
    let c = client(cli)?;
    // A record cached from a `/v2` template is compared with the template's published version,
    // whatever the command's default interface.
    let mut v2: Option<Client> = None;
    let mut report = Vec::new();
    let mut drifted = 0;
    for file in files {
        let cached = agents_codegen::load_file(&file)
            .map_err(|d| Failure(d.to_string()))?
            .record;
        if !names.is_empty() && !names.contains(&cached.name) {
            continue;
        }
        let source = if cached.template_version.is_some() && c.api_version() == ApiVersion::V1 {
            if v2.is_none() {
                v2 = Some(client_v2(cli, "template versions")?);
            }
            v2.as_ref().unwrap_or(&c)
        } else {
            &c
        };
        let live = match source.agent(&cached.name).await {
            Ok(r) => r,
            Err(Error::NotFound(_)) => {
                drifted += 1;
                report.push((cached.name, None));
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let changes = diff(&cached, &live);
        if !changes.is_empty() {
            drifted += 1;
        }
        report.push((cached.name, Some(changes)));
    }
    if cli.json {
        let agents: Vec<Value> = report
            .iter()
            .map(|(name, changes)| {
                json!({
                    "agent": name,
                    "missing": changes.is_none(),
                    "changes": changes.as_deref().unwrap_or_default(),
                })
            })
            .collect();
        outln!("{}", json!({ "drifted": drifted, "agents": agents }));
    } else {
        for (name, changes) in &report {
            match changes.as_deref() {
                None => outln!("{name}: not found on the live API"),
                Some([]) => outln!("{name}: up to date"),
                Some(changes) => {
                    outln!("{name}: {} change(s)", changes.len());
                    for ch in changes {
                        outln!("  {ch}");
                    }
                }
            }
        }
        if drifted > 0 {
            outln!(
                "{drifted} agent(s) drifted; refresh with `cargo agents fetch NAME` (a template: \
                 `--api-version v2`, or `--version N` to pin one), then regenerate the bindings"
            );
        }
    }
    Ok(if drifted > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

async fn generate_agent(
    cli: &Cli,
    prompt: &str,
    url: Option<&str>,
    name: Option<&str>,
    refine: Option<&str>,
    out: Option<&Path>,
    timeout: Duration,
) -> Result<ExitCode, Failure> {
    let c = client(cli)?;
    let request = match (refine, url) {
        (Some(agent), _) => GenerationRequest::refine(agent, prompt),
        (None, Some(url)) => {
            let r = GenerationRequest::new(prompt, url);
            match name {
                Some(n) => r.agent_name(n),
                None => r,
            }
        }
        (None, None) => return Err(Failure("--url is required for a new agent".into())),
    };
    let handle = c.generate_agent(request).await?;
    let spinner = if cli.json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new_spinner()
    };
    spinner.enable_steady_tick(Duration::from_millis(120));
    let start = Instant::now();
    let mut interval = Duration::from_millis(250);
    let done = loop {
        let g = handle.status().await?;
        spinner.set_message(format!(
            "generation {} of `{}`: {} ({}s)",
            g.id,
            g.agent_name.as_deref().unwrap_or("?"),
            g.status.as_str(),
            start.elapsed().as_secs()
        ));
        match g.status {
            GenerationStatus::Success => break g,
            GenerationStatus::Failed => {
                spinner.finish_and_clear();
                return Err(Failure(format!(
                    "generation {} failed: {}",
                    g.id,
                    g.error.as_deref().unwrap_or("no reason given")
                )));
            }
            _ if start.elapsed() > timeout => {
                spinner.finish_and_clear();
                return Err(Failure(format!(
                    "generation {} still {} after {}s; check later with its id",
                    g.id,
                    g.status.as_str(),
                    timeout.as_secs()
                )));
            }
            _ => {}
        }
        tokio::time::sleep(interval).await;
        interval = (interval * 3 / 2).min(Duration::from_secs(10));
    };
    spinner.finish_and_clear();
    let agent = done
        .agent_name
        .clone()
        .or_else(|| handle.agent_name().map(str::to_owned))
        .ok_or_else(|| Failure("the generation record names no agent".into()))?;
    // The version this generation produced, not whichever is published by the time it is read.
    let record = match (&done.generated_version_id, c.api_version()) {
        (Some(id), ApiVersion::V2) => c.agent_version_by_id(&agent, id).await?,
        _ => c.agent(&agent).await?,
    };
    let (schema_file, _) = write_record(&cli.dir, &record)?;
    if let Some(out) = out {
        let source = bindings(
            &cli.dir,
            Some(std::slice::from_ref(&agent)),
            "::agents_runtime",
            &Overrides::default(),
        )?;
        if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        write_if_changed(out, &source)
            .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    }
    let usage = format!("agents_runtime::agent!({agent:?});");
    let fields = record.output_schema.as_ref().map_or(0, |s| s.len());
    if cli.json {
        outln!(
            "{}",
            json!({
                "agent": agent,
                "generation_id": done.id,
                "generated_version_id": done.generated_version_id,
                "summary": done.summary,
                "schema": schema_file,
                "bindings": out,
                "fields": fields,
                "use": usage,
            })
        );
    } else {
        outln!(
            "agent `{agent}` version {} ({fields} fields): {}",
            done.generated_version_id.as_deref().unwrap_or("?"),
            done.summary.as_deref().unwrap_or("")
        );
        outln!("schema   {}", schema_file.display());
        if let Some(out) = out {
            outln!("bindings {}", out.display());
        }
        outln!(
            "use it with `{usage}` in any module (agents-runtime feature \"macros\"), or \
             `cargo agents run {agent} -p NAME=VALUE`"
        );
    }
    Ok(ExitCode::SUCCESS)
}
