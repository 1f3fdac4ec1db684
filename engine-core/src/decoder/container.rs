//! What is this trace? Detect the format from the content (not the name) and
//! unwrap containers: gzip (also multi-member), zip (one deflate or stored
//! member), atrace's zlib "ctrace" (`TRACE:\n` + one zlib stream).
//!
//! Detection mirrors trace_processor's `GuessTraceType`
//! (src/trace_processor/util/trace_type.cc) where it matters for parity:
//!
//! * gzip magic `1f 8b` and zip magic `PK\x03\x04` are containers;
//! * `# tracer` in the first 64 bytes, a leading `<!DOCTYPE html>` /
//!   `<html>`, or atrace's `TRACE:\n` marker mean systrace; `TRACE:\n`
//!   followed by a zlib header (`78 9c`) is a compressed ctrace;
//! * a first byte `0x0a` (TracePacket field 1, length-delimited) means proto.
//!
//! Deliberate differences, each stricter or friendlier than trace_processor:
//!
//! * proto: the first packet's length varint must be valid and non-zero and
//!   the bytes that follow must look like protobuf fields (trace_processor
//!   only checks the first byte, so random bytes starting with `0a` would
//!   pass);
//! * systrace HTML must contain a `<script class="trace-data"` block;
//!   Chrome-JSON trace-data blocks are ignored with a warning
//!   (trace_processor ignores them silently);
//! * headerless ftrace text is accepted when its first lines tokenize as
//!   ftrace lines (trace_processor only accepts such text when it starts with
//!   a space); a file trace_processor would reject is then still imported.
//!
//! Errors are one-line messages naming the input; a truncated or corrupt
//! gzip keeps its intact prefix and says so in a warning.

use std::borrow::Cow;
use std::io::Read;

use flate2::{Crc, Decompress, FlushDecompress, Status};

use super::systrace::tokenize_line;

/// trace_processor's kGuessTraceMaxLookahead (trace_type.h).
pub const GUESS_LOOKAHEAD: usize = 64;

const GZIP_MAGIC: &[u8] = b"\x1f\x8b";
const ZIP_MAGIC: &[u8] = b"PK\x03\x04";
const TRACE_DATA_TAG: &[u8] = b"<script class=\"trace-data\"";
const MAX_NESTING: usize = 4;
/// Input step of the gzip inflater: a corrupt step's output is dropped whole,
/// (a 64 KiB step, as zlib's `decompressobj` fed in steps).
const GZIP_STEP: usize = 1 << 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Gzip,
    Zip,
    Ctrace,
    Systrace,
    Proto,
}

/// A trace's payload after its containers.
pub struct Unwrapped<'a> {
    /// `Kind::Proto` or `Kind::Systrace`.
    pub kind: Kind,
    pub data: Cow<'a, [u8]>,
    /// One-line warnings (truncated gzip, ignored JSON blocks...).
    pub warnings: Vec<String>,
    /// Containers unwrapped on the way, outermost first.
    pub containers: Vec<&'static str>,
    /// A container was truncated or corrupt: only a prefix is here.
    pub partial: bool,
}

/// Unwraps `data` (read from `name`, which error messages end with).
pub fn unwrap<'a>(data: &'a [u8], name: &str) -> Result<Unwrapped<'a>, String> {
    if data.is_empty() {
        return Err(format!("empty file: {name}"));
    }
    let mut out = Unwrapped {
        kind: Kind::Proto,
        data: Cow::Borrowed(&[]),
        warnings: Vec::new(),
        containers: Vec::new(),
        partial: false,
    };
    let mut cur: Cow<'a, [u8]> = Cow::Borrowed(data);
    let mut cur_name = name.to_owned();
    for _depth in 0..=MAX_NESTING {
        let kind = detect_kind(&cur)
            .ok_or_else(|| format!("not a Perfetto or systrace trace: {cur_name}"))?;
        let inner = match kind {
            Kind::Gzip | Kind::Ctrace => {
                let (label, what) = if kind == Kind::Gzip {
                    ("gzip", "gzip file")
                } else {
                    ("ctrace", "compressed atrace")
                };
                out.containers.push(label);
                let inner = if kind == Kind::Gzip {
                    gunzip(&cur, &cur_name, &mut out)?
                } else {
                    inflate_ctrace(&cur, &cur_name, &mut out)?
                };
                if inner.is_empty() {
                    return Err(format!("{what} holds no data: {cur_name}"));
                }
                inner
            }
            Kind::Zip => {
                out.containers.push("zip");
                let (member, inner) = unzip(&cur, &cur_name)?;
                if inner.is_empty() {
                    return Err(format!("zip member {member} is empty: {cur_name}"));
                }
                cur_name = format!("{cur_name}:{member}");
                inner
            }
            Kind::Systrace | Kind::Proto => {
                if kind == Kind::Systrace && is_html(&cur) {
                    let n_json = count_json_blocks(&cur);
                    if n_json > 0 {
                        out.warnings.push(format!(
                            "systrace HTML: ignored {n_json} JSON trace-data block(s) \
                             (Chrome JSON events are not imported, as in trace_processor)"
                        ));
                    }
                }
                out.kind = kind;
                out.data = cur;
                return Ok(out);
            }
        };
        cur = Cow::Owned(inner);
    }
    Err(format!("too many nested containers: {cur_name}"))
}

