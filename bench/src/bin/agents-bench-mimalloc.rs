//! The allocation-heavy measurements under mimalloc (the synthetic codegen agents and the
//! decoding group): the benchmark runner (`cargo xtask bench`) spawns this binary and adds its
//! rows to the table. The allocator is a per-binary choice, hence a process of its own.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut rows = Vec::new();
    let run = agents_bench::measure::selected;
    if run("codegen") {
        agents_bench::codegen::synthetic(&mut rows, "codegen, mimalloc");
    }
    if run("decode") {
        agents_bench::decoding::bench(&mut rows, "decode, mimalloc");
    }
    for r in &rows {
        println!("{}", r.to_line());
    }
}
