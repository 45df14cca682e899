//! Which addresses the emulator contacts: loopback only. Extract, map, crawl, webhooks and the
//! proxy all ask here before they connect anywhere, and every HTTP client they send through is
//! made here (`client`), following redirects to loopback addresses only.

use std::net::IpAddr;
use std::time::Duration;

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

/// What to do with a redirect to `to` after `followed` redirects, for a client that follows at
/// most `redirects`.
#[derive(Debug, PartialEq, Eq)]
enum Redirect {
    Follow,
    /// Answer the redirect as it came.
    Stop,
    /// End the request with this error.
    Refuse(String),
}

fn redirect(to: &Url, followed: usize, redirects: usize) -> Redirect {
    if redirects == 0 {
        Redirect::Stop
    } else if !is_loopback(to) {
        Redirect::Refuse(format!(
            "a redirect to {to} not followed: the emulator only contacts loopback addresses"
        ))
    } else if followed >= redirects {
        Redirect::Refuse(format!("more than {redirects} redirects"))
    } else {
        Redirect::Follow
    }
}

/// The one kind of HTTP client the emulator sends with: it follows at most `redirects`
/// redirects, each only to a loopback address (a loopback page that redirects elsewhere ends
/// the request with an error instead of reaching out), and gives up after `timeout`. With
/// `redirects` 0 a redirect is answered as it came (the proxy hands it back to its client).
/// When reqwest cannot make one, the caller's request fails: a default client in its place
/// would follow redirects anywhere.
pub(crate) fn client(redirects: usize, timeout: Duration) -> Result<reqwest::Client, String> {
    let policy = reqwest::redirect::Policy::custom(move |attempt| {
        match redirect(
            attempt.url(),
            attempt.previous().len().saturating_sub(1),
            redirects,
        ) {
            Redirect::Follow => attempt.follow(),
            Redirect::Stop => attempt.stop(),
            Redirect::Refuse(why) => attempt.error(why),
        }
    });
    reqwest::Client::builder()
        .redirect(policy)
        .timeout(timeout)
        .build()
        .map_err(|e| format!("cannot make an HTTP client: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_are_followed_to_loopback_only_and_never_past_the_count() {
        let url = |s: &str| Url::parse(s).unwrap();
        let here = url("http://127.0.0.1:8080/next");
        assert_eq!(redirect(&here, 0, 5), Redirect::Follow);
        assert_eq!(redirect(&url("http://localhost/x"), 4, 5), Redirect::Follow);
        assert!(matches!(redirect(&here, 5, 5), Redirect::Refuse(_)));
        for outside in [
            "http://192.0.2.1/",
            "http://10.0.0.1/",
            "http://example.com/",
            "http://[2001:db8::1]/",
        ] {
            match redirect(&url(outside), 0, 5) {
                Redirect::Refuse(why) => assert!(why.contains("only contacts loopback"), "{why}"),
                other => panic!("{outside}: {other:?}"),
            }
        }
        // The proxy never follows: it hands the redirect back, wherever it points.
        assert_eq!(redirect(&url("http://192.0.2.1/"), 0, 0), Redirect::Stop);
    }
}
