//! The emulator's shared state: accounts, catalog, tasks, generations, rate limiter, faults.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use agents_runtime::endpoint::ApiVersion;
use axum::http::StatusCode;

use crate::catalog::Catalog;
use crate::config::{Account, Config, Fault, RateLimitShape};
use crate::error::ApiError;
use crate::lifecycle::{Generation, GenerationStatus, Task};

type KeyedLimiter =
    RateLimiter<String, DefaultKeyedStateStore<String>, DefaultClock, StateInformationMiddleware>;

/// A fault that applies to the next `times` requests of a key (or all of them).
#[derive(Debug, Clone)]
pub struct FaultRule {
    /// What to do.
    pub fault: Fault,
    /// How many more requests it applies to; `None` for every request.
    pub times: Option<u32>,
    /// Only requests of this method (`POST`) count and get it; `None` for any method.
    pub method: Option<String>,
}

/// Rate-limit state of a key after a request was counted.
#[derive(Debug, Clone, Copy)]
pub struct RateInfo {
    /// Requests per second.
    pub limit: u32,
    /// Requests left in the current burst.
    pub remaining: u32,
    /// Unix time (seconds) when the burst is full again.
    pub reset: u64,
    /// When refused: how long until a request would be accepted.
    pub retry_after: Option<Duration>,
}

/// Everything the handlers share.
pub struct State {
    /// The configuration the instance started with.
    pub config: Config,
    /// The one clock every time is read from.
    pub clock: crate::clock::Clock,
    /// Accounts by key.
    pub accounts: HashMap<String, Account>,
    /// Agents.
    pub catalog: RwLock<Catalog>,
    /// Async tasks by id.
    pub tasks: Mutex<HashMap<String, Task>>,
    /// Delivery problems by task id.
    pub delivery_errors: Mutex<HashMap<String, Vec<String>>>,
    /// Crawls by id.
    pub crawls: Mutex<HashMap<String, crate::model::Crawl>>,
    /// Batches by id.
    pub batches: Mutex<HashMap<String, crate::model::Batch>>,
    /// Generations by id.
    pub generations: Mutex<HashMap<String, Generation>>,
    /// Creation times of each account's generations, for the daily limit.
    pub generation_log: Mutex<HashMap<String, Vec<SystemTime>>>,
    /// Faults by key.
    pub faults: Mutex<HashMap<String, Vec<FaultRule>>>,
    /// Jobs, their runs and the artifact download URLs handed out.
    pub(crate) jobs: Mutex<crate::job_model::Jobs>,
    /// Research agents and their runs.
    pub(crate) research: Mutex<crate::research_model::Research>,
    /// When the instance started, in both clocks (the schedule clock counts from here).
    pub(crate) started: (Instant, SystemTime),
    /// Requests per configured key, counted before auth, rate limit and faults. Only configured
    /// keys have a counter: unknown keys leave no state behind.
    seen: HashMap<String, AtomicU64>,
    /// The base URL, once bound.
    pub base_url: OnceLock<String>,
    limiter: Option<KeyedLimiter>,
    shape_turn: AtomicU64,
}

