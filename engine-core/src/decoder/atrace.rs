//! atrace payloads (ftrace `print` / tracing_mark_write), as trace_processor's
//! ParseSystraceTracePoint (importers/systrace/systrace_parser.h): the phase
//! is the first character, fields are split on '|', the second is the tgid.

use super::c_numbers::{c_i64, c_u32};

#[derive(Debug, Clone, PartialEq)]
pub struct TracePoint {
    pub phase: char,
    pub tgid: i128,
    pub name: String,
    pub value: i128,
    pub cookie: i128,
    pub track: String,
}

#[derive(Debug, PartialEq)]
pub enum Parsed {
    Point(TracePoint),
    /// Rejected: counted as systrace_parse_failure.
    Failure,
    /// trace_event_clock_sync and friends: skipped, no stat.
    Ignored,
}

fn tp(phase: char, tgid: i128) -> TracePoint {
    TracePoint {
        phase,
        tgid,
        name: String::new(),
        value: 0,
        cookie: 0,
        track: String::new(),
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// An atrace line, as ParseSystraceTracePoint reads it: trailing '\n' /
/// '\0' dropped; fields end at '|' or '\0'; the phase is the first byte of
/// the first field (whatever follows it); the tgid is `StringToUInt32`
/// (strtoul: leading spaces, a sign, wrapped to 32 bits), 0 when it does not
/// parse, which fails every phase but E; values and cookies are
/// `StringToInt64` (strtoll, saturating). B's name is the rest of the line;
/// H's cookie is its fourth field, or its third when there is no fourth.
pub fn parse_print(buf: &str) -> Parsed {
    let b = buf.as_bytes();
    let len = b.len()
        - b.iter()
            .rev()
            .take_while(|&&c| c == b'\n' || c == 0)
            .count();
    let s = &b[..len];
    let mut off = 0usize;
    let mut next_field = || {
        let start = off.min(len);
        while off < len && s[off] != b'|' && s[off] != 0 {
            off += 1;
        }
        let field = &s[start..off.min(len)];
        off += 1;
        field
    };
    let f0 = next_field();
    let Some(&first) = f0.first() else {
        return Parsed::Failure;
    };
    let phase = first as char;
    let tgid = c_u32(next_field());
    let has_tgid = tgid.is_some();
    let point = tp(phase, tgid.unwrap_or(0) as i128);
    let point = match phase {
        'B' => {
            if !has_tgid {
                return Parsed::Failure;
            }
            let name = &s[off.min(len)..];
            TracePoint {
                name: if name.is_empty() {
                    "[empty slice name]".into()
                } else {
                    text(name)
                },
                ..point
            }
        }
        // (Flutter writes a bare "E": no tgid needed)
        'E' => point,
        'S' | 'F' | 'C' => {
            let (name, number) = (next_field(), next_field());
            let parsed = c_i64(number);
            let Some(n) = parsed.filter(|_| has_tgid && !name.is_empty()) else {
                return Parsed::Failure;
            };
            let (value, cookie) = if phase == 'C' { (n, 0) } else { (0, n) };
            TracePoint {
                name: text(name),
                value: value as i128,
                cookie: cookie as i128,
                ..point
            }
        }
        'I' => {
            let name = next_field();
            if !has_tgid || name.is_empty() {
                return Parsed::Failure;
            }
            TracePoint {
                name: text(name),
                ..point
            }
        }
        'N' => {
            let (track, name) = (next_field(), next_field());
            if !has_tgid || track.is_empty() || name.is_empty() {
                return Parsed::Failure;
            }
            TracePoint {
                name: text(name),
                track: text(track),
                ..point
            }
        }
        'G' => {
            let (track, name) = (next_field(), next_field());
            let cookie = c_i64(next_field());
            let Some(cookie) = cookie.filter(|_| has_tgid && !track.is_empty() && !name.is_empty())
            else {
                return Parsed::Failure;
            };
            TracePoint {
                name: text(name),
                cookie: cookie as i128,
                track: text(track),
                ..point
            }
        }
        'H' => {
            let (track, third, fourth) = (next_field(), next_field(), next_field());
            let cookie = c_i64(if fourth.is_empty() { third } else { fourth });
            let Some(cookie) = cookie.filter(|_| has_tgid && !track.is_empty()) else {
                return Parsed::Failure;
            };
            TracePoint {
                cookie: cookie as i128,
                track: text(track),
                ..point
            }
        }
        _ if s.starts_with(b"trace_event_clock_sync:") => return Parsed::Ignored,
        _ => return Parsed::Failure,
    };
    Parsed::Point(point)
}
