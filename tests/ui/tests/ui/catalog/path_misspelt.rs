// path! into a nested record, with a field that record does not declare.
use agents_runtime::catalog::LlmA;
use agents_runtime::path;

fn main() {
    let _ = path!(LlmA.citations[0].urll);
}
