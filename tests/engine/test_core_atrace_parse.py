"""atrace lines (ftrace `print` events) read as trace_processor's
ParseSystraceTracePoint reads them, found by `tools/packet_fuzz.py --kind
atrace`: numbers are C's (strtoul / strtoll), not Python's int().

All printed by thread 10, on cpu 0, 10 ns apart from ts 1010:

    1010  B|-1|neg           tgid -1 wraps to 2^32 - 1
    1020  B|99999999999|big  wraps to 99999999999 mod 2^32 = 1215752191
    1030  B| 12|sp           a leading space is fine: tgid 12
    1040  B|12 |bad          a trailing one is not: a parse failure
    1050  B|1_2|bad          nor an underscore (Python's int() takes it)
    1060  BX|13|x|y          the phase is the first byte, whatever follows;
                             B's name is the rest of the line: "x|y"
    1070  I|14|inst|more     I's name is its third field only: "inst"
    1080  C|16|cnt|9223372036854775808   saturates to 2^63 - 1
    1090  S|17|as|+5         an async slice, cookie 5 ...
    1100  F|17|as|5          ... ended by cookie 5: dur 10
    1110  E|abc              E needs no tgid: it ends the innermost open
                             slice of thread 10, whichever thread tid 10 is
                             now. Each B / I of another tgid made tid 10 a
                             new thread of that process (5 of them), the
                             last one of process 14, with no slice open:
                             nothing ends ("x|y" stays open)
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

U32 = 1 << 32
LINES = ["B|-1|neg", "B|99999999999|big", "B| 12|sp", "B|12 |bad", "B|1_2|bad", "BX|13|x|y",
         "I|14|inst|more", "C|16|cnt|9223372036854775808", "S|17|as|+5", "F|17|as|5",
         "E|abc"]


def _trace() -> bytes:
    t = pb.Trace()
    uts = t.packet.add().system_info.utsname
    uts.sysname, uts.release = "Linux", "5.10.0"
    bundle = t.packet.add(trusted_packet_sequence_id=1).ftrace_events
    bundle.cpu = 0
    for i, line in enumerate(LINES):
        bundle.event.add(timestamp=1010 + 10 * i, pid=10).print.buf = line + "\n"
    return t.SerializeToString()


def test_numbers_are_read_as_c_reads_them(load_embedded) -> None:
    eng = load_embedded(_trace())
    slices = eng.query("SELECT ts, dur, name FROM slice ORDER BY ts").rows()
    assert slices == [(1010, -1, "neg"), (1020, -1, "big"), (1030, -1, "sp"),
                      (1060, -1, "x|y"), (1070, 0, "inst"), (1090, 10, "as")]
    incarnations = eng.query("SELECT p.pid FROM thread t JOIN process p USING (upid) "
                             "WHERE t.tid = 10 ORDER BY t.utid").rows()
    assert incarnations == [(U32 - 1,), (99999999999 % U32,), (12,), (13,), (14,)]
    pids = eng.query("SELECT pid FROM process WHERE pid > 11 ORDER BY pid").rows()
    assert pids == [(12,), (13,), (14,), (16,), (17,), (99999999999 % U32,), (U32 - 1,)]
    assert eng.query("SELECT value FROM stats WHERE name = 'systrace_parse_failure'"
                     ).item() == 2
    assert eng.query("SELECT c.value FROM counter c JOIN process_counter_track t "
                     "ON t.id = c.track_id WHERE t.name = 'cnt'").item() == float(2**63 - 1)


@pytest.mark.tp
def test_same_as_trace_processor(tp_diffs) -> None:
    differ, compared = tp_diffs(_trace())
    assert {"slice", "process", "thread", "counter", "stats"} <= compared
    assert differ == {}
