"""Ask a research agent a question with a typed answer; print its progress as it works, then
what the pages it read say about the first offer's price."""

import json
import pathlib

from nimble_python import Nimble

schemas = pathlib.Path(__file__).parent.parent / "schemas"
client = Nimble()
agent = client.agents.create(
    agent_name="price-checker",
    display_name="Price checker",
    output_schema=json.loads((schemas / "price_check.output.schema.json").read_text()),
)
run = client.agents.runs.create(
    agent.id, input="What does the X100 cost?", enable_events=True
)
for event in client.agents.runs.stream_events(run.id, agent_id=agent.id):
    print(event)
result = client.agents.runs.result(run.id, agent_id=agent.id)
for claim in result.output.trust.claims:
    if claim.path == "offers[0].price":
        for citation in claim.citations:
            print(citation.url, "says", citation.excerpts)
