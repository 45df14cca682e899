//! Typed Rust bindings from agent records of the web data extraction service.
//!
//! One pipeline serves every front door (the `agent!` macro, [`Builder`] in build scripts,
//! `cargo xtask codegen` and `cargo agents generate`), each filling one settings type,
//! [`Options`]. Only the pipeline's ends are public, so its intermediate form can change freely:
//!
//! 1. **parse**: [`agents_schema::AgentRecord`] reads each record, reporting every shape error
//!    with its JSON path ([`load_dir`] and [`load_file`] attach the file);
//! 2. **check / lower** (the private `ir` module): every Rust name is claimed (`naming`), every
//!    type resolved (`types`), each input's rules (read once, with the record: [`rules`]) fitted
//!    to its type, and doc text made safe (`docs`); problems of all agents are collected into
//!    one [`Diagnostics`];
//! 3. **emit** (`emit`): records, the params type and the trait impls written as source text,
//!    exactly as prettyplease prints them (an item the writer cannot be sure of is marked and
//!    parsed), enums as `syn` trees;
//! 4. **format**: `prettyplease` over the trees, deterministic byte for byte (the macro path
//!    lexes the same text into tokens and prints the trees as tokens).
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
pub mod catalog;
mod docs;
mod emit;
mod emitter;
pub mod expand;
mod format;
mod ir;
pub mod locate;
mod naming;
mod source;
mod types;

use std::collections::BTreeMap;

use agents_schema::AgentRecord;
use proc_macro2::TokenStream;

pub use agents_schema::diag::{Collector, Diagnostic, Diagnostics, Severity};
pub use agents_schema::files::{Loaded, load_dir, load_file, schema_files};
pub use agents_schema::rules;
pub use builder::Builder;
use emitter::Emitter;
pub use format::{format, rustfmt};
pub use source::write_if_changed;

/// The generator's settings, the one type every front door fills: [`Builder::options`] in a
/// build script, `agent!("name", rename = …, localized = […], paginated = …, runtime = …)` and
/// `cargo agents generate --rename/--localized/--paginated`. Built with `Options::default()` and
/// the methods below (more may come, so it is built that way rather than written out).
///
/// ```
/// let options = agents_codegen::Options::default()
///     .runtime_path("crate")
///     .rename("foo__bar", "FooBarDouble");
/// assert_eq!(options.runtime_path, "crate");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Options {
    /// Path of the runtime crate in the generated code: `::agents_runtime` (the default) for
    /// code in users' crates, `crate` for the bindings inside the runtime itself. A plain path
    /// (no generic arguments); generated code spells it without spaces however it is written.
    pub runtime_path: String,
    /// Type names for agents' records instead of the ones derived from the agent names
    /// (`"foo__bar"` → `"FooBarDouble"`): the way out when two agents of one module would have the
    /// same type names. The params type and nested types follow (`FooBarDoubleParams`).
    pub renames: BTreeMap<String, String>,
    /// Agents' localization and pagination set by hand instead of derived from their records
    /// (see [`Options::localized`] and [`Options::paginated`]).
    pub capabilities: BTreeMap<String, Capabilities>,
    /// Where schemas' references outside themselves are read from: a URI prefix and the
    /// directory of its files (see [`Options::documents`]).
    pub documents: BTreeMap<String, std::path::PathBuf>,
}

/// An agent's localization and pagination as [`Options`] set them; `None` leaves the record's.
///
/// A `/v2` record carries no flags, so the generator derives both from the inputs' names
/// (`zip_code` and `store_id` localize, a numeric `page` pages); these override that, and a
/// `/v1` record's flags, for one agent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Capabilities {
    /// The inputs that localize a request; empty: the agent is not localized.
    pub localization: Option<Vec<String>>,
    /// The input that is the page number; `Some(None)`: the agent does not page.
    pub pagination: Option<Option<String>>,
}

impl Options {
    /// The path of the runtime crate in the generated code: `::agents_runtime` (the default) in
    /// users' crates, `crate` inside the runtime itself.
    #[must_use]
    pub fn runtime_path(mut self, path: impl Into<String>) -> Self {
        self.runtime_path = path.into();
        self
    }

