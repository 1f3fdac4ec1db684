//! Protobuf wire format: varints and a field iterator over one message's
//! top level. Hand-written (no codegen): the importer reads a handful of
//! fields from a handful of messages, and skipping the rest unparsed is what
//! makes decoding fast.

/// A malformed message (bad varint, truncated field, unsupported wire type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireError;

/// One field's value as it is on the wire.
#[derive(Debug, Clone, Copy)]
pub enum Value<'a> {
    Varint(u64),
    Fixed64(u64),
    Bytes(&'a [u8]),
    Fixed32(u32),
}

impl<'a> Value<'a> {
    pub fn wire_type(&self) -> u8 {
        match self {
            Value::Varint(_) => 0,
            Value::Fixed64(_) => 1,
            Value::Bytes(_) => 2,
            Value::Fixed32(_) => 5,
        }
    }
}

#[inline]
pub fn read_varint(buf: &[u8], pos: &mut usize) -> Result<u64, WireError> {
    // one byte: most keys and small values
    if let Some(&b) = buf.get(*pos) {
        if b & 0x80 == 0 {
            *pos += 1;
            return Ok(b as u64);
        }
    }
    read_long_varint(buf, pos)
}

/// `read_varint` of a varint of more than one byte (or none).
fn read_long_varint(buf: &[u8], pos: &mut usize) -> Result<u64, WireError> {
    // ten bytes at hand (all but a buffer's last varints): one bounds check
    if let Some(p) = buf.get(*pos..).and_then(|rest| rest.get(..10)) {
        let mut result = 0u64;
        for (i, &b) in p.iter().enumerate() {
            result |= ((b & 0x7F) as u64) << (7 * i);
            if b & 0x80 == 0 {
                *pos += i + 1;
                return Ok(result);
            }
        }
        return Err(WireError); // more than 10 bytes
    }
    let mut result: u64 = 0;
    let mut shift = 0u32;
    loop {
        let b = *buf.get(*pos).ok_or(WireError)?;
        *pos += 1;
        if shift < 64 {
            result |= ((b & 0x7F) as u64) << shift;
        }
        if b & 0x80 == 0 {
            return Ok(result);
        }
        shift += 7;
        if shift > 63 {
            return Err(WireError); // more than 10 bytes
        }
    }
}

/// Iterates (field number, value) over a message's top-level fields; yields
/// `Err` once on malformed input and then stops.
pub struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
    failed: bool,
}

impl<'a> Fields<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Fields {
            buf,
            pos: 0,
            failed: false,
        }
    }

    fn next_field(&mut self) -> Result<(u32, Value<'a>), WireError> {
        let buf = self.buf;
        let key = read_varint(buf, &mut self.pos)?;
        let field = key >> 3;
        if field == 0 || field > u32::MAX as u64 {
            return Err(WireError);
        }
        let value = match key & 7 {
            0 => Value::Varint(read_varint(buf, &mut self.pos)?),
            1 => {
                let b = buf.get(self.pos..self.pos + 8).ok_or(WireError)?;
                self.pos += 8;
                Value::Fixed64(u64::from_le_bytes(b.try_into().unwrap()))
            }
            2 => {
                let len = read_varint(buf, &mut self.pos)?;
                let len = usize::try_from(len).map_err(|_| WireError)?;
                let end = self.pos.checked_add(len).ok_or(WireError)?;
                let b = buf.get(self.pos..end).ok_or(WireError)?;
                self.pos = end;
                Value::Bytes(b)
            }
            5 => {
                let b = buf.get(self.pos..self.pos + 4).ok_or(WireError)?;
                self.pos += 4;
                Value::Fixed32(u32::from_le_bytes(b.try_into().unwrap()))
            }
            _ => return Err(WireError),
        };
        Ok((field as u32, value))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u32, Value<'a>), WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.buf.len() {
            return None;
        }
        match self.next_field() {
            Ok(f) => Some(Ok(f)),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// Checks that `buf` is a well-formed message at its top level.
pub fn validate(buf: &[u8]) -> Result<(), WireError> {
    for f in Fields::new(buf) {
        f?;
    }
    Ok(())
}

/// The values of a repeated varint field (packed or not) appended to `out`.
pub fn push_varints(v: Value<'_>, out: &mut Vec<u64>) -> Result<(), WireError> {
    match v {
        Value::Varint(x) => out.push(x),
        Value::Bytes(b) => {
            let mut pos = 0;
            while pos < b.len() {
                out.push(read_varint(b, &mut pos)?);
            }
        }
        // a fixed-width value for a varint field: an unknown field to protobuf
        _ => {}
    }
    Ok(())
}

/// Bytes as text: UTF-8 with
/// invalid sequences dropped (Python's ``errors="ignore"``).
/// `b` as text without a copy when it is valid UTF-8 (the common case: comms
/// are interned once per event, millions of times), else as `text` repairs it.
pub fn text_ref(b: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(text(b)),
    }
}

pub fn text(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_owned(),
        Err(_) => {
            let mut out = String::with_capacity(b.len());
            let mut rest = b;
            loop {
                match std::str::from_utf8(rest) {
                    Ok(s) => {
                        out.push_str(s);
                        break;
                    }
                    Err(e) => {
                        let good = e.valid_up_to();
                        out.push_str(std::str::from_utf8(&rest[..good]).unwrap());
                        match e.error_len() {
                            Some(n) => rest = &rest[good + n..],
                            None => break,
                        }
                    }
                }
            }
            out
        }
    }
}

/// How a generic ftrace field is typed (protobuf scalar types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    I32,
    U32,
    I64,
    U64,
    S32,
    S64,
    Bool,
    Str,
}

/// An int32 field read as a varint (sign-extended from its low 32 bits).
#[inline]
pub(super) fn i32v(v: u64) -> i64 {
    v as u32 as i32 as i64
}

#[cfg(test)]
mod tests {
    use super::read_varint;

    /// Every width from 1 to 10 bytes reads back its value and moves past
    /// its bytes, wherever it sits (the ten-byte path mid-buffer, the
    /// byte-by-byte one at the end); 11 bytes, or a varint cut short, fail.
    #[test]
    fn varints_read_back_at_any_width_and_place() {
        let encode = |mut x: u64| {
            let mut out = Vec::new();
            while x >= 0x80 {
                out.push((x as u8) | 0x80);
                x >>= 7;
            }
            out.push(x as u8);
            out
        };
        let values = [
            0,
            1,
            127,
            128,
            300,
            1 << 21,
            (1 << 35) + 7,
            1 << 56,
            u64::MAX,
        ];
        for &x in &values {
            let bytes = encode(x);
            for tail in [0usize, 12] {
                let mut buf = vec![0x05];
                buf.extend(&bytes);
                buf.extend(std::iter::repeat(0x01).take(tail));
                let mut pos = 1;
                assert_eq!(read_varint(&buf, &mut pos), Ok(x), "{x} tail {tail}");
                assert_eq!(pos, 1 + bytes.len());
            }
        }
        for tail in [0usize, 12] {
            let mut buf = vec![0xFF; 10];
            buf.push(0x01);
            buf.extend(std::iter::repeat(0x01).take(tail));
            assert!(read_varint(&buf, &mut 0).is_err(), "11 bytes, tail {tail}");
        }
        assert!(read_varint(&[0x80, 0x80], &mut 0).is_err());
        assert!(read_varint(&[], &mut 0).is_err());
    }
}
