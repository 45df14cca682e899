//! Criterion benchmarks of decoding a full retailer_a_pdp record: the generated drift-tolerant
//! type, a plain `#[derive(Deserialize)]` baseline, `serde_json::Value`, and a record with 10% of
//! its fields drifted. `cargo bench -p agents-bench --bench decode`.
#![allow(missing_docs)] // criterion_group! generates undocumented functions

use std::hint::black_box;

use agents_runtime::catalog::RetailerAPdp;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;

mod plain {
    #![allow(missing_docs, dead_code)]
    include!(concat!(env!("OUT_DIR"), "/plain.rs"));
}

fn decode(c: &mut Criterion) {
    let pdp = match agents_codegen::load_file(
        &agents_test_support::schemas_dir().join("retailer_a_pdp.json"),
    ) {
        Ok(l) => l.record,
        Err(e) => panic!("{e}"),
    };
    let schema = pdp.output_schema.clone().unwrap_or_default();
    let record = agents_schema::sample::record(&schema, 42);
    let bytes = serde_json::to_vec(&record).unwrap_or_default();
    let mut drifted = record;
    agents_emulator::synth::drift(&pdp, &mut drifted, 42, 10);
    let drifted = serde_json::to_vec(&drifted).unwrap_or_default();

    let mut group = c.benchmark_group("decode");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("generated", |b| {
        b.iter(|| serde_json::from_slice::<RetailerAPdp>(black_box(&bytes)).is_ok())
    });
    group.bench_function("plain_derive", |b| {
        b.iter(|| serde_json::from_slice::<plain::Plain>(black_box(&bytes)).is_ok())
    });
    group.bench_function("value", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(&bytes)).is_ok())
    });
    group.bench_function("generated_10pct_drifted", |b| {
        b.iter(|| serde_json::from_slice::<RetailerAPdp>(black_box(&drifted)).is_ok())
    });
    group.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
