//! The JSON Schema group: our generator and typify 0.8 on the same real-world JSON Schemas (the
//! corpus in `tests/json-schema/corpus/`), and the types each makes decoding the same instances,
//! against `serde_json::Value`.

use std::hint::black_box;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use agents_runtime::Record;
use agents_schema::AgentRecord;
use agents_test_support::instances::{Drawer, corpus_dir, corpus_schema};
use rand::SeedableRng;
use rand::rngs::StdRng;
use schemars::schema::RootSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::measure::{Row, interleaved, median_of, median_ratio, ms, row};
use crate::{ours, typified, typify_baseline, typify_input};

/// Rows of the group under `group`.
pub fn bench(rows: &mut Vec<Row>, group: &str) {
    generate_rows(rows, group);
    decode_rows(rows, group);
}

/// Why typify 0.8 made no code of a corpus schema.
enum Refusal {
    /// An error.
    Refused,
    /// A panic.
    Panicked,
}

/// typify's input for `schema`, when typify makes code of it.
fn try_typify(schema: &Value) -> Result<RootSchema, Refusal> {
    let root: RootSchema = match serde_json::from_value(typify_input::for_typify(schema)) {
        Ok(root) => root,
        Err(_) => return Err(Refusal::Refused),
    };
    let attempt = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let mut space = typify::TypeSpace::new(&typify::TypeSpaceSettings::default());
        space
            .add_root_schema(root.clone())
            .map(|_| space.to_stream().is_empty())
    }));
    match attempt {
        Ok(Ok(_)) => Ok(root),
        Ok(Err(_)) => Err(Refusal::Refused),
        Err(_) => Err(Refusal::Panicked),
    }
}

fn corpus_records() -> Vec<(String, AgentRecord, Value)> {
    let mut files: Vec<_> = match std::fs::read_dir(corpus_dir()) {
        Ok(dir) => dir.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => panic!("{}: {e}", corpus_dir().display()),
    };
    files.sort();
    files
        .iter()
        .filter_map(|path| {
            let name = agents_schema::files::agent_name(path)?;
            let record = match agents_schema::files::load_file(path) {
                Ok(loaded) => loaded.record,
                Err(e) => panic!("{e}"),
            };
            let schema = corpus_schema(&name);
            Some((name, record, schema))
        })
        .collect()
}

