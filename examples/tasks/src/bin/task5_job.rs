//! A job that runs a template nightly and writes Parquet; trigger it once and read the records.

use agents_runtime::catalog::{RetailerAPdp, RetailerAPdpParams};
use agents_runtime::client::jobs::{ArtifactFormat, JobDestination, JobInputs, JobRequest};
use agents_runtime::columnar::ParquetReader;
use agents_runtime::prelude::*;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::v2_from_env()?;
    let job = JobRequest::of::<RetailerAPdp>("nightly-prices")
        .inputs(JobInputs::params([RetailerAPdpParams::new("B08N5WRWNW")])?)
        .destination(JobDestination::file("prices/", ArtifactFormat::Parquet))
        .schedule("0 3 * * *", true);
    let job = client.create_job(job).await?;
    let run = client.trigger_job(&job.id, None).await?.wait().await?;
    let results = &client.artifacts(&run.id).await?[0];
    let bytes = client.download_artifact(&run.id, &results.id).await?;
    for read in ParquetReader::<RetailerAPdp>::new(bytes)? {
        println!("{:?}", read?.record.web_price);
    }
    Ok(())
}