/// Classifies raw bytes; None: not a trace.
pub fn detect_kind(data: &[u8]) -> Option<Kind> {
    if data.is_empty() {
        return None;
    }
    if data.starts_with(GZIP_MAGIC) {
        return Some(Kind::Gzip);
    }
    if data.starts_with(ZIP_MAGIC) {
        return Some(Kind::Zip);
    }
    let start = &data[..data.len().min(GUESS_LOOKAHEAD)];
    // Chrome JSON is not ours (trace_processor has its own JSON importer).
    let stripped: Vec<u8> = start
        .iter()
        .copied()
        .filter(|b| !b" \t\n\x0b\x0c\r".contains(b))
        .collect();
    if stripped.starts_with(b"{\"") || stripped.starts_with(b"[{\"") {
        return None;
    }
    if contains(start, b"# tracer") {
        return Some(Kind::Systrace);
    }
    if is_html(data) {
        return contains(data, TRACE_DATA_TAG).then_some(Kind::Systrace);
    }
    if contains(start, b"TRACE:\n\x78\x9c") {
        return Some(Kind::Ctrace);
    }
    if contains(start, b"TRACE:\n") {
        return Some(Kind::Systrace);
    }
    if looks_like_ftrace_text(data) {
        return Some(Kind::Systrace);
    }
    if looks_like_proto(data) {
        return Some(Kind::Proto);
    }
    None
}

pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

pub fn is_html(data: &[u8]) -> bool {
    let head = &data[..data.len().min(GUESS_LOOKAHEAD)];
    let skip = head
        .iter()
        .take_while(|b| b" \t\n\x0b\x0c\r".contains(b))
        .count();
    let head = head[skip..].to_ascii_lowercase();
    head.starts_with(b"<!doctype html") || head.starts_with(b"<html")
}

fn count_json_blocks(data: &[u8]) -> usize {
    let mut n = 0;
    let mut pos = memchr::memmem::find(data, TRACE_DATA_TAG);
    while let Some(p) = pos {
        let Some(gt) = memchr::memchr(b'>', &data[p..]).map(|i| p + i) else {
            break;
        };
        let body = &data[gt + 1..data.len().min(gt + 1 + 256)];
        let skip = body
            .iter()
            .take_while(|b| b" \t\n\x0b\x0c\r".contains(b))
            .count();
        if matches!(body.get(skip), Some(b'{') | Some(b'[')) {
            n += 1;
        }
        pos = memchr::memmem::find(&data[gt..], TRACE_DATA_TAG).map(|i| gt + i);
    }
    n
}

/// Python's `str.isspace` for one char (Rust's White_Space plus the
/// information separators U+001C..U+001F, which Python also counts).
fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Headerless ftrace text: most of the first lines tokenize as ftrace lines.
fn looks_like_ftrace_text(data: &[u8]) -> bool {
    let head = &data[..data.len().min(1 << 16)];
    if head.contains(&0) {
        return false;
    }
    let mut lines: Vec<&[u8]> = head.split(|&b| b == b'\n').collect();
    if head.len() < data.len() {
        lines.pop(); // possibly cut in the middle
    }
    let (mut ok, mut bad) = (0, 0);
    for line in lines {
        if String::from_utf8_lossy(line).chars().all(py_isspace) || line.starts_with(b"#") {
            continue;
        }
        if tokenize_line(line).is_some() {
            ok += 1;
        } else {
            bad += 1;
        }
        if ok + bad >= 20 {
            break;
        }
    }
    ok > 0 && ok >= bad
}