/// Generation of every corpus schema by both generators, side by side where typify makes code.
fn generate_rows(rows: &mut Vec<Row>, group: &str) {
    let corpus = corpus_records();
    // typify's panics are its answer here, not the benchmark's failure: keep them off stderr.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let attempts: Vec<Result<RootSchema, Refusal>> =
        corpus.iter().map(|(_, _, s)| try_typify(s)).collect();
    std::panic::set_hook(hook);
    let panicked = attempts
        .iter()
        .filter(|a| matches!(a, Err(Refusal::Panicked)))
        .count();
    let refused = attempts
        .iter()
        .filter(|a| matches!(a, Err(Refusal::Refused)))
        .count();
    let both: Vec<(&str, &AgentRecord, &RootSchema)> = corpus
        .iter()
        .zip(&attempts)
        .filter_map(|((name, record, _), a)| match a {
            Ok(root) => Some((name.as_str(), record, root)),
            Err(_) => None,
        })
        .collect();
    let ours_all = corpus
        .iter()
        .filter(|(_, r, _)| crate::codegen::once(std::slice::from_ref(r)) > 0)
        .count();
    rows.push(row(
        group,
        format!("corpus schemas generated, of {}", corpus.len()),
        format!("ours {ours_all}, typify {}", both.len()),
        format!(
            "typify 0.8 panics on {panicked} and refuses {refused} (`$defs` rewritten as `definitions` for it)"
        ),
    ));

    // Each schema by each generator, interleaved; typify takes its input by value, cloned
    // before the timing.
    let rounds = 15;
    let mut inputs: Vec<Vec<RootSchema>> = both
        .iter()
        .map(|(_, _, root)| (0..=rounds).map(|_| (*root).clone()).collect())
        .collect();
    let mut fs: Vec<Box<dyn FnMut() + '_>> = Vec::new();
    for ((_, record, _), inputs) in both.iter().zip(inputs.iter_mut()) {
        fs.push(Box::new(move || {
            black_box(crate::codegen::once(std::slice::from_ref(*record)));
        }));
        fs.push(Box::new(move || {
            if let Some(root) = inputs.pop() {
                black_box(typify_baseline::generate(root).len());
            }
        }));
    }
    let mut refs: Vec<&mut dyn FnMut()> = fs.iter_mut().map(|f| &mut **f as _).collect();
    let samples = interleaved(rounds, &mut refs);
    for (k, (name, _, _)) in both.iter().enumerate() {
        let (o, t) = (&samples[2 * k], &samples[2 * k + 1]);
        rows.push(row(
            group,
            format!("generate {name}: ours ÷ typify"),
            format!("{:.2}×", median_ratio(o, t)),
            format!("{} against {}", ms(median_of(o)), ms(median_of(t))),
        ));
    }
    let total = |offset: usize| -> Vec<Duration> {
        (0..rounds)
            .map(|r| (0..both.len()).map(|k| samples[2 * k + offset][r]).sum())
            .collect()
    };
    let (o, t) = (total(0), total(1));
    rows.push(row(
        group,
        format!("generate all {} both make: ours ÷ typify", both.len()),
        format!("{:.2}×", median_ratio(&o, &t)),
        format!(
            "{} against {}; target ≤ 0.5× (median of {rounds} interleaved rounds)",
            ms(median_of(&o)),
            ms(median_of(&t))
        ),
    ));
}

/// Instances of a corpus schema both types decode: drawn by noson, valid by `jsonschema`,
/// decoded by typify's type (whose `pattern` and format checks may refuse some) and by ours
/// without a mismatch. Returns the instances as JSON bytes and how many ours decoded with a
/// mismatch (left out; the corpus test holds that there are none).
fn instances<O: DeserializeOwned + Record, T: DeserializeOwned>(
    name: &str,
    seeds: u64,
) -> (Vec<Vec<u8>>, usize) {
    let drawer = Drawer::new(&corpus_schema(name));
    let mut out = Vec::new();
    let mut mismatched = 0;
    for seed in 0..seeds {
        let Some(instance) = drawer.draw(&mut StdRng::seed_from_u64(seed)) else {
            continue;
        };
        let Ok(bytes) = serde_json::to_vec(&instance) else {
            continue;
        };
        if serde_json::from_slice::<T>(&bytes).is_err() {
            continue;
        }
        match serde_json::from_slice::<O>(&bytes) {
            Ok(ours) if ours.mismatches().is_empty() => out.push(bytes),
            _ => mismatched += 1,
        }
    }
    (out, mismatched)
}

