//! C number parsing, as perfetto/ext/base/string_utils.h (strtoul & co.):
//! how trace_processor reads the numbers of systrace text and atrace
//! payloads.

pub(super) const U64: u128 = u64::MAX as u128;

pub(super) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

pub(super) fn lstrip(s: &[u8]) -> &[u8] {
    let i = s.iter().take_while(|&&b| is_ws(b)).count();
    &s[i..]
}

/// `[ws]*[+-]?<digits>` of the whole string in `base` 10, or C's base 0
/// (0x hex, 0 octal, else decimal): (negative, magnitude clamped to u64 + 1).
pub(super) fn parse_int(s: &[u8], base0: bool) -> Option<(bool, u128)> {
    let s = lstrip(s);
    let (neg, s) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits): (u32, &[u8]) = if !base0 {
        (10, s)
    } else if s.len() > 2 && (s.starts_with(b"0x") || s.starts_with(b"0X")) {
        (16, &s[2..])
    } else if s.first() == Some(&b'0') {
        (8, s)
    } else if matches!(s.first(), Some(b'1'..=b'9')) {
        (10, s)
    } else {
        return None;
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: u128 = 0;
    for &b in digits {
        let d = (b as char).to_digit(radix)?;
        v = (v * radix as u128 + d as u128).min(U64 + 1);
    }
    Some((neg, v))
}

/// base::StringToUInt32: strtoul (wraps negatives, saturates), cast to u32.
pub(super) fn c_u32_base(s: &[u8], base0: bool) -> Option<i64> {
    let (neg, v) = parse_int(s, base0)?;
    let v = if v > U64 {
        u64::MAX
    } else if neg {
        (v as u64).wrapping_neg()
    } else {
        v as u64
    };
    Some((v & 0xffff_ffff) as i64)
}

pub(super) fn c_u32(s: &[u8]) -> Option<i64> {
    c_u32_base(s, false)
}

pub(super) fn c_u64(s: &[u8]) -> Option<i128> {
    let (neg, v) = parse_int(s, false)?;
    Some(if v > U64 {
        u64::MAX as i128
    } else if neg {
        (v as u64).wrapping_neg() as i128
    } else {
        v as i128
    })
}

pub(super) fn c_i64(s: &[u8]) -> Option<i64> {
    let (neg, v) = parse_int(s, false)?;
    let v = if neg { -(v as i128) } else { v as i128 };
    Some(v.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
}

/// base::StringToInt32: strtol (saturating long), cast to int32.
pub(super) fn c_i32(s: &[u8]) -> Option<i64> {
    c_i64(s).map(|v| v as i32 as i64)
}

/// base::StringToDouble: strtod, whole string consumed (decimal, inf/nan, or
/// C99 hex floats).
pub(super) fn c_double(s: &[u8]) -> Option<f64> {
    let t = lstrip(s);
    let (neg, body) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let sign = if neg { -1.0 } else { 1.0 };
    let lower = body.to_ascii_lowercase();
    match lower.as_slice() {
        b"inf" | b"infinity" => return Some(sign * f64::INFINITY),
        b"nan" => return Some(f64::NAN),
        _ => {}
    }
    if lower.starts_with(b"0x") {
        return hex_double(&lower[2..]).map(|v| sign * v);
    }
    // [0-9]+\.?[0-9]*|\.[0-9]+ then an optional exponent
    let digits = |p: usize| body[p..].iter().take_while(|b| b.is_ascii_digit()).count();
    let mut p = digits(0);
    let int_digits = p;
    if body.get(p) == Some(&b'.') {
        p += 1;
        let frac = digits(p);
        if int_digits == 0 && frac == 0 {
            return None;
        }
        p += frac;
    } else if int_digits == 0 {
        return None;
    }
    if matches!(body.get(p), Some(b'e') | Some(b'E')) {
        let mut q = p + 1;
        if matches!(body.get(q), Some(b'+') | Some(b'-')) {
            q += 1;
        }
        let e = digits(q);
        if e == 0 {
            return None;
        }
        p = q + e;
    }
    if p != body.len() {
        return None;
    }
    let v: f64 = std::str::from_utf8(body).ok()?.parse().ok()?;
    Some(sign * v)
}

/// The part of a C99 hex float after "0x" (lowercased), as float.fromhex.
pub(super) fn hex_double(s: &[u8]) -> Option<f64> {
    let (mant, exp) = match s.iter().position(|&b| b == b'p') {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (int, frac) = match mant.iter().position(|&b| b == b'.') {
        Some(i) => (&mant[..i], &mant[i + 1..]),
        None => (mant, &b""[..]),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut e2: i64 = match exp {
        None => 0,
        Some(e) => {
            let (neg, v) = parse_int(e, false).filter(|_| !e.is_empty() && !is_ws(e[0]))?;
            let v = v.min(1 << 20) as i64;
            if neg {
                -v
            } else {
                v
            }
        }
    };
    // up to 28 significant hex digits exactly; the rest only sticks a bit
    let (mut m, mut sticky) = (0u128, false);
    for (i, &b) in int.iter().chain(frac.iter()).enumerate() {
        let d = (b as char).to_digit(16)? as u128;
        if m >> 112 == 0 {
            m = m * 16 + d;
            if i >= int.len() {
                e2 -= 4;
            }
        } else {
            sticky |= d != 0;
            if i < int.len() {
                e2 += 4;
            }
        }
    }
    let m = m | sticky as u128;
    Some(m as f64 * 2f64.powi(e2.clamp(-2000, 2000) as i32))
}

/// strtol(s, &end, 16) without validation (binder flags), cast to u32.
pub(super) fn strtol16(s: &[u8]) -> i64 {
    let t = lstrip(s);
    let (neg, mut t) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if (t.starts_with(b"0x") || t.starts_with(b"0X"))
        && t.get(2).is_some_and(|b| b.is_ascii_hexdigit())
    {
        t = &t[2..];
    }
    let mut v: u128 = 0;
    let n = t.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    for &b in &t[..n] {
        v = (v * 16 + (b as char).to_digit(16).unwrap_or(0) as u128).min(U64 + 1);
    }
    let v = if neg { -(v as i128) } else { v as i128 };
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64 & 0xffff_ffff
}
