//! JSON Schema rules checked over typed values.
//!
//! A [`Schema`] is read once (draft 2020-12, 2019-09, 7, 6 or 4, chosen by `$schema`; 2020-12
//! when it names none, and a document a reference reads in the root's draft unless it names its
//! own): every keyword that constrains a value is compiled, every reference resolved — `$id`
//! base URIs and embedded resources, `$anchor`, `$dynamicRef`/`$dynamicAnchor` and 2019-09's
//! `$recursiveRef`, the bundled metaschemas of every one of those drafts, and documents
//! the caller supplies by URI (never the network). What cannot be honoured (an unknown `type`,
//! a pattern that does not compile, a reference to nothing) is a [`Problem`] with its JSON
//! pointer.
//!
//! [`Schema::check`] then walks any [`Instance`] — a `serde_json::Value`, or a record generated
//! by `agents-codegen`, whose fields are typed — and records each [`Breach`] with its path, the
//! keyword, the rule and the value. `format` is an annotation, as every one of these drafts
//! makes it by default; it is not checked.
//!
//! ```
//! use agents_check::Schema;
//! use serde_json::json;
//!
//! let schema = Schema::compile(&json!({
//!     "type": "object",
//!     "required": ["price"],
//!     "properties": {"rating": {"type": "number", "maximum": 5}}
//! }));
//! assert!(schema.problems().is_empty());
//!
//! let breaches = schema.check(&json!({"rating": 47}));
//! assert_eq!(breaches.len(), 2);
//! assert_eq!(breaches[0].to_string(), "price: missing, and `required` (/required) requires it");
//! assert_eq!(breaches[1].path, "rating");
//! assert_eq!(breaches[1].keyword, "maximum");
//! assert!(schema.is_valid(&json!({"price": 3, "rating": 4.5})));
//! ```

mod check;
mod compile;
mod instance;
mod localize;
pub mod path;
mod pattern;
#[cfg(feature = "sample")]
mod sample;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use check::{Breach, DEPTH_KEYWORD};
pub use compile::{DEFAULT_BASE, Draft, Problem, ProblemKind};
pub use instance::{Instance, Kind, TYPE_NAMES, equal, is_integer};
pub use pattern::Pattern;
#[cfg(feature = "sample")]
pub use sample::{ARRAY_LEN, Leaves};

/// A document read from a file that [`Schema::bundled_from_files`] or
/// [`Schema::localized_from_files`] embeds in the schema it gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Embedded<'a> {
    /// Where it stands in that schema: a JSON pointer (`/$defs/price`).
    pub pointer: String,
    /// The file's text, as read.
    pub text: &'a str,
    /// The file.
    pub file: &'a Path,
}

/// Whether a schema declaring the metaschema `meta` (its `$schema`; `None` for none, read as
/// draft 2020-12) has `keyword`. `false` only for a keyword that a draft brought in or dropped
/// and this one lacks (`const` in draft 4, `prefixItems` before 2020-12, `dependencies` after
/// draft 7, …): the check ignores such a keyword, as that draft's validators do, and reports it
/// ([`Schema::problems`]).
///
/// ```
/// use agents_check::draft_has;
///
/// assert!(!draft_has(Some("http://json-schema.org/draft-04/schema#"), "const"));
/// assert!(draft_has(Some("http://json-schema.org/draft-07/schema#"), "const"));
/// assert!(!draft_has(Some("http://json-schema.org/draft-07/schema#"), "prefixItems"));
/// assert!(draft_has(None, "prefixItems"));
/// assert!(draft_has(None, "title"));
/// ```
pub fn draft_has(meta: Option<&str>, keyword: &str) -> bool {
    compile::draft_has(meta, keyword)
}

/// A compiled schema.
pub struct Schema {
    compiled: compile::Compiled,
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Schema")
            .field("nodes", &self.compiled.nodes.len())
            .field("problems", &self.compiled.problems)
            .finish_non_exhaustive()
    }
}

/// Where a schema is and what it may refer to.
#[derive(Debug, Clone, Default)]
pub struct Options {
    base: Option<String>,
    documents: HashMap<String, Value>,
    directories: Vec<(String, PathBuf)>,
}

impl Options {
    /// Options with the default base URI and no other documents.
    pub fn new() -> Self {
        Options::default()
    }

