//! AndroidGameInterventionList packets as trace_processor's
//! AndroidProbesParser records them: one android_game_intervention_list
//! row per game package, with what each of the standard (1), performance
//! (2) and battery (3) game modes supports (a mode the package does not
//! list: not supported, its columns NULL).

use super::wire::{text, Fields, Value, WireError};

/// A game mode's interventions: (resolution downscale, use ANGLE, fps).
pub type ModeInfo = (f64, bool, f64);

#[derive(Debug, Clone, Default)]
pub struct GamePackage {
    /// None when absent (the null string)
    pub name: Option<String>,
    pub uid: i64,
    pub current_mode: i64,
    /// standard, performance, battery
    pub modes: [Option<ModeInfo>; 3],
}

fn float(v: Value<'_>) -> f64 {
    match v {
        Value::Fixed32(b) => f32::from_bits(b) as f64,
        _ => 0.0,
    }
}

/// The list's packages and its (parse_error, read_error) flags.
pub fn decode(buf: &[u8]) -> Result<(Vec<GamePackage>, bool, bool), WireError> {
    let (mut pkgs, mut parse_error, mut read_error) = (Vec::new(), false, false);
    for f in Fields::new(buf) {
        match f? {
            (1, Value::Bytes(b)) => pkgs.push(package(b)?),
            (2, Value::Varint(x)) => parse_error = x != 0,
            (3, Value::Varint(x)) => read_error = x != 0,
            _ => {}
        }
    }
    Ok((pkgs, parse_error, read_error))
}

fn package(buf: &[u8]) -> Result<GamePackage, WireError> {
    let mut p = GamePackage::default();
    for f in Fields::new(buf) {
        match f? {
            (1, Value::Bytes(s)) => p.name = Some(text(s)),
            (2, Value::Varint(x)) => p.uid = x as i64,
            // (a uint32 field the reference stores as an int32)
            (3, Value::Varint(x)) => p.current_mode = x as u32 as i32 as i64,
            (4, Value::Bytes(b)) => {
                let (mut mode, mut info) = (0u64, (0.0, false, 0.0));
                for g in Fields::new(b) {
                    match g? {
                        (1, Value::Varint(x)) => mode = x,
                        (2, Value::Varint(x)) => info.1 = x != 0,
                        (3, v) => info.0 = float(v),
                        (4, v) => info.2 = float(v),
                        _ => {}
                    }
                }
                // the last entry of a mode wins
                if (1..=3).contains(&mode) {
                    p.modes[mode as usize - 1] = Some(info);
                }
            }
            _ => {}
        }
    }
    Ok(p)
}
