//! The decoding group under mimalloc: the benchmark runner (`cargo xtask bench`) spawns this
//! binary and adds its rows to the table. The allocator is a per-binary choice, hence a process
//! of its own.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut rows = Vec::new();
    agents_bench::decoding::bench(&mut rows, "decode, mimalloc");
    for r in &rows {
        println!("{}", r.to_line());
    }
}