    /// The base URI of the schema when it declares no `$id` (for a file, its `file://` URL),
    /// which its relative references resolve against.
    #[must_use]
    pub fn base(mut self, uri: impl Into<String>) -> Self {
        self.base = Some(uri.into());
        self
    }

    /// A document that references may name by `uri` (as resolved: absolute, no fragment).
    #[must_use]
    pub fn document(mut self, uri: impl Into<String>, schema: Value) -> Self {
        let uri = uri.into();
        let uri = uri.trim_end_matches('#').to_owned();
        self.documents.insert(uri, schema);
        self
    }

    /// Documents whose URIs start with `prefix` are the files under `dir` (`prefix` +
    /// `a/b.json` is `dir/a/b.json`), read when a reference names one: a user's remote
    /// references resolved from local files, never the network.
    #[must_use]
    pub fn directory(mut self, prefix: impl Into<String>, dir: impl Into<PathBuf>) -> Self {
        self.directories.push((prefix.into(), dir.into()));
        self
    }

    /// Compiles `schema` with these options.
    pub fn compile(self, schema: &Value) -> Schema {
        self.compile_owned(schema.clone())
    }

    /// [`Options::compile`] of a schema the caller has no further use for: the compiled schema
    /// keeps it as its document instead of a copy.
    pub fn compile_owned(self, schema: Value) -> Schema {
        let base = self.base.unwrap_or_else(|| DEFAULT_BASE.to_owned());
        Schema {
            compiled: compile::Compiler::new(self.documents, self.directories)
                .compile(schema, &base),
        }
    }
}

impl Schema {
    /// Compiles `schema` with the default base URI and no other documents than the
    /// metaschemas.
    pub fn compile(schema: &Value) -> Schema {
        Options::new().compile(schema)
    }

    /// Compiles the JSON Schema `text` (a byte order mark before it skipped), reporting what
    /// the value read would hide: a key given twice in one object is a problem at its pointer
    /// ([`ProblemKind::RepeatedKey`]), and text that is not JSON is one at the root
    /// ([`ProblemKind::Unreadable`]) and compiles to a schema that checks nothing.
    ///
    /// ```
    /// use agents_check::{ProblemKind, Schema};
    ///
    /// let schema = Schema::from_text(r#"{"properties": {"stars": {"maximum": 5, "maximum": 50}}}"#);
    /// assert_eq!(schema.problems()[0].kind, ProblemKind::RepeatedKey);
    /// assert_eq!(schema.problems()[0].pointer, "/properties/stars/maximum");
    ///
    /// let broken = Schema::from_text(r#"{"properties": {},}"#);
    /// assert_eq!(broken.problems()[0].kind, ProblemKind::Unreadable);
    /// assert!(broken.is_valid(&serde_json::json!(47)));
    /// ```
    pub fn from_text(text: &str) -> Schema {
        let text = agents_wire::json::text_without_bom(text);
        match agents_wire::json::from_str::<Value>(text) {
            Ok(value) => {
                let mut schema = Options::new().compile_owned(value);
                let repeated = compile::repeated_keys(text).into_iter();
                let problems = repeated.map(|(pointer, message)| Problem {
                    kind: ProblemKind::RepeatedKey,
                    pointer,
                    document: None,
                    file: None,
                    message,
                });
                // In the order of the text, before what compiling found.
                let found = std::mem::take(&mut schema.compiled.problems);
                schema.compiled.problems = problems.chain(found).collect();
                schema
            }
            Err(e) => {
                let mut schema = Options::new().compile_owned(Value::Bool(true));
                schema.compiled.problems.push(Problem {
                    kind: ProblemKind::Unreadable,
                    pointer: String::new(),
                    document: None,
                    file: None,
                    message: format!("the schema is not JSON ({e}); nothing is checked"),
                });
                schema
            }
        }
    }

    /// The schema as it was given.
    pub fn document(&self) -> &Value {
        &self.compiled.docs[0]
    }

    /// The draft the schema declares with `$schema` (2020-12 when it names none): which
    /// keywords it has.
    ///
    /// ```
    /// use agents_check::{Draft, Schema};
    /// use serde_json::json;
    ///
    /// let schema = Schema::compile(&json!({"$schema": "http://json-schema.org/draft-07/schema#"}));
    /// assert_eq!(schema.draft(), Draft::Draft7);
    /// assert_eq!(Schema::compile(&json!({})).draft(), Draft::Draft2020);
    /// ```
    pub fn draft(&self) -> Draft {
        compile::root_draft(self.document())
    }

