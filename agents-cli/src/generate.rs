//! Bindings from the cache: `generate` writes them for every cached agent, `generate-agent`
//! asks the service for a new agent (or a refinement) from a prompt, caches the version it
//! produced and can write its bindings too.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use agents_codegen::{Builder, Diagnostics, Options, write_if_changed};
use agents_runtime::client::generation::GenerationRequest;
use agents_runtime::{ApiVersion, Error, WaitOptions};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::cache::{HOLDS, schema_files, write_record};
use crate::documents::Documents;
use crate::global::{Failure, Global, client, from_here};

/// What `generate` is told about agents beyond their records.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct Overrides {
    /// Another type name for an agent's record, for two agents whose names give the same
    /// types (repeatable).
    #[arg(long, value_name = "AGENT=TYPE", value_parser = parse_rename)]
    pub(crate) rename: Vec<(String, String)>,
    /// The inputs that localize an agent's requests, instead of those its record flags or those
    /// named zip_code or store_id; `AGENT=` for none (repeatable).
    #[arg(long, value_name = "AGENT=INPUT[,INPUT]", value_parser = parse_localized)]
    pub(crate) localized: Vec<(String, Vec<String>)>,
    /// The input that is an agent's page number, instead of the one its record flags or a
    /// numeric one named page; `AGENT=` for none (repeatable).
    #[arg(long, value_name = "AGENT=INPUT", value_parser = parse_paginated)]
    pub(crate) paginated: Vec<(String, Option<String>)>,
    #[command(flatten)]
    pub(crate) documents: Documents,
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
/// The problems come back as they are (a `Failure` names their files from where the command
/// runs), so that a caller checking several directories reports them all as one list.
pub(crate) fn bindings(
    dir: &Path,
    agents: Option<&[String]>,
    runtime: &str,
    overrides: &Overrides,
) -> Result<String, Diagnostics> {
    let mut options = Options::default().runtime_path(runtime);
    for (agent, ty) in &overrides.rename {
        options = options.rename(agent.clone(), ty.clone());
    }
    for (agent, inputs) in &overrides.localized {
        options = options.localized(agent.clone(), inputs.iter().cloned());
    }
    for (agent, input) in &overrides.paginated {
        options = options.paginated(agent.clone(), input.as_deref());
    }
    let options = overrides.documents.apply(options);
    let mut b = Builder::new()
        .schema_dir(dir)
        .options(options)
        .cargo_directives(false);
    if let Some(agents) = agents {
        b = b.agents(agents.iter().cloned());
    }
    let (source, warnings) = b.generate_with_warnings()?;
    for w in warnings {
        eprintln!("warning: {}", crate::global::placed_here(w));
    }
    Ok(source)
}

/// Checks every cached schema (or those of `names`) as `generate` checks it, each alone (two
/// agents' type names meet only in generation, where --rename settles them): a problem in one
/// is an error, reported with every other file's, or a warning on standard error. `check` runs
/// it before asking the live API, so an empty directory or a name not in it is an error before
/// anything is sent.
pub(crate) fn check_schemas(
    dir: &Path,
    names: &[String],
    documents: &Documents,
) -> Result<(), Failure> {
    let overrides = Overrides {
        documents: documents.clone(),
        ..Overrides::default()
    };
    let files = schema_files(dir)?;
    if files.is_empty() {
        return Err(Failure::new(format!(
            "{} holds no schemas ({HOLDS}): nothing to check; `cargo agents fetch NAME` caches an \
             agent's record there",
            from_here(dir).display()
        )));
    }
    let mut found = Vec::new();
    // Every file's problems, reported together.
    let mut problems = Vec::new();
    for file in files {
        let name = match agents_codegen::load_file(&file) {
            Ok(loaded) => loaded.record.name,
            Err(Diagnostics(d)) => {
                problems.extend(d);
                continue;
            }
        };
        if names.is_empty() || names.contains(&name) {
            let checked = bindings(
                dir,
                Some(std::slice::from_ref(&name)),
                "agents_runtime",
                &overrides,
            );
            if let Err(Diagnostics(d)) = checked {
                problems.extend(d);
            }
        }
        found.push(name);
    }
    if !problems.is_empty() {
        return Err(Diagnostics(problems).into());
    }
    let missing: Vec<&str> = names
        .iter()
        .filter(|n| !found.contains(n))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(Failure::new(format!(
            "not in {}: {}; `cargo agents fetch {}` caches them, and `check` without names \
             checks every agent there",
            from_here(dir).display(),
            missing.join(", "),
            missing.join(" ")
        )));
    }
    Ok(())
}

