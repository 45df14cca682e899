// A typed path to a field the record does not declare.
use agents_runtime::catalog::LlmA;
use agents_runtime::client::research::Answer;

fn cited(answer: &Answer<LlmA>) -> usize {
    answer.citations(LlmA::FIELDS.responsee).len()
}

fn main() {
    let _ = cited;
}
