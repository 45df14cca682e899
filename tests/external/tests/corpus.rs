#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Real-world JSON Schemas (`tests/json-schema/corpus/`) against oracles nobody here wrote:
//! instances drawn from each schema by `noson` and checked valid by `jsonschema` decode into the
//! generated type with no mismatch and no breach and serialize back to the same JSON; the same
//! instances made invalid (which `jsonschema` confirms) are reported, with every wrong value
//! either recorded as a mismatch (with the value as sent) or kept as sent.

use std::collections::BTreeMap;

use agents_runtime::Record;
use agents_test_support::instances::{Drawer, corpus_dir, corpus_schema};
use agents_tests_external::corpus;
use rand::rngs::StdRng;
use rand::{RngExt as _, SeedableRng};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Instances drawn per schema.
const SEEDS: u64 = 24;

/// What one schema's instances showed.
#[derive(Default, Debug)]
struct Tally {
    /// Valid instances decoded and compared.
    checked: usize,
    /// Instances noson could not draw (a schema it cannot satisfy), or drew invalid.
    not_drawn: usize,
    /// Invalid instances decoded and accounted for.
    invalid_checked: usize,
    /// What went wrong, each naming the schema, the seed and the JSON path.
    failures: Vec<String>,
}

/// JSON equality: numbers compared by value (an `f64` field gives back `4.0` for `4`); a field
/// sent as `null` comes back `null`.
fn same(a: &Value, b: &Value) -> bool {
    agents_runtime::check::equal(a, b)
}

/// A path with `["key"]` written `.key`, so that the decoder's spelling (which quotes only the
/// keys of maps) and [`paths`]' (which quotes every key that is not an identifier) compare.
fn plain(path: &str) -> String {
    path.replace("[\"", ".")
        .replace("\"]", "")
        .trim_start_matches('.')
        .to_owned()
}

/// The first place `a` and `b` differ, for a failure message.
fn first_difference(a: &Value, b: &Value, at: &str) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) if same(v, w) => {}
                    Some(w) => return first_difference(v, w, &format!("{at}.{k}")),
                    None => return format!("{at}.{k}: sent {v}, missing back"),
                }
            }
            for (k, w) in y {
                if !x.contains_key(k) {
                    return format!("{at}.{k}: not sent, back {w}");
                }
            }
            format!("{at}: ?")
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if !same(v, w) {
                    return first_difference(v, w, &format!("{at}[{i}]"));
                }
            }
            format!("{at}: ?")
        }
        _ => format!("{at}: sent {a}, back {b}"),
    }
}

/// The path of key `k` of the object at `at` (`""` for the root): `jobs`, `jobs.build`,
/// `["runs-on"]`.
fn key_path(at: &str, k: &str) -> String {
    if at.is_empty() {
        agents_schema::join_path("$", k)
            .trim_start_matches("$.")
            .trim_start_matches('$')
            .to_owned()
    } else {
        agents_schema::join_path(at, k)
    }
}

/// Decodes `v`, or says why it did not.
fn decode<T: DeserializeOwned>(v: &Value, what: &str) -> Result<T, String> {
    serde_json::from_value(v.clone()).map_err(|e| format!("{what} failed to decode: {e}"))
}

/// Every path under `v` below the root, in the mismatch paths' spelling
/// (`jobs.build["runs-on"][0]`), with its value.
fn paths<'a>(v: &'a Value, at: &str, out: &mut Vec<(String, &'a Value)>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                let p = key_path(at, k);
                out.push((p.clone(), child));
                paths(child, &p, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                let p = format!("{at}[{i}]");
                out.push((p.clone(), child));
                paths(child, &p, out);
            }
        }
        _ => {}
    }
}

/// Sets the value at `path` (as [`paths`] spells it) to `to`.
fn set(v: &mut Value, path: &str, to: Value) -> bool {
    let Some(pointer) = pointer_of(v, path) else {
        return false;
    };
    match v.pointer_mut(&pointer) {
        Some(slot) => {
            *slot = to;
            true
        }
        None => false,
    }
}

