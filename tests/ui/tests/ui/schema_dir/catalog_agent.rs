// A catalog agent with no schema file of its own: the error points at the bindings that ship
// with the runtime.
agents_runtime::agent!("retailer_a_pdp");

fn main() {}
