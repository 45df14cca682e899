"""Conformance of agents-emulator's /v2 interface with the vendor's client 1.6.0 (which calls no
/v1 path), through conformance/harness.py.

    python v2/suite.py BASE_URL API_KEY
"""

import pathlib
import sys
import time

import nimble_python
from nimble_python import types as T
from nimble_python.types import extract as TE
from nimble_python.types.extract import templates as TT

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import blocks  # noqa: E402
from harness import Suite  # noqa: E402

BASE, KEY = sys.argv[1], sys.argv[2]
suite = Suite(nimble_python, BASE, KEY)
call, expect_error = suite.call, suite.expect_error

PDP = {"asin": "B08N5WRWNW"}


def wait_task(task_id, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        body = call("GET /v2/tasks/{id} (polling)", T.TaskGetResponse,
                    lambda c: c.tasks.with_raw_response.get(task_id))
        if body is None or body["task"]["state"] in ("success", "error"):
            return body
        time.sleep(0.05)
    return None


# --- extract templates: the catalog and versions ---------------------------------------------
page = call("GET /v2/extract/templates", TE.TemplateListResponse,
            lambda c: c.extract.templates.with_raw_response.list())
call("GET /v2/extract/templates?limit=2&offset=1", TE.TemplateListResponse,
     lambda c: c.extract.templates.with_raw_response.list(limit=2, offset=1))
template = call("GET /v2/extract/templates/{name}", TE.TemplateGetResponse,
                lambda c: c.extract.templates.with_raw_response.get("retailer_a_pdp"))
if page is not None and not (page["total"] >= len(page["items"]) > 0):
    suite.ok("template list pages what it counts", f"{page!r}"[:500])
versions = call("GET /v2/extract/templates/{name}/versions", TT.VersionListResponse,
                lambda c: c.extract.templates.versions.with_raw_response.list("retailer_a_pdp"))
if template and versions:
    vid = template["published_version_id"]
    if vid not in [v["id"] for v in versions["items"]]:
        suite.ok("the published version is among the versions", f"{vid} not in {versions!r}"[:500])
    call("GET /v2/extract/templates/{name}/versions/{id}", TT.VersionGetResponse,
         lambda c: c.extract.templates.versions.with_raw_response.get(
             vid, extract_template_name="retailer_a_pdp"))

# --- runs ------------------------------------------------------------------------------------
call("POST /v2/extract/templates/run", TE.TemplateRunResponse,
     lambda c: c.extract.templates.with_raw_response.run(template="retailer_a_pdp", params=PDP))
call("POST /v2/extract/templates/run (formats, localization)", TE.TemplateRunResponse,
     lambda c: c.extract.templates.with_raw_response.run(
         template="retailer_a_pdp", params={**PDP, "zip_code": "10001"}, localization=True,
         formats=["html", "markdown", "links", "headers"]))
started = call("POST /v2/extract/templates/async", TE.TemplateAsyncResponse,
               lambda c: c.extract.templates.with_raw_response.async_(
                   template="retailer_a_pdp", params=PDP))
if started:
    task_id = started["task"]["id"]
    done = wait_task(task_id)
    if done and done["task"]["state"] == "success":
        call("GET /v2/tasks/{id}/results", T.TaskResultsResponse,
             lambda c: c.tasks.with_raw_response.results(task_id))
call("GET /v2/tasks", T.TaskListResponse, lambda c: c.tasks.with_raw_response.list())

# --- batches ---------------------------------------------------------------------------------
batch = call("POST /v2/extract/templates/batch", TE.TemplateBatchResponse,
             lambda c: c.extract.templates.with_raw_response.batch(
                 inputs=[{"params": {"asin": f"B0{i}"}} for i in range(3)],
                 shared_inputs={"template": "retailer_a_pdp", "params": {"country": "US"}}))
if batch:
    batch_id = batch["batch_id"]
    deadline = time.time() + 10
    while time.time() < deadline:
        progress = call("GET /v2/batches/{id}/progress", T.BatchProgressResponse,
                        lambda c: c.batches.with_raw_response.progress(batch_id))
        if progress is None or progress["completed"]:
            break
        time.sleep(0.05)
    call("GET /v2/batches/{id}", T.BatchGetResponse,
         lambda c: c.batches.with_raw_response.get(batch_id))
call("GET /v2/batches", None, lambda c: c.batches.with_raw_response.list())

# --- extract, search, map, crawl -------------------------------------------------------------
call("POST /v2/extract", T.ExtractRunResponse,
     lambda c: c.extract.with_raw_response.run(url="https://shop.example/p/1",
                                               formats=["markdown"]))
call("POST /v2/extract (browser actions)", T.ExtractRunResponse,
     lambda c: c.extract.with_raw_response.run(url="https://shop.example/p/1",
                                               browser_actions=[{"wait": "5ms"}]))
call("POST /v2/extract/async", T.ExtractAsyncResponse,
     lambda c: c.extract.with_raw_response.async_(url="https://shop.example/p/2"))
call("POST /v2/extract/batch", T.ExtractBatchResponse,
     lambda c: c.extract.with_raw_response.batch(
         inputs=[{"url": "https://shop.example/p/3"}, {"url": "https://shop.example/p/4"}],
         shared_inputs={"render": False}))
call("POST /v2/search", T.SearchResponse,
     lambda c: c.with_raw_response.search(query="rust serde", max_results=3))
call("POST /v2/search (standard depth, full content, answer)", T.SearchResponse,
     lambda c: c.with_raw_response.search(query="rust serde", search_depth="standard",
                                          full_content=True, include_answer=True))
call("POST /v2/map", T.MapResponse, lambda c: c.with_raw_response.map(url="https://shop.example/"))
crawl = call("POST /v2/crawl", T.CrawlRunResponse,
             lambda c: c.crawl.with_raw_response.run(url="https://shop.example/", limit=3))
if crawl:
    crawl_id = crawl["crawl_id"]
    call("GET /v2/crawl/{id}", T.CrawlStatusResponse,
         lambda c: c.crawl.with_raw_response.status(crawl_id))
    call("GET /v2/crawl", T.CrawlListResponse, lambda c: c.crawl.with_raw_response.list())
    call("DELETE /v2/crawl/{id}", T.CrawlTerminateResponse,
         lambda c: c.crawl.with_raw_response.terminate(crawl_id))

# --- generation, and the refinement that adds a version --------------------------------------
name = f"conformance_v2_{int(time.time() * 1000)}"
gen = call("POST /v2/extract/templates/generations", TT.GenerationCreateResponse,
           lambda c: c.extract.templates.generations.with_raw_response.create(
               prompt="Extract the title and the price", url="https://shop.example/p/9",
               name=name, metadata={"display_name": "Shop product", "tags": ["shop"]}))


def wait_generation(gen_id, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        body = call("GET /v2/extract/templates/generations/{id}", TT.GenerationGetResponse,
                    lambda c: c.extract.templates.generations.with_raw_response.get(gen_id))
        if body is None or body["status"] in ("success", "failed"):
            return body
        time.sleep(0.05)
    return None


if gen:
    done = wait_generation(gen["id"])
    if done and done["status"] == "success":
        if done.get("name") != name:
            suite.ok("a /v2 generation names its template `name`", f"{done!r}"[:500])
        call("POST /v2/extract/templates/run (the generated template)", TE.TemplateRunResponse,
             lambda c: c.extract.templates.with_raw_response.run(
                 template=name, params={"url": "https://shop.example/p/9"}))
        refine = call("POST /v2/extract/templates/generations (refine)",
                      TT.GenerationCreateResponse,
                      lambda c: c.extract.templates.generations.with_raw_response.create(
                          from_extract_template=name, prompt="Also the brand"))
        if refine and (again := wait_generation(refine["id"])) and again["status"] == "success":
            listed = call("GET /v2/extract/templates/{name}/versions (after a refinement)",
                          TT.VersionListResponse,
                          lambda c: c.extract.templates.versions.with_raw_response.list(name))
            numbers = [v["version_number"] for v in (listed or {}).get("items", [])]
            if numbers != [1, 2]:
                suite.ok("a refinement publishes version 2", f"versions {numbers}")
        patched = call("PATCH /v2/extract/templates/{name}", TE.TemplateUpdateResponse,
                       lambda c: c.extract.templates.with_raw_response.update(name, body=[
                           {"op": "replace", "path": "/published_version/metadata/description",
                            "value": "Title and price"},
                           {"op": "add", "path": "/published_version/samples",
                            "value": [{"input": {"url": "https://shop.example/p/9"},
                                       "output": {"title": "Kettle"}}]}]))
        if patched and patched["published_version"]["metadata"]["description"] != "Title and price":
            suite.ok("PATCH changes the template", f"{patched!r}"[:500])
        expect_error("422 a JSON Patch whose test fails", nimble_python.UnprocessableEntityError,
                     lambda c: c.extract.templates.update(name, body=[
                         {"op": "test", "path": "/name", "value": "someone_else"}]))
        expect_error("403 patching a public template", nimble_python.PermissionDeniedError,
                     lambda c: c.extract.templates.update("retailer_a_pdp", body=[
                         {"op": "remove", "path": "/published_version/metadata/tags"}]))
        try:
            suite.client.extract.templates.delete(name)
            suite.ok("DELETE /v2/extract/templates/{name}")
        except Exception as e:  # noqa: BLE001
            suite.ok("DELETE /v2/extract/templates/{name}", f"{type(e).__name__}: {e}")
        expect_error("404 a deleted template", nimble_python.NotFoundError,
                     lambda c: c.extract.templates.get(name))
    else:
        suite.ok("generation succeeds", f"{done!r}"[:500])

# --- SERP, fast SERP, media, domain knowledge, jobs (checked alike in both versions) -------
from nimble_python.types import jobs as TJ  # noqa: E402
from nimble_python.types.jobs import runs as TJR  # noqa: E402

blocks.serp_media(suite, nimble_python, T, "v2", wait_task)
blocks.jobs(suite, nimble_python, T, TJ, TJR, "v2", "extract_template_name", TJ.RunCreateResponse,
            lambda c, job_id: c.jobs.runs.with_raw_response.create(job_id))

# --- research agents ---------------------------------------------------------------------------
from nimble_python.types import agents as TA  # noqa: E402

blocks.research(
    suite, nimble_python, "v2", lambda c: c.agents,
    {"templates": TA.TemplateListResponse, "template": TA.TemplateGetResponse,
     "create": T.AgentCreateResponse, "list": T.AgentListResponse, "get": T.AgentGetResponse,
     "update": T.AgentUpdateResponse, "run": TA.RunCreateResponse, "run_get": TA.RunGetResponse,
     "runs": TA.RunListResponse, "result": TA.RunResultResponse},
    lambda c, aid, **body: c.agents.runs.with_raw_response.create(aid, **body),
    {"delete": "delete", "result": "result"})
by_name = call("POST /v2/agents/runs (by name, making the agent)", T.AgentRunResponse,
               lambda c: c.agents.with_raw_response.run(input="What is new?",
                                                       agent_name="conformance-by-name"))
again = call("POST /v2/agents/runs (by name, reusing the agent)", T.AgentRunResponse,
             lambda c: c.agents.with_raw_response.run(input="And now?",
                                                     agent_name="conformance-by-name"))
if by_name and again and by_name["web_search_agent_id"] != again["web_search_agent_id"]:
    suite.ok("a run by name reuses its agent", f"{by_name!r} / {again!r}"[:500])

# --- documented errors -----------------------------------------------------------------------
bad = nimble_python.Nimble(api_key="not-a-key", base_url=BASE, max_retries=0)
expect_error("401 unknown key", nimble_python.AuthenticationError,
             lambda c: bad.extract.templates.list())
expect_error("404 unknown template", nimble_python.NotFoundError,
             lambda c: c.extract.templates.get("no_such_template"))
expect_error("404 unknown version", nimble_python.NotFoundError,
             lambda c: c.extract.templates.versions.get("nope",
                                                       extract_template_name="retailer_a_pdp"))
expect_error("404 unknown task", nimble_python.NotFoundError, lambda c: c.tasks.get("nope"))
expect_error("422 unknown template in a run", nimble_python.UnprocessableEntityError,
             lambda c: c.extract.templates.run(template="no_such_template", params={}))
expect_error("400 missing required input", nimble_python.BadRequestError,
             lambda c: c.extract.templates.run(template="retailer_a_pdp", params={}))
expect_error("400 a /v1 field in a /v2 run", nimble_python.BadRequestError,
             lambda c: c.extract.templates.run(template=None, params=PDP,
                                               extra_body={"agent": "retailer_a_pdp"}))
expect_error("429 rate limited", nimble_python.RateLimitError,
             lambda c: c.extract.templates.list(extra_headers={"x-emulator-fault": "rate-limit"}))
expect_error("500 internal", nimble_python.InternalServerError,
             lambda c: c.extract.templates.list(extra_headers={"x-emulator-fault": "500"}))

suite.fixtures(pathlib.Path(__file__).parent / "fixtures", [T, TE, TT, TJ, TJR])
suite.finish("v2 (nimble-python 1.6.0)")
