//! Generations: a new agent (template) from a prompt and a sample page, or a refinement of one
//! of the account's own, published as its next version when the generation succeeds. `/v2`
//! names the new template `name` and the refined one `from_extract_template` where `/v1` says
//! `agent_name` and `from_agent`.

use std::sync::Arc;

use agents_runtime::endpoint::ApiVersion;
use axum::extract::State as AxState;
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::generate;
use crate::lifecycle::{Generation, GenerationEnd};
use crate::request::{ApiJsonWritten, ApiPath, Ctx, http_url, optional_str, required_str};
use crate::state::{State, lock};

type Shared = Arc<State>;

/// Starts a generation: 201 with its id, status and the agent's name.
pub(crate) async fn create(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiJsonWritten(written): ApiJsonWritten,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let body = crate::request::object(written.to_value())?;
    let words = version.words();
    let from_field = words.generation_from;
    let noun = words.noun;
    let name_fields = std::iter::once(&words.generation_name).chain(words.generation_name_aliases);
    let settled = state.clock.now();
    state.settle(settled);
    let prompt = required_str(&body, "prompt")?;
    if prompt.trim().is_empty() {
        return Err(ApiError::malformed("prompt", "prompt must not be empty"));
    }
    let account = ctx.account.name.clone();
    let lifecycle = state.config.lifecycle;
    let (agent_name, (source_version, source_record, version_number), end, running) = if let Some(
        from,
    ) =
        optional_str(&body, from_field)?
    {
        let catalog = state
            .catalog
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let entry = catalog
            .get(&account, from)
            .ok_or_else(|| ApiError::refused(from_field, format!("unknown {noun} `{from}`")))?;
        if entry.owner.is_none() {
            return Err(ApiError::refused(
                from_field,
                format!("`{from}` is a public {noun}; only your own {noun}s can be refined"),
            ));
        }
        let end = match generate::refine(&entry.record, prompt) {
            Ok(record) => success(record),
            Err(e) => GenerationEnd::Failed(e),
        };
        (
            from.to_owned(),
            (
                Some(entry.current().id.clone()),
                Some(entry.record.clone()),
                entry.current().number + 1,
            ),
            end,
            lifecycle.generation_refine,
        )
    } else {
        let url = required_str(&body, "url")?;
        if !http_url(url) {
            return Err(ApiError::malformed(
                "url",
                format!("invalid url {url:?}: expected an http(s) URL of a sample page"),
            ));
        }
        let mut given = None;
        for field in name_fields {
            if let Some(n) = optional_str(&body, field)? {
                given = Some((*field, n.to_owned()));
                break;
            }
        }
        let (field, name) = given.unwrap_or_else(|| ("url", generate::name_from_url(url)));
        if !generate::valid_name(&name) {
            return Err(ApiError::refused(
                field,
                format!("{noun} name {name:?} must be lowercase letters, digits and underscores"),
            ));
        }
        let taken = state
            .catalog
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .exists(&name)
            // A new agent's generation holds its name until it is published, or until it has
            // failed: a failed one never publishes, and the name is free to try again.
            || lock(&state.generations).values().any(|g| {
                g.agent_name == name
                    && !g.published
                    && g.source_version_id.is_none()
                    && !(matches!(g.end, GenerationEnd::Failed(_)) && g.ends_at <= settled)
            });
        if taken {
            return Err(ApiError::refused(
                field,
                format!(
                    "an {noun} named `{name}` already exists; refine it with {from_field} or choose another name"
                ),
            ));
        }
        // A stranger's schemas are read before anything is made: a document that does not
        // read, or names a type JSON Schema does not define, is a 422 naming its path.
        for key in ["input_schema", "output_schema"] {
            if let Some(s) = body.get(key).filter(|v| !v.is_null()) {
                crate::request::read_schema(s, key)?;
            }
        }
        let end = match generate::new_agent(
            &name,
            prompt,
            url,
            // As written: the order of a schema's properties is the order of its fields.
            written
                .get("input_schema")
                .filter(|v| **v != agents_schema::Json::Null),
            written
                .get("output_schema")
                .filter(|v| **v != agents_schema::Json::Null),
            body.get("metadata").filter(|v| !v.is_null()),
        ) {
            Ok(record) => success(record),
            Err(e) => GenerationEnd::Failed(e),
        };
        (name, (None, None, 1), end, lifecycle.generation_new)
    };
    {
        let mut log = lock(&state.generation_log);
        let today = crate::state::generations_today(&log, &account, state.clock.wall());
        if today >= state.config.generation_daily_limit as usize {
            return Err(ApiError::new(
                StatusCode::PAYMENT_REQUIRED,
                "GENERATION_LIMIT_REACHED",
                format!(
                    "daily limit of {} {noun} generations reached for account {account}",
                    state.config.generation_daily_limit
                ),
            ));
        }
        log.entry(account.clone())
            .or_default()
            .push(state.clock.wall());
    }
    let now = state.clock.now();
    let id = uuid::Uuid::new_v4().to_string();
    let generation = Generation {
        id: id.clone(),
        account,
        agent_name: agent_name.clone(),
        source_version_id: source_version,
        source_record,
        version_number,
        created: state.clock.wall(),
        created_at: now,
        starts_at: now + lifecycle.generation_queued,
        ends_at: now + lifecycle.generation_queued + running,
        end,
        published: false,
    };
    lock(&state.generations).insert(id.clone(), generation);
    Ok((
        StatusCode::CREATED,
        Json(json!({ "id": id, "status": "queued", version.words().generation_name: agent_name })),
    ))
}

fn success(record: agents_schema::AgentRecord) -> GenerationEnd {
    let fields = record.output_schema.as_ref().map_or(0, |s| s.len());
    let summary = format!(
        "Extracts {fields} fields ({}) from {} pages",
        record
            .output_schema
            .as_ref()
            .map(|s| s.keys().cloned().collect::<Vec<_>>().join(", "))
            .unwrap_or_default(),
        record.domain.as_deref().unwrap_or("the sample site's"),
    );
    GenerationEnd::Success {
        record: Box::new(record),
        version_id: uuid::Uuid::new_v4().to_string(),
        summary,
    }
}

/// A generation's record now.
pub(crate) async fn get(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<agents_schema::Json>, ApiError> {
    let now = state.clock.now();
    state.settle(now);
    lock(&state.generations)
        .get(&id)
        .filter(|g| g.account == ctx.account.name)
        .map(|g| Json(g.record(now, version)))
        .ok_or_else(|| ApiError::not_found(format!("no generation {id}")).at("generation_id"))
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
        endpoint::GENERATION_CREATE => on(method, create),
        endpoint::GENERATION_GET => on(method, get),
        _ => return None,
    })
}
