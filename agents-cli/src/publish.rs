//! `cargo agents publish`: templates as code. Each schema file (a `NAME.output.schema.json` with
//! its `NAME.input.schema.json`, or a record `NAME.json`) is the template `NAME` as it should
//! be; `--plan` says what would change, without it the service is made to say so (created,
//! next version published, or left alone).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agents_codegen::{Diagnostic, Diagnostics};
use agents_runtime::client::publish::{Plan, TemplateSource};
use serde_json::{Value, json};

use crate::documents::Documents;
use crate::generate::{Overrides, bindings};
use crate::global::{Failure, Global, client_v2};

/// The files `paths` name: each file itself, each directory's schema files.
fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            files.extend(crate::cache::schema_files(path)?);
        } else {
            files.push(path.clone());
        }
    }
    if files.is_empty() {
        return Err(Failure::new(
            "no schema files to publish: name NAME.output.schema.json files, NAME.json records, \
             or directories of them",
        ));
    }
    Ok(files)
}

/// The template a file describes, checked as the generator checks it first: a schema the
/// bindings could not be generated from is not published either.
fn source(file: &Path, documents: &Documents) -> Result<TemplateSource, Diagnostics> {
    let record = agents_codegen::load_file(file)?.record;
    let dir = file.parent().unwrap_or(Path::new("."));
    bindings(
        dir,
        Some(std::slice::from_ref(&record.name)),
        "agents_runtime",
        &Overrides {
            documents: documents.clone(),
            ..Overrides::default()
        },
    )?;
    // What the generated type carries and `Client::publish` sends: the documents as written,
    // with any document they refer to bundled (the service cannot read the user's files), so
    // both routes compare equal.
    let (input, output) = documents.published(&record);
    let source =
        TemplateSource::from_text(record.name.clone(), &input.to_string(), &output.to_string())
            .map_err(|e| {
                Diagnostics(vec![
                    Diagnostic::at("$", e.to_string())
                        .file(file)
                        .agent(&record.name),
                ])
            })?;
    // The template is named by its file, so the fix is in the file's name, not in the
    // `TemplateSource::name` the library's message points at.
    source.check().map_err(|_| {
        let name = &record.name;
        let fit: String = name
            .chars()
            .map(|c| match c.to_ascii_lowercase() {
                c @ ('a'..='z' | '0'..='9' | '_') => c,
                _ => '_',
            })
            .collect();
        let message = format!(
            "the file names template {name:?}, and a template's name is lowercase letters, \
             digits and underscores: rename the file (and a record's `name`) to `{fit}`"
        );
        Diagnostics(vec![Diagnostic::at("$", message).file(file).agent(name)])
    })?;
    Ok(source)
}

pub(crate) async fn publish(
    cli: &Global,
    paths: &[PathBuf],
    plan_only: bool,
    documents: &Documents,
) -> Result<ExitCode, Failure> {
    // Relative to where the command runs, as `--dir` is (the generator would read a relative
    // directory against the package being built).
    let cwd = std::env::current_dir().unwrap_or_default();
    let paths: Vec<PathBuf> = if paths.is_empty() {
        vec![cli.dir.clone()]
    } else {
        paths.iter().map(|p| cwd.join(p)).collect()
    };
    // Every file is read and checked before anything is sent; their problems come together,
    // each naming its file.
    let mut sources = Vec::new();
    let mut problems = Vec::new();
    for file in files(&paths)? {
        match source(&file, documents) {
            Ok(s) => sources.push((file, s)),
            Err(Diagnostics(d)) => problems.extend(d),
        }
    }
    if !problems.is_empty() {
        return Err(Diagnostics(problems).into());
    }
    let client = client_v2(cli, "templates")?;
    let mut report = Vec::new();
    let mut failed = false;
    for (file, source) in sources {
        let name = source.template_name().to_owned();
        let done = if plan_only {
            client
                .plan_template(&source)
                .await
                .map(|plan| (plan, plan.to_string(), None))
        } else {
            client
                .publish_template(source)
                .await
                .map(|p| (p.plan, p.to_string(), p.version()))
        };
        match done {
            Ok((plan, line, version)) => {
                if !cli.json {
                    // A plan's line names what it would do; a publication's names itself.
                    if plan_only {
                        outln!("{name}: {line}");
                    } else {
                        outln!("{line}");
                    }
                }
                report.push(json!({
                    "name": name,
                    "file": file,
                    "plan": plan_word(plan),
                    "version": version.map_or_else(|| json!(plan_version(plan)), |v| json!(v)),
                    "applied": !plan_only,
                }));
            }
            Err(e) => {
                failed = true;
                let message = format!("{}: {name}: {e}", crate::global::from_here(&file).display());
                if !cli.json {
                    eprintln!("error: {message}");
                }
                report.push(json!({ "name": name, "file": file, "error": message }));
            }
        }
    }
    if cli.json {
        outln!("{}", json!({ "templates": report }));
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn plan_word(plan: Plan) -> &'static str {
    match plan {
        Plan::Create => "create",
        Plan::Update { .. } => "update",
        Plan::Unchanged { .. } => "unchanged",
    }
}

/// The version a plan was made against (none for a template to create).
fn plan_version(plan: Plan) -> Value {
    match plan {
        Plan::Create => Value::Null,
        Plan::Update { version, .. } | Plan::Unchanged { version } => json!(version),
    }
}