pub(crate) fn generate(
    cli: &Global,
    out: Option<&Path>,
    runtime: &str,
    overrides: &Overrides,
) -> Result<ExitCode, Failure> {
    if schema_files(&cli.dir)?.is_empty() {
        eprintln!(
            "warning: {} holds no schemas ({HOLDS}): the bindings are empty; `cargo agents fetch \
             NAME` caches an agent's record there",
            from_here(&cli.dir).display()
        );
    }
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

/// What `generate-agent` waits for: a generation it starts, or one already started.
pub(crate) enum Start<'a> {
    /// A new agent (`url`) or a new version of `refine`.
    New {
        prompt: &'a str,
        url: Option<&'a str>,
        name: Option<&'a str>,
        refine: Option<&'a str>,
    },
    /// The generation of this id.
    Resume(&'a str),
}

/// `failure` in this command's words: the client names a generation's settings by the
/// `GenerationRequest` methods that set them (a service's refusal of `from_agent` becomes
/// `GenerationRequest::refine (from_agent)`), which a shell user set with flags.
fn in_flags(Failure(text, problems): Failure, version: ApiVersion) -> Failure {
    let words = version.words();
    let refine = format!("GenerationRequest::refine ({})", words.generation_from);
    let name = format!("GenerationRequest::agent_name ({})", words.generation_name);
    let mut text = text;
    for (said, flag) in [
        (refine.as_str(), "--refine"),
        (name.as_str(), "--name"),
        ("GenerationRequest::agent_name", "--name"),
        ("`prompt`", "`--prompt`"),
        ("`url`", "`--url`"),
    ] {
        text = text.replace(said, flag);
    }
    Failure(text, problems)
}

pub(crate) async fn generate_agent(
    cli: &Global,
    start: Start<'_>,
    out: Option<&Path>,
    timeout: Duration,
) -> Result<ExitCode, Failure> {
    let c = client(cli)?;
    let handle = match start {
        Start::Resume(id) => c.generation_handle(id),
        Start::New {
            prompt,
            url,
            name,
            refine,
        } => {
            let request = match (refine, url) {
                (Some(agent), _) => GenerationRequest::refine(agent, prompt),
                (None, Some(url)) => {
                    let r = GenerationRequest::new(prompt, url);
                    match name {
                        Some(n) => r.agent_name(n),
                        None => r,
                    }
                }
                (None, None) => {
                    return Err(Failure::new("--url is required for a new agent"));
                }
            };
            let handle = c.generate_agent(request).await.map_err(|e| {
                crate::global::noting_effect(
                    e,
                    |e| in_flags(Failure::from(e), c.api_version()),
                    "a generation may have started before its answer was lost: `cargo agents \
                     list` shows its agent once it is done",
                )
            })?;
            // A generation takes minutes and goes on at the service if this wait is stopped: its
            // id is what finds it again, shown whether or not a spinner can be.
            let of = handle
                .agent_name()
                .map_or_else(String::new, |name| format!(" of `{name}`"));
            eprintln!(
                "generation {0}{of} started; waiting for it (`cargo agents generate-agent \
                 --resume {0}` waits again)",
                handle.id(),
            );
            handle
        }
    };
    let again = |why: &str| {
        format!(
            "{why}; generation {0} goes on at the service: `cargo agents generate-agent --resume \
             {0}` waits for it again",
            handle.id(),
        )
    };
    let spinner = if cli.json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new_spinner()
    };
    spinner.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    spinner.set_message(match handle.agent_name() {
        Some(name) => format!("generation {} of `{name}`", handle.id()),
        None => format!("generation {}", handle.id()),
    });
    spinner.enable_steady_tick(Duration::from_millis(120));
    // The runtime's poller: 250 ms growing to 10 s, transient failures polled through.
    let waiting = handle.clone().with_wait(
        WaitOptions::GENERATION
            .intervals(Duration::from_millis(250), Duration::from_secs(10))
            .max_wait(timeout),
    );
    let waited = tokio::select! {
        waited = waiting.wait() => waited,
        _ = tokio::signal::ctrl_c() => {
            spinner.finish_and_clear();
            eprintln!("{}", again("interrupted"));
            return Ok(ExitCode::from(130));
        }
    };
    spinner.finish_and_clear();
    let done = match waited {
        Ok(done) => done,
        Err(e @ (Error::WaitTimeout { .. } | Error::Transport(_) | Error::Timeout(_))) => {
            return Err(Failure::new(again(&e.to_string())));
        }
        Err(e) => return Err(e.into()),
    };
    let agent = done
        .agent_name
        .clone()
        .or_else(|| handle.agent_name().map(str::to_owned))
        .ok_or_else(|| Failure::new("the generation record names no agent"))?;
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
        outln!(
            "schema   {}",
            crate::global::from_here(&schema_file).display()
        );
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
