//! `agents-emulator`: serve the /v1 and /v2 interfaces locally.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;

use agents_emulator::{Account, AccountStatus, Emulator, Fault, Lifecycle, RateLimitShape};
use clap::{Parser, ValueEnum};

/// The faults a request can ask for, from the emulator's tables of them, and the endpoints of the
/// service it does not serve, from the endpoint table.
fn after_help() -> String {
    let mut help = String::from(
        "Faults, per request (x-emulator-fault: FAULT[,FAULT]) or for every request (--fault):\n",
    );
    for (form, what) in Fault::TABLE {
        help.push_str(&format!("  {form}: {what}\n"));
    }
    help.push_str(
        "\nTask faults, per request (async runs, batches, async extract, search, map):\n",
    );
    for (header, what) in agents_emulator::lifecycle::TASK_FAULTS {
        help.push_str(&format!("  {header}: {what}\n"));
    }
    help.push_str("\nEvent faults, per request (a research run's event stream):\n");
    for (header, what) in agents_emulator::research::EVENT_FAULTS {
        help.push_str(&format!("  {header}: {what}\n"));
    }
    let unserved: Vec<String> = agents_emulator::routes::unserved()
        .map(|e| {
            let paths: Vec<&str> = e.versions().filter_map(|v| e.path(v)).collect();
            format!("  {} {}\n", e.method, paths.join(" | "))
        })
        .collect();
    if unserved.is_empty() {
        help.push_str("\nEvery endpoint of the service's two interfaces is served.\n");
    } else {
        help.push_str(
            "\nEndpoints of the service not served (404, or 405 where the path serves another method):\n",
        );
        help.extend(unserved);
    }
    help
}

/// The binary's allocator (feature `mimalloc`, on by default): the emulator allocates a JSON tree
/// per request.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A stateful local server that speaks the /v1 and /v2 interfaces of the web data extraction
/// service.
#[derive(Debug, Parser)]
#[command(version, after_help = after_help())]
struct Args {
    /// Port to listen on; 0 picks a free one.
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// API keys of active accounts (repeatable). Without any, a demo key is generated.
    #[arg(long = "api-key", value_name = "KEY")]
    api_keys: Vec<String>,
    /// Keys of accounts that answer 402 Payment required.
    #[arg(long = "no-budget-key", value_name = "KEY")]
    no_budget_keys: Vec<String>,
    /// Keys of accounts that answer 403 Forbidden.
    #[arg(long = "blocked-key", value_name = "KEY")]
    blocked_keys: Vec<String>,
    /// Requests per second per key; 0 lifts the limit.
    #[arg(long, default_value_t = 83)]
    rate_limit: u32,
    /// Requests a key may send at once above the steady rate.
    #[arg(long, default_value_t = 10)]
    burst: u32,
    /// Body shape of 429 answers.
    #[arg(long, value_enum, default_value_t = Shape::Nested)]
    rate_limit_shape: Shape,
    /// Directory of agent records that add to or replace the embedded catalog.
    #[arg(long, value_name = "DIR")]
    schemas: Option<PathBuf>,
    /// Real pages of paginated agents; later pages repeat the last.
    #[arg(long, default_value_t = 5)]
    pages: u32,
    /// A directory standing in for cloud buckets (s3://bucket/prefix/ → DIR/bucket/prefix/).
    #[arg(long, value_name = "DIR")]
    bucket_dir: Option<PathBuf>,
    /// Also serve the residential proxy with this password: a loopback forward proxy
    /// checking the connection string's credentials (account names are those of the accounts).
    #[arg(long, value_name = "PASSWORD")]
    proxy_password: Option<String>,
    /// Port of the proxy; 0 picks a free one.
    #[arg(long, default_value_t = 7000, requires = "proxy_password")]
    proxy_port: u16,
    /// Finish tasks and generations in a fraction of a second instead of minutes.
    #[arg(long)]
    fast: bool,
    /// A fault for every request of every key (repeatable; the faults are listed below).
    #[arg(long = "fault", value_name = "FAULT", value_parser = parse_fault)]
    faults: Vec<Fault>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Shape {
    Nested,
    Flat,
    Alternating,
}

fn parse_fault(s: &str) -> Result<Fault, String> {
    Fault::parse(s)
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "agents_emulator=info".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let args = Args::parse();
    let mut builder = Emulator::builder()
        .addr(SocketAddr::new(args.host, args.port))
        .rate_limit((args.rate_limit > 0).then_some(args.rate_limit))
        .burst(args.burst)
        .default_pages(args.pages)
        .rate_limit_shape(match args.rate_limit_shape {
            Shape::Nested => RateLimitShape::Nested,
            Shape::Flat => RateLimitShape::Flat,
            Shape::Alternating => RateLimitShape::Alternating,
        });
    if args.fast {
        builder = builder.lifecycle(Lifecycle::fast());
    }
    if let Some(dir) = args.bucket_dir {
        builder = builder.bucket_dir(dir);
    }
    if let Some(dir) = args.schemas {
        builder = builder.schema_dir(dir);
    }
    if let Some(password) = args.proxy_password {
        builder = builder
            .proxy(password)
            .proxy_addr(SocketAddr::new(args.host, args.proxy_port));
    }
    for k in &args.api_keys {
        builder = builder.api_key(k.clone());
    }
    for k in args.no_budget_keys {
        builder = builder.account(Account::new(k).status(AccountStatus::NoBudget));
    }
    for k in args.blocked_keys {
        builder = builder.account(Account::new(k).status(AccountStatus::Blocked));
    }
    let generated = args.api_keys.is_empty();
    let handle = match builder.start().await {
        Ok(h) => h,
        Err(e) => {
            eprintln!("agents-emulator: {e}");
            return ExitCode::FAILURE;
        }
    };
    for key in handle.keys() {
        for f in &args.faults {
            handle.inject(key, f.clone(), None);
        }
    }
    println!("{}", handle.base_url());
    if let Some(proxy) = handle.proxy_addr() {
        println!("proxy: http://{proxy}");
    }
    if generated {
        println!("demo API key: {}", handle.api_key());
    }
    let _ = tokio::signal::ctrl_c().await;
    handle.shutdown().await;
    ExitCode::SUCCESS
}
