// `asin` is required: `new` takes it.
use agents_runtime::catalog::RetailerAPdpParams;

fn main() {
    let _ = RetailerAPdpParams::new();
}
