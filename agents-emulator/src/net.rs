//! Which addresses the emulator contacts: loopback only. Extract, map, crawl, webhooks and the
//! proxy all ask here before they connect anywhere.

use std::net::IpAddr;

use reqwest::Url;

/// Whether a URL points at loopback (the only addresses the emulator fetches).
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}
