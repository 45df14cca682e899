//! The schema cache in `--dir`: `fetch` writes agents' records there (`NAME.json`), `check`
//! compares them with the live API, and commands that run an agent read it first.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agents_codegen::write_if_changed;
use agents_runtime::client::agents::Privacy;
use agents_runtime::{ApiVersion, Client, Error};
use agents_schema::AgentRecord;
use agents_schema::diff::diff;
use futures::StreamExt;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Value, json};

use crate::documents::Documents;
use crate::global::{Failure, Global, client, client_v2, from_here};

/// The failure of a request about `agent`, the agent the user named. When the service does not
/// know it (a 404, or a run, batch or job refused at the field naming it), the name is most
/// likely misspelt, or, for a template the user writes as schema files, not published yet: it
/// says which, and the command that helps. Other failures, and 404s of a job or a run, are left
/// as they are.
pub(crate) fn about_agent<'a>(
    cli: &'a Global,
    agent: &'a str,
) -> impl FnOnce(Error) -> Failure + 'a {
    move |e| {
        let unknown = e.refuses_agent_name();
        let mut failure = Failure::from(e);
        if unknown {
            match own_file(&cli.dir, agent) {
                Some(file) => {
                    let file = from_here(&file);
                    failure.0.push_str(&format!(
                        "; `{agent}` is written as {0}: if it is not published yet, `cargo agents \
                         publish {0}` publishes it",
                        file.display()
                    ));
                }
                None => failure.0.push_str(
                    "; check the name: `cargo agents list` lists every agent the account can run",
                ),
            }
        }
        failure
    }
}

/// What a schema directory holds, in words for the messages below.
pub(crate) const HOLDS: &str = "NAME.json records, NAME.output.schema.json files";

/// The schema files of `dir`; a directory that is not there says how one is filled.
pub(crate) fn schema_files(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    agents_codegen::schema_files(dir).map_err(|problems| {
        let mut failure = Failure::from(problems);
        if !dir.exists() {
            failure.0.push_str(&format!(
                "; `cargo agents fetch NAME` caches an agent's record there ({HOLDS}), and --dir \
                 names another directory"
            ));
        }
        failure
    })
}

/// The record of `agent`: the cached schema in `--dir` when there is one (`NAME.json`, or a
/// user's `NAME.output.schema.json`), else the service's.
pub(crate) async fn agent_record(
    cli: &Global,
    c: &Client,
    agent: &str,
) -> Result<AgentRecord, Failure> {
    if let Some((record, _)) = cached_record(cli, agent)? {
        return Ok(record);
    }
    c.agent(agent).await.map_err(about_agent(cli, agent))
}

/// The record of `agent` in `--dir`, with the file it was read from, when there is one.
pub(crate) fn cached_record(
    cli: &Global,
    agent: &str,
) -> Result<Option<(AgentRecord, PathBuf)>, Failure> {
    let Some(file) = agents_schema::files::schema_file(&cli.dir, agent) else {
        return Ok(None);
    };
    let record = agents_schema::files::load_file(&file)?.record;
    Ok(Some((record, file)))
}

/// The user's own schema file of `name` in `dir` (`NAME.output.schema.json`), when there is one.
fn own_file(dir: &Path, name: &str) -> Option<PathBuf> {
    let file = dir.join(format!("{name}{}", agents_schema::files::OUTPUT_SUFFIX));
    file.is_file().then_some(file)
}

/// Why the service's record of `name` is not cached beside the user's schema file `file`: the
/// files are the template's source, and a second record of the agent in one directory would
/// stop the generator.
fn written_as_files(name: &str, file: &Path) -> String {
    format!(
        "{} already defines `{name}`: a template written as schema files is its own source, and \
         a record of it beside them would define it twice; `cargo agents check` compares the \
         files with the service, `cargo agents publish` updates the service from them, and \
         `--dir` elsewhere caches the service's record apart",
        from_here(file).display()
    )
}

pub(crate) fn write_record(dir: &Path, record: &AgentRecord) -> Result<(PathBuf, bool), Failure> {
    // The name comes from the service: it names a file in `dir` and nothing else.
    let plain = !record.name.is_empty()
        && !record.name.starts_with('.')
        && !record.name.contains(['/', '\\', '\0']);
    if !plain {
        return Err(Failure::new(format!(
            "the service sent an agent named {:?}, which cannot name a file in {}",
            record.name,
            dir.display()
        )));
    }
    if let Some(file) = own_file(dir, &record.name) {
        return Err(Failure::new(written_as_files(&record.name, &file)));
    }
    let path = dir.join(format!("{}.json", record.name));
    let text = serde_json::to_string_pretty(record)
        .map_err(|e| format!("cannot serialize {}: {e}", record.name))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let changed = write_if_changed(&path, &format!("{text}\n"))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok((path, changed))
}