    /// Makes `inputs` the localization inputs of agent `agent` (none: not localized), so its
    /// params type implements `Localized` exactly when there is one.
    ///
    /// ```
    /// let options = agents_codegen::Options::default()
    ///     .localized("store_finder", ["postcode"])
    ///     .paginated("store_finder", Some("page_no"));
    /// # let _ = options;
    /// ```
    #[must_use]
    pub fn localized<I, S>(mut self, agent: impl Into<String>, inputs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.capabilities
            .entry(agent.into())
            .or_default()
            .localization = Some(inputs.into_iter().map(Into::into).collect());
        self
    }

    /// Makes `input` the page number of agent `agent` (`None`: it does not page), so it
    /// implements `Paginated` exactly when there is one.
    #[must_use]
    pub fn paginated(mut self, agent: impl Into<String>, input: Option<&str>) -> Self {
        self.capabilities
            .entry(agent.into())
            .or_default()
            .pagination = Some(input.map(str::to_owned));
        self
    }

    /// Adds a rename: agent `agent`'s record type is `type_name` (see [`Options::renames`]).
    #[must_use]
    pub fn rename(mut self, agent: impl Into<String>, type_name: impl Into<String>) -> Self {
        self.renames.insert(agent.into(), type_name.into());
        self
    }

    /// Reads the documents whose URIs start with `prefix` from the files under `dir`, when a
    /// schema refers to one (`"$ref": "https://example.com/schemas/price.json"` with prefix
    /// `https://example.com/schemas/` is `dir/price.json`). Nothing is fetched from the
    /// network; the documents used are embedded in the schema each record carries, so its
    /// checks need no files at run time.
    ///
    /// ```
    /// let options = agents_codegen::Options::default()
    ///     .documents("https://example.com/schemas/", "schemas/shared");
    /// assert_eq!(options.documents.len(), 1);
    /// ```
    #[must_use]
    pub fn documents(
        mut self,
        prefix: impl Into<String>,
        dir: impl Into<std::path::PathBuf>,
    ) -> Self {
        self.documents.insert(prefix.into(), dir.into());
        self
    }
}

impl Options {
    /// These options with every relative directory of [`Options::documents`] taken from
    /// `base` (a package's manifest directory): a macro runs wherever the compiler does.
    pub(crate) fn documents_under(&self, base: &std::path::Path) -> Options {
        let mut options = self.clone();
        for dir in options.documents.values_mut() {
            if dir.is_relative() {
                *dir = base.join(&*dir);
            }
        }
        options
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            runtime_path: "::agents_runtime".to_owned(),
            renames: BTreeMap::new(),
            capabilities: BTreeMap::new(),
            documents: BTreeMap::new(),
        }
    }
}

/// `records` with the localization and pagination `capabilities` set (cloned only where one
/// is); every override naming an agent or an input that is not there is reported, together.
fn with_capabilities<'r>(
    records: &[&'r AgentRecord],
    capabilities: &BTreeMap<String, Capabilities>,
) -> Result<Vec<std::borrow::Cow<'r, AgentRecord>>, Diagnostics> {
    let mut found = Collector::default();
    for agent in capabilities.keys() {
        if !records.iter().any(|r| &r.name == agent) {
            found.push(Diagnostic::new(
                agent,
                "capabilities",
                "localization or pagination is set for this agent, which is not among the agents generated",
            ));
        }
    }
    let mut out = Vec::with_capacity(records.len());
    for record in records {
        let Some(c) = capabilities.get(&record.name) else {
            out.push(std::borrow::Cow::Borrowed(*record));
            continue;
        };
        let mut owned = (*record).clone();
        if let Some(inputs) = &c.localization
            && let Err(e) = owned.set_localization(inputs)
        {
            found.push(Diagnostic::new(&record.name, "localized", &e));
        }
        if let Some(page) = &c.pagination
            && let Err(e) = owned.set_pagination(page.as_deref())
        {
            found.push(Diagnostic::new(&record.name, "paginated", &e));
        }
        out.push(std::borrow::Cow::Owned(owned));
    }
    found.finish(out)
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
    /// The files the schemas' references were read from ([`Options::documents`]): a change to
    /// one changes the bindings, so front doors watch them.
    pub files: Vec<std::path::PathBuf>,
}

/// Generates the bindings of `records` together: one namespace for all their types.
pub fn generate(records: &[AgentRecord], options: &Options) -> Result<Output, Diagnostics> {
    let refs: Vec<&AgentRecord> = records.iter().collect();
    generate_refs(&refs, options)
}

