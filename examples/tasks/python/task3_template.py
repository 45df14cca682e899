"""Publish your own JSON Schema documents as a template, then run it."""

import json
import pathlib
import time

from nimble_python import Nimble

schemas = pathlib.Path(__file__).parent.parent / "schemas"
client = Nimble()
generation = client.extract.templates.generations.create(
    name="review",
    prompt="One review of a product, as its page shows it",
    url="https://example.com/",
    input_schema=json.loads((schemas / "review.input.schema.json").read_text()),
    output_schema=json.loads((schemas / "review.output.schema.json").read_text()),
)
while generation.status not in ("success", "failed"):
    time.sleep(1)
    generation = client.extract.templates.generations.get(generation.id)
result = client.extract.templates.run(
    template="review", params={"url": "https://shop.example/r/1"}
)
review = result.data.parsing
print(review["stars"], review.get("headline"))
