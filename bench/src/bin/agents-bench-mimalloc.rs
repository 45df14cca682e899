//! The allocation-heavy measurements under mimalloc (the synthetic codegen agents and the
//! decoding group): the benchmark runner (`cargo xtask bench`) spawns this binary, as it spawns
//! itself for the same measurements under glibc malloc, and adds its rows to the table. The
//! allocator is a per-binary choice, hence a binary of its own.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    agents_bench::child_main(", mimalloc");
}