/// [`generate`] over borrowed records: parses the runtime path, then lowers every record into
/// the model (collecting every problem). Items are emitted when they are asked for.
pub fn generate_refs(records: &[&AgentRecord], options: &Options) -> Result<Output, Diagnostics> {
    let given = options.runtime_path.trim();
    let path = syn::parse_str::<syn::Path>(given).map_err(|e| {
        Diagnostic::at("runtime_path", format!("{given:?} is not a Rust path: {e}"))
    })?;
    // One spelling of the path for every item that names it, however it was written.
    let rt_text = emit::path_text(&path).ok_or_else(|| {
        Diagnostic::at(
            "runtime_path",
            format!(
                "{given:?} has generic arguments; name the runtime crate with a plain path, \
                 such as `::agents_runtime` or `crate::rt`"
            ),
        )
    })?;
    let rt_text = rt_text.as_str();
    let adjusted = with_capabilities(records, &options.capabilities)?;
    let records: Vec<&AgentRecord> = adjusted.iter().map(|r| &**r).collect();
    let unit = ir::lower(&records, &options.renames, &options.documents)?;
    let warnings = unit.warnings;
    let files = unit.files;
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
    Ok(Output {
        agents,
        warnings,
        files,
    })
}

impl AgentOutput {
    /// The name of the agent's record type (`RetailerAPdp`); its params type is this name
    /// followed by `Params`.
    pub fn type_name(&self) -> &str {
        self.ir.structs.first().map_or("", |s| s.ident.as_str())
    }

    /// How a program makes the agent's params: the constructor call with the required inputs
    /// as its arguments, in order (`RetailerAPdpParams::new(asin)`), and the setter of each
    /// optional input (`zip_code`).
    pub fn params_call(&self) -> (String, Vec<&str>) {
        let fields = &self.ir.params.fields;
        let required: Vec<&str> = (fields.iter().filter(|f| f.required))
            .map(|f| f.ident.as_str())
            .collect();
        let setters = (fields.iter().filter(|f| !f.required))
            .map(|f| f.ident.as_str())
            .collect();
        let new = format!("{}::new({})", self.ir.params.ident, required.join(", "));
        (new, setters)
    }

    /// The items as tokens (what `agent!` expands to).
    pub fn tokens(&self) -> Result<TokenStream, Diagnostics> {
        let mut tokens = TokenStream::new();
        Emitter::new(&self.runtime_path, &self.name)?.tokens(&self.ir, &mut tokens)?;
        Ok(tokens)
    }

    /// The items as formatted source (prettyplease).
    pub fn to_source(&self) -> Result<String, Diagnostics> {
        Emitter::new(&self.runtime_path, &self.name)?.source(&self.ir)
    }
}

impl Output {
    /// Every agent's items in one stream.
    pub fn tokens(&self) -> Result<TokenStream, Diagnostics> {
        let Some(first) = self.agents.first() else {
            return Ok(TokenStream::new());
        };
        let mut tokens = TokenStream::new();
        let emitter = Emitter::new(&first.runtime_path, &first.name)?;
        for a in &self.agents {
            emitter.tokens(&a.ir, &mut tokens)?;
        }
        Ok(tokens)
    }

    /// Every agent's items as one formatted source file (for `include!`).
    pub fn to_source(&self) -> Result<String, Diagnostics> {
        Ok(self.sources()?.concat())
    }

    /// Each agent's formatted source, in agent order.
    pub fn sources(&self) -> Result<Vec<String>, Diagnostics> {
        let Some(first) = self.agents.first() else {
            return Ok(Vec::new());
        };
        let emitter = Emitter::new(&first.runtime_path, &first.name)?;
        self.agents.iter().map(|a| emitter.source(&a.ir)).collect()
    }

    /// Total generated types.
    pub fn type_count(&self) -> usize {
        self.agents.iter().map(|a| a.types).sum()
    }

    /// Total output fields and params.
    pub fn field_count(&self) -> usize {
        self.agents.iter().map(|a| a.fields).sum()
    }

