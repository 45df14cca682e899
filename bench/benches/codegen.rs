//! Criterion benchmarks of code generation: retailer_a_pdp against typify on the same output
//! schema, and the whole catalog. `cargo bench -p agents-bench --bench codegen`; the one-table
//! summary with targets is `cargo xtask bench`.
#![allow(missing_docs)] // criterion_group! generates undocumented functions

use std::hint::black_box;

use agents_codegen::{Options, generate};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

use agents_bench::typify_baseline;

fn codegen(c: &mut Criterion) {
    let records: Vec<_> = match agents_codegen::load_dir(&agents_test_support::schemas_dir()) {
        Ok(loaded) => loaded.into_iter().map(|l| l.record).collect(),
        Err(e) => panic!("{e}"),
    };
    let pdp: Vec<_> = records
        .iter()
        .filter(|r| r.name == "retailer_a_pdp")
        .cloned()
        .collect();
    let Some(first) = pdp.first() else {
        panic!("retailer_a_pdp missing from schemas/");
    };
    let root = typify_baseline::root_schema(&typify_baseline::json_schema(first, "RetailerAPdp"));
    let source = |records: &[agents_schema::AgentRecord]| {
        generate(records, &Options::default())
            .and_then(|o| o.to_source())
            .map(|s| s.len())
            .unwrap_or_default()
    };
    let mut group = c.benchmark_group("codegen");
    group.bench_function("retailer_a_pdp", |b| b.iter(|| black_box(source(&pdp))));
    group.bench_function("typify_retailer_a_pdp", |b| {
        b.iter_batched(
            || root.clone(),
            |root| black_box(typify_baseline::generate(root).len()),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("catalog", |b| b.iter(|| black_box(source(&records))));
    group.finish();
}

criterion_group!(benches, codegen);
criterion_main!(benches);