/// The JSON pointer of the value [`paths`] calls `path`.
fn pointer_of(v: &Value, path: &str) -> Option<String> {
    fn walk(v: &Value, at: &str, ptr: &str, want: &str) -> Option<String> {
        match v {
            Value::Object(m) => m.iter().find_map(|(k, child)| {
                let p = key_path(at, k);
                let ptr = format!("{ptr}/{}", k.replace('~', "~0").replace('/', "~1"));
                if p == want {
                    Some(ptr)
                } else {
                    walk(child, &p, &ptr, want)
                }
            }),
            Value::Array(items) => items.iter().enumerate().find_map(|(i, child)| {
                let p = format!("{at}[{i}]");
                let ptr = format!("{ptr}/{i}");
                if p == want {
                    Some(ptr)
                } else {
                    walk(child, &p, &ptr, want)
                }
            }),
            _ => None,
        }
    }
    walk(v, "", "", path)
}

fn check<T: DeserializeOwned + Serialize + Record>(name: &str) -> Tally {
    let drawer = Drawer::new(&corpus_schema(name));
    let mut t = Tally::default();
    for seed in 0..SEEDS {
        let mut rng = StdRng::seed_from_u64(seed);
        let Some(instance) = drawer.draw(&mut rng) else {
            t.not_drawn += 1;
            continue;
        };
        let decoded: T = match decode(&instance, "a valid instance") {
            Ok(d) => d,
            Err(e) => {
                t.failures.push(format!("{name} seed {seed}: {e}"));
                continue;
            }
        };
        for m in decoded.mismatches() {
            t.failures.push(format!(
                "{name} seed {seed}: a valid instance has a mismatch: {m}"
            ));
        }
        if let Some(d) = agents_test_support::suite::shortcut_disagreement(&decoded) {
            t.failures.push(format!("{name} seed {seed}: {d}"));
        }
        // The `jsonschema` crate found it valid: no rule of the schema is broken either. (A
        // schema without a validator offline has instances noson drew, unconfirmed.)
        for b in decoded.breaches().iter().filter(|_| drawer.validates()) {
            t.failures.push(format!(
                "{name} seed {seed}: a valid instance has a breach: {b}"
            ));
        }
        let back = serde_json::to_value(&decoded).unwrap();
        if !same(&back, &instance) {
            t.failures.push(format!(
                "{name} seed {seed}: the round trip changed the instance at {}",
                first_difference(&instance, &back, "$")
            ));
        }
        t.checked += 1;

        // The same instance with one value of another kind.
        let mut all = Vec::new();
        paths(&instance, "", &mut all);
        if all.is_empty() {
            continue;
        }
        let (path, was) = all[rng.random_range(0..all.len())].clone();
        let wrong = if was.is_string() {
            serde_json::json!({"unexpected": [1, 2]})
        } else {
            Value::String("unexpected".into())
        };
        let mut broken = instance.clone();
        // A schema without a validator offline has its instances from noson alone, and none is
        // made invalid.
        if !drawer.validates()
            || !set(&mut broken, &path, wrong.clone())
            || drawer.is_valid(&broken)
        {
            continue;
        }
        let decoded: T = match decode(&broken, &format!("an invalid instance ({path})")) {
            Ok(d) => d,
            Err(e) => {
                t.failures.push(format!("{name} seed {seed}: {e}"));
                continue;
            }
        };
        if let Some(d) = agents_test_support::suite::shortcut_disagreement(&decoded) {
            t.failures
                .push(format!("{name} seed {seed}, {path} broken: {d}"));
        }
        let back = serde_json::to_value(&decoded).unwrap();
        let recorded = decoded.mismatches().iter().any(|m| {
            let (m, p) = (plain(&m.path), plain(&path));
            m == p || p.starts_with(&format!("{m}.")) || p.starts_with(&format!("{m}["))
        });
        let kept = pointer_of(&broken, &path)
            .and_then(|p| back.pointer(&p).map(|v| same(v, &wrong)))
            .unwrap_or(false);
        // The `jsonschema` crate found it invalid: the record reports it.
        if decoded.mismatches().is_empty() && decoded.breaches().is_empty() {
            t.failures.push(format!(
                "{name} seed {seed}: {path} set to {wrong} is invalid and nothing is reported"
            ));
        }
        if !recorded && !kept {
            t.failures.push(format!(
                "{name} seed {seed}: {path} set to {wrong} was neither recorded nor kept; mismatches {:?}",
                decoded.mismatches().iter().map(ToString::to_string).collect::<Vec<_>>()
            ));
        }
        let mut spelled = Vec::new();
        paths(&broken, "", &mut spelled);
        for m in decoded.mismatches() {
            let at = spelled
                .iter()
                .find(|(p, _)| plain(p) == plain(&m.path))
                .map(|(_, v)| (*v).clone());
            if at.as_ref().is_some_and(|v| !same(v, &m.found)) {
                t.failures.push(format!(
                    "{name} seed {seed}: mismatch {m} does not hold the value sent there ({path} was changed)"
                ));
            }
        }
        t.invalid_checked += 1;
    }
    t
}

