//! Run a catalog template and print two fields of the product.

use agents_runtime::catalog::RetailerAPdpParams;
use agents_runtime::prelude::*;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::v2_from_env()?;
    let result = client.run(RetailerAPdpParams::new("B08N5WRWNW")).await?;
    let product = result.record().ok_or("no product on the page")?;
    println!("{:?} {:?}", product.product_title, product.web_price);
    Ok(())
}
