//! Criterion benchmarks of decoding a full retailer_a_pdp record: the generated drift-tolerant
//! type, a plain `#[derive(Deserialize)]` baseline, `serde_json::Value`, and a record with 10% of
//! its fields drifted, each decoded as the client does (`agents_runtime::decode::from_slice`); and the generated
//! type through `serde_json::from_slice`, which checks UTF-8 string by string.
//! `cargo bench -p agents-bench --bench decode`.
#![allow(missing_docs)] // criterion_group! generates undocumented functions

use std::hint::black_box;

use agents_runtime::catalog::RetailerAPdp;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;

use agents_bench::plain;

fn decode(c: &mut Criterion) {
    let (bytes, drifted) =
        agents_bench::pdp_inputs(&agents_bench::pdp(), agents_bench::FULL_ARRAY_LEN);

    let mut group = c.benchmark_group("decode");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("generated", |b| {
        b.iter(|| agents_runtime::decode::from_slice::<RetailerAPdp>(black_box(&bytes)).is_ok())
    });
    group.bench_function("plain_derive", |b| {
        b.iter(|| agents_runtime::decode::from_slice::<plain::Plain>(black_box(&bytes)).is_ok())
    });
    group.bench_function("value", |b| {
        b.iter(|| agents_runtime::decode::from_slice::<Value>(black_box(&bytes)).is_ok())
    });
    group.bench_function("generated_10pct_drifted", |b| {
        b.iter(|| agents_runtime::decode::from_slice::<RetailerAPdp>(black_box(&drifted)).is_ok())
    });
    group.bench_function("generated_from_slice", |b| {
        b.iter(|| serde_json::from_slice::<RetailerAPdp>(black_box(&bytes)).is_ok())
    });
    group.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
