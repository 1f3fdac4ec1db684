//! atrace payloads (ftrace `print` / tracing_mark_write), as trace_processor's
//! ParseSystraceTracePoint (importers/systrace/systrace_parser.h): the phase
//! is the first character, fields are split on '|', the second is the tgid.

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

/// Python's int(s.strip(), 10): optional sign, digits with single
/// underscores between them.
pub fn parse_int(s: &str) -> Option<i128> {
    let s = s.trim();
    let (neg, digits) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let b = digits.as_bytes();
    if b.is_empty() || b[0] == b'_' || b[b.len() - 1] == b'_' {
        return None;
    }
    let mut v: i128 = 0;
    let mut prev_us = false;
    for &c in b {
        if c == b'_' {
            if prev_us {
                return None;
            }
            prev_us = true;
            continue;
        }
        prev_us = false;
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as i128)?;
    }
    Some(if neg { -v } else { v })
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

pub fn parse_print(buf: &str) -> Parsed {
    if buf.starts_with("trace_event_clock_sync:") {
        return Parsed::Ignored;
    }
    let s = buf.trim_end_matches(['\n', '\0']);
    let Some(phase) = s.chars().next() else {
        return Parsed::Failure;
    };
    let parts: Vec<&str> = s.split('|').collect();
    if phase == 'E' {
        let tgid = if parts.len() > 1 {
            parse_int(parts[1]).unwrap_or(0)
        } else {
            0
        };
        return Parsed::Point(tp('E', tgid));
    }
    if parts.len() < 2 || parts[0].chars().count() != 1 {
        return Parsed::Failure;
    }
    let Some(tgid) = parse_int(parts[1]) else {
        return Parsed::Failure;
    };
    let rest2 = || s.splitn(3, '|').nth(2).unwrap_or("");
    let point = match phase {
        'B' | 'I' => {
            if parts.len() < 3 {
                return Parsed::Failure;
            }
            let name = rest2();
            TracePoint {
                name: if name.is_empty() {
                    "[empty slice name]".into()
                } else {
                    name.into()
                },
                ..tp(phase, tgid)
            }
        }
        'C' => {
            if parts.len() < 4 {
                return Parsed::Failure;
            }
            let Some(value) = parse_int(parts[3]) else {
                return Parsed::Failure;
            };
            TracePoint {
                name: parts[2].into(),
                value,
                ..tp('C', tgid)
            }
        }
        'S' | 'F' => {
            if parts.len() < 4 {
                return Parsed::Failure;
            }
            let Some(cookie) = parse_int(parts[3]) else {
                return Parsed::Failure;
            };
            TracePoint {
                name: parts[2].into(),
                cookie,
                ..tp(phase, tgid)
            }
        }
        'N' => {
            if parts.len() < 4 {
                return Parsed::Failure;
            }
            TracePoint {
                name: parts[3..].join("|"),
                track: parts[2].into(),
                ..tp('N', tgid)
            }
        }
        'G' => {
            if parts.len() < 5 {
                return Parsed::Failure;
            }
            let Some(cookie) = parse_int(parts[4]) else {
                return Parsed::Failure;
            };
            TracePoint {
                name: parts[3].into(),
                cookie,
                track: parts[2].into(),
                ..tp('G', tgid)
            }
        }
        'H' => {
            if parts.len() < 4 {
                return Parsed::Failure;
            }
            let c = if parts.len() > 4 { parts[4] } else { parts[3] };
            let Some(cookie) = parse_int(c) else {
                return Parsed::Failure;
            };
            TracePoint {
                cookie,
                track: parts[2].into(),
                ..tp('H', tgid)
            }
        }
        _ => return Parsed::Failure,
    };
    Parsed::Point(point)
}
