//! Typed Rust bindings from agent records of the web data extraction service.
//!
//! One pipeline serves every front door (the `agent!` macro, [`Builder`] in build scripts,
//! `cargo xtask codegen` and `cargo agents generate`):
//!
//! 1. **parse**: [`agents_schema::AgentRecord`] reads each record, reporting every shape error
//!    with its JSON path ([`load_dir`] and [`load_file`] attach the file);
//! 2. **check / lower** ([`ir`]): every Rust name is claimed ([`naming`]), every type resolved
//!    ([`types`]), rule text parsed ([`rules`]) and doc text made safe ([`docs`]); problems of all
//!    agents are collected into one [`Diagnostics`];
//! 3. **emit** ([`emit`]): tokens with `quote`;
//! 4. **format**: `prettyplease`, deterministic byte for byte.
//!
//! ```
//! let record = agents_schema::AgentRecord::from_json(r#"{
//!     "name": "tiny",
//!     "input_properties": [{"name": "id", "type": "string", "required": true}],
//!     "output_schema": {"title": {"type": "string"}}
//! }"#).unwrap();
//! let out = agents_codegen::generate(&[record], &agents_codegen::Options::default()).unwrap();
//! let source = out.to_source().unwrap();
//! assert!(source.contains("pub struct Tiny {"));
//! assert!(source.contains("pub struct TinyParams {"));
//! ```

mod builder;
pub mod docs;
pub mod emit;
pub mod expand;
pub mod ir;
pub mod locate;
pub mod naming;
pub mod rules;
mod source;
pub mod types;

use std::fmt;
use std::path::PathBuf;

use agents_schema::AgentRecord;
use proc_macro2::TokenStream;

pub use builder::Builder;
pub use source::{Loaded, load_dir, load_file, schema_files, write_if_changed};

/// Where a problem was found: file (when read from one), agent, JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The schema file, when the record was read from one.
    pub file: Option<PathBuf>,
    /// The agent name, when known.
    pub agent: Option<String>,
    /// JSON path inside the record (`$` for the whole file), with line and column for syntax
    /// errors.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn new(agent: &str, path: &str, message: &str) -> Self {
        Diagnostic {
            file: None,
            agent: Some(agent.to_owned()),
            path: path.to_owned(),
            message: message.to_owned(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", file.display())?;
        }
        if let Some(agent) = &self.agent {
            write!(f, "agent `{agent}`: ")?;
        }
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Every problem found in one run of the generator.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [one] => write!(f, "{one}"),
            many => {
                write!(f, "{} problems in agent schemas:", many.len())?;
                for d in many {
                    write!(f, "\n  - {d}")?;
                }
                Ok(())
            }
        }
    }
}

/// Generator settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Path of the runtime crate in the generated code: `::agents_runtime` (the default) for
    /// code in users' crates, `crate` for the bindings inside the runtime itself.
    pub runtime_path: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            runtime_path: "::agents_runtime".to_owned(),
        }
    }
}

/// The generated items of one agent.
#[derive(Debug, Clone)]
pub struct AgentOutput {
    /// The agent name.
    pub name: String,
    /// A snake_case module / file stem, unique among the agents generated together.
    pub module: String,
    /// The items.
    pub tokens: TokenStream,
    /// Number of generated types (output record, nested structs, params).
    pub types: usize,
    /// Number of output fields and params.
    pub fields: usize,
}

/// The result of one run: the agents' items, with names unique across all of them.
#[derive(Debug, Clone)]
pub struct Output {
    /// Agents sorted by name.
    pub agents: Vec<AgentOutput>,
}

/// Generates the bindings of `records` together: one namespace for all their types.
pub fn generate(records: &[AgentRecord], options: &Options) -> Result<Output, Diagnostics> {
    let refs: Vec<&AgentRecord> = records.iter().collect();
    generate_refs(&refs, options)
}