macro_rules! corpus {
    ($($name:literal => $ty:ident,)*) => {
        const NAMES: &[&str] = &[$($name),*];

        fn check_every_schema() -> BTreeMap<&'static str, Tally> {
            let mut out = BTreeMap::new();
            $( out.insert($name, check::<corpus::$ty>($name)); )*
            out
        }
    };
}

corpus! {
    "azure_pipelines" => AzurePipelines,
    "bamboo_spec" => BambooSpec,
    "bitbucket_pipelines" => BitbucketPipelines,
    "buildkite" => Buildkite,
    "changie" => Changie,
    "circle_ci" => CircleCi,
    "citation_file_format" => CitationFileFormat,
    "cloudbuild" => Cloudbuild,
    "codecov" => Codecov,
    "compose_spec" => ComposeSpec,
    "dependabot" => Dependabot,
    "drone_ci" => DroneCi,
    "github_actions" => GithubActions,
    "github_discussion" => GithubDiscussion,
    "github_issue_config" => GithubIssueConfig,
    "github_issue_forms" => GithubIssueForms,
    "github_workflows" => GithubWorkflows,
    "gitlab_ci" => GitlabCi,
    "meltano" => Meltano,
    "mergify" => Mergify,
    "readthedocs" => Readthedocs,
    "renovate" => Renovate,
    "snapcraft" => Snapcraft,
    "taskfile" => Taskfile,
    "travis" => Travis,
    "woodpecker_ci" => WoodpeckerCi,
}

#[test]
fn every_schema_of_the_corpus_is_checked() {
    let mut files: Vec<String> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .filter_map(|e| {
            e.unwrap()
                .file_name()
                .to_str()?
                .strip_suffix(".output.schema.json")
                .map(str::to_owned)
        })
        .collect();
    files.sort();
    assert_eq!(files, NAMES, "add new corpus files to the corpus! list");
}

#[test]
fn drawn_instances_decode_without_mismatch_and_round_trip() {
    let tallies = check_every_schema();
    let mut failures = Vec::new();
    for (name, t) in &tallies {
        eprintln!(
            "{name:<22} {:>2} valid instances checked, {:>2} invalid, {:>2} not drawn",
            t.checked, t.invalid_checked, t.not_drawn
        );
        failures.extend(t.failures.iter().cloned());
    }
    let checked: usize = tallies.values().map(|t| t.checked).sum();
    let invalid: usize = tallies.values().map(|t| t.invalid_checked).sum();
    eprintln!("{checked} valid and {invalid} invalid instances checked");
    // Not vacuous: noson draws most schemas (renovate's recursion is deeper than it goes, and it
    // cannot satisfy most of citation_file_format's patterns).
    let covered = tallies.values().filter(|t| t.checked >= 5).count();
    assert!(
        covered >= 22,
        "only {covered} schemas had 5 valid instances checked"
    );
    assert!(
        checked >= 400 && invalid >= 300,
        "{checked} valid, {invalid} invalid"
    );
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The macro front door makes from each corpus schema what the build script compiled above.
#[test]
fn the_macro_and_the_build_script_make_the_same_code_of_every_schema() {
    let root = corpus_dir().join("..");
    for name in NAMES {
        let expanded = agents_codegen::expand::expand(name, &Default::default(), &root)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // The macro adds `const _: &[u8] = include_bytes!(…);` so that editing the file rebuilds.
        let cut = expanded
            .rfind("const _ : & [u8] = include_bytes !")
            .unwrap();
        let from_macro = agents_codegen::format(expanded[..cut].parse().unwrap()).unwrap();
        let built = agents_codegen::Builder::new()
            .schema_dir(corpus_dir())
            .agents([*name])
            .cargo_directives(false)
            .generate()
            .unwrap();
        assert_eq!(from_macro, built, "{name}");
    }
}