/// Locks a mutex, recovering the data if a holder panicked (handlers never panic, but a poisoned
/// lock must not take the whole emulator down).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl State {
    /// State for `config` and `catalog`.
    pub fn new(config: Config, catalog: Catalog) -> State {
        let accounts: HashMap<String, Account> = config
            .accounts
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let mut a = a.clone();
                if a.name.is_empty() {
                    a.name = format!("account-{}", i + 1);
                }
                (a.key.clone(), a)
            })
            .collect();
        let limiter = config.rate_limit.and_then(NonZeroU32::new).map(|rate| {
            let burst = NonZeroU32::new(config.burst).unwrap_or(NonZeroU32::MIN);
            RateLimiter::keyed(Quota::per_second(rate).allow_burst(burst))
                .with_middleware::<StateInformationMiddleware>()
        });
        let seen = accounts
            .keys()
            .map(|k| (k.clone(), AtomicU64::new(0)))
            .collect();
        let clock = crate::clock::Clock::default();
        State {
            config,
            started: (clock.now(), clock.wall()),
            clock,
            seen,
            accounts,
            catalog: RwLock::new(catalog),
            tasks: Mutex::default(),
            jobs: Mutex::default(),
            research: Mutex::default(),
            generations: Mutex::default(),
            batches: Mutex::default(),
            crawls: Mutex::default(),
            delivery_errors: Mutex::default(),
            generation_log: Mutex::default(),
            faults: Mutex::default(),
            base_url: OnceLock::new(),
            limiter,
            shape_turn: AtomicU64::new(0),
        }
    }

    /// Counts a request that presented `key` (nothing for keys that are not configured).
    pub fn count_request(&self, key: &str) {
        if let Some(n) = self.seen.get(key) {
            n.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Requests that presented `key`, a configured key; 0 for any other.
    pub fn requests_seen(&self, key: &str) -> u64 {
        self.seen.get(key).map_or(0, |n| n.load(Ordering::Relaxed))
    }

    /// Looks up `agent` as `account` sees it: 422 naming the nearest agents when unknown, in
    /// `version`'s words.
    pub(crate) fn find_agent(
        &self,
        account: &str,
        agent: &str,
        version: ApiVersion,
    ) -> Result<Arc<agents_schema::AgentRecord>, ApiError> {
        let catalog = self.catalog.read().unwrap_or_else(PoisonError::into_inner);
        match catalog.get(account, agent) {
            Some(e) => Ok(e.record.clone()),
            None => Err(catalog.unknown(account, agent, StatusCode::UNPROCESSABLE_ENTITY, version)),
        }
    }

    /// Real pages of a paginated agent.
    pub fn pages(&self, agent: &str) -> u32 {
        self.config
            .pages
            .get(agent)
            .copied()
            .unwrap_or(self.config.default_pages)
    }

    /// Counts a request against `key`'s rate limit. `None` when the limit is lifted.
    pub fn take(&self, key: &str) -> Option<RateInfo> {
        let limiter = self.limiter.as_ref()?;
        let rate = self.config.rate_limit.unwrap_or(0).max(1);
        let now_unix = self
            .clock
            .wall()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let key = key.to_owned();
        Some(match limiter.check_key(&key) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                let burst = snapshot.quota().burst_size().get();
                let refill =
                    Duration::from_secs_f64(f64::from(burst - remaining) / f64::from(rate));
                RateInfo {
                    limit: rate,
                    remaining,
                    reset: (now_unix + refill).as_secs_f64().ceil() as u64,
                    retry_after: None,
                }
            }
            Err(not_until) => {
                let wait = not_until.wait_time_from(limiter.clock().now());
                let full = Duration::from_secs_f64(f64::from(self.config.burst) / f64::from(rate));
                RateInfo {
                    limit: rate,
                    remaining: 0,
                    reset: (now_unix + full).as_secs_f64().ceil() as u64,
                    retry_after: Some(wait),
                }
            }
        })
    }

    /// The 429 body shape for the next refusal.
    pub fn next_shape(&self) -> RateLimitShape {
        match self.config.rate_limit_shape {
            RateLimitShape::Alternating => {
                if self
                    .shape_turn
                    .fetch_add(1, Ordering::Relaxed)
                    .is_multiple_of(2)
                {
                    RateLimitShape::Nested
                } else {
                    RateLimitShape::Flat
                }
            }
            shape => shape,
        }
    }

    /// Faults that apply to this request of `key` (of `method`), counting down limited ones.
    pub fn take_faults(&self, key: &str, method: &str) -> Vec<Fault> {
        let mut faults = lock(&self.faults);
        let Some(rules) = faults.get_mut(key) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for rule in rules.iter_mut() {
            if rule
                .method
                .as_deref()
                .is_some_and(|m| !m.eq_ignore_ascii_case(method))
            {
                continue;
            }
            match &mut rule.times {
                Some(0) => {}
                Some(n) => {
                    *n -= 1;
                    out.push(rule.fault.clone());
                }
                None => out.push(rule.fault.clone()),
            }
        }
        rules.retain(|r| r.times != Some(0));
        out
    }

    /// Publishes the agents of generations that have succeeded by `now`, so that they are
    /// runnable by name at once.
    pub fn settle(&self, now: Instant) {
        let mut generations = lock(&self.generations);
        let mut done: Vec<&mut Generation> = generations
            .values_mut()
            .filter(|g| !g.published && g.status(now) == GenerationStatus::Success)
            .collect();
        if done.is_empty() {
            return;
        }
        // Publish in completion order so that the latest version of an agent wins.
        done.sort_by_key(|g| g.ends_at);
        let mut catalog = self.catalog.write().unwrap_or_else(PoisonError::into_inner);
        for g in done {
            // A refinement publishes over the very record it refined, or not at all: the
            // template deleted meanwhile stays deleted, and a change made meanwhile is kept
            // (the refinement fails, saying so) rather than silently overwritten.
            if let Some(base) = &g.source_record {
                let now_held = catalog
                    .get(&g.account, &g.agent_name)
                    .map(|e| e.record.clone());
                let why = match now_held {
                    None => Some(format!(
                        "template `{}` was deleted while the refinement ran",
                        g.agent_name
                    )),
                    Some(held) if !Arc::ptr_eq(&held, base) => Some(format!(
                        "template `{}` changed while the refinement ran; refine the version now \
                         published",
                        g.agent_name
                    )),
                    Some(_) => None,
                };
                if let Some(why) = why {
                    g.end = crate::lifecycle::GenerationEnd::Failed(why);
                }
            }
            if let crate::lifecycle::GenerationEnd::Success {
                record, version_id, ..
            } = &g.end
            {
                catalog.insert_private(
                    &g.account,
                    (**record).clone(),
                    version_id.clone(),
                    self.clock.wall(),
                );
            }
            g.published = true;
        }
    }
}

/// Generations `account` started on the current UTC day, from the generation log.
pub fn generations_today(
    log: &HashMap<String, Vec<SystemTime>>,
    account: &str,
    now: SystemTime,
) -> usize {
    let today = day(now);
    log.get(account)
        .map_or(0, |v| v.iter().filter(|t| day(**t) == today).count())
}

fn day(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs() / 86_400
}
