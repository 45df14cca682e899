// Without the prelude, the compiler names the trait that brings `zip_code`.
use agents_runtime::catalog::LlmAParams;

fn main() {
    let _ = LlmAParams::new("What is Rust?").zip_code("10001");
}
