//! What every command shares: the global options, the failure a command ends with, and the
//! client those options make. Commands import from here; nothing here imports a command.

use std::path::{Path, PathBuf};

use agents_codegen::{Diagnostic, Diagnostics};
use agents_runtime::{ApiVersion, Client, Error};

/// The options every command takes.
/// Where `--dir` points unless told otherwise.
pub(crate) const DEFAULT_DIR: &str = "schemas";

#[derive(Debug, clap::Args)]
pub(crate) struct Global {
    /// Print one JSON document instead of text.
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// The schema cache.
    #[arg(long, global = true, default_value = DEFAULT_DIR)]
    pub(crate) dir: PathBuf,
    /// The service's base URL (default: AGENTS_BASE_URL).
    #[arg(long, global = true, env = "AGENTS_BASE_URL", hide_env_values = true)]
    pub(crate) base_url: Option<String>,
    /// Which version of the service's interface to speak: v1 (agents) or v2 (extract
    /// templates); runs, batches and generations work the same on both (default:
    /// AGENTS_API_VERSION, else v1).
    #[arg(long, global = true, value_name = "VERSION")]
    pub(crate) api_version: Option<ApiVersion>,
    /// Requests per second this command may send (default: the client's, the service's plan
    /// limit; 0: no limit, for a local emulator).
    #[arg(long, global = true, value_name = "PER_SECOND")]
    pub(crate) rate_limit: Option<u32>,
    /// A header sent with every request, as `NAME: VALUE` (repeatable): a proxy's or a
    /// tracer's, or a local emulator's fault switches (`agents-emulator --help` lists them).
    #[arg(long = "header", short = 'H', global = true, value_name = "NAME: VALUE", value_parser = parse_header)]
    pub(crate) headers: Vec<(String, String)>,
}

/// A failure with what to do about it, and the schema problems it reports (each with its file,
/// agent, JSON path and severity), which `--json` prints as a list beside the text.
pub(crate) struct Failure(pub(crate) String, pub(crate) Vec<Diagnostic>);

impl Failure {
    /// A failure told in words alone.
    pub(crate) fn new(text: impl Into<String>) -> Self {
        Failure(text.into(), Vec::new())
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        let hint = match &e {
            Error::Unauthorized(_) => "; check AGENTS_API_KEY",
            Error::PaymentRequired(_) => "; the account has no budget or reached a limit",
            Error::Forbidden(_) => "; the account is blocked or not activated",
            // The client's message names each setting at fault and the variable that sets it;
            // the one flag that also sets one is added where the client is built.
            Error::Transport(_) | Error::Timeout(_) => "; check AGENTS_BASE_URL and the network",
            _ => "",
        };
        Failure::new(format!("{e}{hint}"))
    }
}

/// The failure of a call that changes something at the service (a run, a batch, a job, a
/// generation), made by `to_failure`; when the call may have taken effect although it failed
/// (sent with its answer lost, [`Error::may_have_run`]), `effect` says what may exist and where
/// to look, so that running it again is a choice.
pub(crate) fn noting_effect(
    e: Error,
    to_failure: impl FnOnce(Error) -> Failure,
    effect: &str,
) -> Failure {
    let lost = e.may_have_run();
    let mut failure = to_failure(e);
    if lost {
        failure.0.push_str(&format!("; {effect}"));
    }
    failure
}

/// Says on standard error which rules of `agent`'s output schema `which` (`the record`,
/// `record 2`, `the answer`) breaks, one line per rule, as `batch` records them in `_breaches`.
pub(crate) fn warn_breaches(which: &str, agent: &str, breaches: &[agents_runtime::check::Breach]) {
    if breaches.is_empty() {
        return;
    }
    eprintln!(
        "warning: {which} breaks {} rule(s) of `{agent}`'s output schema:",
        breaches.len()
    );
    for b in breaches {
        eprintln!("  {b}");
    }
}

/// `d` with its file named from where the command runs ([`from_here`]).
pub(crate) fn placed_here(mut d: Diagnostic) -> Diagnostic {
    d.file = d.file.as_deref().map(from_here);
    d
}

impl From<Diagnostics> for Failure {
    /// Problems of schema files, all of them, each file named from where the command runs.
    fn from(Diagnostics(found): Diagnostics) -> Self {
        let found = Diagnostics(found.into_iter().map(placed_here).collect());
        Failure(found.to_string(), found.0)
    }
}

/// `path` as the user would name it: from the directory the command runs in when it is under it
/// (`schemas/shop.json`; the CLI reads every path from there, so it holds them absolute).
/// The directory it runs in is `.`, not a name of nothing.
pub(crate) fn from_here(path: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    match path.strip_prefix(&cwd) {
        Ok(rest) if rest.as_os_str().is_empty() => PathBuf::from("."),
        Ok(rest) => rest.to_owned(),
        Err(_) => path.to_owned(),
    }
}

impl From<String> for Failure {
    fn from(s: String) -> Self {
        Failure::new(s)
    }
}

/// The client of a command: the environment's settings (`AGENTS_API_KEY`, `AGENTS_BASE_URL`,
/// `AGENTS_API_VERSION`, `AGENTS_REDIS_URL` for a limit shared with other processes on the key),
/// then the flags.
pub(crate) fn client(cli: &Global) -> Result<Client, Failure> {
    client_at(cli, cli.api_version)
}

/// The client of a command that needs `/v2` (template versions): refused when `--api-version v1`
/// says otherwise.
pub(crate) fn client_v2(cli: &Global, why: &str) -> Result<Client, Failure> {
    let needed = ApiVersion::V2;
    if let Some(other) = cli.api_version.filter(|v| *v != needed) {
        return Err(Failure::new(format!(
            "{why} exist only in /{needed}; drop --api-version {other}"
        )));
    }
    client_at(cli, Some(needed))
}

fn client_at(cli: &Global, version: Option<ApiVersion>) -> Result<Client, Failure> {
    let mut b = agents_runtime::ClientBuilder::from_env()?;
    // Blank counts as unset, as `from_env` reads the same variable.
    let base_url = cli.base_url.as_ref().filter(|url| !url.trim().is_empty());
    if let Some(url) = base_url {
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
    b.build().map_err(|e| {
        let about_base = matches!(&e, Error::Config(problems) if problems.contains("base URL"));
        let mut failure = Failure::from(e);
        if about_base && base_url.is_none() {
            failure.0.push_str("; --base-url sets the base URL too");
        }
        failure
    })
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

#[cfg(test)]
mod tests {
    #[test]
    fn the_directory_a_command_runs_in_is_named_dot() {
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(super::from_here(&cwd), std::path::PathBuf::from("."));
        assert_eq!(
            super::from_here(&cwd.join("schemas")),
            std::path::PathBuf::from("schemas")
        );
    }
}
