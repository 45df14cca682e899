"""What both conformance suites check the same way in each version: SERP, fast SERP, media,
domain knowledge, jobs and research agents exist in both clients with the same calls, so one
function per part runs them, given the version's names."""

import json
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


def research(suite, nimble_python, v, agents, models, start, names):
    """Research agents (`/v2/agents`, `/v1/task-agents`): agents, templates, runs, results and
    event streams, through the SDK of version `v`. `agents(c)` is the SDK's resource, `models`
    maps each call to the model it is documented to return, `start(c, agent_id, **body)` starts
    a run by agent id, and `names` gives the SDK's words where the versions differ (`delete`,
    `result`)."""
    call, expect_error = suite.call, suite.expect_error
    path = {"v1": "/v1/task-agents", "v2": "/v2/agents"}[v]
    call(f"GET {path}/templates", models["templates"],
         lambda c: agents(c).templates.with_raw_response.list(limit=10))
    call(f"GET {path}/templates/{{name}}", models["template"],
         lambda c: agents(c).templates.with_raw_response.get("company-profile"))
    schema = {"type": "object", "properties": {"name": {"type": "string"},
                                               "founded": {"type": "integer"}},
              "required": ["name"]}
    agent = call(f"POST {path}", models["create"],
                 lambda c: agents(c).with_raw_response.create(
                     agent_name=f"conformance-{v}", goals=["Find the company"],
                     effort="high", output_schema=schema,
                     sources={"allow": [{"title": "Filings", "domains": ["sec.gov"]}]}))
    call(f"GET {path}", models["list"], lambda c: agents(c).with_raw_response.list(limit=5))
    if not agent:
        return
    aid = agent["id"]
    call(f"GET {path}/{{id}}", models["get"], lambda c: agents(c).with_raw_response.get(aid))
    patched = call(f"PATCH {path}/{{id}}", models["update"],
                   lambda c: agents(c).with_raw_response.update(
                       aid, body=[{"op": "replace", "path": "/display_name", "value": "Analyst"}]))
    if patched and patched["display_name"] != "Analyst":
        suite.ok("PATCH changes the research agent", f"{patched!r}"[:500])
    # The run lasts 1.5 s, so keep-alive comments (every 100 ms under --fast) come between its
    # events: the SDK's decoder must read the stream whole through them.
    run = call(f"POST {path}/{{id}}/runs", models["run"],
               lambda c: start(c, aid, input="Who founded Example Corp?", enable_events=True,
                               extra_headers={"x-emulator-task-ms": "1500"}))
    if not run:
        return
    rid = run["id"]
    expect_error("409 the result of a running research run", nimble_python.ConflictError,
                 lambda c: getattr(agents(c).runs, names["result"])(rid, agent_id=aid))
    # The events, through the SDK (every event's data must be JSON) and raw (the content type).
    try:
        stream = agents(suite.client.with_options(timeout=20)).runs.stream_events(
            rid, agent_id=aid)
        # 0.24.0 reads the whole stream and returns None (its model of the call has no
        # events); 1.6.0 yields each event's JSON data.
        events = [{"status": "completed"}] if stream is None else list(stream)
        last = events[-1] if events else None
        if not all(isinstance(e, dict) for e in events):
            suite.ok(f"GET {path}/{{id}}/runs/{{run}}/events", f"events {events!r}"[:500])
        if not (isinstance(last, dict) and last.get("status") == "completed"):
            suite.ok(f"GET {path}/{{id}}/runs/{{run}}/events", f"last event {last!r}")
        else:
            suite.ok(f"GET {path}/{{id}}/runs/{{run}}/events ({len(events)} events)")
    except Exception as e:  # noqa: BLE001
        suite.ok(f"GET {path}/{{id}}/runs/{{run}}/events", f"{type(e).__name__}: {e}")
    with httpx.stream("GET", f"{suite.base}{path}/{aid}/runs/{rid}/events",
                      headers={"Authorization": f"Bearer {suite.key}",
                               "Accept": "text/event-stream", "Last-Event-ID": "2"},
                      timeout=20) as resp:
        kind = resp.headers.get("content-type", "")
        text = "".join(resp.iter_text())
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    ids = [line[3:].strip() for line in text.splitlines() if line.startswith("id:")]
    try:
        [json.loads(d) for d in data]
        good = kind.startswith("text/event-stream") and ids and ids[0] == "3"
        suite.ok("events resume after Last-Event-ID, as text/event-stream of JSON data",
                 None if good else f"content type {kind!r}, ids {ids}")
    except ValueError as e:
        suite.ok("events resume after Last-Event-ID, as text/event-stream of JSON data", str(e))
    call(f"GET {path}/{{id}}/runs/{{run}}", models["run_get"],
         lambda c: agents(c).runs.with_raw_response.get(rid, agent_id=aid))
    call(f"GET {path}/{{id}}/runs", models["runs"],
         lambda c: agents(c).runs.with_raw_response.list(aid, limit=5))
    result = call(f"GET {path}/{{id}}/runs/{{run}}/result", models["result"],
                  lambda c: getattr(agents(c).runs.with_raw_response, names["result"])(
                      rid, agent_id=aid))
    if result and result["output"]["type"] != "json":
        suite.ok("a run with an output schema answers JSON", f"{result!r}"[:500])
    failing = call(f"POST {path}/{{id}}/runs (a run that fails)", models["run"],
                   lambda c: start(c, aid, input="q", extra_headers={"x-emulator-task": "error"}))
    if failing:
        deadline = time.time() + 10
        while time.time() < deadline:
            if not agents(suite.lenient).runs.get(failing["id"], agent_id=aid).is_active:
                break
            time.sleep(0.05)
        expect_error("422 the result of a failed research run",
                     nimble_python.UnprocessableEntityError,
                     lambda c: getattr(agents(c).runs, names["result"])(failing["id"], agent_id=aid))
    expect_error("422 a run without input", nimble_python.UnprocessableEntityError,
                 lambda c: start(c, aid, input=""))
    expect_error("404 an unknown research agent", nimble_python.NotFoundError,
                 lambda c: agents(c).get("wsa_nope"))
    try:
        getattr(agents(suite.client), names["delete"])(aid)
        suite.ok(f"DELETE {path}/{{id}}")
    except Exception as e:  # noqa: BLE001
        suite.ok(f"DELETE {path}/{{id}}", f"{type(e).__name__}: {e}")
    expect_error("422 a run of a deactivated agent", nimble_python.UnprocessableEntityError,
                 lambda c: start(c, aid, input="q"))
