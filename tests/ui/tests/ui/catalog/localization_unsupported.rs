// `llm_a` takes no localization input, so its params have no `zip_code`.
use agents_runtime::catalog::LlmAParams;

fn main() {
    let _ = LlmAParams::new("What is Rust?").zip_code("10001");
}
