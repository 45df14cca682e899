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
//! 3. **emit** ([`emit`]): repeated parts (fields, setters, doc lines) as `syn` trees cloned from
//!    parsed templates, one-off items as quoted tokens;
//! 4. **format**: `prettyplease` over the trees and the parsed quoted items, deterministic byte
//!    for byte (the macro path prints the same trees as tokens and passes the quoted items on
//!    unparsed).
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
mod source;
pub mod types;

use std::collections::BTreeMap;

use agents_schema::AgentRecord;
use proc_macro2::TokenStream;

pub use agents_schema::diag::{Diagnostic, Diagnostics};
pub use agents_schema::files::{Loaded, load_dir, load_file, schema_files};
pub use agents_schema::rules;
pub use builder::Builder;
pub use source::write_if_changed;

/// Generator settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Path of the runtime crate in the generated code: `::agents_runtime` (the default) for
    /// code in users' crates, `crate` for the bindings inside the runtime itself.
    pub runtime_path: String,
    /// Type names for agents' records instead of the ones derived from the agent names
    /// (`"foo__bar"` → `"FooBarDouble"`): the way out when two agents of one module would have the
    /// same type names. The params type and nested types follow (`FooBarDoubleParams`).
    pub renames: BTreeMap<String, String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            runtime_path: "::agents_runtime".to_owned(),
            renames: BTreeMap::new(),
        }
    }
}

/// The generated items of one agent: its resolved model, printed on demand as tokens
/// ([`AgentOutput::tokens`], the macro path) or as source ([`AgentOutput::to_source`]).
#[derive(Debug, Clone)]
pub struct AgentOutput {
    /// The agent name.
    pub name: String,
    /// A snake_case module / file stem, unique among the agents generated together.
    pub module: String,
    /// Number of generated types (output record, nested structs, params).
    pub types: usize,
    /// Number of output fields and params.
    pub fields: usize,
    /// The agent with every name and type resolved.
    ir: ir::AgentIr,
    /// The runtime path, already checked to parse.
    runtime_path: String,
}

/// The result of one run: the agents' items, with names unique across all of them.
#[derive(Debug, Clone)]
pub struct Output {
    /// Agents sorted by name.
    pub agents: Vec<AgentOutput>,
    /// Defects of the records that the generator handled (an input declared twice: the first
    /// declaration is used, and the generated docs say so). Front doors print them as warnings.
    pub warnings: Vec<Diagnostic>,
}

/// Generates the bindings of `records` together: one namespace for all their types.
pub fn generate(records: &[AgentRecord], options: &Options) -> Result<Output, Diagnostics> {
    let refs: Vec<&AgentRecord> = records.iter().collect();
    generate_refs(&refs, options)
}

/// [`generate`] over borrowed records: parses the runtime path, then lowers every record into
/// the model (collecting every problem). Items are emitted when they are asked for.
pub fn generate_refs(records: &[&AgentRecord], options: &Options) -> Result<Output, Diagnostics> {
    let rt_text = options.runtime_path.trim();
    syn::parse_str::<syn::Path>(rt_text).map_err(|e| {
        Diagnostics(vec![Diagnostic {
            file: None,
            agent: None,
            path: "runtime_path".to_owned(),
            message: format!("{rt_text:?} is not a Rust path: {e}"),
        }])
    })?;
    let unit = ir::lower(records, &options.renames)?;
    let warnings = unit.warnings;
    let agents = unit
        .agents
        .into_iter()
        .map(|a| AgentOutput {
            name: a.name.clone(),
            module: a.module.clone(),
            types: a.structs.len() + 1,
            fields: a.structs.iter().map(|s| s.fields.len()).sum::<usize>() + a.params.fields.len(),
            ir: a,
            runtime_path: rt_text.to_owned(),
        })
        .collect();
    Ok(Output { agents, warnings })
}

/// Generated code that does not parse: a bug of this crate, reported rather than panicking.
fn generator_bug(agent: Option<&str>, e: &syn::Error) -> Diagnostics {
    Diagnostics(vec![Diagnostic {
        file: None,
        agent: agent.map(str::to_owned),
        path: "$".to_owned(),
        message: format!("generated code does not parse (a generator bug): {e}"),
    }])
}

