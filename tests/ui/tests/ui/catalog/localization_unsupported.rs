// `llm_a` takes no localization input: asking for a location says so, naming the agent.
use agents_runtime::catalog::LlmAParams;
use agents_runtime::prelude::*;

fn main() {
    let _ = LlmAParams::new("What is Rust?").zip_code("10001");
    let _ = LlmAParams::new("What is Rust?").store_id("4711");
}
