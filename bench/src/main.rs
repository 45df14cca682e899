//! `cargo xtask bench`: every benchmark in one run, printed as one markdown table. This file is
//! the runner (arguments, groups in order, the table); each group is a module of its own.
//!
//! Ratios measured in the same run are what count; absolute times are context. Everything talks
//! to loopback only. `--quick` shortens the long measurements (for CI smoke runs);
//! `--only GROUPS` picks groups; `--build-override` adds a compile pass with the build-override
//! profile README.md offers; `--dump DIR` keeps our and typify's source for retailer_a_pdp.

mod batches;
mod catalog_codegen;
mod client_load;
mod compile;
mod fleet;
mod loadgen;
mod processes;
mod user_build;

use agents_bench::measure::row;

fn main() {
    if std::env::args().any(|a| a == "--child") {
        agents_bench::child_main("");
        return;
    }
    let quick = std::env::args().any(|a| a == "--quick");
    let mut rows = Vec::new();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => panic!("{e}"),
    };
    let run = agents_bench::measure::selected;
    // First, while this process is still small: its RSS is the client's alone.
    if run("memory") {
        eprintln!("memory…");
        rt.block_on(batches::memory(&mut rows, quick));
    }
    if run("codegen") {
        eprintln!("codegen…");
        catalog_codegen::bench(&mut rows);
        eprintln!("codegen, synthetic agents (child processes)…");
        processes::in_children(&mut rows, "codegen");
    }
    if run("decode") {
        eprintln!("decode (child processes)…");
        processes::in_children(&mut rows, "decode");
    }
    if run("jsonschema") {
        eprintln!("JSON Schema against typify (child processes)…");
        processes::in_children(&mut rows, "jsonschema");
    }
    if run("columnar") {
        eprintln!("columnar (child processes)…");
        processes::in_children(&mut rows, "columnar");
    }
    if run("parquet") {
        eprintln!("parquet pipeline (child processes)…");
        batches::parquet(&mut rows, quick);
    }
    if run("client") {
        eprintln!("emulator and client…");
        rt.block_on(client_load::bench(&mut rows, quick));
    }
    if run("sse") {
        eprintln!("research event streams with large events…");
        match rt.block_on(agents_bench::sse::measure()) {
            Ok(times) => {
                for (mib, took) in times {
                    rows.push(row(
                        "sse",
                        format!("one {mib} MiB event, then the final status"),
                        format!("{:.3} s", took.as_secs_f64()),
                        "ResearchRunHandle::events from a loopback server, 16 KiB chunks; \
                         target: 16 MiB < 1 s, time linear in the size",
                    ));
                }
            }
            Err(why) => rows.push(row("sse", "failed", "—", why)),
        }
    }
    if run("batch") {
        eprintln!("batch…");
        rt.block_on(batches::results(&mut rows, quick));
    }
    if run("fleet") {
        eprintln!("fleet on one key (Redis)…");
        rt.block_on(fleet::bench(&mut rows, quick));
    }
    if run("compile") {
        // The build-override pass is opt-in: it needs a second scratch workspace whose
        // dependencies build from scratch (its proc macros change every crate's hash), about 3
        // minutes on a fresh machine, and the README only offers it as an option.
        let passes: &[(bool, &str)] = if std::env::args().any(|a| a == "--build-override") {
            &[
                (false, "default dev profile"),
                (true, "dev profile + build-override opt-level 3 (README)"),
            ]
        } else {
            &[(false, "default dev profile")]
        };
        for &(build_override, profile) in passes {
            eprintln!("compile cost ({profile})…");
            let measured = compile::measure(&compile::workspace_root(), build_override);
            compile::rows(&mut rows, &measured, profile);
        }
    }
    if run("user-build") {
        user_build::bench(&mut rows);
    }
    println!("| group | measurement | result | notes |");
    println!("| --- | --- | --- | --- |");
    for r in rows {
        println!("| {} | {} | {} | {} |", r.group, r.name, r.value, r.note);
    }
}
