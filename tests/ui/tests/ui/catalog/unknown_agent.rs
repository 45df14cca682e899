// A typo in an agent name: the error suggests the cached names that are near.
agents_runtime::agent!("retailer_a_pbp");

fn main() {}
