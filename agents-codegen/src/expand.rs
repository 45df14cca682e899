//! What `agent!("name")` expands to, kept here so the proc-macro crate is a thin shell and tests
//! can compare its output with the other front doors.
//!
//! Expansions are cached per process by (schema file, its size and modification time, the
//! call's [`Options`]), so ten invocations of the same agent in one crate generate once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::SystemTime;

use quote::quote;

use crate::locate::locate;
use crate::{Diagnostics, Options, generate_refs};

type Key = (PathBuf, u64, Option<SystemTime>, Options);

/// An expansion: the items as token text, and the warnings the macro shows as compiler
/// warnings (each a problem of the schema, with its JSON pointer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    /// The items, as token text.
    pub text: String,
    /// Each warning of the generator, one line each.
    pub warnings: Vec<String>,
}

fn cache() -> &'static Mutex<HashMap<Key, Expansion>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Expansion>>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

fn generated() -> &'static Mutex<HashMap<PathBuf, usize>> {
    static GENERATED: OnceLock<Mutex<HashMap<PathBuf, usize>>> = OnceLock::new();
    GENERATED.get_or_init(Mutex::default)
}

/// How many times the expansion of `schema_file` was generated (not served from the cache) in
/// this process: a hook for the tests of the cache, not part of the API.
#[doc(hidden)]
pub fn times_generated(schema_file: &Path) -> usize {
    let path = schema_file
        .canonicalize()
        .unwrap_or_else(|_| schema_file.to_path_buf());
    generated()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&path)
        .copied()
        .unwrap_or(0)
}

/// The items for agent `name` of the package at `manifest_dir`, generated with the call's
/// `options` (the runtime's path among them; relative document directories taken from
/// `manifest_dir`), plus an `include_bytes!` of the schema file and of every document its
/// references were read from, so that editing one rebuilds the code that uses it, as token text: the proc macro hands it to the compiler in one
/// `proc_macro::TokenStream::from_str`, so the engine runs on proc-macro2's own token types
/// (`proc_macro2::fallback::force`) instead of one compiler round trip per token. Errors are
/// messages for a compile error on the macro's argument. The warnings are in
/// [`expand_with_warnings`], which the macro calls.
pub fn expand(name: &str, options: &Options, manifest_dir: &Path) -> Result<String, String> {
    expand_with_warnings(name, options, manifest_dir).map(|e| e.text)
}

/// [`expand`], with the generator's warnings.
pub fn expand_with_warnings(
    name: &str,
    options: &Options,
    manifest_dir: &Path,
) -> Result<Expansion, String> {
    let loaded = locate(name, manifest_dir).map_err(|e| e.to_string())?;
    let path = loaded
        .path
        .canonicalize()
        .unwrap_or_else(|_| loaded.path.clone());
    let meta = std::fs::metadata(&path).ok();
    let key: Key = (
        path.clone(),
        meta.as_ref().map_or(0, std::fs::Metadata::len),
        meta.and_then(|m| m.modified().ok()),
        options.clone(),
    );
    let cached = cache()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
        .cloned();
    if let Some(expansion) = cached {
        return Ok(expansion);
    }
    // Each problem of the schema's text names its file, as a problem reading it does.
    let output = generate_refs(&[&loaded.record], &options.documents_under(manifest_dir)).map_err(
        |Diagnostics(d)| Diagnostics(d.into_iter().map(|d| loaded.place(d)).collect()).to_string(),
    )?;
    let items = output.tokens().map_err(|d| d.to_string())?;
    let file = path.to_string_lossy().into_owned();
    let read = output
        .files
        .iter()
        .map(|f| f.to_string_lossy().into_owned());
    let text = quote! {
        #items
        const _: &[u8] = include_bytes!(#file);
        #(const _: &[u8] = include_bytes!(#read);)*
    }
    .to_string();
    let expansion = Expansion {
        text,
        warnings: output
            .warnings
            .iter()
            .map(|w| loaded.place(w.clone()).to_string())
            .collect(),
    };
    *generated()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(path)
        .or_default() += 1;
    cache()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(key, expansion.clone());
    Ok(expansion)
}
