//! Profiling aid: decodes the full retailer_a_pdp record N times with the generated type
//! (`gen`) or the strict derive baseline (`plain`), for perf or callgrind.

mod plain {
    #![allow(missing_docs, dead_code)]
    include!(concat!(env!("OUT_DIR"), "/plain.rs"));
}

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "gen".into());
    let n: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let dir = agents_test_support::schemas_dir();
    let record = match agents_codegen::load_file(&dir.join("retailer_a_pdp.json")) {
        Ok(l) => l.record,
        Err(e) => panic!("{e}"),
    };
    let schema = record.output_schema.unwrap_or_default();
    let bytes = serde_json::to_vec(&agents_schema::sample::record(&schema, 42)).unwrap_or_default();
    let mut ok = 0usize;
    for _ in 0..n {
        if mode == "plain" {
            ok += usize::from(serde_json::from_slice::<plain::Plain>(&bytes).is_ok());
        } else {
            ok += usize::from(
                serde_json::from_slice::<agents_runtime::catalog::RetailerAPdp>(&bytes).is_ok(),
            );
        }
    }
    println!("{mode}: {ok}/{n}");
}
