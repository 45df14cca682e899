//! A research run's event stream: server-sent events read as typed [`RunEvent`]s, reconnecting
//! from the last event id, with stalls and oversize events reported rather than waited on.

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream::{BoxStream, StreamExt};
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue};
use serde_json::Value;

use crate::client::error::{DecodeError, Error};
use crate::client::sse::{SseEvent, SseReader};

use super::run::{ResearchStatus, StreamEnd};
use crate::client::Client;
use crate::client::waiter::WaitError as _;
use crate::endpoint::{self};

/// What happened in a run, by the event's name (or its data's `type`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ResearchEvent {
    /// The run's status changed; the stream ends after a final one.
    Status {
        /// The new status.
        status: ResearchStatus,
    },
    /// The agent searched the web.
    Searching {
        /// What for.
        query: String,
    },
    /// The agent read a page.
    Reading {
        /// The page.
        url: String,
        /// Its title.
        title: Option<String>,
    },
    /// The agent drafted a claim.
    Claim {
        /// The part of the answer it supports.
        path: Option<String>,
        /// Its callout in a text answer.
        callout: Option<u32>,
        /// Why.
        reasoning: Option<String>,
    },
    /// An event this client does not know, with its name; its data is in [`RunEvent::data`].
    Other(String),
}

/// One event of a run's stream.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunEvent {
    /// Its id, when the service numbers events (a resumed stream starts after it).
    pub id: Option<String>,
    /// What happened.
    pub event: ResearchEvent,
    /// The event's data as sent.
    pub data: Value,
}

impl RunEvent {
    /// Reads an event from its name (`message` when unnamed) and JSON data.
    fn read(id: Option<String>, name: &str, data: Value) -> RunEvent {
        let name = if name.is_empty() || name == "message" {
            data.get("type").and_then(Value::as_str).unwrap_or(name)
        } else {
            name
        };
        let text = |key: &str| data.get(key).and_then(Value::as_str).map(str::to_owned);
        let event = match name {
            "status" => match text("status") {
                Some(s) => ResearchEvent::Status {
                    status: ResearchStatus::from(s.as_str()),
                },
                None => ResearchEvent::Other(name.to_owned()),
            },
            "search" => ResearchEvent::Searching {
                query: text("query").unwrap_or_default(),
            },
            "page" => match text("url") {
                Some(url) => ResearchEvent::Reading {
                    url,
                    title: text("title"),
                },
                None => ResearchEvent::Other(name.to_owned()),
            },
            "claim" => ResearchEvent::Claim {
                path: text("path"),
                callout: data
                    .get("callout")
                    .and_then(Value::as_u64)
                    .and_then(|n| u32::try_from(n).ok()),
                reasoning: text("reasoning"),
            },
            other => ResearchEvent::Other(other.to_owned()),
        };
        RunEvent { id, event, data }
    }

    /// Whether the run has ended with this event.
    pub fn is_final(&self) -> bool {
        matches!(&self.event, ResearchEvent::Status { status } if status.is_finished())
    }
}

/// Why the byte stream under the event reader stopped.
#[derive(Debug)]
enum Feed {
    Stalled,
    Transport(reqwest::Error),
}

/// A run's response body as bytes, ended by an error when nothing comes for `stall`.
fn feed(resp: reqwest::Response, stall: Duration) -> BoxStream<'static, Result<Bytes, Feed>> {
    futures_util::stream::unfold(Some(resp), move |resp| async move {
        let mut resp = resp?;
        match tokio::time::timeout(stall, resp.chunk()).await {
            Err(_) => Some((Err(Feed::Stalled), None)),
            Ok(Ok(None)) => None,
            Ok(Err(e)) => Some((Err(Feed::Transport(e)), None)),
            Ok(Ok(Some(chunk))) => Some((Ok(chunk), Some(resp))),
        }
    })
    .boxed()
}

/// An open connection's bytes and the reader of its events.
struct Open {
    body: BoxStream<'static, Result<Bytes, Feed>>,
    reader: SseReader,
    /// Events read but not yet handed out, oldest first.
    ready: VecDeque<SseEvent>,
    /// An event went past the size limit: the stream ends once `ready` is handed out.
    too_large: bool,
}

/// The event stream of a run: reconnects after a dropped connection from the last event id,
/// ends after the run's final status, and ends with an error when the stream stalls.
/// Reconnections in a row (without an event between them) before an event stream gives up.
const MAX_RECONNECTS: u32 = 5;

