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
use crate::{Options, generate_refs};

type Key = (PathBuf, u64, Option<SystemTime>, Options);

fn cache() -> &'static Mutex<HashMap<Key, String>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, String>>> = OnceLock::new();
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
/// `options` (the runtime's path among them), plus an `include_bytes!` of the
/// schema file so that editing it rebuilds the
/// code that uses it, as token text: the proc macro hands it to the compiler in one
/// `proc_macro::TokenStream::from_str`, so the engine runs on proc-macro2's own token types
/// (`proc_macro2::fallback::force`) instead of one compiler round trip per token. Errors are
/// messages for a compile error on the macro's argument.
pub fn expand(name: &str, options: &Options, manifest_dir: &Path) -> Result<String, String> {
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
    if let Some(text) = cached {
        return Ok(text);
    }
    let output = generate_refs(&[&loaded.record], options).map_err(|d| d.to_string())?;
    let items = output.tokens().map_err(|d| d.to_string())?;
    let file = path.to_string_lossy().into_owned();
    let text = quote! {
        #items
        const _: &[u8] = include_bytes!(#file);
    }
    .to_string();
    *generated()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(path)
        .or_default() += 1;
    cache()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(key, text.clone());
    Ok(text)
}
