import conformance_synth as synth_common  # noqa: F401
from conformance_synth import *  # noqa: F401,F403


trace = synth_common.create_trace()

trace.add_packet(ts=1)
trace.add_process(10, 1, "exiting_process")

trace.add_ftrace_packet(1)

# Normal rss_stat while the process is live: associates mm 0x1234 with tid 10.
trace.add_rss_stat(100, tid=10, member=0, size=100, mm_id=0x1234, curr=1)

# exit_mm() runs: current->mm is reset to NULL, then mmput() synchronously
# tears the mm down and emits rss_stat events with curr=false. These still
# describe tid 10's own mm and should be attributed to tid 10.
trace.add_rss_stat(101, tid=10, member=0, size=50, mm_id=0x1234, curr=0)
trace.add_rss_stat(102, tid=10, member=0, size=0, mm_id=0x1234, curr=0)

# Finally the scheduler frees the task.
trace.add_process_free(ts=103, tid=10, comm="exiting_process", prio=0)

