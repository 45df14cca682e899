//! How values are written on the wire, the same in every answer.

use std::time::SystemTime;

/// RFC 3339 UTC timestamp with milliseconds.
pub fn timestamp(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}
