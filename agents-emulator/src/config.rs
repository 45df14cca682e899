//! What an emulator instance is configured with: accounts, rate limit, lifecycle clock, faults.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// How an account answers: active, out of budget (402) or blocked (403).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AccountStatus {
    /// Requests are served.
    #[default]
    Active,
    /// Every request answers 402 Payment required.
    NoBudget,
    /// Every request answers 403 Forbidden.
    Blocked,
}

/// An account and its API key.
#[derive(Clone, PartialEq, Eq)]
pub struct Account {
    /// The API key (`Authorization: Bearer <key>`).
    pub key: String,
    /// Account name, shown in task records; private agents belong to it.
    pub name: String,
    /// How the account answers.
    pub status: AccountStatus,
}

impl std::fmt::Debug for Account {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Account")
            .field("key", &"[redacted]")
            .field("name", &self.name)
            .field("status", &self.status)
            .finish()
    }
}

impl Account {
    /// An active account with this key; its name is derived from the key's position.
    pub fn new(key: impl Into<String>) -> Self {
        Account {
            key: key.into(),
            name: String::new(),
            status: AccountStatus::Active,
        }
    }

    /// Sets the account name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets how the account answers.
    pub fn status(mut self, status: AccountStatus) -> Self {
        self.status = status;
        self
    }
}

/// Which of the service's two 429 body shapes the emulator sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RateLimitShape {
    /// `{"error": {"code": "RATE_LIMIT_EXCEEDED", "message": …, "retry_after": seconds}}`.
    #[default]
    Nested,
    /// `{"status": "failed", "msg": …}`.
    Flat,
    /// Nested and flat in turn.
    Alternating,
}

/// A fault to inject, for reliability tests of clients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Answer with this status (500, 501 or 555, as the service does) and a JSON error body.
    Status(u16),
    /// Answer 429 as if the rate limit were exceeded (in the configured shape).
    RateLimited,
    /// Send the response head and part of the body, then reset the connection.
    Reset,
    /// Send a 200 whose JSON body is cut in half.
    Truncate,
    /// Send a 200 whose body is not JSON.
    Malformed,
    /// Send the answer with its longest string cut between the halves of a character.
    SplitCharacter,
    /// Serve agent data with some fields of the wrong type (see `synth::drift`).
    Drift,
    /// Wait this long before answering.
    Latency(Duration),
    /// Panic while answering, as a bug would: the emulator answers a JSON 500 and goes on serving.
    Panic,
}

impl Fault {
    /// Every fault by its wire form (the `x-emulator-fault` header, the `--fault` flag), with what
    /// it does: the one list `--help`, [`Fault::parse`]'s errors and the README follow. `STATUS`
    /// and `MS` stand for numbers.
    pub const TABLE: [(&'static str, &'static str); 9] = [
        (
            "STATUS",
            "answer this status (400-599) with a JSON error body; 500, 501 and 555 carry the \
             service's codes",
        ),
        (
            "rate-limit",
            "answer 429 as if the rate limit were exceeded, asking for a second",
        ),
        (
            "reset",
            "send the head and half the body, then reset the connection",
        ),
        ("truncate", "answer 200 with the JSON body cut in half"),
        ("malformed", "answer 200 with a body that is not JSON"),
        (
            "split-character",
            "end the answer's longest string with half a character (an unpaired `\\ud83d`), as a \
             JavaScript service that cuts text by length sends it",
        ),
        (
            "drift",
            "serve agent data with some fields of the wrong type",
        ),
        (
            "panic",
            "panic while answering, as a bug would (a JSON 500; the emulator goes on serving)",
        ),
        ("latency=MS", "wait MS milliseconds before answering"),
    ];

    /// The faults without a number, each spelled by its [`Display`](fmt::Display).
    const NAMED: [Fault; 7] = [
        Fault::RateLimited,
        Fault::Reset,
        Fault::Truncate,
        Fault::Malformed,
        Fault::SplitCharacter,
        Fault::Drift,
        Fault::Panic,
    ];

    /// Reads a fault's wire form ([`Fault::TABLE`]); the error names the fault and lists the
    /// forms.
    pub fn parse(text: &str) -> Result<Fault, String> {
        let t = text.trim();
        let found = if let Some(ms) = t.strip_prefix("latency=") {
            ms.parse()
                .ok()
                .map(|ms| Fault::Latency(Duration::from_millis(ms)))
        } else if let Ok(status) = t.parse::<u16>() {
            (400..=599)
                .contains(&status)
                .then_some(Fault::Status(status))
        } else {
            Fault::NAMED.into_iter().find(|f| f.to_string() == t)
        };
        found.ok_or_else(|| {
            let forms: Vec<&str> = Fault::TABLE.iter().map(|(form, _)| *form).collect();
            format!("unknown fault {t:?}: one of {}", forms.join(", "))
        })
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Status(status) => write!(f, "{status}"),
            Fault::RateLimited => f.write_str("rate-limit"),
            Fault::Reset => f.write_str("reset"),
            Fault::Truncate => f.write_str("truncate"),
            Fault::Malformed => f.write_str("malformed"),
            Fault::SplitCharacter => f.write_str("split-character"),
            Fault::Drift => f.write_str("drift"),
            Fault::Latency(d) => write!(f, "latency={}", d.as_millis()),
            Fault::Panic => f.write_str("panic"),
        }
    }
}

