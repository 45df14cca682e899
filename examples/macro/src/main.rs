//! Macro mode: the bindings are generated at compile time from schemas/retailer_a_pdp.json.

agents_runtime::agent!("retailer_a_pdp");

const MODE: &str = "macro";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let emulator = agents_emulator::Emulator::builder().start().await?;
    let client = agents_runtime::Client::builder()
        .base_url(emulator.base_url())
        .api_key(emulator.api_key())
        .build()?;
    let result = client.run(RetailerAPdpParams::new("B08N5WRWNW")).await?;
    let product: &RetailerAPdp = result.record().ok_or("no record")?;
    println!(
        "{MODE}: {:?}, {:?} USD",
        product.product_title, product.web_price
    );
    emulator.shutdown().await;
    Ok(())
}
