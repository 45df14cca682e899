//! The build-script front door: `Builder::new().schema_dir("schemas").generate_to(out_dir)`.

use std::path::{Path, PathBuf};

use crate::locate::{LocateError, locate, schema_dir};
use crate::source::write_if_changed;
use agents_schema::diag::{Diagnostic, Diagnostics};

use crate::{Options, generate_refs};
use agents_schema::files::{load_file, schema_file, schema_files};

/// Generates bindings from a build script into one file for `include!`.
///
/// ```no_run
/// // build.rs
/// # fn main() -> Result<(), agents_codegen::Diagnostics> {
/// let out = std::env::var_os("OUT_DIR").unwrap_or_default();
/// agents_codegen::Builder::new()
///     .schema_dir("schemas")
///     .agents(["retailer_a_pdp"])
///     .generate_to(out)?;
/// # Ok(())
/// # }
/// // lib.rs: include!(concat!(env!("OUT_DIR"), "/agents.rs"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Builder {
    schema_dir: Option<PathBuf>,
    agents: Option<Vec<String>>,
    options: Options,
    file_name: Option<String>,
    cargo_directives: bool,
}

impl Builder {
    /// A builder reading `schemas/` under the package, generating every agent found there.
    pub fn new() -> Self {
        Builder {
            cargo_directives: true,
            ..Builder::default()
        }
    }

