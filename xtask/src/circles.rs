//! `cargo xtask circles`: import circles between the files of each crate, which CI refuses.
//!
//! A file depends on another when it names an item through a path (in a `use` or inline, from
//! `crate::`, `super::`, `self::` or a child module's name) that resolves into the other file's
//! module. A path that goes
//! through a `pub use` re-export (`super::RetryPolicy` re-exported by `client/mod.rs` from
//! `client/retry.rs`) depends on the file that defines the item, not on the re-exporting one,
//! and a `pub use` itself is no dependency. `mod` declarations are not dependencies either.
//! Circles are strongly connected components of more than one file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// A module path from the crate root (`["client", "retry"]`; empty for the root).
type Module = Vec<String>;

/// The crates whose files are checked.
pub const CRATES: [&str; 11] = [
    "agents-wire",
    "agents-check",
    "agents-schema",
    "agents-codegen",
    "agents-macro",
    "agents-types",
    "agents-catalog",
    "agents-client",
    "agents-runtime",
    "agents-emulator",
    "agents-cli",
];

/// One crate's files by module, and what each file names.
struct Crate {
    files: BTreeMap<Module, PathBuf>,
    /// `pub use` re-exports of each module: item name → the module path it points at (absolute,
    /// from the crate root, the item's name excluded).
    reexports: BTreeMap<Module, BTreeMap<String, Module>>,
    /// Every path each module names outside its `pub use` items, made absolute.
    uses: BTreeMap<Module, Vec<Module>>,
}

/// Every circle of every crate; `Err` when a file cannot be read or lexed.
pub fn find(root: &Path) -> Result<Vec<Circle>, String> {
    let mut circles = Vec::new();
    for name in CRATES {
        let src = root.join(name).join("src");
        let krate = read_crate(&src)?;
        circles.extend(krate.circles());
    }
    Ok(circles)
}

fn read_crate(src: &Path) -> Result<Crate, String> {
    let mut files = BTreeMap::new();
    collect_files(src, src, &mut files)?;
    let mut krate = Crate {
        files,
        reexports: BTreeMap::new(),
        uses: BTreeMap::new(),
    };
    for (module, path) in krate.files.clone() {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let tokens =
            TokenStream::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut reexports = BTreeMap::new();
        let mut uses = Vec::new();
        scan(&tokens, &module, &mut reexports, &mut uses);
        krate.reexports.insert(module.clone(), reexports);
        krate.uses.insert(module, uses);
    }
    Ok(krate)
}

/// Every `.rs` file under `dir`, by module path (`lib.rs`/`main.rs` are the root, `mod.rs` its
/// directory's module). `src/bin/` holds other crates' roots and is left out.
fn collect_files(
    src: &Path,
    dir: &Path,
    out: &mut BTreeMap<Module, PathBuf>,
) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            if path != src.join("bin") {
                collect_files(src, &path, out)?;
            }
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = path.strip_prefix(src).unwrap_or(&path);
        let mut module: Module = rel
            .with_extension("")
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        if matches!(
            module.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            module.pop();
        }
        out.insert(module, path);
    }
    Ok(())
}

/// Walks a token list (and its groups): `pub use` trees go to `reexports`, every other path
/// (`crate::`, `super::`, `self::` or a child module's name first) to `uses`.
fn scan(
    tokens: &[TokenTree],
    module: &Module,
    reexports: &mut BTreeMap<String, Module>,
    uses: &mut Vec<Module>,
) {
    let mut i = 0;
    while i < tokens.len() {
        // `pub use TREE;` (also `pub(crate) use`): a re-export, no dependency.
        if is_ident(&tokens[i], "pub") {
            let mut j = i + 1;
            if matches!(tokens.get(j), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
            {
                j += 1;
            }
            if tokens.get(j).is_some_and(|t| is_ident(t, "use")) {
                let end = statement_end(tokens, j);
                let mut paths = Vec::new();
                use_tree(&tokens[j + 1..end], Vec::new(), &mut paths);
                for (path, name) in paths {
                    if let Some(target) = absolute(module, &path) {
                        reexports.insert(name, target);
                    }
                }
                i = end;
                continue;
            }
        }
        if is_ident(&tokens[i], "use") {
            let end = statement_end(tokens, i);
            let mut paths = Vec::new();
            use_tree(&tokens[i + 1..end], Vec::new(), &mut paths);
            uses.extend(paths.into_iter().filter_map(|(mut p, name)| {
                p.push(name);
                absolute(module, &p)
            }));
            i = end;
            continue;
        }
        // An inline `mod NAME { … }`: its paths are relative to NAME.
        if is_ident(&tokens[i], "mod")
            && let (Some(TokenTree::Ident(name)), Some(TokenTree::Group(g))) =
                (tokens.get(i + 1), tokens.get(i + 2))
            && g.delimiter() == Delimiter::Brace
        {
            let mut inner_module = module.clone();
            inner_module.push(name.to_string());
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            scan(&inner, &inner_module, reexports, uses);
            i += 3;
            continue;
        }
        match &tokens[i] {
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                scan(&inner, module, reexports, uses);
                i += 1;
            }
            TokenTree::Ident(id)
                if matches!(id.to_string().as_str(), "crate" | "super" | "self") =>
            {
                let (path, next) = inline_path(tokens, i);
                // A bare `crate`, `super` or `self` (as in `pub(crate)`) names no item.
                if path.len() > 1
                    && let Some(p) = absolute(module, &path)
                {
                    uses.push(p);
                }
                i = next.max(i + 1);
            }
            // `child::item` naming a module declared in this file (`batch::batch(…)`); a path
            // into another crate (`std::fmt::Display`) reaches no file below `module`.
            TokenTree::Ident(_)
                if is_punct(tokens.get(i + 1), ':') && is_punct(tokens.get(i + 2), ':') =>
            {
                let (path, next) = inline_path(tokens, i);
                if let Some(p) = absolute(module, &path) {
                    uses.push(p);
                }
                i = next.max(i + 1);
            }
            _ => i += 1,
        }
    }
}

