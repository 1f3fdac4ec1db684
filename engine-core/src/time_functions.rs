//! trace_processor's time functions over the trace's clock snapshots
//! (v58.2: importers/common/clock_converter.cc, plugins/time_functions/
//! clock_functions.h): TO_REALTIME(ts), TO_MONOTONIC(ts), ABS_TIME_STR(ts)
//! and TO_TIMECODE(ts). A conversion the trace cannot make (no snapshot of
//! that clock) is NULL, as there.

use std::collections::BTreeMap;

pub const REALTIME: i64 = 1;
pub const MONOTONIC: i64 = 3;

/// The name trace_processor gives a builtin clock in `clock_snapshot`.
pub fn builtin_clock_name(clock_id: u32) -> Option<&'static str> {
    Some(match clock_id {
        1 => "REALTIME",
        2 => "REALTIME_COARSE",
        3 => "MONOTONIC",
        4 => "MONOTONIC_COARSE",
        5 => "MONOTONIC_RAW",
        6 => "BOOTTIME",
        _ => return None,
    })
}

/// One clock's values at the snapshots' trace times: trace ts -> clock value
/// (the first snapshot's value where two share a trace ts).
#[derive(Debug, Default, Clone)]
pub struct Timeline(BTreeMap<i64, i64>);

impl Timeline {
    /// From `clock_snapshot` rows (ts, clock_id, clock_value) of `clock`.
    pub fn of(rows: impl IntoIterator<Item = (i64, i64, i64)>, clock: i64) -> Self {
        let mut map = BTreeMap::new();
        for (ts, id, value) in rows {
            if id == clock {
                map.entry(ts).or_insert(value);
            }
        }
        Timeline(map)
    }

    /// `ts` (trace time) in this clock: ClockConverter::FromTraceTime. At or
    /// before the first snapshot, the first's value; past the last, the
    /// last's value plus the time since; between two, the earlier's value
    /// plus the time since, but never past the later's value (a clock is not
    /// assumed to run at trace time's rate).
    pub fn from_trace_time(&self, ts: i64) -> Option<i64> {
        let mut next = self.0.range(ts..);
        let Some((&next_ts, &next_value)) = next.next() else {
            let (&last_ts, &last_value) = self.0.iter().next_back()?;
            return Some(last_value + ts - last_ts);
        };
        let Some((&prev_ts, &prev_value)) = self.0.range(..ts).next_back() else {
            return Some(next_value);
        };
        if next_ts == ts {
            return Some(next_value);
        }
        Some((prev_value + ts - prev_ts).min(next_value))
    }
}

/// TO_TIMECODE: "HH:MM:SS mmm uuu nnn" of a duration in ns.
pub fn timecode(ns: i64) -> String {
    let (us, ns) = (ns / 1000, ns % 1000);
    let (ms, us) = (us / 1000, us % 1000);
    let (ss, ms) = (ms / 1000, ms % 1000);
    let (mm, ss) = (ss / 60, ss % 60);
    let (hh, mm) = (mm / 60, mm % 60);
    format!("{hh:02}:{mm:02}:{ss:02} {ms:03} {us:03} {ns:03}")
}

/// ABS_TIME_STR's format of a REALTIME value in ns: ISO 8601 in UTC with
/// nanoseconds (`2022-08-26T20:38:35.447306792`), as ClockConverter's
/// TimeToStr prints it (gmtime of the whole seconds).
pub fn iso8601(realtime_ns: i64) -> String {
    let (s, ns) = (realtime_ns / 1_000_000_000, realtime_ns % 1_000_000_000);
    let (days, secs) = (s.div_euclid(86_400), s.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{ns:09}",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// The (year, month, day) of a day count from 1970-01-01 (the proleptic
/// Gregorian calendar; H. Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_between_and_beyond_snapshots() {
        // snapshots at trace ts 100 (clock 1000) and 200 (clock 1050: the
        // clock ran slower than trace time)
        let t = Timeline::of([(100, 1, 1000), (200, 1, 1050), (150, 3, 7)], REALTIME);
        assert_eq!(t.from_trace_time(50), Some(1000)); // before the first
        assert_eq!(t.from_trace_time(100), Some(1000));
        assert_eq!(t.from_trace_time(130), Some(1030));
        assert_eq!(t.from_trace_time(190), Some(1050)); // capped at the next
        assert_eq!(t.from_trace_time(200), Some(1050));
        assert_eq!(t.from_trace_time(260), Some(1110)); // after the last
        assert_eq!(Timeline::of([], REALTIME).from_trace_time(5), None);
    }

    #[test]
    fn formats_as_trace_processor() {
        assert_eq!(timecode(0), "00:00:00 000 000 000");
        assert_eq!(timecode(3_723_004_005_006), "01:02:03 004 005 006");
        assert_eq!(
            iso8601(1_661_546_315_447_306_792),
            "2022-08-26T20:38:35.447306792"
        );
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000000000");
        assert_eq!(builtin_clock_name(6), Some("BOOTTIME"));
        assert_eq!(builtin_clock_name(64), None);
    }
}
