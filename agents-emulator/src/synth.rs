//! Synthetic agent results: data that conforms to the agent's output_schema, the same for the same
//! agent and params, with the formats asked for, pages for paginated agents, and a
//! drift mode that sends some fields with the wrong type.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError, Weak};
use std::time::{Instant, SystemTime};

use agents_runtime::check::Schema;
use agents_schema::sample::{PageLike, mix};
use agents_schema::{AgentRecord, FieldSchema, Json as Written, SchemaOrder};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::params::page_number;
use crate::wire::timestamp;

/// A checked agent request: everything its run result is computed from.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// The agent.
    pub record: Arc<AgentRecord>,
    /// The params (after batch merging).
    pub params: Map<String, Value>,
    /// Formats asked for.
    pub formats: Vec<String>,
    /// Whether to drift some values.
    pub drift: bool,
    /// Real pages of the agent.
    pub pages: u32,
    /// Past the last real page, answer an empty list instead of repeating the last page.
    pub empty_past_end: bool,
}

impl RunSpec {
    /// The run result with this task id, as run at `at` (its `query_time`): its members in
    /// the order the service documents them, the record's fields in its schema's order.
    pub fn result(&self, task_id: &str, at: SystemTime) -> Written {
        // How long making the result takes, in real time: its `query_duration`.
        #[allow(clippy::disallowed_methods)]
        let started = Instant::now();
        let record = &self.record;
        let compiled = compiled(record);
        let seed = seed(record, &self.params, self.pages);
        let parse = self
            .params
            .get("parse")
            .and_then(Value::as_bool)
            .unwrap_or(true);
        let past_end = record.pagination_param().is_some()
            && page_number(record, &self.params).unwrap_or(1) > self.pages;
        let mut parsing = if !parse {
            json!({})
        } else if past_end && self.empty_past_end && is_list(record) {
            json!([])
        } else if let Some(output) = self.sample_output() {
            output
        } else {
            parsing(record, &compiled.schema, seed)
        };
        if self.drift {
            drift(record, &mut parsing, seed, 4);
        }
        let url = page_url(record, &self.params);
        // A list agent's document describes one of the records its page lists.
        let parsing = {
            let mut order = compiled
                .order
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            match &parsing {
                Value::Array(items) if is_list(record) => {
                    Written::Array(items.iter().map(|item| order.arrange(item)).collect())
                }
                other => order.arrange(other),
            }
        };
        let mut data = IndexMap::new();
        data.insert("parsing".to_owned(), parsing);
        let title = record.display_name.as_deref().unwrap_or(&record.name);
        add_formats(&mut data, &self.formats, title, &url);
        let driver = match record.entity_type.as_deref() {
            Some("chat response" | "AI overview" | "short videos") => "vx10",
            Some("account page" | "page") => "vx8",
            _ => "vx6",
        };
        let text = |s: &str| Written::String(s.to_owned());
        let elapsed = started.elapsed().as_millis() as u64;
        object([
            ("url", text(&url)),
            ("task_id", text(task_id)),
            ("status", text("success")),
            ("data", Written::Object(data)),
            ("status_code", Written::Number(200.into())),
            (
                "metadata",
                object([
                    ("agent", text(&record.name)),
                    ("driver", text(driver)),
                    ("query_time", Written::String(timestamp(at))),
                    ("query_duration", Written::Number(elapsed.into())),
                    ("response_parameters", object([("input_url", text(&url))])),
                ]),
            ),
        ])
    }
}

impl RunSpec {
    /// The output of the template's published sample whose input these params are (the
    /// params that do not change a page, `tag` and `parse`, aside), when there is one.
    fn sample_output(&self) -> Option<Value> {
        let samples = self.record.extra.get("samples")?.as_array()?;
        let mut asked = self.params.clone();
        asked.remove("tag");
        asked.remove("parse");
        samples
            .iter()
            .find(|s| s.get("input").and_then(Value::as_object) == Some(&asked))
            .and_then(|s| s.get("output").cloned())
    }
}

/// An object of these members, in this order.
fn object<const N: usize>(members: [(&str, Written); N]) -> Written {
    Written::Object(
        members
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect(),
    )
}

/// Records on one page of a list agent.
pub const LIST_LEN: usize = 10;

/// The formats a run may ask for.
pub const FORMATS: [&str; 4] = ["html", "markdown", "headers", "links"];

/// Whether the agent's `data.parsing` is an array of records: paginated result or category pages
/// whose schema describes one listing (web search agents describe their `entities` wrapper
/// instead, so they answer one object).
pub fn is_list(record: &AgentRecord) -> bool {
    let listing_page = record
        .entity_type
        .as_deref()
        .is_some_and(|t| t.ends_with("results page") || t.ends_with("category page"));
    let wrapped = record
        .output_schema
        .as_ref()
        .is_some_and(|s| s.contains_key("entities"));
    record.supports_pagination() && listing_page && !wrapped
}

