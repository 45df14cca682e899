//! A server-sent events reader (the WHATWG `text/event-stream` format) in time linear in the
//! bytes read, with a size limit that fires as bytes arrive.
//!
//! Each byte is looked at once: a chunk is split at line ends as it comes, only the unended
//! tail of a line is kept between chunks, and an event's data is appended to as its lines end.
//! A reader that re-parses its buffer on every chunk takes time quadratic in an event's size,
//! and one that checks sizes only per event never refuses a line that does not end.
//!
//! What the format says, and this reader does: lines end with `\r\n`, `\n` or `\r`; a line
//! starting with `:` is a comment; `field: value` (one space after the colon dropped) sets
//! `event`, appends to `data` (lines joined with `\n`), sets `id` (kept for the events after
//! it, unless it holds a NUL) or `retry`; other fields are ignored; a blank line dispatches the
//! event, unless no `data` line came, which dispatches nothing (so a keep-alive comment
//! between events is never an event); an event cut off by the end of the stream is dropped; a
//! byte order mark that starts the stream is not part of its first field's name.

/// One event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// Its `event` field, `message` when none was given.
    pub(crate) event: String,
    /// Its data, the `data` lines joined with `\n`; the raw bytes when they are not UTF-8.
    pub(crate) data: Result<String, Vec<u8>>,
    /// The last event id the stream has set, this event's or an earlier one's.
    pub(crate) id: Option<String>,
}

/// More than the limit came without ending an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLarge;

/// The reader's state between chunks.
#[derive(Debug)]
pub(crate) struct SseReader {
    /// The start of a line whose end has not come yet.
    line: Vec<u8>,
    /// The last chunk ended with `\r`: a `\n` that starts the next one ends no line.
    after_cr: bool,
    /// No line has ended yet, so a byte order mark may start the one that is coming.
    first_line: bool,
    data: Vec<u8>,
    has_data: bool,
    event: String,
    last_id: Option<String>,
    /// Most bytes of one event (its lines and data) before [`TooLarge`].
    limit: usize,
}

impl SseReader {
    /// A reader that refuses an event of more than `limit` bytes; `last_id` is the id a resumed
    /// stream starts from.
    pub(crate) fn new(limit: u64, last_id: Option<String>) -> SseReader {
        SseReader {
            line: Vec::new(),
            after_cr: false,
            first_line: true,
            data: Vec::new(),
            has_data: false,
            event: String::new(),
            last_id,
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
        }
    }

