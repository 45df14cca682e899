//! Domain knowledge: which driver fetches a domain, or which one an agent runs on, with the
//! anti-bot systems it meets and whether pages need rendering.

use std::sync::Arc;

use agents_runtime::endpoint::ApiVersion;
use axum::extract::State as AxState;
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::request::{ApiQuery, Ctx};
use crate::state::State;

type Shared = Arc<State>;

/// The query: exactly one of `url` and `agent`.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct DriverQuery {
    url: Option<String>,
    agent: Option<String>,
}

/// A driver, described.
fn driver(name: &'static str, antibots: &[&str], render: bool) -> Value {
    let description = match name {
        "vx6" => "plain HTTP fetcher with residential IPs",
        "vx8" => "headless browser for pages that need rendering",
        "vx10" => "full browser with a human-like session, for guarded and conversational pages",
        _ => "fetcher",
    };
    json!({
        "driver": name,
        "description": description,
        "antibots": antibots,
        "need_to_render": render,
    })
}

/// The driver a host needs: deterministic from its name, so the same domain always answers
/// the same.
fn for_host(host: &str) -> Value {
    let seed = agents_schema::sample::mix(0, host);
    let systems = ["cloudflare", "akamai", "perimeterx", "datadome", "kasada"];
    match seed % 4 {
        0 => driver("vx6", &[], false),
        1 => driver("vx6", &[systems[(seed / 4 % 5) as usize]], false),
        2 => driver("vx8", &[systems[(seed / 4 % 5) as usize]], true),
        _ => driver(
            "vx10",
            &[
                systems[(seed / 4 % 5) as usize],
                systems[(seed / 20 % 5) as usize],
            ],
            true,
        ),
    }
}

/// `?url=` (a URL or a bare domain) or `?agent=` (an agent the account sees): 400 when both or
/// neither are given, 404 for an unknown agent.
pub(crate) async fn driver_for(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiQuery(q): ApiQuery<DriverQuery>,
) -> Result<Json<Value>, ApiError> {
    match (q.url.as_deref(), q.agent.as_deref()) {
        (Some(url), None) => {
            let trimmed = url.trim();
            let host = url::Url::parse(trimmed)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_else(|| trimmed.trim_start_matches("www.").to_owned());
            if host.is_empty() || host.contains(['/', ' ']) {
                return Err(ApiError::malformed(
                    "url",
                    format!("{url:?} is neither a URL nor a domain"),
                ));
            }
            let mut out = for_host(host.trim_start_matches("www."));
            out["url"] = json!(url);
            Ok(Json(out))
        }
        (None, Some(agent)) => {
            state.settle(state.clock.now());
            let catalog = state
                .catalog
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let Some(entry) = catalog.get(&ctx.account.name, agent) else {
                return Err(catalog.unknown(
                    &ctx.account.name,
                    agent,
                    StatusCode::NOT_FOUND,
                    version,
                ));
            };
            let host = entry
                .record
                .domain
                .clone()
                .unwrap_or_else(|| entry.record.name.clone());
            let mut out = for_host(&host);
            out["agent"] = json!(agent);
            Ok(Json(out))
        }
        (Some(_), Some(_)) => Err(ApiError::malformed(
            "agent",
            "give either url or agent, not both",
        )),
        (None, None) => Err(ApiError::missing(
            "url",
            "missing query parameter: url (a domain) or agent (an agent name)",
        )),
    }
}

/// This area's endpoints and their handlers, under the endpoint's `method`: the router asks
/// every area, so serving a new endpoint of the area is an arm here and nothing in `routes.rs`.
pub(crate) fn handler(
    e: &agents_runtime::endpoint::Endpoint,
    method: axum::routing::MethodFilter,
) -> Option<axum::routing::MethodRouter<Shared>> {
    use agents_runtime::endpoint;
    use axum::routing::on;
    Some(match *e {
        endpoint::DOMAIN_DRIVER => on(method, driver_for),
        _ => return None,
    })
}
