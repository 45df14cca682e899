//! The residential proxy: a typed connection string
//! `http://account-<ACCOUNT>-pipeline-<PIPELINE>-country-<CC>:<PASSWORD>@<host>:7000` whose
//! password stays secret, and the `reqwest::Proxy` it makes.
//!
//! ```
//! # fn main() -> Result<(), agents_runtime::Error> {
//! use agents_runtime::client::proxy::ProxyConfig;
//! let proxy = ProxyConfig::new("proxy.example.com", "acme", "residential", "de", "s3cret")?;
//! assert_eq!(proxy.username(), "account-acme-pipeline-residential-country-DE");
//! assert!(!format!("{proxy:?}").contains("s3cret"));
//! let http = reqwest::Client::builder().proxy(proxy.to_reqwest()?).build();
//! # let _ = http; Ok(()) }
//! ```

use secrecy::{ExposeSecret, SecretString};

use super::error::{Error, OptionCheck};

/// Proxy settings; the password never appears in Debug output or errors.
#[derive(Clone)]
pub struct ProxyConfig {
    host: String,
    port: u16,
    account: String,
    pipeline: String,
    country: String,
    password: SecretString,
}

impl std::fmt::Debug for ProxyConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxyConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("username", &self.username())
            .field("password", &"[redacted]")
            .finish()
    }
}

/// `value` as the username part `option`, its problem recorded in `check`.
fn part(check: &mut OptionCheck, option: &'static str, value: &str) -> String {
    let ok = !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
    if !ok {
        check.bad(
            option,
            format!("{value:?} must be letters, digits, '_' or '.'"),
        );
    }
    value.to_owned()
}

impl ProxyConfig {
    /// Settings for `host` (port 7000): account, pipeline, two-letter country, password. Every
    /// invalid one is named at once.
    pub fn new(
        host: impl Into<String>,
        account: &str,
        pipeline: &str,
        country: &str,
        password: impl Into<String>,
    ) -> Result<Self, Error> {
        let mut check = OptionCheck::default();
        let host = host.into();
        if host.is_empty() || host.contains(['/', '@', ':', ' ']) {
            check.bad("host", format!("{host:?} is not a host name"));
        }
        let account = part(&mut check, "account", account);
        let pipeline = part(&mut check, "pipeline", pipeline);
        if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_alphabetic()) {
            check.bad(
                "country",
                format!("{country:?} is not a two-letter country code"),
            );
        }
        let password = password.into();
        if password.is_empty() {
            check.bad("password", "the password is empty");
        }
        check.finish()?;
        Ok(ProxyConfig {
            host,
            port: 7000,
            account,
            pipeline,
            country: country.to_ascii_uppercase(),
            password: SecretString::from(password),
        })
    }

    /// Another port (default 7000).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// The user part: `account-<A>-pipeline-<P>-country-<CC>`.
    pub fn username(&self) -> String {
        format!(
            "account-{}-pipeline-{}-country-{}",
            self.account, self.pipeline, self.country
        )
    }

    /// The whole connection string, password included (keep it secret). The password is
    /// percent-encoded, so one with `@`, `:` or `/` still parses as a URL's password.
    pub fn connection_string(&self) -> SecretString {
        SecretString::from(format!(
            "http://{}:{}@{}:{}",
            self.username(),
            crate::endpoint::percent_encode(self.password.expose_secret()),
            self.host,
            self.port
        ))
    }

    /// A `reqwest::Proxy` for every scheme, authenticating with the account values.
    pub fn to_reqwest(&self) -> Result<reqwest::Proxy, Error> {
        let url = format!("http://{}:{}", self.host, self.port);
        reqwest::Proxy::all(&url)
            .map(|p| p.basic_auth(&self.username(), self.password.expose_secret()))
            .map_err(|e| Error::InvalidOption {
                option: "host",
                message: format!("cannot make a proxy for {url}: {e}"),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_is_percent_encoded_in_the_connection_string() {
        let p = ProxyConfig::new("proxy.example.com", "acme", "resi", "us", "p@ss:w/rd%#").unwrap();
        let text = p.connection_string();
        let url = reqwest::Url::parse(text.expose_secret()).unwrap();
        assert_eq!(url.host_str(), Some("proxy.example.com"));
        assert_eq!(url.port(), Some(7000));
        assert_eq!(url.username(), "account-acme-pipeline-resi-country-US");
        assert_eq!(url.password(), Some("p%40ss%3Aw%2Frd%25%23"));
    }

    #[test]
    fn every_invalid_setting_is_named_at_once_and_the_password_never() {
        let err = ProxyConfig::new("a/b", "ac me", "resi", "USA", "").unwrap_err();
        let Error::InvalidOptions(problems) = &err else {
            panic!("{err:?}");
        };
        let named: Vec<&str> = problems.iter().map(|p| p.option).collect();
        assert_eq!(named, ["host", "account", "country", "password"]);
        assert!(
            err.to_string()
                .starts_with("4 invalid options; nothing was sent: `host`: ")
        );

        let one = ProxyConfig::new("proxy.example.com", "acme", "resi", "us", "").unwrap_err();
        assert!(
            matches!(
                one,
                Error::InvalidOption {
                    option: "password",
                    ..
                }
            ),
            "{one}"
        );
        let secret = ProxyConfig::new("a b", "acme", "resi", "us", "hunter2").unwrap_err();
        assert!(!format!("{secret} {secret:?}").contains("hunter2"));
    }
}
