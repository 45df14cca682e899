//! `POST /v1/extract` and its async variant.

use agents_runtime::endpoint::ApiVersion;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use axum::Extension;
use axum::Json;
use axum::extract::State as AxState;
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::lifecycle::{Flow, Task, TaskEnd};
use crate::request::{ApiJson, Ctx, optional_str, required_str};
use crate::state::{State, lock};
use crate::wire::timestamp;

use super::actions::{check_actions, run_actions};
use super::page::{PLACEHOLDER_PNG, Shared, fetch, links, markdown, parse_url};

/// Formats of extract.
pub(super) const EXTRACT_FORMATS: [&str; 5] =
    ["html", "markdown", "headers", "links", "screenshot"];

/// Checks an extract request and computes its result.
pub async fn extract_result(
    body: &Map<String, Value>,
    task_id: &str,
    at: SystemTime,
) -> Result<Value, ApiError> {
    let url = parse_url(required_str(body, "url")?, "url")?;
    let mut formats = Vec::new();
    if let Some(v) = body.get("formats").filter(|v| !v.is_null()) {
        let Some(list) = v.as_array() else {
            return Err(ApiError::wrong_type(
                "formats",
                "formats must be an array of strings",
            ));
        };
        for (i, f) in list.iter().enumerate() {
            match f.as_str() {
                Some(s) if EXTRACT_FORMATS.contains(&s) => formats.push(s.to_owned()),
                _ => {
                    return Err(ApiError::refused(
                        format!("formats[{i}]"),
                        format!(
                            "unknown format {f}; allowed: {}",
                            EXTRACT_FORMATS.join(", ")
                        ),
                    ));
                }
            }
        }
    }
    match body.get("render") {
        None | Some(Value::Null | Value::Bool(_)) => {}
        Some(Value::String(s)) if s == "auto" => {}
        Some(other) => {
            return Err(ApiError::wrong_type(
                "render",
                format!("render must be a boolean or \"auto\", not {other}"),
            ));
        }
    }
    if let Some(c) = optional_str(body, "country")?
        && (c.len() != 2 || !c.bytes().all(|b| b.is_ascii_alphabetic()))
    {
        return Err(ApiError::refused(
            "country",
            format!("{c:?} is not a two-letter country code"),
        ));
    }
    let expected: Option<Vec<u16>> = match body.get("expected_status_codes") {
        None | Some(Value::Null) => None,
        Some(Value::Array(list)) => Some(
            list.iter()
                .enumerate()
                .map(|(i, c)| {
                    c.as_u64()
                        .and_then(|c| u16::try_from(c).ok())
                        .filter(|c| (100..=599).contains(c))
                        .ok_or_else(|| {
                            ApiError::wrong_type(
                                format!("expected_status_codes[{i}]"),
                                "must be an HTTP status",
                            )
                        })
                })
                .collect::<Result<_, _>>()?,
        ),
        Some(_) => {
            return Err(ApiError::wrong_type(
                "expected_status_codes",
                "must be an array of statuses",
            ));
        }
    };
    let actions = match body.get("browser_actions").filter(|v| !v.is_null()) {
        Some(v) => Some(check_actions(v)?),
        None => None,
    };
    let driver = optional_str(body, "driver")?.map(str::to_owned);
    // How long the actions took in real time (they wait for real).
    #[allow(clippy::disallowed_methods)]
    let started = Instant::now();
    let action_results = match actions {
        Some(a) => Some(run_actions(a).await),
        None => None,
    };
    let page = fetch(&url).await;
    let mut data = Map::new();
    let mut warnings: Vec<Value> = Vec::new();
    let (status, status_code) = match &page {
        Ok(p) => {
            warnings.extend(p.warnings.iter().map(|w| json!(w)));
            let ok = match &expected {
                Some(codes) => codes.contains(&p.status),
                None => (200..300).contains(&p.status),
            };
            for f in &formats {
                let v = match f.as_str() {
                    "html" => json!(p.html),
                    "markdown" => json!(markdown(p)),
                    "headers" => Value::Object(p.headers.clone()),
                    "links" => json!(links(p)),
                    _ => {
                        warnings.push(json!("screenshot is a 1x1 placeholder: the emulator has no browser to render with"));
                        json!(PLACEHOLDER_PNG)
                    }
                };
                data.insert(f.clone(), v);
            }
            (if ok { "success" } else { "failed" }, json!(p.status))
        }
        Err(e) => {
            warnings.push(json!(e));
            ("failed", Value::Null)
        }
    };
    if let Some(r) = action_results {
        data.insert("browser_actions".into(), r);
    }
    let rendered =
        formats.iter().any(|f| f == "screenshot") || body.get("render") == Some(&json!(true));
    let driver = driver.unwrap_or_else(|| if rendered { "vx8".into() } else { "vx6".into() });
    Ok(json!({
        "url": page.as_ref().map_or(url.to_string(), |p| p.url.to_string()),
        "task_id": task_id,
        "status": status,
        "status_code": status_code,
        "data": data,
        "warnings": warnings,
        "metadata": {
            "driver": driver,
            "query_time": timestamp(at),
            "query_duration": started.elapsed().as_millis() as u64,
        }
    }))
}

