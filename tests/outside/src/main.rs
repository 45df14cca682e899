//! What a user writes: the catalog, `agent!` with this package's own `schemas/`, and bindings
//! from build.rs, all run against the emulator started in-process on a loopback port. Exits
//! non-zero, saying what failed, when anything does not hold.

use agents_runtime::catalog::RetailerAPdpParams;
use agents_runtime::prelude::*;

// `agent!`: generated at compile time from schemas/recipe_page.json.
mod recipe {
    agents_runtime::agent!("recipe_page");
}

// build.rs: generated into OUT_DIR from schemas/shop_page.json. A binary uses only some of
// the generated methods.
#[allow(dead_code)]
mod shop {
    include!(concat!(env!("OUT_DIR"), "/agents.rs"));
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schemas = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas");
    let emulator = agents_emulator::Emulator::builder()
        .api_key("outside-key")
        .schema_dir(schemas)
        .start()
        .await?;
    let client = Client::builder()
        .base_url(emulator.base_url())
        .api_key("outside-key")
        .build()?;

    // The catalog.
    let product = client
        .run(RetailerAPdpParams::new("B08N5WRWNW").zip_code("10001"))
        .await?
        .into_record()
        .ok_or("retailer_a_pdp gave no record")?;
    let title = product.product_title.ok_or("no product_title")?;
    println!(
        "catalog  retailer_a_pdp: {title} at {:?} USD",
        product.web_price
    );

    // agent!.
    let recipe = client
        .run_async(recipe::RecipePageParams::new("https://recipes.example/r/1"))
        .await?
        .wait()
        .await?
        .into_record()
        .ok_or("recipe_page gave no record")?;
    let ingredients = recipe.ingredients.unwrap_or_default();
    println!(
        "agent!   recipe_page: {:?}, {} ingredients",
        recipe.recipe_title,
        ingredients.len()
    );

    // build.rs, and a rule checked before sending.
    let shop = client
        .run(shop::ShopPageParams::new("https://shop.example/p/1"))
        .await?
        .into_record()
        .ok_or("shop_page gave no record")?;
    println!(
        "build.rs shop_page: {:?} rated {:?}",
        shop.title, shop.rating
    );
    match client.run(shop::ShopPageParams::new("short")).await {
        Err(Error::Validation(e)) => println!("         refused before sending: {e}"),
        other => return Err(format!("expected a validation error, got {other:?}").into()),
    }

    // A stream read with the prelude's StreamExt.
    let mut agents = client.agents().stream();
    let mut public = 0;
    while let Some(agent) = agents.next().await {
        public += usize::from(agent?.is_public == Some(true));
    }
    println!("catalog  {public} public agents");

    emulator.shutdown().await;
    numbers_read_exactly()?;
    unicode_classes_without_the_feature()?;
    shared_limit_without_the_feature()?;
    Ok(())
}

/// A rate limit shared through Redis asked of a program built without the runtime's `redis`
/// feature: refused when the client is built, naming what asked for it and both fixes.
fn shared_limit_without_the_feature() -> Result<(), Box<dyn std::error::Error>> {
    let built = Client::builder()
        .base_url("http://127.0.0.1:9")
        .api_key("outside-key")
        .shared_limit("redis://127.0.0.1:9/")
        .build();
    let message = match built {
        Err(e) => e.to_string(),
        Ok(_) => return Err("a shared limit without the redis feature was accepted".into()),
    };
    for part in [
        "AGENTS_REDIS_URL/shared_limit",
        "`redis` feature",
        "unset AGENTS_REDIS_URL",
    ] {
        if !message.contains(part) {
            return Err(format!("{message:?} does not say {part:?}").into());
        }
    }
    println!("redis    a shared limit without the feature: {message}");
    Ok(())
}

/// A pattern with a Unicode class in a program built without the runtime's `unicode-patterns`
/// feature (the SDK's own workspace turns it on for its tests): it is not checked, and the
/// schema's problems say so, naming the feature that would check it.
fn unicode_classes_without_the_feature() -> Result<(), Box<dyn std::error::Error>> {
    use agents_runtime::check::{ProblemKind, Schema};
    let schema = Schema::from_text(r#"{"pattern": "^\\p{L}+$"}"#);
    let said = (schema.problems().iter())
        .any(|p| p.kind == ProblemKind::Pattern && p.message.contains("unicode-patterns"));
    if !said {
        return Err(format!(
            "a \\p{{L}} pattern without unicode-patterns: {:?}",
            schema.problems()
        )
        .into());
    }
    if !schema.is_valid(&agents_runtime::Value::from("123")) {
        return Err("a pattern said to be unchecked was checked".into());
    }
    println!("patterns \\p{{L}} unchecked without unicode-patterns, and said so");
    Ok(())
}

/// A number the service sends is the number the record holds, in a program that links nothing
/// but the SDK (in the SDK's own workspace, test crates turn the same serde_json feature on for
/// everything): the shortest texts of 10,000 doubles below 100,000, as a coordinate or a
/// computed score is written, each the `f64` Rust's own parser reads from it.
fn numbers_read_exactly() -> Result<(), Box<dyn std::error::Error>> {
    use agents_runtime::catalog::RetailerAPdp;
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut off = Vec::new();
    for _ in 0..10_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let sent = (state >> 11) as f64 / (1u64 << 53) as f64 * 100_000.0;
        let body = format!(r#"{{"web_price": {sent}}}"#);
        let record: RetailerAPdp = agents_runtime::decode::from_slice(body.as_bytes())?;
        if record.web_price.map(f64::to_bits) != Some(sent.to_bits()) {
            off.push(format!("{sent} read as {:?}", record.web_price));
        }
    }
    if let Some(first) = off.first() {
        return Err(format!(
            "{} of 10,000 numbers read inexactly, e.g. {first}",
            off.len()
        )
        .into());
    }
    println!("numbers  10,000 read exactly");
    Ok(())
}
