"""What both conformance suites check the same way in each version: SERP, fast SERP, media,
domain knowledge and jobs exist in both clients with the same calls, so one function per part
runs them, given the version's names."""

import time

import httpx  # the SDKs' own HTTP client


def serp_media(suite, nimble_python, T, v, wait_task):
    """SERP, fast SERP, media and domain knowledge, through the SDK of version `v`."""
    call, expect_error = suite.call, suite.expect_error
    # --- SERP, fast SERP, media, domain knowledge ------------------------------------------------
    call(f"POST /{v}/serp", T.SerpRunResponse,
         lambda c: c.serp.with_raw_response.run(search_engine="google_search", query="rust serde",
                                                num_results=5))
    call(f"POST /{v}/serp (maps, a place, mobile)", T.SerpRunResponse,
         lambda c: c.serp.with_raw_response.run(search_engine="google_maps_search", query="coffee",
                                                location="Berlin", device="mobile", page=2))
    serp_task = call(f"POST /{v}/serp/async", T.SerpRunAsyncResponse,
                     lambda c: c.serp.with_raw_response.run_async(search_engine="bing_search",
                                                                  query="rust"))
    if serp_task:
        done = wait_task(serp_task["task"]["id"])
        if done and done["task"]["state"] == "success":
            call(f"GET /{v}/tasks/{{{id}}}/results (serp)", T.TaskResultsResponse,
                 lambda c: c.tasks.with_raw_response.results(serp_task["task"]["id"]))
    call(f"POST /{v}/serp/batch", T.SerpRunBatchResponse,
         lambda c: c.serp.with_raw_response.run_batch(
             inputs=[{"query": "rust"}, {"query": "serde", "page": 2}],
             shared_inputs={"search_engine": "google_news", "country": "DE"}))
    call(f"POST /{v}/fast-serp", T.FastSerpRunResponse,
         lambda c: c.fast_serp.with_raw_response.run(search_engine="google_search", query="tokio"))
    call(f"POST /{v}/media", T.MediaRunResponse,
         lambda c: c.media.with_raw_response.run(url="https://cdn.example/a/photo.jpg",
                                                 expected_mime_types=["image/*"],
                                                 storage={"url": "s3://bucket/media/", "type": "s3"}))
    media_task = call(f"POST /{v}/media/async", T.MediaRunAsyncResponse,
                      lambda c: c.media.with_raw_response.run_async(url="https://cdn.example/v.mp4"))
    if media_task:
        wait_task(media_task["task"]["id"])
    call(f"GET /{v}/domain-knowledge/driver?url=", T.DomainKnowledgeGetDriverResponse,
         lambda c: c.domain_knowledge.with_raw_response.get_driver(url="https://shop.example/p/1"))
    call(f"GET /{v}/domain-knowledge/driver?agent=", T.DomainKnowledgeGetDriverResponse,
         lambda c: c.domain_knowledge.with_raw_response.get_driver(agent="retailer_a_pdp"))
    expect_error("422 unknown search engine", nimble_python.UnprocessableEntityError,
                 lambda c: c.serp.run(search_engine="altavista", query="x"))
    expect_error("400 every bad SERP batch item", nimble_python.BadRequestError,
                 lambda c: c.serp.run_batch(inputs=[{"query": ""}, {"query": "ok"}, {}],
                                            shared_inputs={"search_engine": "google_search"}))
    expect_error("400 domain knowledge with url and agent", nimble_python.BadRequestError,
                 lambda c: c.domain_knowledge.get_driver(url="shop.example", agent="retailer_a_pdp"))
    expect_error("404 domain knowledge of an unknown agent", nimble_python.NotFoundError,
                 lambda c: c.domain_knowledge.get_driver(agent="no_such_agent"))


