//! The `metadata` table's keys, as trace_processor records them (v58.2:
//! storage/metadata.h for the keys and their types; where each comes from is
//! noted at the call sites in the decoder and in lib.rs).
//!
//! Single keys hold their last value; multi keys (`all_data_source_flushed_ns`)
//! one row per value. Rows keep the order in which keys were first set.

/// A metadata value: trace_processor's int_value or str_value. A string
/// field present in the trace but empty is '' (trace_processor interns it);
/// one it reads from an absent field is NULL (its null string id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetaVal {
    Int(i64),
    Str(String),
    NullStr,
}

#[derive(Debug, Default, Clone)]
pub struct Metadata {
    /// (key, multi, value) in insertion order
    pub rows: Vec<(String, bool, MetaVal)>,
    /// trace_uuid is the file's hash, not a UUID the trace recorded:
    /// trace_processor sets that one before any trace context exists, so
    /// its row belongs to no trace (trace_id NULL)
    pub uuid_hashed: bool,
}

impl Metadata {
    /// Sets a single-valued key (replacing its value in place).
    pub fn set(&mut self, key: &str, v: MetaVal) {
        match self.rows.iter_mut().find(|r| r.0 == key && !r.1) {
            Some(r) => r.2 = v,
            None => self.rows.push((key.to_owned(), false, v)),
        }
    }

    pub fn set_int(&mut self, key: &str, v: i64) {
        self.set(key, MetaVal::Int(v));
    }

    pub fn set_str(&mut self, key: &str, v: impl Into<String>) {
        self.set(key, MetaVal::Str(v.into()));
    }

    /// A string read from a field that may be absent (None: NULL).
    pub fn set_opt_str(&mut self, key: &str, v: Option<&str>) {
        self.set(key, v.map_or(MetaVal::NullStr, |s| MetaVal::Str(s.into())));
    }

    /// Adds a row of a single-valued key even when the key has one
    /// (trace_processor's dynamic `cr-` keys: a row per value).
    pub fn push_single(&mut self, key: &str, v: MetaVal) {
        self.rows.push((key.to_owned(), false, v));
    }

    /// Adds one more value of a multi key.
    pub fn append(&mut self, key: &str, v: MetaVal) {
        self.rows.push((key.to_owned(), true, v));
    }

    pub fn get(&self, key: &str) -> Option<&MetaVal> {
        self.rows.iter().find(|r| r.0 == key).map(|r| &r.2)
    }

    pub fn get_int(&self, key: &str) -> Option<i64> {
        match self.get(key) {
            Some(MetaVal::Int(i)) => Some(*i),
            _ => None,
        }
    }
}

/// Whether a key's rows belong to a machine and to a trace (their
/// machine_id / trace_id are set), from its scope in trace_processor's list
/// (storage/metadata.h): global keys belong to neither, trace keys to the
/// trace, machine keys to the machine (the host: the only machine whose
/// metadata is imported), execution keys and dynamic ones (Chrome's `cr-*`)
/// to both. trace_uuid belongs to the trace unless it is the file's hash
/// (`uuid_hashed`).
pub fn scope_of(key: &str, uuid_hashed: bool) -> (bool, bool) {
    const GLOBAL: [&str; 1] = ["trace_time_clock_id"];
    const TRACE: [&str; 20] = [
        "android_profile_boot_classpath",
        "android_profile_system_server",
        "benchmark_description",
        "benchmark_had_failures",
        "benchmark_label",
        "benchmark_name",
        "benchmark_start_time_us",
        "benchmark_story_name",
        "benchmark_story_run_index",
        "benchmark_story_run_time_us",
        "benchmark_story_tags",
        "range_of_interest_start_us",
        "statsd_triggering_subscription_id",
        "trace_config_pbtxt",
        "trace_size_bytes",
        "trace_trigger",
        "trace_type",
        "trace_uuid",
        "unique_session_name",
        "ui_state",
    ];
    const MACHINE: [&str; 18] = [
        "android_build_fingerprint",
        "android_device_manufacturer",
        "android_guest_soc_model",
        "android_hardware_revision",
        "android_incremental_build",
        "android_ram_model",
        "android_sdk_version",
        "android_serial_console",
        "android_soc_model",
        "android_storage_model",
        "system_machine",
        "system_name",
        "system_ram_bytes",
        "system_ram_gb",
        "system_release",
        "system_version",
        "tracing_service_version",
        "timezone_off_mins",
    ];
    if GLOBAL.contains(&key) || (key == "trace_uuid" && uuid_hashed) {
        (false, false)
    } else if TRACE.contains(&key) {
        (false, true)
    } else if MACHINE.contains(&key) {
        (true, false)
    } else {
        (true, true)
    }
}