fn is_ident(t: &TokenTree, name: &str) -> bool {
    matches!(t, TokenTree::Ident(id) if id == name)
}

fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// The index of the `;` ending the statement that starts at `from` (or the end).
fn statement_end(tokens: &[TokenTree], from: usize) -> usize {
    (from..tokens.len())
        .find(|&k| is_punct(tokens.get(k), ';'))
        .unwrap_or(tokens.len())
}

/// `a::b::c` starting at `at`: its segments and the index after it.
fn inline_path(tokens: &[TokenTree], at: usize) -> (Vec<String>, usize) {
    let mut path = Vec::new();
    let mut k = at;
    while let Some(TokenTree::Ident(id)) = tokens.get(k) {
        path.push(id.to_string());
        if is_punct(tokens.get(k + 1), ':') && is_punct(tokens.get(k + 2), ':') {
            k += 3;
        } else {
            k += 1;
            break;
        }
    }
    (path, k)
}

/// The paths of a use tree, each split into (module path, last name): `a::{b, c::d as e}` gives
/// `(a, b)` and `(a::c, d)`; a glob gives `(a, "*")`.
fn use_tree(tokens: &[TokenTree], prefix: Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    // Split at top-level commas (only inside a brace group do several trees appear).
    let mut path = prefix;
    let mut k = 0;
    while k < tokens.len() {
        match &tokens[k] {
            TokenTree::Ident(id) if id == "as" => break,
            TokenTree::Ident(id) => {
                let name = id.to_string();
                if is_punct(tokens.get(k + 1), ':') && is_punct(tokens.get(k + 2), ':') {
                    path.push(name);
                    k += 3;
                } else {
                    out.push((path, name));
                    return;
                }
            }
            TokenTree::Punct(p) if p.as_char() == '*' => {
                out.push((path, "*".to_owned()));
                return;
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                for part in inner.split(|t| is_punct(Some(t), ',')) {
                    if !part.is_empty() {
                        use_tree(part, path.clone(), out);
                    }
                }
                return;
            }
            _ => k += 1,
        }
    }
    if let Some(name) = path.pop() {
        out.push((path, name));
    }
}