/// How long asynchronous work takes. The live service takes minutes to generate an
/// agent; tests use [`Lifecycle::fast`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifecycle {
    /// Time an async agent task stays `pending` before it ends.
    pub task: Duration,
    /// Time a generation stays `queued`.
    pub generation_queued: Duration,
    /// Time a new agent's generation stays `in_progress` (3 to 7 minutes live).
    pub generation_new: Duration,
    /// Time a refinement stays `in_progress` (about a minute live).
    pub generation_refine: Duration,
    /// How much faster than real time job schedules run (1: a job due every minute runs every
    /// minute).
    pub schedule_speed: u32,
    /// Time a research run takes, queued for its first tenth.
    pub research: Duration,
    /// Time between keep-alive comments of an event stream (15 s live).
    pub keep_alive: Duration,
}

impl Default for Lifecycle {
    /// Like the live service: tasks in 2 s, generations in minutes.
    fn default() -> Self {
        Lifecycle {
            task: Duration::from_secs(2),
            generation_queued: Duration::from_secs(20),
            generation_new: Duration::from_secs(240),
            generation_refine: Duration::from_secs(60),
            schedule_speed: 1,
            research: Duration::from_secs(8),
            keep_alive: Duration::from_secs(15),
        }
    }
}

impl Lifecycle {
    /// Everything within a fraction of a second, for tests.
    pub fn fast() -> Self {
        Lifecycle {
            task: Duration::from_millis(100),
            generation_queued: Duration::from_millis(50),
            generation_new: Duration::from_millis(250),
            generation_refine: Duration::from_millis(100),
            schedule_speed: 600,
            research: Duration::from_millis(400),
            keep_alive: Duration::from_millis(100),
        }
    }
}

/// Everything an emulator instance is started with.
#[derive(Debug, Clone)]
pub struct Config {
    /// Accounts and their keys.
    pub accounts: Vec<Account>,
    /// Requests per second per key (the service allows 83); `None` lifts the limit.
    pub rate_limit: Option<u32>,
    /// Requests a key may send at once above the steady rate.
    pub burst: u32,
    /// Which 429 body shape to send.
    pub rate_limit_shape: RateLimitShape,
    /// How long asynchronous work takes.
    pub lifecycle: Lifecycle,
    /// Real pages of paginated agents; later pages repeat the last one (placeholder content).
    pub default_pages: u32,
    /// Per-agent override of `default_pages`.
    pub pages: BTreeMap<String, u32>,
    /// Past the last real page, list agents answer an empty list instead of repeating it.
    pub empty_past_end: bool,
    /// Agent generations per account per day (the service allows 100).
    pub generation_daily_limit: u32,
    /// A directory of extra agent records that add to or replace the embedded catalog.
    pub schema_dir: Option<PathBuf>,
    /// A directory standing in for cloud buckets (`s3://bucket/prefix/` → `DIR/bucket/prefix/`).
    pub bucket_dir: Option<PathBuf>,
    /// The residential proxy's password; with it the emulator also serves a loopback forward
    /// proxy that checks the connection string's credentials.
    pub proxy_password: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            accounts: Vec::new(),
            rate_limit: Some(83),
            burst: 10,
            rate_limit_shape: RateLimitShape::Nested,
            lifecycle: Lifecycle::default(),
            default_pages: 5,
            pages: BTreeMap::new(),
            empty_past_end: false,
            generation_daily_limit: 100,
            schema_dir: None,
            bucket_dir: None,
            proxy_password: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fault_in_the_table_parses_and_prints_back_and_every_named_fault_is_listed() {
        for (form, what) in Fault::TABLE {
            assert!(!what.is_empty());
            let example = form.replace("STATUS", "503").replace("MS", "25");
            let fault = Fault::parse(&example).expect(&example);
            assert_eq!(fault.to_string(), example);
        }
        for fault in Fault::NAMED {
            let name = fault.to_string();
            assert!(Fault::TABLE.iter().any(|(form, _)| *form == name), "{name}");
        }
        let err = Fault::parse("teapot").unwrap_err();
        assert!(
            err.contains("\"teapot\"") && err.contains("rate-limit"),
            "{err}"
        );
        assert!(Fault::parse("600").is_err() && Fault::parse("latency=x").is_err());
    }
}