/// The seed of a request: agent name plus params, ignoring the parameters that do not change
/// what a page shows (`tag`, `parse`), with pages past the last real one folded onto it.
pub fn seed(record: &AgentRecord, params: &Map<String, Value>, pages: u32) -> u64 {
    let mut p = params.clone();
    p.remove("tag");
    p.remove("parse");
    if let Some(param) = record.pagination_param() {
        let page = page_number(record, params)
            .unwrap_or(1)
            .clamp(1, pages.max(1));
        p.insert(param.name.clone(), json!(page));
    }
    mix(
        0,
        &format!("{}\u{0}{}", record.name, sorted(Value::Object(p))),
    )
}

/// The value with every object's keys in sorted order, so that its text is the same however
/// the request wrote them. serde_json's `Map` sorts by itself only while no crate in the build
/// turns on its `preserve_order` feature; an application embedding the emulator may.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.into_iter().collect();
            entries.sort_by(|(a, _), (b, _)| a.cmp(b));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// `data.parsing` for a request with this seed: records made from the agent's whole output
/// document, so that what its fields refer to (`$defs`) is followed.
fn parsing(record: &AgentRecord, schema: &Schema, seed: u64) -> Value {
    let page = PageLike::default();
    if is_list(record) {
        Value::Array(
            (0..LIST_LEN)
                .map(|i| schema.sample(mix(seed, &i.to_string()), &page))
                .collect(),
        )
    } else {
        schema.sample(seed, &page)
    }
}

/// A record's output document, compiled, and the order it lists its fields in (read as the
/// template's records reach its places, by one request at a time).
struct Compiled {
    order: Mutex<SchemaOrder>,
    schema: Schema,
}

/// The record's output document, compiled once per record: compiling costs about as much as
/// making a value, and every request for the template makes one.
///
/// Keyed by the record's allocation. The `Weak` kept beside each entry holds that allocation, so
/// a new record cannot take a cached record's address; entries whose record is gone are dropped
/// whenever one is added, so the cache holds no more than the records alive.
fn compiled(record: &Arc<AgentRecord>) -> Arc<Compiled> {
    type Cache = HashMap<usize, (Weak<AgentRecord>, Arc<Compiled>)>;
    static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(Mutex::default);
    let key = Arc::as_ptr(record) as usize;
    let lock = || CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, schema)) = lock().get(&key) {
        return schema.clone();
    }
    // Compiled outside the lock: other templates' requests need not wait for this one.
    let document = Written::of(&record.output_document_read()).unwrap_or(Written::Bool(true));
    let schema = Schema::compile(&document.to_value());
    let order = Mutex::new(SchemaOrder::new(&document));
    let schema = Arc::new(Compiled { order, schema });
    let mut cache = lock();
    cache.retain(|_, (held, _)| held.strong_count() > 0);
    cache
        .entry(key)
        .or_insert_with(|| (Arc::downgrade(record), schema))
        .1
        .clone()
}

/// Drift: about one field in `every` gets a value of the wrong type, the way scraped pages drift
/// (as the live service answers): numbers as currency strings, a scalar where an array was declared, a string
/// where an object was declared, a number where text was declared.
pub fn drift(record: &AgentRecord, parsing: &mut Value, seed: u64, every: u64) {
    let Some(schema) = record.output_schema.as_ref() else {
        return;
    };
    match parsing {
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                drift_object(schema, item, mix(seed, &i.to_string()), every);
            }
        }
        other => drift_object(schema, other, seed, every),
    }
}

fn drift_object(
    schema: &indexmap::IndexMap<String, FieldSchema>,
    value: &mut Value,
    seed: u64,
    every: u64,
) {
    let Some(obj) = value.as_object_mut() else {
        return;
    };
    for (name, field) in schema {
        if !mix(seed, name).is_multiple_of(every.max(1)) {
            continue;
        }
        let Some(v) = obj.get_mut(name) else { continue };
        *v = match (field.ty.as_ref().and_then(|t| t.single()), &*v) {
            (Some("number" | "integer"), Value::Number(n)) => {
                let x = n.as_f64().unwrap_or(0.0);
                Value::String(format!("${}", thousands(x)))
            }
            (Some("array"), Value::Array(items)) => items.first().cloned().unwrap_or(Value::Null),
            (Some("object"), _) => Value::String("see page".into()),
            (Some("string"), _) => json!(404),
            (Some("boolean"), Value::Bool(b)) => {
                Value::String(if *b { "Yes" } else { "No" }.into())
            }
            _ => continue,
        };
    }
}

/// `1299.5` → `1,299.50`.
fn thousands(x: f64) -> String {
    let cents = (x * 100.0).round() as i64;
    let (whole, frac) = (cents / 100, (cents % 100).abs());
    let digits = whole.abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    format!("{}{out}.{frac:02}", if whole < 0 { "-" } else { "" })
}

