"""App wakelocks (AppWakelockBundle, the `android.app_wakelocks` data source)
as trace_processor v58.2's AppWakelockModule imports them: each
(interned wakelock, encoded time) pair of a bundle is an acquire (the time's
low bit) or a release at the packet's time + (time >> 1); an acquire begins
a slice named by the wakelock's tag on an `app_wakelock_events` lane (args:
flags, and owner pid / uid and work uid when given), its release ends it.

The perfetto package's protos lack the frameworks extensions
(TracePacket.app_wakelock_bundle = 116, InternedData.app_wakelock_info =
42): tools/packet_fuzz.py encodes them by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from make_fixtures import f_bytes  # noqa: E402
from packet_fuzz import app_wakelock_info, app_wakelock_packet  # noqa: E402


def _acquire(delta: int) -> int:
    return delta << 1 | 1


def _release(delta: int) -> int:
    return delta << 1


def _app_wakelock_trace() -> bytes:
    """Wakelock 1 '*job*/sync' (flags 1, owner pid 100, uid 10001) and 2
    'AudioMix' (flags 1, work uid 1041), interned at 1000. At 1000: 1
    acquired (+0), 2 acquired (+5: lane 0 is busy, lane 1), 1 released
    (+20). At 2000: 2 released (+10), unknown wakelock 3 acquired (+1), 1
    acquired again (+30: lane 0, free again), never released."""
    interned = (f_bytes(42, app_wakelock_info(1, "*job*/sync", 1, pid=100, uid=10001))
                + f_bytes(42, app_wakelock_info(2, "AudioMix", 1, work_uid=1041)))
    return (app_wakelock_packet(1000, [1, 2, 1], [_acquire(0), _acquire(5), _release(20)],
                                interned, cleared=True)
            + app_wakelock_packet(2000, [2, 3, 1], [_release(10), _acquire(1), _acquire(30)]))


def test_app_wakelocks(load_embedded) -> None:
    eng = load_embedded(_app_wakelock_trace())
    rows = eng.query(
        "SELECT s.name, s.ts, s.dur, extract_arg(t.dimension_arg_set_id, 'track_compressor_idx'), "
        "t.name, extract_arg(s.arg_set_id, 'flags'), extract_arg(s.arg_set_id, 'owner_pid'), "
        "extract_arg(s.arg_set_id, 'owner_uid'), extract_arg(s.arg_set_id, 'work_uid') "
        "FROM slice s JOIN track t ON t.id = s.track_id ORDER BY s.ts").rows()
    assert rows == [
        ("*job*/sync", 1000, 20, 0, "app_wakelock_events", 1, 100, 10001, None),
        ("AudioMix", 1005, 1005, 1, "app_wakelock_events", 1, None, None, 1041),
        ("*job*/sync", 2030, -1, 0, "app_wakelock_events", 1, 100, 10001, None),
    ]
    stats = eng.query("SELECT name, value FROM stats WHERE name IN ('app_wakelock_unknown_id', "
                      "'interned_data_tokenizer_errors') ORDER BY name").rows()
    assert stats == [("app_wakelock_unknown_id", 1), ("interned_data_tokenizer_errors", 1)]


@pytest.mark.tp
def test_app_wakelock_tables_equal_trace_processor(tp_diffs) -> None:
    diffs, compared = tp_diffs(_app_wakelock_trace())
    assert {"slice", "track", "args", "stats"} <= compared
    assert diffs == {}
