//! Profiling aid: splits the codegen time of one agent (default retailer_a_pdp) or of the whole
//! catalog (`all`) or of a synthetic agent (`wide:N` fields) into generate (lower + emit items) and formatting (`to_source`: prettyplease
//! over the record trees, `syn::parse2` + prettyplease over the quoted rest). Run under
//! `perf record --call-graph dwarf` for the detail. `typify` times the typify baseline on
//! retailer_a_pdp instead (for instruction counts under callgrind, which noisy neighbours do not
//! move).

use std::time::{Duration, Instant};

use agents_bench::typify_baseline;

fn main() {
    let which = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "retailer_a_pdp".into());
    let n: u32 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let records: Vec<_> = if let Some(n) = which.strip_prefix("wide:").and_then(|n| n.parse().ok())
    {
        vec![agents_test_support::wide_record("wide", n)]
    } else {
        match agents_codegen::load_dir(&agents_test_support::schemas_dir()) {
            Ok(loaded) => loaded
                .into_iter()
                .map(|l| l.record)
                .filter(|r| {
                    which == "all"
                        || r.name == which
                        || (which == "typify" && r.name == "retailer_a_pdp")
                })
                .collect(),
            Err(e) => panic!("{e}"),
        }
    };
    if which == "typify" {
        let Some(pdp) = records.first() else {
            panic!("retailer_a_pdp missing");
        };
        let root = typify_baseline::root_schema(&typify_baseline::json_schema(pdp, "RetailerAPdp"));
        let inputs: Vec<_> = (0..n).map(|_| root.clone()).collect();
        let t = Instant::now();
        let bytes: usize = inputs
            .into_iter()
            .map(|r| typify_baseline::generate(r).len())
            .sum();
        println!(
            "      typify: {:7.3} ms",
            t.elapsed().as_secs_f64() * 1e3 / f64::from(n)
        );
        println!("{bytes} bytes of source");
        return;
    }
    let options = agents_codegen::Options::default();
    let (mut generate, mut format) = (Duration::ZERO, Duration::ZERO);
    let mut bytes = 0;
    for _ in 0..n {
        let t = Instant::now();
        let out = match agents_codegen::generate(&records, &options) {
            Ok(out) => out,
            Err(e) => panic!("{e}"),
        };
        let t1 = Instant::now();
        bytes = match out.to_source() {
            Ok(source) => source.len(),
            Err(e) => panic!("{e}"),
        };
        generate += t1 - t;
        format += t1.elapsed();
    }
    let total = (generate + format).as_secs_f64();
    for (phase, d) in [("generate", generate), ("to_source", format)] {
        println!(
            "{phase:>12}: {:7.3} ms  {:4.1}%",
            d.as_secs_f64() * 1e3 / f64::from(n),
            d.as_secs_f64() / total * 100.0
        );
    }
    println!("{bytes} bytes of source");
}
