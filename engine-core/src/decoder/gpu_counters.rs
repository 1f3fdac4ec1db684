//! GpuCounterEvent (the `gpu.counters` data source) as trace_processor v58.2
//! tokenizes it (importers/proto/graphics_event_module.cc,
//! gpu_event_parser.cc): a counter descriptor, interned per sequence
//! (`counter_descriptor_iid`, its InternedGpuCounterDescriptor) or inline
//! (legacy: counter ids global to the trace), makes a `gpu_counter` track
//! per (gpu, counter name) when the packet is tokenized; the samples are
//! pushed when the packet is parsed, through the descriptors every packet
//! gave (`CounterMaps`, resolved in the replay).

use rustc_hash::FxHashMap;

use super::sink::Sink;
use super::wire::{push_varints, text, Fields, Value, WireError};
use crate::events::{ArgVal, CounterMap, CounterMaps, GpuCounterTrack, TokenizedTrack};

type R<T> = Result<T, WireError>;

/// A GpuCounterEvent, as given.
#[derive(Default)]
pub struct EventFields<'a> {
    pub descriptor: Option<&'a [u8]>,
    pub descriptor_iid: Option<u64>,
    pub gpu_id: i32,
    /// it has a `counters` entry (even one without an id or a value)
    pub has_counters: bool,
    pub counters: Vec<(u32, f64)>,
}

pub fn event_fields(b: &[u8]) -> R<EventFields<'_>> {
    let mut e = EventFields::default();
    for f in Fields::new(b) {
        match f? {
            (1, Value::Bytes(d)) => e.descriptor = Some(d),
            (4, Value::Varint(x)) => e.descriptor_iid = Some(x),
            (3, Value::Varint(x)) => e.gpu_id = x as i32,
            (2, Value::Bytes(c)) => {
                e.has_counters = true;
                let (mut id, mut value) = (None, None);
                for g in Fields::new(c) {
                    match g? {
                        (1, Value::Varint(x)) => id = Some(x as u32),
                        (2, Value::Varint(x)) => value = Some(x as i64 as f64),
                        (3, Value::Fixed64(x)) => value = Some(f64::from_bits(x)),
                        _ => {}
                    }
                }
                if let (Some(id), Some(value)) = (id, value) {
                    e.counters.push((id, value));
                }
            }
            _ => {}
        }
    }
    Ok(e)
}

/// A GpuCounterSpec: what makes a track.
struct Spec {
    counter_id: Option<u32>,
    name: Option<String>,
    description: Option<String>,
    unit: Option<String>,
    forwards_looking: bool,
}

/// GpuCounterDescriptor.GpuCounterSpec.VALUE_DIRECTION_FORWARDS_LOOKING.
const FORWARDS_LOOKING: u64 = 2;

fn specs(descriptor: &[u8]) -> R<Vec<Spec>> {
    let mut out = Vec::new();
    for f in Fields::new(descriptor) {
        let (1, Value::Bytes(s)) = f? else { continue };
        let mut spec = Spec {
            counter_id: None,
            name: None,
            description: None,
            unit: None,
            forwards_looking: false,
        };
        let (mut numerators, mut denominators) = (None::<Vec<u64>>, None::<Vec<u64>>);
        for g in Fields::new(s) {
            match g? {
                (1, Value::Varint(x)) => spec.counter_id = Some(x as u32),
                (2, Value::Bytes(n)) => spec.name = Some(text(n)),
                (3, Value::Bytes(d)) => spec.description = Some(text(d)),
                (7, v) => push_varints(v, numerators.get_or_insert_with(Vec::new))?,
                (8, v) => push_varints(v, denominators.get_or_insert_with(Vec::new))?,
                (11, Value::Varint(x)) => spec.forwards_looking = x == FORWARDS_LOOKING,
                _ => {}
            }
        }
        spec.unit = unit(numerators.as_deref(), denominators.as_deref());
        out.push(spec);
    }
    Ok(out)
}

/// FormatCounterUnit: the numerator units joined by ':', then '/' and the
/// denominator units joined by ':' (NONE denominators skipped); None when
/// the spec has neither.
fn unit(numerators: Option<&[u64]>, denominators: Option<&[u64]>) -> Option<String> {
    if numerators.is_none() && denominators.is_none() {
        return None;
    }
    let mut unit = String::new();
    for &n in numerators.unwrap_or_default() {
        if !unit.is_empty() {
            unit.push(':');
        }
        unit.push_str(measure_unit(n));
    }
    let mut sep = '/';
    for &d in denominators.unwrap_or_default() {
        let s = measure_unit(d);
        if s.is_empty() {
            continue;
        }
        unit.push(sep);
        unit.push_str(s);
        sep = ':';
    }
    Some(unit)
}

