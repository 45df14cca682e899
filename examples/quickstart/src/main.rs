//! Quickstart: typed agent runs with no key and no network.
//!
//! Starts the emulator in-process on a loopback port, then uses the client exactly as against the
//! live service (there, build it with `Client::from_env()` and set AGENTS_API_KEY and
//! AGENTS_BASE_URL):
//!
//! 1. a typed `retailer_a_pdp` run,
//! 2. an async run followed by `wait()`,
//! 3. a catalog listing.
//!
//! Run with `cargo run -p example-quickstart`.

use std::process::ExitCode;
use std::time::Duration;

use agents_emulator::{Emulator, Lifecycle};
use agents_runtime::catalog::{RetailerAPdpParams, RetailerASerpParams};
use agents_runtime::client::agents::Privacy;
use agents_runtime::{Client, Error, Format, RunOptions, WaitOptions};

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("quickstart failed: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let emulator = Emulator::builder()
        .api_key("quickstart-key")
        .lifecycle(Lifecycle::fast())
        .start()
        .await?;
    println!("emulator at {}", emulator.base_url());

    let client = Client::builder()
        .base_url(emulator.base_url())
        .api_key(emulator.api_key())
        .build()?;

    // 1. A typed run: params are checked before sending; the answer is a typed record.
    let result = client
        .run_with(
            RetailerAPdpParams::new("B08N5WRWNW").zip_code("10001"),
            &RunOptions::new().format(Format::Links),
        )
        .await?;
    let product = result.record().ok_or("no record in data.parsing")?;
    println!(
        "\n1. retailer_a_pdp: {:?}\n   brand {:?}, price {:?} USD, rating {:?}/5, {} links",
        product.product_title,
        product.brand,
        product.web_price,
        product.average_of_reviews,
        result.data.links.as_ref().map_or(0, Vec::len),
    );
    println!(
        "   x-task-id {:?}, rate-limit headers: limit {:?}, remaining {:?}",
        result.response.task_id,
        result.response.rate_limit.limit,
        result.response.rate_limit.remaining
    );

    // A broken input rule never reaches the service.
    match client.run(RetailerAPdpParams::new("")).await {
        Err(Error::Validation(e)) => println!("   refused before sending: {e}"),
        other => return Err(format!("expected a validation error, got {other:?}").into()),
    }

    // 2. An async run, polled until it ends.
    let handle = client
        .run_async(RetailerASerpParams::new("wireless earbuds"))
        .await?
        .with_wait(
            WaitOptions::TASK.intervals(Duration::from_millis(50), Duration::from_millis(200)),
        );
    println!("\n2. async retailer_a_serp: task {}", handle.id());
    let listing = handle.wait().await?;
    println!("   done: {} listings on the page", listing.records().len());

    // 3. The catalog.
    let agents = client.agents().privacy(Privacy::Public).list().await?;
    println!("\n3. {} public agents:", agents.len());
    for a in &agents {
        println!(
            "   {:<28} {}",
            a.name,
            a.display_name.as_deref().unwrap_or("")
        );
    }
    emulator.shutdown().await;
    Ok(())
}