    /// Reads a chunk, pushing each event it completes onto `out`.
    pub(crate) fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), TooLarge> {
        let mut rest = chunk;
        if self.after_cr {
            self.after_cr = false;
            if let [b'\n', tail @ ..] = rest {
                rest = tail;
            }
        }
        while let Some(end) = rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
            let (head, tail) = rest.split_at(end);
            if self.line.is_empty() {
                self.line_ended(head, out);
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(head);
                self.line_ended(&line, out);
                // The allocation is kept for the next unended line.
                line.clear();
                self.line = line;
            }
            rest = match tail {
                [b'\r', b'\n', after @ ..] => after,
                [b'\r'] => {
                    self.after_cr = true;
                    &[]
                }
                [_, after @ ..] => after,
                [] => &[],
            };
            self.check()?;
        }
        self.line.extend_from_slice(rest);
        self.check()
    }

    fn check(&self) -> Result<(), TooLarge> {
        if self.line.len().saturating_add(self.data.len()) > self.limit {
            Err(TooLarge)
        } else {
            Ok(())
        }
    }

    fn line_ended(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        // Read as part of the name, a mark before `data:` would drop the stream's first event.
        let line = if std::mem::take(&mut self.first_line) {
            line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line)
        } else {
            line
        };
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (field, value) = match line.iter().position(|b| *b == b':') {
            Some(i) => {
                let value = &line[i + 1..];
                (&line[..i], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match field {
            b"data" => {
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
                self.has_data = true;
            }
            b"event" => self.event = String::from_utf8_lossy(value).into_owned(),
            b"id" if !value.contains(&0) => {
                self.last_id = Some(String::from_utf8_lossy(value).into_owned());
            }
            // `retry` is the client's own reconnection delay to set; the reader's caller keeps
            // its own schedule, and other fields mean nothing.
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event = std::mem::take(&mut self.event);
        if !std::mem::take(&mut self.has_data) {
            self.data.clear();
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop();
        out.push(SseEvent {
            event: if event.is_empty() {
                "message".to_owned()
            } else {
                event
            },
            data: String::from_utf8(data).map_err(|e| e.into_bytes()),
            id: self.last_id.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_in(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut r = SseReader::new(1 << 20, None);
        let mut out = Vec::new();
        for c in chunks {
            r.feed(c, &mut out).unwrap();
        }
        out
    }

    fn event(event: &str, data: &str, id: Option<&str>) -> SseEvent {
        SseEvent {
            event: event.to_owned(),
            data: Ok(data.to_owned()),
            id: id.map(str::to_owned),
        }
    }

    #[test]
    fn every_line_ending_and_every_split_read_the_same() {
        let text = "id: 1\nevent: status\ndata: {\"a\":\ndata:1}\n\n: keep-alive\n\n\
                    data: two\r\n\r\nid: 3\revent: page\rdata:  x\r\r";
        let want = vec![
            event("status", "{\"a\":\n1}", Some("1")),
            event("message", "two", Some("1")),
            event("page", " x", Some("3")),
        ];
        assert_eq!(read_in(&[text.as_bytes()]), want);
        // Split at every byte, and in two at every place.
        let bytes = text.as_bytes();
        let singles: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(read_in(&singles), want);
        for i in 0..bytes.len() {
            assert_eq!(read_in(&[&bytes[..i], &bytes[i..]]), want, "split at {i}");
        }
    }

    #[test]
    fn a_byte_order_mark_that_starts_the_stream_is_read_past() {
        let text = "\u{feff}data: first\n\n\u{feff}data: second\n\n";
        let bytes = text.as_bytes();
        for i in 0..bytes.len() {
            // Only the stream's first mark is skipped; a later one is part of a field's name,
            // which no field has, so its line is ignored.
            assert_eq!(
                read_in(&[&bytes[..i], &bytes[i..]]),
                vec![event("message", "first", None)],
                "split at {i}"
            );
        }
    }

    #[test]
    fn a_comment_between_events_is_no_event_and_an_unended_one_is_dropped() {
        // After an id, a keep-alive comment and a blank line dispatch nothing (the vendor's
        // 1.6.0 decoder dispatched an empty event there).
        let out = read_in(&[b"id: 7\ndata: {}\n\n: ping\n\ndata: cut off"]);
        assert_eq!(out, vec![event("message", "{}", Some("7"))]);
    }

    #[test]
    fn invalid_utf8_spoils_only_its_own_event() {
        let out = read_in(&[b"data: \xff\xfe\n\ndata: fine\n\n"]);
        assert_eq!(out[0].data, Err(vec![0xff, 0xfe]));
        assert_eq!(out[1].data.as_deref(), Ok("fine"));
    }

    #[test]
    fn the_limit_fires_while_an_event_or_a_line_is_still_coming() {
        let mut r = SseReader::new(1_000, None);
        let mut out = Vec::new();
        // A line that never ends.
        let mut refused = false;
        for _ in 0..100 {
            if r.feed(&[b'x'; 100], &mut out).is_err() {
                refused = true;
                break;
            }
        }
        assert!(refused);
        // Many short data lines of one event.
        let mut r = SseReader::new(1_000, None);
        assert_eq!(
            r.feed(&b"data: 0123456789\n".repeat(100), &mut out),
            Err(TooLarge)
        );
        // Events under the limit, however many, pass.
        let mut r = SseReader::new(1_000, None);
        for _ in 0..1_000 {
            r.feed(b"data: 0123456789\n\n", &mut out).unwrap();
        }
        assert_eq!(out.len(), 1_000);
    }
}
