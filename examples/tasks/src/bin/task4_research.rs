//! Ask a research agent a question with a typed answer (schemas/price_check.output.schema.json);
//! print its progress as it works, then what the pages it read say about the first offer's price.

use agents_runtime::client::research::{Answer, ResearchAgentRequest, ResearchRunRequest};
use agents_runtime::prelude::*;

agents_runtime::agent!("price_check");

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::v2_from_env()?;
    let agent = ResearchAgentRequest::of::<PriceCheck>("price-checker");
    let agent = client.publish_research_agent(agent).await?;
    let question = ResearchRunRequest::new("What does the X100 cost?").events(true);
    let run = client.start_research(&agent.agent.id, question).await?;
    run.follow(|event| println!("{event}")).await?;
    let answer: Answer<PriceCheck> = run.answer().await?;
    for citation in answer.citations(path!(PriceCheck.offers[0].price)) {
        println!("{} says {:?}", citation.url, citation.excerpts);
    }
    Ok(())
}