/// [`generate`] over borrowed records.
pub fn generate_refs(records: &[&AgentRecord], options: &Options) -> Result<Output, Diagnostics> {
    let rt_text = options.runtime_path.trim();
    let rt: syn::Path = syn::parse_str(rt_text).map_err(|e| {
        Diagnostics(vec![Diagnostic {
            file: None,
            agent: None,
            path: "runtime_path".to_owned(),
            message: format!("{rt_text:?} is not a Rust path: {e}"),
        }])
    })?;
    let paths = emit::Paths::new(quote::quote!(#rt), rt_text);
    let unit = ir::lower(records)?;
    let agents = unit
        .agents
        .iter()
        .map(|a| AgentOutput {
            name: a.name.clone(),
            module: a.module.clone(),
            tokens: emit::agent(a, &paths),
            types: a.structs.len() + 1,
            fields: a.structs.iter().map(|s| s.fields.len()).sum::<usize>() + a.params.fields.len(),
        })
        .collect();
    Ok(Output { agents })
}

/// Formats items as Rust source with prettyplease.
pub fn format(tokens: TokenStream) -> Result<String, Diagnostics> {
    let file: syn::File = syn::parse2(tokens).map_err(|e| {
        Diagnostics(vec![Diagnostic {
            file: None,
            agent: None,
            path: "$".to_owned(),
            message: format!("generated code does not parse (a generator bug): {e}"),
        }])
    })?;
    Ok(prettyplease::unparse(&file))
}

impl Output {
    /// Every agent's items in one stream.
    pub fn tokens(&self) -> TokenStream {
        self.agents.iter().map(|a| a.tokens.clone()).collect()
    }

    /// Every agent's items as one formatted source file (for `include!`).
    pub fn to_source(&self) -> Result<String, Diagnostics> {
        format(self.tokens())
    }

    /// Total generated types.
    pub fn type_count(&self) -> usize {
        self.agents.iter().map(|a| a.types).sum()
    }

    /// Total output fields and params.
    pub fn field_count(&self) -> usize {
        self.agents.iter().map(|a| a.fields).sum()
    }

    /// A module tree: `mod.rs` (documented with `doc`, declaring one private module per agent
    /// and re-exporting its items) plus one file per agent, each starting with `header`.
    /// Returns (relative file name, content) pairs sorted by name.
    pub fn module_files(
        &self,
        header: &str,
        doc: &str,
    ) -> Result<Vec<(String, String)>, Diagnostics> {
        let mut files = Vec::with_capacity(self.agents.len() + 1);
        let mut root = String::new();
        root.push_str(header);
        for line in doc.lines() {
            root.push_str("//!");
            if !line.is_empty() {
                root.push(' ');
                root.push_str(line);
            }
            root.push('\n');
        }
        root.push('\n');
        for a in &self.agents {
            root.push_str(&format!("mod {};\n", naming::display(&a.module)));
        }
        root.push('\n');
        for a in &self.agents {
            root.push_str(&format!("pub use {}::*;\n", naming::display(&a.module)));
        }
        files.push(("mod.rs".to_owned(), root));
        for a in &self.agents {
            let body = format(a.tokens.clone())?;
            files.push((format!("{}.rs", a.module), format!("{header}\n{body}")));
        }
        files.sort();
        Ok(files)
    }
}

/// Formats source with rustfmt (`$RUSTFMT`, else `rustfmt` on `PATH`, edition 2024), for
/// generated files that are checked in and held to `cargo fmt --check`. prettyplease output is
/// valid and deterministic but not byte-identical to rustfmt's.
pub fn rustfmt(source: &str) -> Result<String, Diagnostics> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};

    let fail = |message: String| {
        Diagnostics(vec![Diagnostic {
            file: None,
            agent: None,
            path: "rustfmt".to_owned(),
            message,
        }])
    };
    let program = std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into());
    let mut child = Command::new(&program)
        .args(["--edition", "2024", "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| fail(format!("cannot run {}: {e}", program.to_string_lossy())))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| fail("rustfmt has no stdin".to_owned()))?;
    let input = source.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| fail(format!("rustfmt failed: {e}")))?;
    match writer.join() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(fail(format!("cannot write to rustfmt: {e}"))),
        Err(_) => return Err(fail("the thread feeding rustfmt panicked".to_owned())),
    }
    if !out.status.success() {
        return Err(fail(format!(
            "rustfmt exited with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    String::from_utf8(out.stdout).map_err(|e| fail(format!("rustfmt wrote invalid UTF-8: {e}")))
}