/// `path` from the crate root. A path starting with neither `crate`, `super` nor `self` is taken
/// as relative to `module` (a child module, as `pub use retry::RetryPolicy` in a `mod.rs`); one
/// into another crate then reaches no file below `module` and resolves to `module` itself.
fn absolute(module: &Module, path: &[String]) -> Option<Module> {
    let mut out = match path.first()?.as_str() {
        "crate" => Vec::new(),
        _ => module.clone(),
    };
    let mut rest = if path[0] == "crate" { &path[1..] } else { path };
    while let Some(first) = rest.first() {
        match first.as_str() {
            "super" => {
                out.pop()?;
            }
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    out.extend(rest.iter().cloned());
    Some(out)
}

impl Crate {
    /// The file a path names: the deepest module it reaches, followed through `pub use`
    /// re-exports of the item it names.
    fn resolve(&self, path: &Module, depth: usize) -> Option<Module> {
        let mut module: Module = Vec::new();
        let mut k = 0;
        while k < path.len() {
            let mut next = module.clone();
            next.push(path[k].clone());
            if self.files.contains_key(&next) {
                module = next;
                k += 1;
            } else {
                break;
            }
        }
        if k < path.len()
            && depth < 8
            && let Some(target) = self.reexports.get(&module).and_then(|r| r.get(&path[k]))
        {
            // A re-export of another crate's item (`pub use serde::Serialize`: the path goes no
            // further into this crate's files than the re-exporting module) is no dependency on
            // any file of this one.
            let reached = (0..=target.len())
                .rev()
                .find(|&n| self.files.contains_key(&target[..n]))
                .unwrap_or(0);
            if target[..reached] == module[..] && reached < target.len() {
                return None;
            }
            let mut target = target.clone();
            target.push(path[k].clone());
            target.extend(path[k + 1..].iter().cloned());
            return self.resolve(&target, depth + 1);
        }
        self.files.contains_key(&module).then_some(module)
    }

    /// Each file's dependencies, each with the first path that makes it.
    fn edges(&self) -> BTreeMap<Module, BTreeMap<Module, Module>> {
        let mut edges: BTreeMap<Module, BTreeMap<Module, Module>> = BTreeMap::new();
        for (from, paths) in &self.uses {
            let to = edges.entry(from.clone()).or_default();
            for p in paths {
                if let Some(m) = self.resolve(p, 0).filter(|m| m != from) {
                    to.entry(m).or_insert_with(|| p.clone());
                }
            }
        }
        edges
    }

    /// Strongly connected components of more than one file (Tarjan), each as its files and the
    /// dependencies between them (`from → to (via path)`).
    fn circles(&self) -> Vec<Circle> {
        let edges = self.edges();
        let nodes: Vec<&Module> = self.files.keys().collect();
        let index_of: BTreeMap<&Module, usize> =
            nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
        let adj: Vec<Vec<usize>> = nodes
            .iter()
            .map(|m| {
                edges
                    .get(*m)
                    .map(|to| to.keys().filter_map(|t| index_of.get(t).copied()).collect())
                    .unwrap_or_default()
            })
            .collect();
        let mut t = Tarjan {
            adj: &adj,
            index: vec![None; nodes.len()],
            low: vec![0; nodes.len()],
            on_stack: vec![false; nodes.len()],
            stack: Vec::new(),
            next: 0,
            components: Vec::new(),
        };
        for v in 0..nodes.len() {
            if t.index[v].is_none() {
                t.visit(v);
            }
        }
        t.components
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                let members: BTreeSet<&Module> = c.iter().map(|&i| nodes[i]).collect();
                let mut files: Vec<PathBuf> =
                    members.iter().map(|m| self.files[*m].clone()).collect();
                files.sort();
                let mut why = Vec::new();
                for from in &members {
                    for (to, via) in edges.get(*from).into_iter().flatten() {
                        if members.contains(to) {
                            why.push(format!(
                                "{} → {} (via {})",
                                self.files[*from].display(),
                                self.files[to].display(),
                                via.join("::")
                            ));
                        }
                    }
                }
                Circle { files, why }
            })
            .collect()
    }
}

/// Files that import each other around a circle, and the dependencies that close it.
pub struct Circle {
    /// The files, sorted.
    pub files: Vec<PathBuf>,
    /// `from → to (via path)` for each dependency between them.
    pub why: Vec<String>,
}

struct Tarjan<'a> {
    adj: &'a [Vec<usize>],
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    components: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, v: usize) {
        self.index[v] = Some(self.next);
        self.low[v] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        for &w in &self.adj[v] {
            match self.index[w] {
                None => {
                    self.visit(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(self.low[v]) == self.index[v] {
            let mut component = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            self.components.push(component);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate of `files` (path, text) in a fresh directory; its circles as file names.
    fn circles_of(name: &str, files: &[(&str, &str)]) -> Vec<Vec<String>> {
        let dir = std::env::temp_dir().join(format!("xtask-circles-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap_or(&dir)).expect("test dir");
            std::fs::write(p, text).expect("test file");
        }
        let found = read_crate(&dir).expect("the crate reads").circles();
        let _ = std::fs::remove_dir_all(&dir);
        found
            .into_iter()
            .map(|c| {
                c.files
                    .iter()
                    .map(|f| f.strip_prefix(&dir).unwrap_or(f).display().to_string())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_circle_through_a_re_export_is_found_and_names_its_files() {
        let found = circles_of(
            "reexport",
            &[
                ("lib.rs", "mod client;"),
                (
                    "client/mod.rs",
                    "mod error;\nmod retry;\npub use retry::RetryPolicy;",
                ),
                (
                    "client/error.rs",
                    "pub struct Error;\nfn f() { super::RetryPolicy::new(); }",
                ),
                (
                    "client/retry.rs",
                    "use super::error::Error;\npub struct RetryPolicy;",
                ),
            ],
        );
        assert_eq!(found, [["client/error.rs", "client/retry.rs"]]);
    }

    #[test]
    fn a_call_through_a_child_modules_name_is_a_dependency() {
        let found = circles_of(
            "child",
            &[
                (
                    "main.rs",
                    "mod cache;\npub struct Cli;\nfn run() { cache::fetch(); std::process::exit(0); }",
                ),
                ("cache.rs", "use crate::Cli;\npub fn fetch() {}"),
            ],
        );
        assert_eq!(found, [["cache.rs", "main.rs"]]);
    }

    #[test]
    fn one_way_dependencies_visibility_and_tests_modules_are_no_circle() {
        let found = circles_of(
            "oneway",
            &[
                (
                    "lib.rs",
                    "mod a;\nmod b;\npub use a::A;\npub use serde::Serialize;",
                ),
                (
                    "a.rs",
                    "pub(crate) struct A;\n#[cfg(test)]\nmod tests { use super::*; }",
                ),
                (
                    "b.rs",
                    "use crate::a::A;\nuse crate::Serialize;\npub(super) fn f(_: A) {}\n\
                     #[cfg(test)]\nmod tests { use super::*; use crate::b::f; }",
                ),
            ],
        );
        assert!(found.is_empty(), "{found:?}");
    }
}