/// The runtime paths and the parsed templates of one thread's emission (`syn` trees are not
/// `Send`, so each thread that emits has its own).
struct Emitter {
    rt_text: String,
    paths: emit::Paths,
    templates: emit::Templates,
}

thread_local! {
    /// The emitter this thread used last, kept for its next emission with the same runtime path:
    /// `agent!` emits one agent per call, and the templates need not be parsed again for each
    /// call. Its tokens are
    /// proc-macro2's own (`agent!` forces the fallback around every expansion, and outside a
    /// proc macro there is nothing else), so a kept emitter never meets compiler tokens.
    static KEPT: std::cell::RefCell<Option<Emitter>> = const { std::cell::RefCell::new(None) };
}

impl Emitter {
    fn new(rt_text: &str) -> syn::Result<Self> {
        let rt: syn::Path = syn::parse_str(rt_text)?;
        let paths = emit::Paths::new(quote::quote!(#rt), rt_text);
        let templates = emit::Templates::new(&paths)?;
        Ok(Emitter {
            rt_text: rt_text.to_owned(),
            paths,
            templates,
        })
    }

    /// Runs `f` with this thread's kept emitter if it was made for `a`'s runtime path, else with
    /// a new one; keeps the emitter afterwards.
    fn with<R>(
        a: &AgentOutput,
        f: impl FnOnce(&mut Emitter) -> Result<R, Diagnostics>,
    ) -> Result<R, Diagnostics> {
        let kept = KEPT
            .try_with(|k| k.try_borrow_mut().ok().and_then(|mut k| k.take()))
            .ok()
            .flatten()
            .filter(|e| e.rt_text == a.runtime_path);
        let mut emitter = match kept {
            Some(e) => e,
            None => Emitter::new(&a.runtime_path).map_err(|e| generator_bug(Some(&a.name), &e))?,
        };
        let result = f(&mut emitter);
        // A thread being torn down or a nested call keeps nothing; the emitter is dropped.
        let _ = KEPT.try_with(|k| {
            if let Ok(mut k) = k.try_borrow_mut() {
                *k = Some(emitter);
            }
        });
        result
    }

    /// Emits `a`, handing each piece to `sink`.
    fn emit(
        &mut self,
        a: &AgentOutput,
        sink: &mut dyn FnMut(emit::Piece),
    ) -> Result<(), Diagnostics> {
        emit::agent(&a.ir, &self.paths, &mut self.templates, sink)
            .map_err(|e| generator_bug(Some(&a.name), &e))
    }

    /// Trees are printed as tokens; quoted pieces are tokens already and are not parsed.
    fn tokens(&mut self, a: &AgentOutput, out: &mut TokenStream) -> Result<(), Diagnostics> {
        self.emit(a, &mut |piece| match piece {
            emit::Piece::Tree(item) => quote::ToTokens::to_tokens(&item, out),
            emit::Piece::Quoted(tokens) => out.extend(tokens),
        })
    }

    /// prettyplease prints a file as its items one after the other, so printing item by item
    /// gives the same text while only one item's tree is alive. Quoted pieces are parsed here.
    fn source(&mut self, a: &AgentOutput) -> Result<String, Diagnostics> {
        let mut source = String::new();
        let mut file = syn::File {
            shebang: None,
            frontmatter: None,
            attrs: Vec::new(),
            items: Vec::with_capacity(1),
        };
        let mut print = |item: syn::Item| {
            file.items.push(item);
            source.push_str(&prettyplease::unparse(&file));
            file.items.clear();
        };
        let mut unparsed = None;
        self.emit(a, &mut |piece| match piece {
            emit::Piece::Tree(item) => print(item),
            emit::Piece::Quoted(tokens) => match syn::parse2::<syn::File>(tokens) {
                Ok(parsed) => parsed.items.into_iter().for_each(&mut print),
                Err(e) => {
                    unparsed.get_or_insert(e);
                }
            },
        })?;
        match unparsed {
            Some(e) => Err(generator_bug(Some(&a.name), &e)),
            None => Ok(source),
        }
    }
}

impl AgentOutput {
    /// The items as tokens (what `agent!` expands to).
    pub fn tokens(&self) -> Result<TokenStream, Diagnostics> {
        let mut tokens = TokenStream::new();
        Emitter::with(self, |e| e.tokens(self, &mut tokens))?;
        Ok(tokens)
    }

    /// The items as formatted source (prettyplease).
    pub fn to_source(&self) -> Result<String, Diagnostics> {
        Emitter::with(self, |e| e.source(self))
    }
}

/// Formats items as Rust source with prettyplease.
pub fn format(tokens: TokenStream) -> Result<String, Diagnostics> {
    let file: syn::File = syn::parse2(tokens).map_err(|e| generator_bug(None, &e))?;
    Ok(prettyplease::unparse(&file))
}

impl Output {
    /// Every agent's items in one stream.
    pub fn tokens(&self) -> Result<TokenStream, Diagnostics> {
        let Some(first) = self.agents.first() else {
            return Ok(TokenStream::new());
        };
        let mut tokens = TokenStream::new();
        Emitter::with(first, |emitter| {
            self.agents
                .iter()
                .try_for_each(|a| emitter.tokens(a, &mut tokens))
        })?;
        Ok(tokens)
    }

    /// Every agent's items as one formatted source file (for `include!`).
    pub fn to_source(&self) -> Result<String, Diagnostics> {
        Ok(self.sources()?.concat())
    }

    /// Each agent's formatted source, in agent order, printed on up to `available_parallelism`
    /// threads ([`Output::sources_on`]).
    pub fn sources(&self) -> Result<Vec<String>, Diagnostics> {
        self.sources_on(std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
    }

    /// Each agent's formatted source, in agent order, printed on at most `threads` threads
    /// (0 and 1 both mean the calling thread only), balanced by field count; each thread parses
    /// its own templates. A single agent always stays on the calling thread.
    pub fn sources_on(&self, threads: usize) -> Result<Vec<String>, Diagnostics> {
        let threads = threads.min(self.agents.len());
        let Some(first) = self.agents.first() else {
            return Ok(Vec::new());
        };
        if threads <= 1 {
            return Emitter::with(first, |emitter| {
                self.agents.iter().map(|a| emitter.source(a)).collect()
            });
        }
        // Largest first onto the least loaded thread.
        let mut order: Vec<usize> = (0..self.agents.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.agents[i].fields));
        let mut shares: Vec<(usize, Vec<usize>)> = vec![(0, Vec::new()); threads];
        for i in order {
            if let Some(share) = shares.iter_mut().min_by_key(|s| s.0) {
                share.0 += self.agents[i].fields + 1;
                share.1.push(i);
            }
        }
        let results = std::thread::scope(|scope| {
            let handles: Vec<_> = shares
                .into_iter()
                .map(|(_, share)| {
                    scope.spawn(move || -> Result<Vec<(usize, String)>, Diagnostics> {
                        Emitter::with(first, |emitter| {
                            share
                                .into_iter()
                                .map(|i| Ok((i, emitter.source(&self.agents[i])?)))
                                .collect()
                        })
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join()).collect::<Vec<_>>()
        });
        let mut sources = vec![String::new(); self.agents.len()];
        let mut problems = Vec::new();
        for result in results {
            match result {
                Ok(Ok(done)) => {
                    for (i, source) in done {
                        sources[i] = source;
                    }
                }
                Ok(Err(Diagnostics(d))) => problems.extend(d),
                Err(_) => problems.push(Diagnostic {
                    file: None,
                    agent: None,
                    path: "$".to_owned(),
                    message: "a code generation thread panicked (a generator bug)".to_owned(),
                }),
            }
        }
        if problems.is_empty() {
            Ok(sources)
        } else {
            Err(Diagnostics(problems))
        }
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
        for (a, body) in self.agents.iter().zip(self.sources()?) {
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
