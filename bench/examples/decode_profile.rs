//! Profiling aid: decodes the retailer_a_pdp record N times with the generated type (`gen`), the
//! strict derive baseline (`plain`) or `serde_json::Value` (`value`), as the client decodes
//! (`agents_runtime::decode::from_slice`); `slice` is the generated type through
//! `serde_json::from_slice`. For perf or callgrind:
//! `decode_profile MODE N [ARRAY_LEN]`, arrays of 11 items (the full record) unless told.

use agents_bench::plain;

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "gen".into());
    let n: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let len: usize = std::env::args()
        .nth(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(agents_bench::FULL_ARRAY_LEN);
    let (bytes, _) = agents_bench::pdp_inputs(&agents_bench::pdp(), len);
    let mut ok = 0usize;
    for _ in 0..n {
        if mode == "slice" {
            ok += usize::from(
                serde_json::from_slice::<agents_runtime::catalog::RetailerAPdp>(&bytes).is_ok(),
            );
        } else if mode == "plain" {
            ok += usize::from(agents_runtime::decode::from_slice::<plain::Plain>(&bytes).is_ok());
        } else if mode == "value" {
            ok += usize::from(
                agents_runtime::decode::from_slice::<serde_json::Value>(&bytes).is_ok(),
            );
        } else {
            ok += usize::from(
                agents_runtime::decode::from_slice::<agents_runtime::catalog::RetailerAPdp>(&bytes)
                    .is_ok(),
            );
        }
    }
    println!("{mode}: {ok}/{n}");
}
