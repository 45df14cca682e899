// A field the agent's record does not declare.
use agents_runtime::catalog::RetailerAPdp;

fn main() {
    let product = RetailerAPdp::default();
    let _ = product.price_usd;
}