    /// `visit`: the agent's types chosen by its name at run time, for a module of bindings.
    fn visit_fn(&self) -> String {
        let rt = self
            .agents
            .first()
            .map_or("::agents_runtime", |a| a.runtime_path.as_str());
        let mut f = format!(
            "\n/// Calls `visitor` with the output record type of the agent named `agent`; `None` when\n\
             /// this module has no such agent.\n\
             pub fn visit<V: {rt}::AgentVisitor>(agent: &str, visitor: V) -> Option<V::Output> {{\n\
             Some(match agent {{\n"
        );
        for a in &self.agents {
            if let Some(root) = a.ir.structs.first() {
                f.push_str(&format!(
                    "{:?} => visitor.visit::<{}>(),\n",
                    a.ir.name,
                    naming::display(&root.ident)
                ));
            }
        }
        f.push_str("_ => return None,\n})\n}\n");
        f
    }

    /// A module tree: `mod.rs` (documented with `doc`, declaring one private module per agent,
    /// re-exporting its items, and a `visit` function choosing an agent's types by name) plus one
    /// file per agent, each starting with `header`.
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
        root.push_str(&self.visit_fn());
        files.push(("mod.rs".to_owned(), root));
        for (a, body) in self.agents.iter().zip(self.sources()?) {
            files.push((format!("{}.rs", a.module), format!("{header}\n{body}")));
        }
        files.sort();
        Ok(files)
    }
}

/// The text every item is written as, against prettyplease.
#[cfg(test)]
mod text_tests {
    use crate::emit::{ItemText, Piece};
    use crate::emitter::Emitter;

    /// Every item written as text and marked formatted is exactly what prettyplease prints for
    /// it, for the catalog, the test schemas and arbitrary records, under runtime paths short
    /// and long; and every item of the catalog and the test schemas is written formatted, which
    /// is what makes text worth writing.
    /// An item written to stand in a macro call, one step in, as it stands alone.
    fn unindented(item: ItemText) -> ItemText {
        let mut text = String::with_capacity(item.text.len());
        for line in item.text.lines() {
            text.push_str(line.strip_prefix("    ").unwrap_or(line));
            text.push('\n');
        }
        ItemText { text, ..item }
    }

    #[test]
    fn text_marked_formatted_is_what_prettyplease_prints() {
        let root = agents_test_support::workspace_root();
        let mut records = Vec::new();
        for dir in [
            agents_test_support::schemas_dir(),
            root.join("tests/modes/schemas"),
            root.join("tests/json-schema"),
        ] {
            match crate::load_dir(&dir) {
                Ok(loaded) => records.extend(loaded.into_iter().map(|l| (true, l.record))),
                Err(e) => panic!("{}: {e}", dir.display()),
            }
        }
        for seed in [3, 7, 11] {
            let sample = agents_test_support::fixed_sample(120, seed);
            records.extend(sample.into_iter().map(|r| (false, r)));
        }
        let (mut checked, mut formatted, mut ours_unformatted) = (0, 0, Vec::new());
        for rt in [
            "::agents_runtime",
            "crate",
            "::a_runtime_crate_with_a_long_name::and_a_module_of_its_own::rt",
        ] {
            let options = crate::Options {
                runtime_path: rt.to_owned(),
                ..crate::Options::default()
            };
            for (ours, record) in &records {
                let Ok(out) = crate::generate(std::slice::from_ref(record), &options) else {
                    continue;
                };
                for agent in &out.agents {
                    let emitter = match Emitter::new(rt, &agent.name) {
                        Ok(e) => e,
                        Err(e) => panic!("{e}"),
                    };
                    let mut texts = Vec::new();
                    emitter.emit(&agent.ir, &mut |piece| match piece {
                        Piece::Text(t) => texts.push(t),
                        Piece::Macro { item, .. } => texts.push(unindented(item)),
                    });
                    for t in texts {
                        let file = match syn::parse_file(&t.text) {
                            Ok(file) => file,
                            Err(e) => panic!("{}: {e}\n{}", agent.name, t.text),
                        };
                        checked += 1;
                        if t.formatted {
                            formatted += 1;
                            let pretty = prettyplease::unparse(&file);
                            assert_eq!(t.text, pretty, "{} under {rt}", agent.name);
                        } else if *ours && rt == "::agents_runtime" {
                            ours_unformatted.push(agent.name.clone());
                        }
                    }
                }
            }
        }
        assert!(checked > 500, "{checked}");
        eprintln!("{formatted} of {checked} items written as prettyplease prints them");
        assert!(
            ours_unformatted.is_empty(),
            "left to prettyplease: {ours_unformatted:?}"
        );
    }
}
