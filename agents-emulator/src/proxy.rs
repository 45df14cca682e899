//! The residential proxy on loopback, for testing proxy configurations: a forward
//! proxy on a port of its own that checks the credentials of the documented connection string
//! (`account-<ACCOUNT>-pipeline-<PIPELINE>-country-<CC>` and the proxy password, sent as
//! `Proxy-Authorization: Basic`), then forwards plain-HTTP requests to loopback targets. It never
//! contacts any other host: those get a 502 saying so, as `CONNECT` (tunnels) gets a 501.
//!
//! Answers carry `x-emulator-proxy-account`, `-pipeline` and `-country`, the exit the live
//! proxy would have chosen.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State as AxState};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;

use crate::error::ApiError;
use crate::net::is_loopback;
use crate::request::MAX_BODY;
use crate::state::State;

/// Headers that belong to one hop and are not forwarded.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "proxy-connection",
    "proxy-authorization",
    "keep-alive",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// The proxy's router: every request goes to [`forward`], whatever its path.
pub(crate) fn router(state: Arc<State>) -> Router {
    Router::new().fallback(forward).with_state(state)
}

/// Who the credentials name: (account, pipeline, country).
type Exit = (String, String, String);

/// Reads `Proxy-Authorization: Basic base64(user:password)` and checks it against the configured
/// accounts and proxy password.
fn authenticate(state: &State, req: &Request) -> Result<Exit, &'static str> {
    let value = req
        .headers()
        .get(header::PROXY_AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .ok_or("missing Proxy-Authorization")?;
    let (scheme, encoded) = value
        .trim()
        .split_once(' ')
        .ok_or("malformed credentials")?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err("the proxy takes Basic credentials");
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|_| "malformed credentials")?;
    let text = String::from_utf8(decoded).map_err(|_| "malformed credentials")?;
    let (user, password) = text.split_once(':').ok_or("malformed credentials")?;
    let rest = user.strip_prefix("account-").ok_or("unknown user")?;
    let (account, rest) = rest.split_once("-pipeline-").ok_or("unknown user")?;
    let (pipeline, country) = rest.rsplit_once("-country-").ok_or("unknown user")?;
    let known = state.accounts.values().any(|a| a.name == account);
    let country_ok = country.len() == 2 && country.bytes().all(|b| b.is_ascii_uppercase());
    let expected = state.config.proxy_password.as_deref();
    if !known || pipeline.is_empty() || !country_ok || expected != Some(password) {
        return Err("invalid proxy credentials");
    }
    Ok((account.to_owned(), pipeline.to_owned(), country.to_owned()))
}

fn refused(status: StatusCode, code: &'static str, message: String) -> Response {
    ApiError::new(status, code, message).into_response()
}

/// Forwards one request (see the module docs).
async fn forward(AxState(state): AxState<Arc<State>>, req: Request) -> Response {
    let exit = match authenticate(&state, &req) {
        Ok(exit) => exit,
        Err(why) => {
            let mut resp = refused(
                StatusCode::PROXY_AUTHENTICATION_REQUIRED,
                "PROXY_AUTHENTICATION_REQUIRED",
                format!("{why}: send the connection string's user and password"),
            );
            resp.headers_mut().insert(
                header::PROXY_AUTHENTICATE,
                HeaderValue::from_static("Basic realm=\"agents-emulator proxy\""),
            );
            return resp;
        }
    };
    if req.method() == Method::CONNECT {
        return refused(
            StatusCode::NOT_IMPLEMENTED,
            "PROXY_ERROR",
            "the emulator's proxy forwards plain-HTTP requests only, not tunnels".into(),
        );
    }
    let Ok(target) = reqwest::Url::parse(&req.uri().to_string()) else {
        return refused(
            StatusCode::BAD_REQUEST,
            "BAD_REQUEST",
            format!(
                "{} is not an absolute URL: send requests through the proxy",
                req.uri()
            ),
        );
    };
    if !is_loopback(&target) {
        return refused(
            StatusCode::BAD_GATEWAY,
            "PROXY_ERROR",
            format!("not forwarded to {target}: the emulator only contacts loopback addresses"),
        );
    }
    let (parts, body) = req.into_parts();
    let Ok(body) = axum::body::to_bytes(body, MAX_BODY).await else {
        return refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            "PAYLOAD_TOO_LARGE",
            format!("request body larger than {MAX_BODY} bytes"),
        );
    };
    // A proxy hands redirects back to its client rather than following them.
    let client = match crate::net::client(0, Duration::from_secs(30)) {
        Ok(c) => c,
        Err(e) => return refused(StatusCode::BAD_GATEWAY, "PROXY_ERROR", e),
    };
    let mut out = client.request(parts.method, target.clone()).body(body);
    for (name, value) in &parts.headers {
        if !HOP_BY_HOP.contains(&name.as_str()) && name != header::HOST {
            out = out.header(name, value);
        }
    }
    let answer = match out.send().await {
        Ok(a) => a,
        Err(e) => {
            return refused(
                StatusCode::BAD_GATEWAY,
                "PROXY_ERROR",
                format!("cannot reach {target}: {e}"),
            );
        }
    };
    let mut resp = Response::builder().status(answer.status().as_u16());
    for (name, value) in answer.headers() {
        if !HOP_BY_HOP.contains(&name.as_str()) && name != header::CONTENT_LENGTH {
            resp = resp.header(name.as_str(), value.as_bytes());
        }
    }
    let (account, pipeline, country) = exit;
    for (name, value) in [
        ("x-emulator-proxy-account", account),
        ("x-emulator-proxy-pipeline", pipeline),
        ("x-emulator-proxy-country", country),
    ] {
        resp = resp.header(HeaderName::from_static(name), value);
    }
    let body = Body::from_stream(answer.bytes_stream());
    resp.body(body).unwrap_or_else(|e| {
        refused(
            StatusCode::BAD_GATEWAY,
            "PROXY_ERROR",
            format!("cannot relay the answer of {target}: {e}"),
        )
    })
}
