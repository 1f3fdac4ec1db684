import conformance_synth as synth_common  # noqa: F401
from conformance_synth import *  # noqa: F401,F403


trace = synth_common.create_trace()

trace.add_packet(ts=1)
trace.add_process(10, 1, "parent_process")
trace.add_process(11, 1, "other_process")

trace.add_ftrace_packet(1)

# Emit an event on an irrelevant thread.
trace.add_rss_stat(90, tid=11, member=0, size=20, mm_id=0x5678, curr=1)

# Emit an event for the process.
trace.add_rss_stat(100, tid=10, member=0, size=100, mm_id=0x1234, curr=1)

# Now kill the process.
trace.add_process_free(ts=101, tid=10, comm="parent_process", prio=0)

# Emit an event on another thread which reuses the struct after free.
trace.add_rss_stat(103, tid=11, member=0, size=10, mm_id=0x1234, curr=0)

