//! Codegen measurements shared by the runner and its mimalloc child: one generation, and the
//! growth of the per-field cost with the number of fields.

use std::hint::black_box;

use agents_codegen::{Options, generate};
use agents_schema::AgentRecord;

use crate::measure::{Row, interleaved, median_of, median_ratio, ms, row};

/// Generates and formats `records`; returns the source's length.
pub fn once(records: &[AgentRecord]) -> usize {
    match generate(records, &Options::default()).and_then(|o| o.to_source()) {
        Ok(src) => src.len(),
        Err(e) => panic!("{e}"),
    }
}

/// Synthetic agents of 1,000, 5,000 and 20,000 fields, rows under `group`: the time of each and
/// the growth of the per-field cost (1.0× is linear).
pub fn synthetic(rows: &mut Vec<Row>, group: &str) {
    // Interleaved rounds; each sample generates 20,000 fields in all (20 × 1,000, 4 × 5,000,
    // 1 × 20,000), so the three sizes share the machine's state and take the same time.
    let sizes = [1_000usize, 5_000, 20_000];
    let wides: Vec<Vec<AgentRecord>> = sizes
        .iter()
        .map(|&n| vec![agents_test_support::wide_record("wide", n)])
        .collect();
    let mut fs: Vec<Box<dyn FnMut()>> = wides
        .iter()
        .zip(sizes)
        .map(|(wide, n)| {
            Box::new(move || {
                for _ in 0..20_000 / n {
                    black_box(once(wide));
                }
            }) as Box<dyn FnMut()>
        })
        .collect();
    let mut refs: Vec<&mut dyn FnMut()> = fs
        .iter_mut()
        .map(|f| &mut **f as &mut dyn FnMut())
        .collect();
    let samples = interleaved(5, &mut refs);
    let mut per_field = Vec::new();
    for (k, n) in sizes.into_iter().enumerate() {
        // Time of one generation of n fields.
        let t = median_of(&samples[k]) / (20_000 / n) as u32;
        per_field.push(t.as_secs_f64() / n as f64);
        rows.push(row(
            group,
            format!("synthetic agent, {n} fields"),
            ms(t),
            format!("{:.2} µs/field", t.as_secs_f64() * 1e6 / n as f64),
        ));
    }
    let growth = median_ratio(&samples[2], &samples[0]);
    rows.push(row(
        group,
        "per-field cost, 20,000 vs 1,000 fields",
        format!("{growth:.2}×"),
        "1.0× is linear (median of 5 interleaved rounds)",
    ));
}
