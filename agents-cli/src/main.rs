//! `cargo agents`: run agents (once, or over a file of inputs with resume), fetch agent schemas
//! into `schemas/`, generate bindings, check the cache for drift against the live API, publish
//! schema files as templates, generate custom agents from a prompt, run jobs, and ask research
//! agents questions.
//!
//! Reads `AGENTS_API_KEY`, `AGENTS_BASE_URL` and `AGENTS_REDIS_URL` (a rate limit shared with
//! the other processes on the key; feature `redis`) like the runtime. `--json` prints one JSON
//! document for scripts. Exit codes: 0 success, 1 failure or drift found, 2 usage.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

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
mod cache;
mod catalog;
mod documents;
mod fields;
mod generate;
mod global;
mod inputs;
mod jobs;
mod output;
#[cfg(feature = "parquet")]
mod parquet;
mod publish;
mod research;
use serde_json::json;

use cache::about_agent;
use global::{Failure, Global, client};

/// Cargo invokes `cargo-agents agents ARGS`; run directly, `cargo-agents ARGS`.
#[derive(Debug, Parser)]
#[command(name = "cargo agents", bin_name = "cargo agents", version)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run an agent once (with --pages, page after page) and print its records; inputs are
    /// checked against the agent's rules before anything is sent.
    Run {
        /// The agent.
        agent: String,
        /// An input as NAME=VALUE, typed by the agent's record (repeatable).
        #[arg(long = "param", short = 'p', value_name = "NAME=VALUE")]
        params: Vec<String>,
        /// Up to N pages of a paginated agent, from the page asked for (else 1); it stops
        /// early at an empty page or one that repeats the page before.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        pages: Option<u32>,
        #[command(flatten)]
        documents: documents::Documents,
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
        /// The inputs: a .csv (commas, or semicolons as Excel writes them where a comma is the
        /// decimal mark), .tsv or .jsonl file.
        #[arg(long)]
        input: PathBuf,
        /// The results: a .jsonl, .csv or .parquet file.
        #[arg(long)]
        out: PathBuf,
        /// Continue an interrupted run: rows already in OUT (or OUT.partial.jsonl) or its
        /// failures file are skipped and never sent again.
        #[arg(long)]
        resume: bool,
        #[command(flatten)]
        documents: documents::Documents,
    },
    /// The field table of a finished `batch` output (.jsonl, .csv or .parquet): per field, how many
    /// records fill it, how many leave it empty, and the rules of the agent's schema its values
    /// break, by keyword (from each record's `_breaches`, or with --agent from each JSONL record
    /// checked against that agent's schema). `batch` prints it when it ends.
    Fields {
        /// The output file.
        out: PathBuf,
        /// Check each JSONL record against this agent's output schema instead of reading the
        /// `_breaches` that `batch` wrote: for records from elsewhere, such as a job's artifacts.
        #[arg(long)]
        agent: Option<String>,
    },
    /// List the agents the account can run (`/v2`: its extract templates): name, domain, title,
    /// and `*` for those in the schema directory.
    List {
        /// Only agents whose name, title, description or domain holds this text.
        #[arg(long)]
        search: Option<String>,
        /// Only the account's private agents (`/v1`).
        #[arg(long)]
        private: bool,
    },
    /// What an agent takes and gives: its inputs (type, required, rules) and output fields
    /// (type, rules, nested records), from the schema directory when it holds the agent, else
    /// from the service. Nothing is cached.
    Describe {
        /// The agent.
        agent: String,
    },
    /// Write agent records (`/v1`'s agents, `/v2`'s extract templates) into the schema cache,
    /// as `NAME.json`; a template written as schema files in the directory is not fetched over.
    Fetch {
        /// Agents to fetch.
        names: Vec<String>,
        /// Every private agent of the account (`/v1`: templates on `/v2` are all the account's).
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
    /// Write bindings for every agent in the schema directory: fetched records and schema
    /// files alike.
    Generate {
        /// Output file (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Path of the runtime crate in the generated code.
        #[arg(long, default_value = "::agents_runtime")]
        runtime: String,
        #[command(flatten)]
        overrides: generate::Overrides,
    },
    /// Templates as code (`/v2`): make each schema file's template say what the file says —
    /// created if absent, the next version published if a schema changed, left alone if not.
    /// Files are `NAME.output.schema.json` (with `NAME.input.schema.json` beside it) or records
    /// `NAME.json`; each is checked as `generate` checks it before anything is sent.
    Publish {
        /// Schema files, or directories of them (default: the schema directory).
        paths: Vec<PathBuf>,
        /// Only say what would change (create, update version N, unchanged); change nothing.
        #[arg(long)]
        plan: bool,
        #[command(flatten)]
        documents: documents::Documents,
    },
    /// Compare the schema directory with the live API: fields, their types and rules, inputs,
    /// versions; a schema file against the template it publishes, as `publish` would send it
    /// (with the files `--documents` names embedded). Exit 1 on drift.
    Check {
        /// Agents to check (default: every one in the schema directory).
        names: Vec<String>,
        #[command(flatten)]
        documents: documents::Documents,
    },
    /// Create a custom agent from a prompt (or refine one) and cache its record as
    /// schemas/NAME.json, where `agent!("NAME")` and build scripts find it.
    GenerateAgent {
        /// What to extract, in words.
        #[arg(long, required_unless_present = "resume")]
        prompt: Option<String>,
        /// A sample page (new agents).
        #[arg(long, required_unless_present_any = ["refine", "resume"])]
        url: Option<String>,
        /// Name of the new agent (lowercase letters and underscores).
        #[arg(long, conflicts_with = "refine")]
        name: Option<String>,
        /// Refine this agent of yours into a new version instead.
        #[arg(long, conflicts_with = "url")]
        refine: Option<String>,
        /// Wait for a generation already started (its id, printed when it started) and cache
        /// its agent, instead of starting one: a generation goes on at the service when this
        /// command is stopped or gives up.
        #[arg(long, value_name = "GENERATION_ID", conflicts_with_all = ["prompt", "url", "name", "refine"])]
        resume: Option<String>,
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

/// `cargo agents fields OUT [--agent NAME]`: the field table of a finished output.
async fn fields_of(
    cli: &Global,
    out: &std::path::Path,
    agent: Option<&str>,
) -> Result<ExitCode, Failure> {
    let jsonl = matches!(
        out.extension().and_then(|e| e.to_str()),
        Some("jsonl" | "ndjson")
    );
    let record = match agent {
        None => None,
        // A schema in --dir is all the check needs: no key, no request.
        Some(agent) if jsonl => Some(match cache::cached_record(cli, agent)? {
            Some((record, _)) => record,
            None => {
                let c = client(cli).map_err(|f| {
                    Failure::new(format!(
                        "`{agent}` has no schema in {} ({}), so it is read from the service: {f}",
                        global::from_here(&cli.dir).display(),
                        cache::HOLDS,
                        f = f.0
                    ))
                })?;
                cache::agent_record(cli, &c, agent).await?
            }
        }),
        // A CSV cell is text and a Parquet column typed: their values are not the JSON the
        // service sent, so checking them again would report what the file format did.
        Some(_) => {
            return Err(Failure::new(format!(
                "{}: --agent checks the records of a JSONL file; a CSV or Parquet output of \
                 `batch` carries its breaches already (read it without --agent), and {}",
                out.display(),
                fields::JOB_RESULTS
            )));
        }
    };
    let table = match out.extension().and_then(|e| e.to_str()) {
        Some("jsonl" | "ndjson") => fields::from_jsonl(out, record.as_ref())?,
        Some("csv") => fields::from_csv(out)?,
        #[cfg(feature = "parquet")]
        Some("parquet") => parquet::table(out)?,
        _ => {
            return Err(Failure::new(format!(
                "{}: read a .jsonl, .csv or .parquet output of `cargo agents batch` (.parquet \
                 needs the `parquet` feature of agents-cli, on by default)",
                out.display()
            )));
        }
    };
    fields::print(cli, &table);
    Ok(ExitCode::SUCCESS)
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

/// The client's diagnostics (each retry and why, waits for the rate limit, failed polls) on
/// standard error when `RUST_LOG` asks for them (`RUST_LOG=agents_client=debug`); none
/// otherwise, so that progress and output stay as they are.
fn diagnostics() {
    match tracing_subscriber::EnvFilter::try_from_default_env() {
        Ok(filter) => tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .init(),
        Err(e) if std::env::var_os("RUST_LOG").is_some() => {
            eprintln!("warning: RUST_LOG not used: {e}");
        }
        Err(_) => {}
    }
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("agents") {
        args.remove(1);
    }
    let mut cli = Cli::parse_from(args);
    diagnostics();
    // Relative to where the command runs (not to any CARGO_MANIFEST_DIR in the environment).
    if cli.global.dir.is_relative()
        && let Ok(cwd) = std::env::current_dir()
    {
        cli.global.dir = cwd.join(&cli.global.dir);
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
    match rt.block_on(run(&cli.global, &cli.command)) {
        Ok(code) => code,
        Err(Failure(message, problems)) => {
            if cli.global.json && problems.is_empty() {
                outln!("{}", json!({ "error": message }));
            } else if cli.global.json {
                outln!("{}", json!({ "error": message, "problems": problems }));
            } else {
                eprintln!("error: {message}");
            }
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: &Global, command: &Command) -> Result<ExitCode, Failure> {
    match command {
        Command::Run {
            agent,
            params,
            pages,
            documents,
        } => run_agent(cli, agent, params, *pages, documents).await,
        Command::Batch {
            agent,
            input,
            out,
            resume,
            documents,
        } => batch::batch(cli, agent, input, out, *resume, documents).await,
        Command::List { search, private } => catalog::list(cli, search.as_deref(), *private).await,
        Command::Describe { agent } => catalog::describe(cli, agent).await,
        Command::Fetch {
            names,
            private,
            all,
            version,
        } => match version {
            Some(n) => cache::fetch_version(cli, names, *n).await,
            None => cache::fetch(cli, names, *private, *all).await,
        },
        Command::Generate {
            out,
            runtime,
            overrides,
        } => generate::generate(cli, out.as_deref(), runtime, overrides),
        Command::Check { names, documents } => {
            generate::check_schemas(&cli.dir, names, documents)?;
            cache::check(cli, names, documents).await
        }
        Command::Fields { out, agent } => fields_of(cli, out, agent.as_deref()).await,
        Command::Publish {
            paths,
            plan,
            documents,
        } => publish::publish(cli, paths, *plan, documents).await,
        Command::Jobs(command) => jobs::jobs(cli, command).await,
        Command::Research(args) => research::research(cli, args).await,
        Command::GenerateAgent {
            prompt,
            url,
            name,
            refine,
            resume,
            out,
            timeout,
        } => {
            let start = match (resume, prompt) {
                (Some(id), _) => generate::Start::Resume(id),
                (None, Some(prompt)) => generate::Start::New {
                    prompt,
                    url: url.as_deref(),
                    name: name.as_deref(),
                    refine: refine.as_deref(),
                },
                // clap requires --prompt without --resume.
                (None, None) => return Err(Failure::new("--prompt is required")),
            };
            generate::generate_agent(cli, start, out.as_deref(), Duration::from_secs(*timeout))
                .await
        }
    }
}

async fn run_agent(
    cli: &Global,
    agent: &str,
    pairs: &[String],
    pages: Option<u32>,
    documents: &documents::Documents,
) -> Result<ExitCode, Failure> {
    let c = client(cli)?;
    let record = cache::agent_record(cli, &c, agent).await?;
    let params = inputs::from_pairs(&record, pairs)?;
    if let Some(warning) = inputs::undeclared(&record, [&params]) {
        eprintln!("warning: {warning}");
    }
    let check = inputs::request_check(&record, documents);
    if let Some(problems) = inputs::problems(&check, &params) {
        return Err(Failure::new(format!("nothing was sent: {problems}")));
    }
    let lost = |e| {
        global::noting_effect(
            e,
            about_agent(cli, agent),
            "the service may have run it (and billed it) before its answer was lost",
        )
    };
    // Each page's number (when paged) and result; a failure after some pages keeps them.
    let mut results = Vec::new();
    let mut failed = None;
    match pages {
        None => {
            let result = c
                .run_raw(agent, serde_json::Value::Object(params))
                .await
                .map_err(lost)?;
            results.push((None, result));
        }
        Some(max) => {
            let Some(input) = record.pagination_param() else {
                return Err(Failure::new(format!(
                    "nothing was sent: `{agent}` has no page input (its record flags none, and none \
                     is a page named `page`), so --pages cannot page it"
                )));
            };
            let input = input.name.clone();
            let pages = c.pages_raw(agent, params, &input).max_pages(max);
            let first = u64::from(pages.first_page());
            let mut stream = pages.stream();
            while let Some(page) = futures::StreamExt::next(&mut stream).await {
                let number = first + results.len() as u64;
                match page {
                    Ok(result) => results.push((Some(number), result)),
                    Err(e) if results.is_empty() => return Err(lost(e)),
                    Err(e) => {
                        failed = Some(format!("page {number}: {}", lost(e).0));
                    }
                }
            }
        }
    }
    print_runs(cli, agent, &record, &results)?;
    match failed {
        Some(why) => Err(Failure::new(why)),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// Prints the records of `results` (each in the order its schema lists its fields, as its
/// generated type does), and beside them the rules of the agent's output schema each breaks
/// (as `batch` records them), with each page's status.
fn print_runs(
    cli: &Global,
    agent: &str,
    record: &agents_schema::AgentRecord,
    results: &[(Option<u64>, agents_runtime::RunResult<serde_json::Value>)],
) -> Result<(), Failure> {
    let written = agents_schema::json_schema::output_schema(record);
    let schema = agents_runtime::Schema::compile(&written.to_value());
    let records: Vec<&serde_json::Value> = results.iter().flat_map(|(_, r)| r.records()).collect();
    let breaches: Vec<(usize, Vec<agents_runtime::check::Breach>)> = records
        .iter()
        .enumerate()
        .map(|(i, r)| (i, schema.check(*r)))
        .filter(|(_, b)| !b.is_empty())
        .collect();
    let task = |r: &agents_runtime::RunResult<serde_json::Value>| {
        r.task_id.clone().or_else(|| r.response.task_id.clone())
    };
    let mut order = agents_schema::SchemaOrder::new(&written);
    if cli.json {
        let mut listed = Vec::new();
        for (i, b) in &breaches {
            for b in b {
                let mut v = serde_json::to_value(b).map_err(|e| e.to_string())?;
                if let Some(o) = v.as_object_mut() {
                    o.insert("record".into(), json!(i));
                }
                listed.push(v);
            }
        }
        let mut doc = json!({"agent": agent, "breaches": listed});
        match results {
            [(None, result)] => {
                doc["task_id"] = json!(task(result));
                doc["status"] = json!(result.status.as_str());
            }
            pages => {
                doc["pages"] = pages
                    .iter()
                    .map(|(n, r)| {
                        json!({"page": n, "task_id": task(r), "status": r.status.as_str(),
                               "records": r.records().len()})
                    })
                    .collect();
            }
        }
        // Each record in the order its schema lists its fields, as the text output prints it.
        let mut doc = agents_schema::Json::from(doc);
        if let agents_schema::Json::Object(doc) = &mut doc {
            let ordered = records.iter().map(|r| order.arrange(r));
            doc.insert(
                "records".into(),
                agents_schema::Json::Array(ordered.collect()),
            );
        }
        outln!("{doc}");
        return Ok(());
    }
    for r in &records {
        outln!("{}", order.arrange(r).to_pretty());
    }
    for (i, b) in &breaches {
        let which = if records.len() == 1 {
            "the record".to_owned()
        } else {
            format!("record {}", i + 1)
        };
        global::warn_breaches(&which, agent, b);
    }
    for (page, result) in results {
        let page = page.map_or_else(String::new, |n| format!(" page {n}:"));
        eprintln!(
            "{agent}:{page} {} record(s), status {}, task {}",
            result.records().len(),
            result.status.as_str(),
            task(result).as_deref().unwrap_or("?")
        );
    }
    Ok(())
}