/// A UUID as trace_processor prints it (base::Uuid::ToPrettyString): the
/// most significant half first, 8-4-4-4-12 lowercase hex digits.
pub fn uuid_string(msb: i64, lsb: i64) -> String {
    let h = format!("{:016x}{:016x}", msb as u64, lsb as u64);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// How many leading bytes of the file name a trace without a recorded UUID:
/// trace_processor hashes the first 4 KiB it is given (the file as read,
/// containers included) with 64-bit FNV-1a and uses the hash as the UUID's
/// low half.
pub const UUID_HASH_BYTES: usize = 4096;

/// 64-bit FNV-1a (perfetto's base::FnvHasher).
pub fn fnv1a64(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The UUID of a trace that records none: the hash of its first bytes.
pub fn hashed_uuid(file: &[u8]) -> String {
    let n = file.len().min(UUID_HASH_BYTES);
    uuid_string(0, fnv1a64(&file[..n]) as i64)
}

/// An Android build fingerprint's (sdk version, incremental build):
/// `BRAND/PRODUCT/DEVICE:RELEASE/ID/INCREMENTAL:TYPE/TAGS`. None when the
/// fingerprint does not have that shape.
pub fn fingerprint_parts(fp: &str) -> Option<(Option<i64>, String)> {
    let colon = fp.find(':')?;
    let release_slash = colon + fp[colon..].find('/')?;
    let release = &fp[colon + 1..release_slash];
    let id_slash = release_slash + 1 + fp[release_slash + 1..].find('/')?;
    let inc_colon = id_slash + fp[id_slash..].find(':')?;
    Some((
        sdk_of_release(release),
        fp[id_slash + 1..inc_colon].to_owned(),
    ))
}

/// The SDK level of an Android release string (the Android CDD's table, as
/// trace_processor maps it; newer releases record the SDK level directly).
fn sdk_of_release(v: &str) -> Option<i64> {
    if v.starts_with('T') || v.starts_with('S') {
        return Some(31);
    }
    Some(match v {
        "12" => 31,
        "11" => 30,
        "10" => 29,
        "9" => 28,
        "8.1" => 27,
        "8.0" => 26,
        "7.1" => 25,
        "7.0" => 24,
        "6.0" => 23,
        "5.1" | "5.1.1" => 22,
        "5.0" | "5.0.1" | "5.0.2" => 21,
        _ => return None,
    })
}

/// Standard base64 with padding (ui_state is stored base64-encoded).
pub fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_prints_msb_then_lsb() {
        assert_eq!(
            uuid_string(0x0123_4567_89ab_cdef, -1),
            "01234567-89ab-cdef-ffff-ffffffffffff"
        );
    }

    #[test]
    fn fnv1a64_known_values() {
        // FNV-1a test vectors (offset basis for "", "a")
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
    }

    #[test]
    fn fingerprint() {
        assert_eq!(
            fingerprint_parts("google/coral/coral:12/SP1A.210812.015/7679548:userdebug/dev-keys"),
            Some((Some(31), "7679548".into()))
        );
        assert_eq!(
            fingerprint_parts("google/bench/bench:13/TQ3A/10750268:user/release-keys"),
            Some((None, "10750268".into()))
        );
        assert_eq!(fingerprint_parts("no colon"), None);
    }

    #[test]
    fn base64_pads() {
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
    }

    #[test]
    fn multi_keys_keep_every_value() {
        let mut m = Metadata::default();
        m.set_int("tracing_started_ns", 1);
        m.set_int("tracing_started_ns", 2);
        m.append("all_data_source_flushed_ns", MetaVal::Int(3));
        m.append("all_data_source_flushed_ns", MetaVal::Int(4));
        assert_eq!(m.rows.len(), 3);
        assert_eq!(m.get_int("tracing_started_ns"), Some(2));
    }
}