    /// The schema with every document it refers to outside itself (supplied, or read from a
    /// directory; not the metaschemas, which every compile has) embedded under `$defs` with its
    /// URI as `$id`, so that it compiles alone to the same checks: what a generated record
    /// carries. Borrowed when that is the schema as it was given.
    pub fn bundled(&self) -> Cow<'_, Value> {
        compile::bundle(&self.compiled).0
    }

    /// [`Schema::bundled`], and where in it each document read from a file is, with the
    /// file's text: a `Value` sorts its keys, and a caller that keeps the order a schema's
    /// properties are written in (the order of the fields generated from it) takes it from the
    /// text.
    pub fn bundled_from_files(&self) -> (Cow<'_, Value>, Vec<Embedded<'_>>) {
        let (value, placed) = compile::bundle(&self.compiled);
        (value, self.embedded(placed))
    }

    /// The schema as one document whose every reference it follows is a JSON pointer from its
    /// root (`#/$defs/…`): references by `$id` base URI, `$anchor` and to other documents
    /// (embedded under `$defs`, named by the last segment of their URI) rewritten, a
    /// `$dynamicRef` written as the `$ref` it means from the root. For a reader that follows
    /// only local pointers, such as a generator of types. Borrowed when that is the schema as it
    /// was given.
    pub fn localized(&self) -> Cow<'_, Value> {
        localize::localized(&self.compiled).0
    }

    /// [`Schema::localized`], and where in it each document read from a file is, with the
    /// file's text (as [`Schema::bundled_from_files`]).
    pub fn localized_from_files(&self) -> (Cow<'_, Value>, Vec<Embedded<'_>>) {
        let (value, placed) = localize::localized(&self.compiled);
        (value, self.embedded(placed))
    }

    fn embedded(&self, placed: Vec<(String, usize)>) -> Vec<Embedded<'_>> {
        placed
            .into_iter()
            .filter_map(|(pointer, doc)| {
                let (text, file) = self.compiled.texts.get(doc)?.as_ref()?;
                Some(Embedded {
                    pointer,
                    text,
                    file,
                })
            })
            .collect()
    }

    /// The files its references were read from (through [`Options::directory`]), in the order
    /// they were read: what a build must watch to follow the schema.
    pub fn files(&self) -> &[PathBuf] {
        &self.compiled.files
    }

    /// What in the schema cannot be honoured, each with its JSON pointer.
    pub fn problems(&self) -> &[Problem] {
        &self.compiled.problems
    }

    /// Every rule `value` breaks.
    pub fn check(&self, value: &dyn Instance) -> Vec<Breach> {
        let mut out = Vec::new();
        self.check_into(value, &mut out);
        out
    }

    /// Appends every rule `value` breaks to `out`; true when there is none.
    pub fn check_into(&self, value: &dyn Instance, out: &mut Vec<Breach>) -> bool {
        check::Eval::new(&self.compiled, Some(out)).root(value, false)
    }

    /// [`Schema::check_into`] for a value whose Rust type was generated from this schema (a
    /// generated record and its root schema): where a subschema says nothing but `type`,
    /// `properties` and `items`, and the value's type holds only what it allows
    /// ([`Instance::exact`]), the value is not looked at. Given a value of another type, it
    /// may miss breaches that [`Schema::check_into`] finds.
    pub fn check_generated_into(&self, value: &dyn Instance, out: &mut Vec<Breach>) -> bool {
        check::Eval::new(&self.compiled, Some(out)).root(value, true)
    }

    /// True when `value` breaks no rule (stops at the first breach).
    pub fn is_valid(&self, value: &dyn Instance) -> bool {
        check::Eval::new(&self.compiled, None).root(value, false)
    }

    /// A value the schema accepts, the same for the same seed, looking as `leaves` says where
    /// the schema leaves it free; the best value found when none of the few tried is valid
    /// (`null` when the schema accepts nothing).
    #[cfg(feature = "sample")]
    pub fn sample(&self, seed: u64, leaves: &dyn Leaves) -> Value {
        sample::Sampler::new(&self.compiled, leaves).root(seed)
    }
}