pub(crate) async fn fetch(
    cli: &Global,
    names: &[String],
    private: bool,
    all: bool,
) -> Result<ExitCode, Failure> {
    // Agents the user writes as schema files are not fetched over them: named, that is an
    // error before anything is sent; listed by --all or --private, they are passed over.
    let own: Vec<String> = names
        .iter()
        .filter_map(|n| own_file(&cli.dir, n).map(|f| written_as_files(n, &f)))
        .collect();
    if !own.is_empty() {
        return Err(Failure::new(own.join("\n")));
    }
    let c = client(cli)?;
    if private {
        only_v1_filters(&c, "--all")?;
    }
    let mut names = names.to_vec();
    if private || all {
        // Every agent is the list unfiltered, which both versions give (`/v2` filters nothing).
        let q = if private {
            c.agents().privacy(Privacy::Private)
        } else {
            c.agents()
        };
        let mut stream = std::pin::pin!(q.stream());
        while let Some(item) = stream.next().await {
            let name = item?.name;
            match own_file(&cli.dir, &name) {
                Some(file) => eprintln!(
                    "note: `{name}` not fetched: {} defines it",
                    from_here(&file).display()
                ),
                None => names.push(name),
            }
        }
    }
    if names.is_empty() {
        return Err(Failure::new(
            "name agents to fetch, or pass --private or --all",
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
        let record = c.agent(name).await.map_err(about_agent(cli, name))?;
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
                from_here(Path::new(w["file"].as_str().unwrap_or(""))).display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--private` on `/v2`, which lists every template with no filter: refused, saying what lists
/// them all (`instead`).
pub(crate) fn only_v1_filters(c: &Client, instead: &str) -> Result<(), Failure> {
    let v1 = ApiVersion::V1;
    if c.api_version() == v1 {
        return Ok(());
    }
    Err(Failure::new(format!(
        "--private filters the agent list of {v1}; {} lists every template with no filter: pass \
         --api-version {v1}, or {instead}",
        c.api_version()
    )))
}

/// `fetch NAME --version N`: one version of a `/v2` template, cached as `NAME.json` (its id and
/// number in the record, so bindings say which version they are and `check` compares).
pub(crate) async fn fetch_version(
    cli: &Global,
    names: &[String],
    number: u64,
) -> Result<ExitCode, Failure> {
    let [name] = names else {
        return Err(Failure::new(format!(
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
            from_here(&path).display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) async fn check(
    cli: &Global,
    names: &[String],
    documents: &Documents,
) -> Result<ExitCode, Failure> {
    let files = schema_files(&cli.dir)?;
    let mut cached = Vec::with_capacity(files.len());
    for file in files {
        let record = agents_codegen::load_file(&file)?.record;
        if names.is_empty() || names.contains(&record.name) {
            // A template written as JSON Schema files is the user's own: the file is right and
            // the service is brought to it (`publish`), where a fetched record is refreshed. It
            // is compared as `publish` would send it, with the shared files it refers to.
            let own = file
                .file_name()
                .and_then(|f| f.to_str())
                .is_some_and(|f| f.ends_with(agents_schema::files::OUTPUT_SUFFIX));
            let record = if own {
                documents.as_published(&record).map_err(|e| {
                    Failure::new(format!(
                        "{}: the schema files, with what they refer to embedded, do not read \
                         as a template: {e}",
                        from_here(&file).display()
                    ))
                })?
            } else {
                record
            };
            cached.push((record, own));
        }
    }
    let c = client(cli)?;
    // A record cached from a `/v2` template is compared with the template's published version,
    // whatever the command's default interface.
    let mut v2: Option<Client> = None;
    let mut report = Vec::new();
    let (mut drifted, mut own_drifted) = (0, 0);
    for (cached, own) in cached {
        let template = cached.template_version.is_some();
        let source = if template && c.api_version() == ApiVersion::V1 {
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
                own_drifted += usize::from(own);
                report.push((cached.name, own, template, None));
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        // A fetched record is told how the service moved on from it; the user's own files
        // what publishing them would change.
        let changes = if own {
            diff(&live, &cached)
        } else {
            diff(&cached, &live)
        };
        if !changes.is_empty() {
            drifted += 1;
            own_drifted += usize::from(own);
        }
        report.push((cached.name, own, template, Some(changes)));
    }
    if cli.json {
        let agents: Vec<Value> = report
            .iter()
            .map(|(name, own, _, changes)| {
                json!({
                    "agent": name,
                    "own_files": own,
                    "missing": changes.is_none(),
                    "changes": changes.as_deref().unwrap_or_default(),
                })
            })
            .collect();
        outln!("{}", json!({ "drifted": drifted, "agents": agents }));
    } else {
        for (name, own, _, changes) in &report {
            match changes.as_deref() {
                None if *own => outln!("{name}: not published"),
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
        // The fetch that refreshes what changed: templates over `/v2` whatever the default.
        let refresh = |templates: bool| -> Vec<&str> {
            report
                .iter()
                .filter(|(_, own, template, changes)| {
                    !own && *template == templates
                        && changes.as_ref().is_some_and(|c| !c.is_empty())
                })
                .map(|(name, ..)| name.as_str())
                .collect()
        };
        let dir = match from_here(&cli.dir) {
            d if d == Path::new(crate::global::DEFAULT_DIR) => String::new(),
            d => format!(" --dir {}", d.display()),
        };
        let commands: Vec<String> = [(false, c.api_version()), (true, ApiVersion::V2)]
            .into_iter()
            .filter_map(|(templates, version)| {
                let names = refresh(templates);
                let version = match version {
                    v if v == c.api_version() && cli.api_version.is_none() => String::new(),
                    v => format!(" --api-version {v}"),
                };
                (!names.is_empty())
                    .then(|| format!("`cargo agents{version}{dir} fetch {}`", names.join(" ")))
            })
            .collect();
        if !commands.is_empty() {
            outln!(
                "{} agent(s) drifted; {} refreshes the cached records (`--version N` pins a \
                 template's version), then `cargo agents generate` or the next build regenerates \
                 the bindings",
                drifted - own_drifted,
                commands.join(" and ")
            );
        }
        if own_drifted > 0 {
            outln!(
                "{own_drifted} template(s) written as schema files differ from the service (the \
                 changes above are what publishing them makes); `cargo agents publish {}` makes \
                 the service say what the files say (`--plan` first shows what it would do)",
                from_here(&cli.dir).display()
            );
        }
    }
    Ok(if drifted > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