/// The page URL an agent request stands for: a URL parameter when there is one, else a path on
/// the agent's domain with the params as query.
pub fn page_url(record: &AgentRecord, params: &Map<String, Value>) -> String {
    for input in record.inputs() {
        if let Some(Value::String(s)) = params.get(&input.name)
            && (s.starts_with("http://") || s.starts_with("https://"))
        {
            return s.clone();
        }
    }
    let domain = record.domain.as_deref().unwrap_or("agents.example");
    let query: Vec<String> = record
        .inputs()
        .iter()
        .filter_map(|i| {
            let v = params.get(&i.name)?;
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Some(format!(
                "{}={}",
                i.name,
                agents_runtime::endpoint::percent_encode(&text)
            ))
        })
        .collect();
    format!("https://{domain}/{}?{}", record.name, query.join("&"))
}

/// Adds `data.html`, `data.markdown`, `data.headers` and `data.links` for the formats asked for.
fn add_formats(data: &mut IndexMap<String, Written>, formats: &[String], title: &str, url: &str) {
    let wants = |f: &str| formats.iter().any(|x| x == f);
    if !FORMATS.iter().any(|f| wants(f)) {
        return;
    }
    let parsing = data.get("parsing").unwrap_or(&Written::Null);
    let mut lines = Vec::new();
    if wants("html") || wants("markdown") {
        flatten("", parsing, &mut lines);
    }
    let mut links = vec![url.to_owned()];
    if wants("html") || wants("links") {
        collect_links(parsing, &mut links);
    }
    let mut added = Vec::with_capacity(formats.len());
    for f in formats {
        let value = match f.as_str() {
            "html" => {
                let items: String = lines
                    .iter()
                    .map(|(k, v)| format!("<li><b>{}</b>: {}</li>", escape(k), escape(v)))
                    .collect();
                let anchors: String = links
                    .iter()
                    .map(|l| format!("<a href=\"{}\">{}</a>", escape(l), escape(l)))
                    .collect();
                Written::String(format!(
                    "<!doctype html><html><head><title>{t}</title></head><body><h1>{t}</h1><ul>{items}</ul><nav>{anchors}</nav></body></html>",
                    t = escape(title)
                ))
            }
            "markdown" => {
                let mut md = format!("# {title}\n\n");
                for (k, v) in &lines {
                    md.push_str(&format!("- **{k}**: {v}\n"));
                }
                Written::String(md)
            }
            "headers" => object(
                [
                    ("content-type", "text/html; charset=utf-8"),
                    ("cache-control", "max-age=0, private"),
                    ("server", "agents-emulator"),
                ]
                .map(|(name, value)| (name, Written::String(value.to_owned()))),
            ),
            "links" => Written::Array(links.iter().cloned().map(Written::String).collect()),
            _ => continue,
        };
        added.push((f.clone(), value));
    }
    data.extend(added);
}

fn flatten(prefix: &str, v: &Written, out: &mut Vec<(String, String)>) {
    match v {
        Written::Object(m) => {
            for (k, v) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        Written::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), v, out);
            }
        }
        Written::String(s) => out.push((prefix.to_owned(), s.clone())),
        other => out.push((prefix.to_owned(), other.to_string())),
    }
}

fn collect_links(v: &Written, out: &mut Vec<String>) {
    match v {
        Written::String(s)
            if (s.starts_with("https://") || s.starts_with("http://")) && !out.contains(s) =>
        {
            out.push(s.clone());
        }
        Written::Array(items) => items.iter().for_each(|v| collect_links(v, out)),
        Written::Object(m) => m.values().for_each(|v| collect_links(v, out)),
        _ => {}
    }
}

/// Text made safe inside HTML (and its attribute values).
pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_does_not_depend_on_the_order_params_are_written() {
        let record = AgentRecord::from_value(&json!({
            "name": "shop",
            "output_schema": {"title": {"type": "string"}}
        }))
        .expect("a record");
        let params = |text: &str| serde_json::from_str::<Map<String, Value>>(text).expect("params");
        let one = params(r#"{"asin": "B1", "localization": {"country": "US", "city": "NYC"}}"#);
        let other = params(r#"{"localization": {"city": "NYC", "country": "US"}, "asin": "B1"}"#);
        assert_eq!(seed(&record, &one, 1), seed(&record, &other, 1));
        let changed = params(r#"{"asin": "B1", "localization": {"country": "US", "city": "LA"}}"#);
        assert_ne!(seed(&record, &one, 1), seed(&record, &changed, 1));
    }

    #[test]
    fn thousands_groups_and_keeps_cents() {
        assert_eq!(thousands(1299.0), "1,299.00");
        assert_eq!(thousands(5.5), "5.50");
        assert_eq!(thousands(1_234_567.891), "1,234,567.89");
    }
}