/// A varint (values beyond 64 bits kept, up to 70 bits); None for
/// a varint running off the end or longer than 10 bytes.
fn read_varint(data: &[u8], mut pos: usize) -> Option<(u128, usize)> {
    let (mut result, mut shift) = (0u128, 0u32);
    loop {
        let b = *data.get(pos)?;
        pos += 1;
        result |= ((b & 0x7f) as u128) << shift;
        if b & 0x80 == 0 {
            return Some((result, pos));
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

/// Trace{repeated TracePacket packet = 1}: tag 0x0a, varint length, fields.
fn looks_like_proto(data: &[u8]) -> bool {
    if data.first() != Some(&0x0a) {
        return false;
    }
    let head = &data[..data.len().min(256)];
    if head
        .iter()
        .all(|&b| (0x20..0x7f).contains(&b) || b"\t\n\r".contains(&b))
    {
        return false; // plain text that happens to start with a newline
    }
    // Empty packets (0x0a 0x00) are valid TracePackets; trace_processor reads
    // a trace that starts with them, so the first non-empty packet decides.
    let mut start = 0;
    while data.get(start..start + 2) == Some(b"\x0a\x00") {
        start += 2;
    }
    if start == data.len() {
        return start > 0;
    }
    if data.get(start) != Some(&0x0a) {
        return false;
    }
    let Some((length, mut pos)) = read_varint(data, start + 1) else {
        return false;
    };
    let len = data.len() as u128;
    let end = len.min(pos as u128 + length);
    let mut p = pos as u128;
    // Walk the first packet's fields (a truncated file may cut it short).
    let mut fields = 0;
    while p < end {
        pos = p as usize;
        let Some((tag, np)) = read_varint(data, pos) else {
            return p >= len && fields > 0;
        };
        pos = np;
        let (field, wire) = (tag >> 3, tag & 7);
        if field == 0 || matches!(wire, 3 | 4 | 6 | 7) {
            return false;
        }
        p = match wire {
            0 => match read_varint(data, pos) {
                Some((_, np)) => np as u128,
                None => return pos >= data.len() && fields > 0,
            },
            1 => pos as u128 + 8,
            5 => pos as u128 + 4,
            _ => match read_varint(data, pos) {
                Some((n, np)) => np as u128 + n,
                None => return false,
            },
        };
        fields += 1;
        if fields >= 64 {
            break;
        }
    }
    if p > end && end < len {
        return false; // a field overran its packet
    }
    fields > 0
}

/// zlib's message for inflate errors we can name; the rest is generic (the
/// pure-Rust inflater does not say which deflate rule was broken).
fn zerr(msg: &str) -> String {
    format!("Error -3 while decompressing data: {msg}")
}

/// One gzip member's header (RFC 1952): its length, or Err(Some(msg)) for a
/// bad header, Err(None) when the data ends inside it.
fn gzip_header(d: &[u8]) -> Result<usize, Option<String>> {
    let need = |n: usize| if d.len() < n { Err(None) } else { Ok(()) };
    need(10)?;
    if d[0] != 0x1f || d[1] != 0x8b {
        return Err(Some(zerr("incorrect header check")));
    }
    if d[2] != 8 {
        return Err(Some(zerr("unknown compression method")));
    }
    let flags = d[3];
    if flags & 0xe0 != 0 {
        return Err(Some(zerr("unknown header flags set")));
    }
    let mut pos = 10;
    if flags & 0x04 != 0 {
        need(pos + 2)?;
        let xlen = u16::from_le_bytes([d[pos], d[pos + 1]]) as usize;
        pos += 2 + xlen;
        need(pos)?;
    }
    for bit in [0x08, 0x10] {
        if flags & bit != 0 {
            let z = memchr::memchr(0, &d[pos..]).ok_or(None)?;
            pos += z + 1;
        }
    }
    if flags & 0x02 != 0 {
        need(pos + 2)?;
        let mut crc = Crc::new();
        crc.update(&d[..pos]);
        if u16::from_le_bytes([d[pos], d[pos + 1]]) as u32 != crc.sum() & 0xffff {
            return Err(Some(zerr("header crc mismatch")));
        }
        pos += 2;
    }
    Ok(pos)
}

/// How one gzip member ended.
enum Member {
    /// Complete; the next member (or trailing bytes) starts at this offset.
    Done(usize),
    /// The data ended inside the member.
    Truncated,
    /// Corrupt; the output of the 64 KiB step where it was found is dropped.
    Corrupt(String),
}

/// Inflates one member of `d` into `out`, feeding the input in 64 KiB steps
/// from the member's start.
fn gunzip_member(d: &[u8], out: &mut Vec<u8>) -> Member {
    let hdr = match gzip_header(d) {
        Ok(n) => n,
        Err(Some(msg)) => return Member::Corrupt(msg),
        Err(None) => return Member::Truncated,
    };
    let mut z = Decompress::new(false);
    let mut crc = Crc::new();
    let mut pos = hdr;
    let mut step_end = GZIP_STEP;
    loop {
        if pos >= d.len() || step_end > d.len() + GZIP_STEP {
            return Member::Truncated;
        }
        let kept = out.len();
        let stop = step_end.min(d.len());
        if pos >= stop {
            // a header longer than the step (huge extra field or name)
            step_end += GZIP_STEP;
            continue;
        }
        let mut ended = false;
        loop {
            if out.capacity() - out.len() < 1 << 15 {
                out.reserve((out.len() / 2).max(1 << 16));
            }
            let (in0, out0) = (z.total_in(), out.len());
            let status = z.decompress_vec(&d[pos..stop], out, FlushDecompress::None);
            pos += (z.total_in() - in0) as usize;
            crc.update(&out[out0..]);
            match status {
                Ok(Status::StreamEnd) => {
                    ended = true;
                    break;
                }
                // the step is consumed and the output drained (or no progress)
                Ok(_)
                    if out.len() < out.capacity()
                        && (pos >= stop || (z.total_in() == in0 && out.len() == out0)) =>
                {
                    break
                }
                Ok(_) => {}
                Err(_) => {
                    out.truncate(kept);
                    return Member::Corrupt(zerr("invalid deflate data"));
                }
            }
        }
        if !ended {
            step_end += GZIP_STEP;
            continue;
        }
        // trailer: CRC32 then ISIZE; zlib checks each once its 4 bytes are in,
        // in the step holding their last byte (whose output is then dropped)
        let last_step = (pos - 1) / GZIP_STEP;
        let checks = [
            (crc.sum(), "incorrect data check"),
            (crc.amount(), "incorrect length check"),
        ];
        for (i, (want, what)) in checks.into_iter().enumerate() {
            let at = pos + 4 * i;
            let Some(b) = d.get(at..at + 4) else {
                return Member::Truncated;
            };
            if u32::from_le_bytes([b[0], b[1], b[2], b[3]]) != want {
                if (at + 3) / GZIP_STEP == last_step {
                    out.truncate(kept);
                }
                return Member::Corrupt(zerr(what));
            }
        }
        return Member::Done(pos + 8);
    }
}

/// Decompresses every gzip member; keeps the intact prefix of a damaged one.
fn gunzip(data: &[u8], name: &str, out: &mut Unwrapped<'_>) -> Result<Vec<u8>, String> {
    let mut chunks = Vec::with_capacity(data.len() * 4);
    let mut rest = data;
    while !rest.is_empty() {
        let (fatal, damage) = match gunzip_member(rest, &mut chunks) {
            Member::Done(used) => {
                rest = &rest[used..];
                (String::new(), String::new())
            }
            Member::Truncated => (
                "truncated gzip with no readable data".to_owned(),
                "gzip stream is truncated".to_owned(),
            ),
            Member::Corrupt(e) => (
                format!("corrupt gzip ({e})"),
                format!("gzip data is corrupt ({e})"),
            ),
        };
        if !damage.is_empty() {
            if chunks.is_empty() {
                return Err(format!("{fatal}: {name}"));
            }
            out.partial = true;
            out.warnings.push(format!(
                "{damage}; imported the intact first {} bytes",
                chunks.len()
            ));
            return Ok(chunks);
        }
        if !rest.is_empty() && !rest.starts_with(GZIP_MAGIC) {
            if rest.iter().any(|&b| b != 0) {
                out.warnings.push(format!(
                    "ignored {} bytes of trailing garbage after the gzip stream",
                    rest.len()
                ));
            }
            break;
        }
    }
    Ok(chunks)
}

fn unzip(data: &[u8], name: &str) -> Result<(String, Vec<u8>), String> {
    let bad = |e: &dyn std::fmt::Display| format!("corrupt or truncated zip ({e}): {name}");
    let mut zf = zip::ZipArchive::new(std::io::Cursor::new(data)).map_err(|e| bad(&e))?;
    let mut members = Vec::new();
    for i in 0..zf.len() {
        let f = zf.by_index_raw(i).map_err(|e| bad(&e))?;
        let fname = f.name().to_owned();
        if !fname.ends_with('/') && !fname.starts_with("__MACOSX/") {
            members.push((i, fname));
        }
    }
    match members.len() {
        0 => return Err(format!("zip file holds no trace: {name}")),
        1 => {}
        n => {
            return Err(format!(
                "zip file holds {n} files, expected exactly one trace: {name}"
            ))
        }
    }
    let (i, member) = members.swap_remove(0);
    let mut f = zf.by_index(i).map_err(|e| bad(&e))?;
    let mut inner = Vec::with_capacity(f.size().min(1 << 30) as usize);
    f.read_to_end(&mut inner).map_err(|e| bad(&e))?;
    Ok((member, inner))
}

/// atrace -z output: text up to `TRACE:\n`, then one zlib stream.
fn inflate_ctrace(data: &[u8], name: &str, out: &mut Unwrapped<'_>) -> Result<Vec<u8>, String> {
    let idx = memchr::memmem::find(data, b"TRACE:\n").unwrap_or(0);
    let src = &data[idx + 7..];
    let mut z = Decompress::new(true);
    let mut inner = Vec::with_capacity(src.len() * 4);
    loop {
        if inner.capacity() - inner.len() < 1 << 15 {
            inner.reserve((inner.len() / 2).max(1 << 16));
        }
        let consumed = z.total_in() as usize;
        let before = inner.len();
        match z.decompress_vec(&src[consumed..], &mut inner, FlushDecompress::None) {
            Ok(Status::StreamEnd) => return Ok(inner),
            // no progress: the input ended before the end of the stream
            Ok(_) if z.total_in() as usize == consumed && inner.len() == before => break,
            Ok(_) => {}
            Err(e) => {
                return Err(format!(
                    "corrupt compressed atrace ({}): {name}",
                    zerr(&e.to_string())
                ))
            }
        }
    }
    out.partial = true;
    out.warnings
        .push("compressed atrace stream is truncated; imported its intact prefix".into());
    Ok(inner)
}

/// A `TracePacket.compressed_packets` payload inflated whole, as
/// trace_processor's tokenizer does (v58.2 util/decompressor.cc,
/// `DecompressToBuffer` in single-frame mode with zlib's `32 + MAX_WBITS`:
/// a zlib or a gzip stream, its check verified). None when the stream is
/// corrupt, truncated or followed by more bytes: trace_processor then stops
/// the import ("Failed to decompress compressed_packets").
pub fn inflate_packets(d: &[u8]) -> Option<Vec<u8>> {
    let gzip = d.starts_with(GZIP_MAGIC);
    let start = if gzip { gzip_header(d).ok()? } else { 0 };
    let mut z = Decompress::new(!gzip);
    let mut out = Vec::with_capacity(d.len().saturating_mul(4).clamp(4096, 1 << 30));
    loop {
        if out.capacity() - out.len() < 1 << 15 {
            out.reserve((out.len() / 2).max(1 << 16));
        }
        let consumed = start + z.total_in() as usize;
        let before = out.len();
        match z.decompress_vec(&d[consumed..], &mut out, FlushDecompress::None) {
            Ok(Status::StreamEnd) => break,
            Ok(_) if start + z.total_in() as usize == consumed && out.len() == before => {
                return None
            }
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    let mut end = start + z.total_in() as usize;
    if gzip {
        // the trailer: CRC32 and ISIZE of the data
        let mut crc = Crc::new();
        crc.update(&out);
        let trailer = d.get(end..end + 8)?;
        let word = |i: usize| u32::from_le_bytes(trailer[i..i + 4].try_into().unwrap());
        if word(0) != crc.sum() || word(4) != crc.amount() {
            return None;
        }
        end += 8;
    }
    (end == d.len()).then_some(out)
}

/// The TracePackets of an inflated `compressed_packets` payload (a `Trace`
/// message), split as trace_processor's tokenizer splits them: only field 1
/// (tag `0x0a`), while more than two bytes are left. Err: the bytes where
/// the split stopped are not a packet (trace_processor stops the import
/// there); the packets before them are returned with it.
pub fn split_compressed_packets(d: &[u8]) -> (Vec<&[u8]>, bool) {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while d.len() - pos > 2 {
        if d[pos] != 0x0a {
            return (out, false);
        }
        let mut p = pos + 1;
        let Ok(len) = super::wire::read_varint(d, &mut p) else {
            return (out, false);
        };
        match usize::try_from(len).ok().and_then(|l| p.checked_add(l)) {
            Some(end) if end <= d.len() => {
                out.push(&d[p..end]);
                pos = end;
            }
            _ => return (out, false),
        }
    }
    (out, true)
}
