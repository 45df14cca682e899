//! Run a template over 1,000 products in one batch, print progress, then every price.

use agents_runtime::catalog::{RetailerAPdp, RetailerAPdpParams};
use agents_runtime::prelude::*;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::v2_from_env()?;
    let items = (0..1000).map(|i| RetailerAPdpParams::new(format!("B{i:09}")));
    let batch = client.batch::<RetailerAPdp>().submit(items).await?;
    batch.follow(|progress| println!("{progress}")).await?;
    let mut results = batch.indexed_results();
    while let Some((i, result)) = results.try_next().await? {
        println!("B{i:09} {:?}", result.record().and_then(|p| p.web_price));
    }
    Ok(())
}
