// A typed research answer's part named by text: a misspelling would find nothing, so only the
// field's typed path is taken.
use agents_runtime::catalog::LlmA;
use agents_runtime::client::research::Answer;

fn cited(answer: &Answer<LlmA>) -> usize {
    answer.citations("responsee").len()
}

fn main() {
    let _ = cited;
}
