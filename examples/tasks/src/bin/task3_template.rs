//! Publish your own JSON Schema documents (schemas/review.*.schema.json) as a template, then run
//! it typed. Run it again: the template is unchanged and nothing is published.

use agents_runtime::prelude::*;

agents_runtime::agent!("review");

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::v2_from_env()?;
    println!("{}", client.publish::<Review>().await?);
    let result = client
        .run(ReviewParams::new("https://shop.example/r/1"))
        .await?;
    let review = result.record().ok_or("no review on the page")?;
    println!("{:?} {:?}", review.stars, review.headline);
    Ok(())
}
