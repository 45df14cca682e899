// `keywords.json` holds the record of `kw_agent`.
agents_runtime::agent!("keywords");

fn main() {}