pub(super) fn events(
    client: Client,
    agent_id: String,
    run_id: String,
    stall: Duration,
) -> BoxStream<'static, Result<RunEvent, Error>> {
    struct Reader {
        client: Client,
        agent_id: String,
        run_id: String,
        stall: Duration,
        open: Option<Open>,
        last_id: Option<String>,
        reconnects: u32,
        done: bool,
    }

    impl Reader {
        fn end(&mut self, end: StreamEnd) -> Option<Result<RunEvent, Error>> {
            self.done = true;
            Some(Err(Error::EventStream {
                run_id: self.run_id.clone(),
                end,
            }))
        }

        /// The connection ended before the run did: resume from the last event id, or give up.
        fn cut(&mut self) -> Option<Option<Result<RunEvent, Error>>> {
            self.open = None;
            if self.last_id.is_none() {
                return Some(self.end(StreamEnd::Cut(0)));
            }
            if self.reconnects >= MAX_RECONNECTS {
                return Some(self.end(StreamEnd::Cut(self.reconnects)));
            }
            self.reconnects += 1;
            None
        }

        /// One event handed out: the run's event, or an error for an event that does not read
        /// (not UTF-8, not JSON), after which the stream goes on.
        fn hand_out(&mut self, sse: SseEvent) -> Result<RunEvent, Error> {
            self.reconnects = 0;
            let id = sse.id.filter(|id| !id.is_empty());
            if id.is_some() {
                self.last_id.clone_from(&id);
            }
            let text = match sse.data {
                Ok(text) => text,
                Err(bytes) => {
                    return Err(stream_decode(
                        &self.run_id,
                        "event data is not UTF-8".to_owned(),
                        &String::from_utf8_lossy(&bytes),
                    ));
                }
            };
            let data: Value = serde_json::from_str(&text).map_err(|e| {
                stream_decode(&self.run_id, format!("event data is not JSON: {e}"), &text)
            })?;
            let event = RunEvent::read(id, &sse.event, data);
            if event.is_final() {
                self.done = true;
            }
            Ok(event)
        }

        async fn next(&mut self) -> Option<Result<RunEvent, Error>> {
            loop {
                if self.done {
                    return None;
                }
                if let Some(sse) = self.open.as_mut().and_then(|o| o.ready.pop_front()) {
                    return Some(self.hand_out(sse));
                }
                if self.open.as_ref().is_some_and(|o| o.too_large) {
                    return self.end(StreamEnd::TooLarge(self.client.max_response_bytes()));
                }
                if self.open.is_none() {
                    let mut headers = HeaderMap::new();
                    headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
                    if let Some(id) = &self.last_id
                        && let Ok(v) = HeaderValue::from_str(id)
                    {
                        headers.insert("last-event-id", v);
                    }
                    if self.reconnects > 0 {
                        tracing::debug!(run = %self.run_id, last_event_id = ?self.last_id, "resuming a research run's event stream");
                        self.client
                            .clock()
                            .sleep(Duration::from_millis(100 * u64::from(self.reconnects)))
                            .await;
                    }
                    // Opening retries as every call does (the client's retry policy), and past
                    // that a failure the run's waiter would poll through (a 5xx, a transport
                    // failure, a 429) is one more reconnection, not the end: following the
                    // events is waiting on the run, with the waiter's patience.
                    let opened = self
                        .client
                        .open_stream(
                            &endpoint::RESEARCH_RUN_EVENTS,
                            &[&self.agent_id, &self.run_id],
                            headers,
                        )
                        .await;
                    match opened {
                        Ok(resp) => {
                            let limit = self.client.max_response_bytes();
                            self.open = Some(Open {
                                body: feed(resp, self.stall),
                                reader: SseReader::new(limit, self.last_id.clone()),
                                ready: VecDeque::new(),
                                too_large: false,
                            });
                        }
                        Err(e) if e.transient() && self.reconnects < MAX_RECONNECTS => {
                            tracing::debug!(run = %self.run_id, error = %e, "opening a research run's event stream failed; trying again");
                            self.reconnects += 1;
                        }
                        Err(e) => {
                            self.done = true;
                            return Some(Err(e));
                        }
                    }
                }
                let Some(open) = self.open.as_mut() else {
                    continue;
                };
                match open.body.next().await {
                    None => {
                        if let Some(end) = self.cut() {
                            return end;
                        }
                    }
                    Some(Err(Feed::Transport(e))) => {
                        tracing::debug!(run = %self.run_id, error = %e, "a research run's event stream was cut");
                        if let Some(end) = self.cut() {
                            return end;
                        }
                    }
                    Some(Err(Feed::Stalled)) => {
                        return self.end(StreamEnd::Stalled(self.stall));
                    }
                    Some(Ok(chunk)) => {
                        let mut out = Vec::new();
                        // Events that came whole before an oversized one are still handed out.
                        open.too_large = open.reader.feed(&chunk, &mut out).is_err();
                        open.ready.extend(out);
                    }
                }
            }
        }
    }

    let reader = Reader {
        client,
        agent_id,
        run_id,
        stall,
        open: None,
        last_id: None,
        reconnects: 0,
        done: false,
    };
    futures_util::stream::unfold(reader, |mut r| async move {
        let item = r.next().await?;
        Some((item, r))
    })
    .boxed()
}

