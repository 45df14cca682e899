// A typo of a catalog agent's name where no schema file is near: the catalog's names are
// suggested.
agents_runtime::agent!("retailer_a_pdpp");

fn main() {}
