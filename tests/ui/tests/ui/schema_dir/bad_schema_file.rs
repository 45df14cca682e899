// A cached record that is not a valid agent record: every problem, with its JSON path.
agents_runtime::agent!("broken");

fn main() {}
