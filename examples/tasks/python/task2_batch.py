"""Run a template over 1,000 products in one batch, print progress, then every price."""

import time

from nimble_python import Nimble

client = Nimble()
batch = client.extract.templates.batch(
    inputs=[{"params": {"asin": f"B{i:09d}"}} for i in range(1000)],
    shared_inputs={"template": "retailer_a_pdp"},
)
while not (progress := client.batches.progress(batch.batch_id)).completed:
    print(f"{progress.completed_count:.0f} of {batch.batch_size:.0f} done")
    time.sleep(1)
for task in client.batches.get(batch.batch_id).tasks:
    result = client.tasks.results(task.id)
    print(task.input["params"]["asin"], result["data"]["parsing"]["web_price"])
