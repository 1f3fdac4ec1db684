import conformance_synth as synth_common  # noqa: F401
from conformance_synth import *  # noqa: F401,F403


trace = synth_common.create_trace()

# Create a parent process which  will be forked below.
trace.add_packet(ts=1)
trace.add_process(10, 0, "parent")

# Fork off the new process and then kill it 5ns later.
trace.add_ftrace_packet(0)
trace.add_newtask(ts=15, tid=10, new_tid=11, new_comm='child', flags=0)
trace.add_sched(ts=16, prev_pid=10, next_pid=11, next_comm='child')
trace.add_process_free(ts=20, tid=11, comm='child', prio=0)