/// A request answered now or (`ASYNC`) as a task, its delivery fields checked first when
/// async; `result` makes the answer from the body and the task id.
pub(crate) fn answer<const ASYNC: bool>(
    state: &Arc<State>,
    ctx: &Ctx,
    version: ApiVersion,
    api: &str,
    mut body: Map<String, Value>,
    result: impl FnOnce(&Map<String, Value>, &str, std::time::SystemTime) -> Result<Value, ApiError>,
) -> Result<Json<Value>, ApiError> {
    if ASYNC {
        crate::delivery::check(&mut body)?;
    }
    let result = result(&body, &ctx.task_id, state.clock.wall())?;
    Ok(finish::<ASYNC>(state, ctx, version, api, body, result))
}

/// A result answered now (`ASYNC = false`), or stored as a task that finishes on the lifecycle
/// clock, answering its id (`ASYNC = true`) and delivering its result when the request asked
/// for delivery: the sync and async variants of extract, search, map, SERP and media differ
/// only in this.
pub(crate) fn finish<const ASYNC: bool>(
    state: &Arc<State>,
    ctx: &Ctx,
    version: ApiVersion,
    api: &str,
    input: Map<String, Value>,
    result: Value,
) -> Json<Value> {
    if !ASYNC {
        return Json(result);
    }
    let deliver = crate::delivery::Delivery::from_body(&input);
    let faults = ctx.task_faults;
    let task = Task::new(
        ctx.task_id.clone(),
        &ctx.account.name,
        api,
        crate::lifecycle::api_type(api),
        Flow::Pending,
        (
            &state.clock,
            faults.duration(state.config.lifecycle.task),
            faults.end(0, TaskEnd::Value(Arc::new(result))),
        ),
        Value::Object(input),
    )
    .made_in(version);
    let answer = task.created(
        state.clock.now(),
        state.base_url.get().map_or("", String::as_str),
    );
    lock(&state.tasks).insert(ctx.task_id.clone(), task);
    if let Some(d) = deliver {
        crate::delivery::schedule(state.clone(), ctx.task_id.clone(), d);
    }
    Json(answer)
}

/// `POST /v1/extract` and `POST /v1/extract/async`.
pub(crate) async fn extract<const ASYNC: bool>(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiJson(body): ApiJson,
) -> Result<Json<Value>, ApiError> {
    let result = extract_result(&body, &ctx.task_id, state.clock.wall()).await?;
    Ok(finish::<ASYNC>(
        &state, &ctx, version, "extract", body, result,
    ))
}
