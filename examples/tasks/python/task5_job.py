"""A job that runs a template nightly and writes Parquet; trigger it once and read the records."""

import io
import time

import httpx
import pyarrow.parquet as pq
from nimble_python import Nimble

client = Nimble()
job = client.jobs.create(
    name="nightly-prices",
    extract_template_name="retailer_a_pdp",
    inputs={"type": "inline", "data": [{"asin": "B08N5WRWNW"}]},
    destination={"type": "file", "path": "prices/", "format": "parquet"},
    schedule={"cron": "0 3 * * *", "enabled": True},
)
run = client.jobs.runs.create(job.id)
while run.status in ("PENDING", "RUNNING"):
    time.sleep(1)
    run = client.jobs.runs.get(run.id)
artifact = client.jobs.runs.artifacts.list(run.id).items[0]
link = client.jobs.runs.artifacts.download_url(int(artifact.id), run_id=run.id)
# With its reader threads, pyarrow aborts the interpreter at exit ("terminate called").
table = pq.read_table(io.BytesIO(httpx.get(link.url).content), use_threads=False)
for row in table.to_pylist():
    print(row["web_price"])
