// The page of a paginated agent is a number.
use agents_runtime::catalog::RetailerASerpParams;

fn main() {
    let _ = RetailerASerpParams::new("earbuds").page("2");
}
