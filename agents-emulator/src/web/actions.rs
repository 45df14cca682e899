//! Browser actions of extract requests: checked when the request arrives, run (as far as a
//! server without a browser can) when it is answered.

use std::time::{Duration, Instant};

use reqwest::Url;
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::params::kind;

use super::page::{fetch, parse_url};
use crate::net::is_loopback;

pub(super) const ACTIONS: [&str; 13] = [
    "goto",
    "wait",
    "wait_for_element",
    "wait_for_navigation",
    "click",
    "fill",
    "press",
    "scroll",
    "auto_scroll",
    "screenshot",
    "get_cookies",
    "eval",
    "fetch",
];

/// Longest browser-action wait accepted (the emulator itself waits at most 5 s).
pub(super) const MAX_WAIT: Duration = Duration::from_secs(600);

/// A duration of at most [`MAX_WAIT`]: milliseconds as a number, or a string such as "2s" /
/// "500ms". Negative, non-finite and larger values are `None`.
pub(super) fn duration(v: &Value) -> Option<Duration> {
    let ms = match v {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => {
            let s = s.trim();
            if let Some(ms) = s.strip_suffix("ms") {
                ms.trim().parse::<f64>().ok()?
            } else if let Some(sec) = s.strip_suffix('s') {
                sec.trim().parse::<f64>().ok()? * 1000.0
            } else {
                s.parse::<f64>().ok()?
            }
        }
        _ => return None,
    };
    Duration::try_from_secs_f64(ms / 1000.0)
        .ok()
        .filter(|d| *d <= MAX_WAIT)
}

/// Checks `browser_actions`: a list of one-key objects naming known actions with valid values.
pub(super) fn check_actions(v: &Value) -> Result<Vec<(String, Value)>, ApiError> {
    let Some(list) = v.as_array() else {
        return Err(ApiError::wrong_type(
            "browser_actions",
            "browser_actions must be an array",
        ));
    };
    let mut out = Vec::new();
    for (i, a) in list.iter().enumerate() {
        let at = format!("browser_actions[{i}]");
        let Some(obj) = a.as_object().filter(|o| o.len() == 1) else {
            return Err(ApiError::wrong_type(
                &at,
                format!("{at} must be an object with exactly one action"),
            ));
        };
        let Some((name, value)) = obj.iter().next() else {
            continue;
        };
        if !ACTIONS.contains(&name.as_str()) {
            return Err(ApiError::refused(
                format!("{at}.{name}"),
                format!(
                    "unknown browser action `{name}`; known: {}",
                    ACTIONS.join(", ")
                ),
            ));
        }
        let bad = |why: &str| ApiError::refused(format!("{at}.{name}"), why.to_owned());
        match name.as_str() {
            "goto" => {
                let url = value
                    .as_str()
                    .or_else(|| value.get("url").and_then(Value::as_str));
                let Some(url) = url else {
                    return Err(bad("goto needs a URL or {url}"));
                };
                parse_url(url, &format!("{at}.goto"))?;
            }
            "wait" if duration(value).is_none() => {
                return Err(bad(&format!(
                    "wait needs a duration of at most {} s: milliseconds or a string like \"2s\"",
                    MAX_WAIT.as_secs()
                )));
            }
            "click" | "fill" if value.get("selector").and_then(Value::as_str).is_none() => {
                return Err(bad("needs a selector"));
            }
            "fill" if value.get("value").is_none() => return Err(bad("fill needs a value")),
            "eval" if value.get("code").and_then(Value::as_str).is_none() && !value.is_string() => {
                return Err(bad("eval needs {code}"));
            }
            _ => {}
        }
        for flag in ["required", "skip"] {
            if let Some(f) = value.get(flag)
                && !(f.is_boolean() || matches!(f.as_str(), Some("true" | "false")))
            {
                return Err(ApiError::wrong_type(
                    format!("{at}.{name}.{flag}"),
                    format!(
                        "{flag} must be a boolean or \"true\"/\"false\", not {}",
                        kind(f)
                    ),
                ));
            }
        }
        out.push((name.clone(), value.clone()));
    }
    Ok(out)
}

/// Runs browser actions; each result's `status` is one of the vendor's values (`done`, `error`,
/// `skipped`; the service's documentation does not show them).
// Actions wait in real time (a `wait` sleeps), and their durations are measured in it: the
// emulator's clock is for what follows its lifecycle, not for timing work done now.
#[allow(clippy::disallowed_methods)]
pub(super) async fn run_actions(actions: Vec<(String, Value)>) -> Value {
    let started = Instant::now();
    let mut results = Vec::new();
    let mut success = true;
    for (name, value) in actions {
        let t = Instant::now();
        let skip = value.get("skip").is_some_and(|s| s == true || s == "true");
        let (status, result, error) = if skip {
            ("skipped", Value::Null, Some("skip was set".to_owned()))
        } else {
            match name.as_str() {
                "goto" => {
                    let url = value
                        .as_str()
                        .or_else(|| value.get("url").and_then(Value::as_str))
                        .unwrap_or("");
                    match Url::parse(url) {
                        Ok(u) if is_loopback(&u) => match fetch(&u).await {
                            Ok(p) => (
                                "done",
                                json!({ "url": p.url.as_str(), "status_code": p.status }),
                                None,
                            ),
                            Err(e) => ("error", Value::Null, Some(e)),
                        },
                        _ => (
                            "skipped",
                            Value::Null,
                            Some(
                                "not a loopback address; the emulator never contacts the internet"
                                    .to_owned(),
                            ),
                        ),
                    }
                }
                "wait" => {
                    let d = duration(&value)
                        .unwrap_or_default()
                        .min(Duration::from_secs(5));
                    tokio::time::sleep(d).await;
                    ("done", json!({ "waited_ms": d.as_millis() as u64 }), None)
                }
                other => (
                    "skipped",
                    Value::Null,
                    Some(format!("`{other}` needs a browser; the emulator has none")),
                ),
            }
        };
        let required = value
            .get("required")
            .is_some_and(|r| r == true || r == "true");
        if status == "error" || (required && status != "done") {
            success = false;
        }
        results.push(json!({
            "name": name,
            "status": status,
            "duration": t.elapsed().as_millis() as u64,
            "result": result,
            "error": error,
        }));
    }
    json!({ "results": results, "success": success, "total_duration": started.elapsed().as_millis() as u64 })
}