pub(super) fn stream_decode(run_id: &str, message: String, body: &str) -> Error {
    Error::Decode(Box::new(DecodeError {
        path: format!("events of research run {run_id}"),
        message,
        body: body.to_owned(),
        info: crate::client::error::ResponseInfo::new(200, &HeaderMap::new()),
    }))
}

/// One line per event, for printing or logging progress without a `match`:
/// `status: running`, `searching: x100 price`, `reading https://… (Title)`,
/// `claim for offers[0].price [2]: the maker's page lists it`, or an unknown event's name.
impl std::fmt::Display for ResearchEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResearchEvent::Status { status } => write!(f, "status: {}", status.as_str()),
            ResearchEvent::Searching { query } => write!(f, "searching: {query}"),
            ResearchEvent::Reading { url, title } => {
                write!(f, "reading {url}")?;
                match title {
                    Some(t) if !t.is_empty() => write!(f, " ({t})"),
                    _ => Ok(()),
                }
            }
            ResearchEvent::Claim {
                path,
                callout,
                reasoning,
            } => {
                f.write_str("claim")?;
                if let Some(p) = path {
                    write!(f, " for {p}")?;
                }
                if let Some(c) = callout {
                    write!(f, " [{c}]")?;
                }
                match reasoning {
                    Some(r) if !r.is_empty() => write!(f, ": {r}"),
                    _ => Ok(()),
                }
            }
            ResearchEvent::Other(name) => f.write_str(name),
        }
    }
}

/// The event's line ([`ResearchEvent`]'s `Display`): `println!("{event}")` prints progress.
impl std::fmt::Display for RunEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.event.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_read_by_name_or_type() {
        let e = RunEvent::read(Some("3".into()), "page", json!({"url": "u", "title": "t"}));
        assert_eq!(
            e.event,
            ResearchEvent::Reading {
                url: "u".into(),
                title: Some("t".into())
            }
        );
        let e = RunEvent::read(
            None,
            "message",
            json!({"type": "status", "status": "failed"}),
        );
        assert!(e.is_final());
        let e = RunEvent::read(None, "thinking", json!({}));
        assert_eq!(e.event, ResearchEvent::Other("thinking".into()));
        assert!(!e.is_final());
    }

    #[test]
    fn every_event_is_one_readable_line() {
        let line = |event: ResearchEvent| {
            RunEvent {
                id: None,
                event,
                data: Value::Null,
            }
            .to_string()
        };
        assert_eq!(
            line(ResearchEvent::Status {
                status: ResearchStatus::Running
            }),
            "status: running"
        );
        assert_eq!(
            line(ResearchEvent::Searching {
                query: "x100 price".into()
            }),
            "searching: x100 price"
        );
        assert_eq!(
            line(ResearchEvent::Reading {
                url: "https://shop.example/x100".into(),
                title: Some("X100".into())
            }),
            "reading https://shop.example/x100 (X100)"
        );
        assert_eq!(
            line(ResearchEvent::Reading {
                url: "https://a.example/".into(),
                title: None
            }),
            "reading https://a.example/"
        );
        assert_eq!(
            line(ResearchEvent::Claim {
                path: Some("offers[0].price".into()),
                callout: Some(2),
                reasoning: Some("the maker lists it".into())
            }),
            "claim for offers[0].price [2]: the maker lists it"
        );
        assert_eq!(
            line(ResearchEvent::Claim {
                path: None,
                callout: None,
                reasoning: None
            }),
            "claim"
        );
        assert_eq!(line(ResearchEvent::Other("heartbeat".into())), "heartbeat");
    }
}