/// Decoding of the same instances by our type (which checks every rule of `schema`), typify's,
/// `Value`, and what a user would do for the checks instead — typify's type plus the
/// `jsonschema` crate validating the same bytes — as the client decodes
/// (`agents_runtime::decode::from_slice`), in interleaved rounds.
fn decode_set<O: DeserializeOwned, T: DeserializeOwned>(
    rows: &mut Vec<Row>,
    group: &str,
    what: &str,
    inputs: &[Vec<u8>],
    schema: &Value,
    note: &str,
) {
    let bytes: usize = inputs.iter().map(Vec::len).sum();
    if bytes == 0 {
        rows.push(row(group, format!("decode {what}"), "no instances", note));
        return;
    }
    // Each sample decodes about 2 MB, so that small instances are timed over many.
    let repeat = (2_000_000 / bytes).max(1);
    fn all<X: DeserializeOwned>(inputs: &[Vec<u8>], repeat: usize) -> impl FnMut() + '_ {
        move || {
            for _ in 0..repeat {
                for b in inputs {
                    let r: Result<X, _> = agents_runtime::decode::from_slice(black_box(b));
                    black_box(r.is_ok());
                }
            }
        }
    }
    let validator = jsonschema::validator_for(schema).ok();
    let mut checked = || {
        for _ in 0..repeat {
            for b in inputs {
                let value: Value =
                    agents_runtime::decode::from_slice(black_box(b)).unwrap_or_default();
                let errors: Vec<String> = validator
                    .iter()
                    .flat_map(|v| v.iter_errors(&value))
                    .map(|e| e.instance_path().to_string())
                    .collect();
                let r: Result<T, _> = serde_json::from_value(value);
                black_box((errors.len(), r.is_ok()));
            }
        }
    };
    let samples = interleaved(
        30,
        &mut [
            &mut all::<O>(inputs, repeat),
            &mut all::<T>(inputs, repeat),
            &mut all::<Value>(inputs, repeat),
            &mut checked,
        ],
    );
    let mb = |d: Duration| (bytes * repeat) as f64 / d.as_secs_f64() / 1e6;
    let [o, t, v, c] = [0, 1, 2, 3].map(|k| median_of(&samples[k]));
    rows.push(row(
        group,
        format!("decode {what}: ours ÷ typify, throughput"),
        format!("{:.2}×", median_ratio(&samples[1], &samples[0])),
        format!(
            "{note}; {:.0} / {:.0} MB/s; target ≥ 1.0× (median of 30 interleaved rounds)",
            mb(o),
            mb(t)
        ),
    ));
    rows.push(row(
        group,
        format!("decode {what}: ours ÷ Value, throughput"),
        format!("{:.2}×", median_ratio(&samples[2], &samples[0])),
        format!("Value {:.0} MB/s", mb(v)),
    ));
    rows.push(row(
        group,
        format!("decode {what}: ours, every rule checked ÷ typify + jsonschema, throughput"),
        format!("{:.2}×", median_ratio(&samples[3], &samples[0])),
        format!(
            "typify's type after the jsonschema crate validated the same bytes (every error's \
             path): {:.0} MB/s{}; target ≥ 2×",
            mb(c),
            if validator.is_some() {
                ""
            } else {
                ", the schema does not compile there"
            }
        ),
    ));
}

fn decode_rows(rows: &mut Vec<Row>, group: &str) {
    let pdp = crate::pdp();
    let (bytes, _) = crate::pdp_inputs(&pdp, crate::FULL_ARRAY_LEN);
    decode_set::<agents_runtime::catalog::RetailerAPdp, typified::retailer_a_pdp::Root>(
        rows,
        group,
        "retailer_a_pdp",
        std::slice::from_ref(&bytes),
        &agents_runtime::catalog::RetailerAPdp::schema()
            .map_or(Value::Bool(true), |s| s.document().clone()),
        &format!(
            "one {:.1} KB record; typify's types from its output schema as JSON Schema",
            bytes.len() as f64 / 1024.0
        ),
    );
    macro_rules! corpus {
        ($($name:ident => $ours:ident,)*) => {$(
            let (inputs, mismatched) = instances::<ours::$ours, typified::$name::Root>(
                stringify!($name),
                64,
            );
            let size: usize = inputs.iter().map(Vec::len).sum();
            decode_set::<ours::$ours, typified::$name::Root>(
                rows,
                group,
                stringify!($name),
                &inputs,
                &corpus_schema(stringify!($name)),
                &format!(
                    "{} instances drawn by noson, {:.1} KB in all{}",
                    inputs.len(),
                    size as f64 / 1024.0,
                    if mismatched > 0 {
                        format!(", {mismatched} left out with a mismatch")
                    } else {
                        String::new()
                    }
                ),
            );
        )*};
    }
    corpus! {
        changie => Changie,
        cloudbuild => Cloudbuild,
        github_discussion => GithubDiscussion,
        github_issue_config => GithubIssueConfig,
        snapcraft => Snapcraft,
    }
}
