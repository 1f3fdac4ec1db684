"""trace_processor's SPAN_JOIN operators on the embedded engine
(engine-core/src/span_join.rs).

Hand-made span tables (ts, dur), each span [ts, ts + dur):

    t1, partitioned by cpu:  cpu 0: [10, 30) a=1, [40, 50) a=2
                             cpu 1: [5, 15) a=3
    t2, partitioned by cpu:  cpu 0: [20, 45) b=10
                             cpu 2: [0, 100) b=20
    t3, not partitioned:     [0, 10) c=1, [10, 20) c=2

SPAN_JOIN keeps the overlaps of both tables' spans in each partition;
SPAN_LEFT_JOIN also t1's parts that meet no t2 span (t2's columns NULL);
SPAN_OUTER_JOIN also t2's; a table without partitions joins every
partition of the other. Rows come by partition, then ts.
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.errors import QueryError

TABLES = """
CREATE TABLE t1 AS SELECT 10 AS ts, 20 AS dur, 0 AS cpu, 1 AS a
  UNION ALL SELECT 40, 10, 0, 2 UNION ALL SELECT 5, 10, 1, 3;
CREATE TABLE t2 AS SELECT 20 AS ts, 25 AS dur, 0 AS cpu, 10 AS b
  UNION ALL SELECT 0, 100, 2, 20;
CREATE TABLE t3 AS SELECT 0 AS ts, 10 AS dur, 1 AS c UNION ALL SELECT 10, 10, 2;
"""

INNER = "CREATE VIRTUAL TABLE j USING SPAN_JOIN(t1 PARTITIONED cpu, t2 PARTITIONED cpu);"
LEFT = "CREATE VIRTUAL TABLE j USING SPAN_LEFT_JOIN(t1 PARTITIONED cpu, t2 PARTITIONED cpu);"
OUTER = "CREATE VIRTUAL TABLE j USING SPAN_OUTER_JOIN(t1 PARTITIONED cpu, t2 PARTITIONED cpu);"
MIXED = "CREATE VIRTUAL TABLE j USING SPAN_JOIN(t1 PARTITIONED cpu, t3);"
SELECT = " SELECT * FROM j;"

EXPECTED = {
    INNER: [(20, 10, 0, 1, 10), (40, 5, 0, 2, 10)],
    LEFT: [(10, 10, 0, 1, None), (20, 10, 0, 1, 10), (40, 5, 0, 2, 10),
           (45, 5, 0, 2, None), (5, 10, 1, 3, None)],
    OUTER: [(10, 10, 0, 1, None), (20, 10, 0, 1, 10), (30, 10, 0, None, 10),
            (40, 5, 0, 2, 10), (45, 5, 0, 2, None), (5, 10, 1, 3, None),
            (0, 100, 2, None, 20)],
    MIXED: [(10, 10, 0, 1, 2), (5, 5, 1, 3, 1), (10, 5, 1, 3, 2)],
}


def _trace() -> bytes:
    """Any trace: the joined tables are the test's own."""
    trace = pb.Trace()
    p = trace.packet.add(timestamp=1, trusted_packet_sequence_id=1)
    p.process_tree.processes.add(pid=7, ppid=1, cmdline=["app"])
    return trace.SerializeToString()


@pytest.mark.parametrize("join", list(EXPECTED), ids=["inner", "left", "outer", "mixed"])
def test_span_joins(load_embedded, join):
    eng = load_embedded(_trace())
    assert eng.store.execute_script(TABLES + join + SELECT)[1] == EXPECTED[join]


def test_columns_are_ts_dur_partition_then_each_tables_own(load_embedded):
    eng = load_embedded(_trace())
    eng.store.execute_script(TABLES + OUTER)
    assert eng.query("SELECT * FROM j LIMIT 0").columns == ["ts", "dur", "cpu", "a", "b"]
    with pytest.raises(QueryError, match="mismatching partitions"):
        eng.query("CREATE VIRTUAL TABLE k USING SPAN_JOIN(t1 PARTITIONED cpu, "
                  "t2 PARTITIONED b)")


@pytest.mark.tp
@pytest.mark.parametrize("join", list(EXPECTED), ids=["inner", "left", "outer", "mixed"])
def test_same_rows_as_trace_processor(tp_rows, join):
    assert tp_rows(_trace(), TABLES + join + SELECT) == EXPECTED[join]
