//! The codegen group on the catalog: retailer_a_pdp against typify side by side, and every
//! catalog agent at once.

use std::hint::black_box;

use agents_bench::measure::{Row, interleaved, median, median_of, median_ratio, ms, row};
use agents_bench::typify_baseline;
use agents_codegen::{Options, generate};
use agents_schema::AgentRecord;

fn catalog() -> Vec<AgentRecord> {
    let dir = agents_test_support::schemas_dir();
    match agents_codegen::load_dir(&dir) {
        Ok(loaded) => loaded.into_iter().map(|l| l.record).collect(),
        Err(e) => panic!("{e}"),
    }
}

pub fn bench(rows: &mut Vec<Row>) {
    let records = catalog();
    let pdp: Vec<AgentRecord> = records
        .iter()
        .filter(|r| r.name == "retailer_a_pdp")
        .cloned()
        .collect();
    let schema = typify_baseline::json_schema(&pdp[0], "RetailerAPdp");
    let root = typify_baseline::root_schema(&schema);
    let ours_source = generate(&pdp, &Options::default())
        .and_then(|o| o.to_source())
        .unwrap_or_default();
    let typify_source = typify_baseline::generate(root.clone());
    // `--dump DIR` keeps both sources for a side-by-side read.
    if let Some(dir) = std::env::args().skip_while(|a| a != "--dump").nth(1) {
        let dir = std::path::Path::new(&dir);
        for (name, source) in [("ours.rs", &ours_source), ("typify.rs", &typify_source)] {
            if let Err(e) = std::fs::write(dir.join(name), source) {
                eprintln!("--dump: cannot write {}: {e}", dir.join(name).display());
            }
        }
    }
    let (ours_lines, typify_lines) = (ours_source.lines().count(), typify_source.lines().count());
    // typify consumes its input: one clone per call, made before the timing.
    let rounds = 45;
    let mut inputs: Vec<_> = (0..=rounds).map(|_| root.clone()).collect();
    let samples = interleaved(
        rounds,
        &mut [
            &mut || {
                black_box(agents_bench::codegen::once(&pdp));
            },
            &mut || {
                if let Some(root) = inputs.pop() {
                    black_box(typify_baseline::generate(root).len());
                }
            },
        ],
    );
    let (t, t_typify) = (median_of(&samples[0]), median_of(&samples[1]));
    let vs_typify = median_ratio(&samples[0], &samples[1]);
    rows.push(row(
        "codegen",
        "retailer_a_pdp (112 fields), generate + prettyplease",
        ms(t),
        format!("{ours_lines} lines of source"),
    ));
    rows.push(row(
        "codegen",
        "typify 0.8, the same output schema as JSON Schema, generate + prettyplease",
        ms(t_typify),
        format!("{typify_lines} lines of source (output type only: no params, no agent impl)"),
    ));
    rows.push(row(
        "codegen",
        "retailer_a_pdp vs typify",
        format!("{vs_typify:.2}×"),
        "target ≤ 0.5× (median of 45 interleaved rounds)",
    ));
    let t_all = median(2, 9, || {
        black_box(agents_bench::codegen::once(&records));
    });
    rows.push(row(
        "codegen",
        format!("all {} catalog agents", records.len()),
        ms(t_all),
        "target ≤ 20 ms; one thread",
    ));
}