def jobs(suite, nimble_python, T, TJ, TJR, v, template_key, run_created, trigger):
    """Jobs, runs and artifacts. `template_key` names the job's template (`agent_name` in /v1),
    `run_created` is the model a trigger answers and `trigger(c, job_id)` triggers a run."""
    call, expect_error = suite.call, suite.expect_error
    # --- jobs ------------------------------------------------------------------------------------

    job = call(f"POST /{v}/jobs", T.JobCreateResponse,
               lambda c: c.jobs.with_raw_response.create(
                   name="conformance-job", **{template_key: "retailer_a_pdp"},
                   inputs={"type": "inline", "data": [{"asin": "B1"}, {"asin": ""}]},
                   destination={"path": "out/", "type": "file", "format": "csv"},
                   schedule={"cron": "0 3 * * *", "enabled": False}))
    call(f"GET /{v}/jobs", T.JobListResponse, lambda c: c.jobs.with_raw_response.list())
    if job:
        job_id = job["id"]
        call(f"GET /{v}/jobs/{{id}}", T.JobGetResponse, lambda c: c.jobs.with_raw_response.get(job_id))
        call(f"PATCH /{v}/jobs/{{id}}", T.JobUpdateResponse,
             lambda c: c.jobs.with_raw_response.update(job_id, description="nightly prices"))
        started = call(f"POST /{v}/jobs/{{id}}/runs", run_created, lambda c: trigger(c, job_id))
        if started:
            run_id = started["id"]
            deadline = time.time() + 10
            while time.time() < deadline:
                run = call(f"GET /{v}/jobs/runs/{{id}}", TJ.RunGetResponse,
                           lambda c: c.jobs.runs.with_raw_response.get(run_id))
                if run is None or run["status"] not in ("PENDING", "RUNNING"):
                    break
                time.sleep(0.05)
            call(f"GET /{v}/jobs/{{id}}/runs", TJ.RunListResponse,
                 lambda c: c.jobs.runs.with_raw_response.list(job_id))
            arts = call(f"GET /{v}/jobs/runs/{{id}}/artifacts", TJR.ArtifactListResponse,
                        lambda c: c.jobs.runs.artifacts.with_raw_response.list(run_id))
            if arts and arts["items"]:
                art = int(arts["items"][0]["id"])
                call(f"GET /{v}/jobs/runs/{{id}}/artifacts/{{artifact}}", TJR.ArtifactGetResponse,
                     lambda c: c.jobs.runs.artifacts.with_raw_response.get(art, run_id=run_id))
                call(f"GET /{v}/jobs/runs/{{id}}/artifacts/{{artifact}}/preview",
                     TJR.ArtifactPreviewResponse,
                     lambda c: c.jobs.runs.artifacts.with_raw_response.preview(art, run_id=run_id))
                link = call(f"GET /{v}/jobs/runs/{{id}}/artifacts/{{artifact}}/download-url",
                            TJR.ArtifactDownloadURLResponse,
                            lambda c: c.jobs.runs.artifacts.with_raw_response.download_url(
                                art, run_id=run_id))
                if link:
                    got = httpx.get(link["url"])
                    header = got.text.splitlines()[0] if got.status_code == 200 else ""
                    suite.ok("the download URL serves the CSV",
                             None if "_input_index" in header else f"{got.status_code} {got.text[:200]}")
            else:
                suite.ok("a finished run has artifacts", f"{arts!r}"[:300])
            expect_error("409 cancelling an ended run", nimble_python.ConflictError,
                         lambda c: c.jobs.runs.cancel(run_id))
        again = call(f"POST /{v}/jobs/{{id}}/runs (to cancel)", run_created, lambda c: trigger(c, job_id))
        if again:
            call(f"POST /{v}/jobs/runs/{{id}}/cancel", TJ.RunCancelResponse,
                 lambda c: c.jobs.runs.with_raw_response.cancel(again["id"]))
        try:
            suite.client.jobs.delete(job_id)
            suite.ok(f"DELETE /{v}/jobs/{{{id}}}")
        except Exception as e:  # noqa: BLE001
            suite.ok(f"DELETE /{v}/jobs/{{{id}}}", f"{type(e).__name__}: {e}")
        expect_error("404 a deleted job", nimble_python.NotFoundError, lambda c: c.jobs.get(job_id))
    expect_error("422 a job with a bad cron expression", nimble_python.UnprocessableEntityError,
                 lambda c: c.jobs.create(name="bad", **{template_key: "retailer_a_pdp"},
                                         schedule={"cron": "every day", "enabled": True}))
