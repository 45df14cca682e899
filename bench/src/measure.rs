//! Measuring helpers shared by the runner and its child processes: table rows, medians and
//! interleaved rounds.

use std::time::{Duration, Instant};

/// One line of the results table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The benchmark group (`codegen`, `decode`, ...).
    pub group: String,
    /// What was measured.
    pub name: String,
    /// The figure.
    pub value: String,
    /// Conditions, targets and context.
    pub note: String,
}

impl Row {
    /// The row as one tab-separated line, for a child process to hand rows to the runner.
    pub fn to_line(&self) -> String {
        [&self.group, &self.name, &self.value, &self.note]
            .map(|f| f.replace(['\t', '\n'], " "))
            .join("\t")
    }

    /// Reads a line written by [`Row::to_line`].
    pub fn from_line(line: &str) -> Option<Row> {
        let mut f = line.split('\t');
        let row = row(f.next()?, f.next()?, f.next()?, f.next()?);
        f.next().is_none().then_some(row)
    }
}

/// A row of the results table.
pub fn row(
    group: impl Into<String>,
    name: impl Into<String>,
    value: impl Into<String>,
    note: impl Into<String>,
) -> Row {
    Row {
        group: group.into(),
        name: name.into(),
        value: value.into(),
        note: note.into(),
    }
}

/// Median wall time of `f` over `iters` runs after `warmup` runs.
pub fn median<F: FnMut()>(warmup: usize, iters: usize, mut f: F) -> Duration {
    for _ in 0..warmup {
        f();
    }
    let mut times: Vec<Duration> = (0..iters)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// Times each of `fs` `rounds` times, interleaved (the order rotating each round), after one
/// warm-up call each; returns one sample list per function. Interleaving puts every function
/// through the same machine states, so ratios of the results survive a noisy neighbour.
pub fn interleaved(rounds: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<Vec<Duration>> {
    for f in fs.iter_mut() {
        f();
    }
    let mut samples = vec![Vec::with_capacity(rounds); fs.len()];
    for round in 0..rounds {
        for k in 0..fs.len() {
            let i = (k + round) % fs.len();
            let t = Instant::now();
            fs[i]();
            samples[i].push(t.elapsed());
        }
    }
    samples
}

/// The median of samples.
pub fn median_of(samples: &[Duration]) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}

/// The median over rounds of `a[i] / b[i]` (time ratios of the same round).
pub fn median_ratio(a: &[Duration], b: &[Duration]) -> f64 {
    let mut ratios: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| x.as_secs_f64() / y.as_secs_f64())
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN)
}

/// A duration in milliseconds, two decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// Whether `group` runs: every group unless `--only GROUP[,GROUP]` is among the process's
/// arguments (groups: memory, codegen, decode, jsonschema, columnar, parquet, client, batch,
/// fleet, compile, user-build).
pub fn selected(group: &str) -> bool {
    std::env::args()
        .skip_while(|a| a != "--only")
        .nth(1)
        .is_none_or(|only| only.split(',').any(|g| g == group))
}