/// MeasureUnitToString.
fn measure_unit(u: u64) -> &'static str {
    match u {
        0 => "",
        1 => "bit",
        2 => "Kb",
        3 => "Mb",
        4 => "Gb",
        5 => "Tb",
        6 => "Pb",
        7 => "B",
        8 => "KB",
        9 => "MB",
        10 => "GB",
        11 => "TB",
        12 => "PB",
        13 => "Hz",
        14 => "KHz",
        15 => "MHz",
        16 => "GHz",
        17 => "THz",
        18 => "PHz",
        19 => "ns",
        20 => "us",
        21 => "ms",
        22 => "s",
        23 => "min",
        24 => "h",
        25 => "Vertex",
        26 => "Pixel",
        27 => "Triangle",
        38 => "Primitive",
        39 => "Fragment",
        28 => "mW",
        29 => "W",
        30 => "kW",
        31 => "J",
        32 => "V",
        33 => "A",
        34 => "C",
        35 => "F",
        36 => "K",
        37 => "%",
        40 => "Instruction",
        _ => "Unknown",
    }
}

/// The tokenizer's state: the tracks made, the descriptors seen.
#[derive(Default)]
pub struct GpuCounters {
    /// (gpu, name) -> its index in `Sink::tokenized_tracks`
    tracks: FxHashMap<(i32, String), u32>,
    pub maps: CounterMaps,
}

const INVALID_SPEC: &str = "gpu_counters_invalid_spec";

impl GpuCounters {
    /// InternGpuCounterTrack.
    fn track(&mut self, sink: &mut Sink, gpu_id: i32, spec: &Spec, name: &str) -> u32 {
        *self
            .tracks
            .entry((gpu_id, name.to_owned()))
            .or_insert_with(|| {
                sink.tokenized_tracks
                    .push(TokenizedTrack::GpuCounter(GpuCounterTrack {
                        gpu_id,
                        name: name.to_owned(),
                        description: spec.description.clone(),
                        unit: spec.unit.clone(),
                    }));
                (sink.tokenized_tracks.len() - 1) as u32
            })
    }

    /// An interned descriptor (InternedGpuCounterDescriptor, or None when
    /// the lookup failed) for (state, iid), not seen before (the caller
    /// looks it up only then, as the lookup's miss is counted).
    pub fn interned_descriptor(
        &mut self,
        sink: &mut Sink,
        key: (u32, u64),
        interned: Option<&[u8]>,
    ) -> R<()> {
        let (mut gpu_id, mut descriptor) = (0i32, None);
        for f in Fields::new(interned.unwrap_or_default()) {
            match f? {
                (2, Value::Bytes(d)) => descriptor = Some(d),
                (3, Value::Varint(x)) => gpu_id = x as i32,
                _ => {}
            }
        }
        let Some(descriptor) = descriptor else {
            sink.stats.add(INVALID_SPEC, 1, None);
            return Ok(());
        };
        let mut map = CounterMap::default();
        for spec in specs(descriptor)? {
            let (Some(id), Some(name)) = (spec.counter_id, spec.name.as_deref()) else {
                continue;
            };
            let track = self.track(sink, gpu_id, &spec, name);
            map.entry(id).or_insert((track, spec.forwards_looking));
        }
        self.maps.interned.insert(key, map);
        Ok(())
    }

    /// A legacy inline descriptor: its counter ids are global; a spec
    /// without an id or a name, or an id already described, is a
    /// tokenization log.
    pub fn inline_descriptor(
        &mut self,
        sink: &mut Sink,
        offset: usize,
        gpu_id: i32,
        descriptor: &[u8],
    ) -> R<()> {
        for spec in specs(descriptor)? {
            let (Some(id), Some(name)) = (spec.counter_id, spec.name.as_deref()) else {
                sink.tokenizer_log(INVALID_SPEC, offset, Vec::new());
                continue;
            };
            if self.maps.legacy.contains_key(&id) {
                let args = vec![
                    ("counter_id", ArgVal::Uint(id as u64)),
                    ("counter_name", ArgVal::Str(name.to_owned())),
                ];
                sink.tokenizer_log(INVALID_SPEC, offset, args);
                continue;
            }
            let track = self.track(sink, gpu_id, &spec, name);
            self.maps.legacy.insert(id, (track, spec.forwards_looking));
        }
        Ok(())
    }
}