    /// Reads schemas from `dir` (relative paths are relative to the package root when run by
    /// cargo).
    #[must_use]
    pub fn schema_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.schema_dir = Some(dir.into());
        self
    }

    /// Generates only these agents (file `NAME.json` in the schema directory).
    #[must_use]
    pub fn agents<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.agents = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// The generator's settings: the runtime's path, renames, localization and pagination
    /// ([`Options`], the one settings type `agent!` and `cargo agents generate` fill too).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), agents_codegen::Diagnostics> {
    /// use agents_codegen::{Builder, Options};
    ///
    /// Builder::new()
    ///     .options(Options::default().localized("store_finder", ["postcode"]))
    ///     .generate_to(std::env::var_os("OUT_DIR").unwrap_or_default())?;
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// The generated file's name (default `agents.rs`).
    #[must_use]
    pub fn file_name(mut self, name: impl Into<String>) -> Self {
        self.file_name = Some(name.into());
        self
    }

    /// Whether to print `cargo:rerun-if-changed` lines (default true).
    #[must_use]
    pub fn cargo_directives(mut self, on: bool) -> Self {
        self.cargo_directives = on;
        self
    }

    fn manifest_dir() -> PathBuf {
        std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default()
    }

    /// Generates the bindings as formatted source.
    ///
    /// Without [`Builder::schema_dir`], schemas are found the way `agent!` finds them
    /// ([`crate::locate`]): `AGENTS_SCHEMA_DIR`, the package's `schemas/`, the workspace's, and a
    /// live fetch with `AGENTS_OFFLINE=false`.
    pub fn generate(&self) -> Result<String, Diagnostics> {
        let (source, warnings) = self.generate_with_warnings()?;
        if self.cargo_directives {
            for w in &warnings {
                println!("cargo:warning={}", w.to_string().replace('\n', " "));
            }
        }
        Ok(source)
    }

    /// [`Builder::generate`], handing back the warnings (defects of the records the generator
    /// handled, such as an input declared twice) instead of printing them for cargo.
    pub fn generate_with_warnings(&self) -> Result<(String, Vec<Diagnostic>), Diagnostics> {
        let manifest = Self::manifest_dir();
        if self.cargo_directives {
            for var in crate::locate::ENV_VARS {
                println!("cargo:rerun-if-env-changed={var}");
            }
        }
        let explicit = self.schema_dir.as_ref().map(|d| {
            if d.is_relative() {
                manifest.join(d)
            } else {
                d.clone()
            }
        });
        let mut records = Vec::new();
        let mut problems = Vec::new();
        let mut files = Vec::new();
        match (&explicit, &self.agents) {
            (Some(dir), names) => {
                if self.cargo_directives {
                    println!("cargo:rerun-if-changed={}", dir.display());
                }
                let paths = match names {
                    // A name with no file keeps `NAME.json`, which the read below reports.
                    Some(names) => names
                        .iter()
                        .map(|n| {
                            schema_file(dir, n).unwrap_or_else(|| dir.join(format!("{n}.json")))
                        })
                        .collect(),
                    None => schema_files(dir)?,
                };
                for f in paths {
                    match load_file(&f) {
                        Ok(l) => records.push(l),
                        Err(Diagnostics(d)) => problems.extend(d),
                    }
                    files.push(f);
                }
            }
            (None, Some(names)) => {
                for n in names {
                    match locate(n, &manifest) {
                        Ok(l) => {
                            files.push(l.path.clone());
                            records.push(l);
                        }
                        Err(e) => problems.push(locate_diagnostic(n, e)),
                    }
                }
            }
            (None, None) => {
                let dir = schema_dir(&manifest).map_err(|searched| {
                    Diagnostics(vec![locate_diagnostic(
                        "*",
                        LocateError::NoSchemaDir {
                            name: "*".into(),
                            searched,
                            nearest: Vec::new(),
                        },
                    )])
                })?;
                if self.cargo_directives {
                    println!("cargo:rerun-if-changed={}", dir.path.display());
                }
                for f in schema_files(&dir.path)? {
                    match load_file(&f) {
                        Ok(l) => records.push(l),
                        Err(Diagnostics(d)) => problems.extend(d),
                    }
                    files.push(f);
                }
            }
        }
        if self.cargo_directives {
            for f in &files {
                println!("cargo:rerun-if-changed={}", f.display());
            }
        }
        // Two files of one agent (a fetched `NAME.json` beside the user's
        // `NAME.output.schema.json`): each pair of files named, not only the agent.
        for (i, later) in records.iter().enumerate() {
            if let Some(first) = records[..i]
                .iter()
                .find(|l| l.record.name == later.record.name)
            {
                problems.push(
                    Diagnostic::new(
                        &later.record.name,
                        "$.name",
                        &format!(
                            "{} defines this agent too; keep one of the two files",
                            beside(&first.path, &later.path).display()
                        ),
                    )
                    .file(&later.path),
                );
            }
        }
        let options = self.options.documents_under(&manifest);
        // Each problem of a record's text names the file it is in, as problems of reading do.
        let place = |d: Diagnostic| records.iter().fold(d, |d, loaded| loaded.place(d));
        if !problems.is_empty() {
            // One report says everything: the records that were read are generated too, each
            // agent once, for their errors and warnings.
            let mut named = std::collections::BTreeSet::new();
            let refs: Vec<_> = (records.iter().map(|l| &l.record))
                .filter(|r| named.insert(r.name.as_str()))
                .collect();
            if !refs.is_empty() {
                match generate_refs(&refs, &options) {
                    Ok(output) => problems.extend(output.warnings),
                    Err(Diagnostics(d)) => problems.extend(d),
                }
            }
            return Err(Diagnostics(problems.into_iter().map(place).collect()));
        }
        let refs: Vec<_> = records.iter().map(|l| &l.record).collect();
        let mut output = generate_refs(&refs, &options)
            .map_err(|Diagnostics(d)| Diagnostics(d.into_iter().map(place).collect()))?;
        output.warnings = std::mem::take(&mut output.warnings)
            .into_iter()
            .map(place)
            .collect();
        if self.cargo_directives {
            // A document added where a reference looks is a change too, so the directories are
            // watched as well as the files read.
            for dir in options.documents.values() {
                println!("cargo:rerun-if-changed={}", dir.display());
            }
            for f in &output.files {
                println!("cargo:rerun-if-changed={}", f.display());
            }
        }
        Ok((output.to_source()?, output.warnings))
    }

    /// Generates into `out_dir/agents.rs` (written only when its content changed); returns the
    /// file's path.
    pub fn generate_to(&self, out_dir: impl AsRef<Path>) -> Result<PathBuf, Diagnostics> {
        let source = self.generate()?;
        let path = out_dir
            .as_ref()
            .join(self.file_name.as_deref().unwrap_or("agents.rs"));
        write_if_changed(&path, &source)
            .map_err(|e| Diagnostic::at("$", format!("cannot write: {e}")).file(&path))?;
        Ok(path)
    }
}

/// `other` as a message about `file` names it: by its file name alone when the two are in one
/// directory.
fn beside<'a>(other: &'a Path, file: &Path) -> &'a Path {
    match other.file_name() {
        Some(name) if other.parent() == file.parent() => Path::new(name),
        _ => other,
    }
}

fn locate_diagnostic(agent: &str, e: LocateError) -> Diagnostic {
    match e {
        LocateError::Invalid(Diagnostics(mut d)) if d.len() == 1 => d.remove(0),
        other => Diagnostic::new(agent, "$", &other.to_string()),
    }
}
