import conformance_synth as synth_common  # noqa: F401
from conformance_synth import *  # noqa: F401,F403


trace = synth_common.create_trace()

# Scenario 1: reparenting. Child 200 is first seen under parent 100, then under
# init (pid 1).
trace.add_packet(ts=1)
trace.add_process(100, 1, "parent_a")
trace.add_process(200, 100, "child_a")

trace.add_packet(ts=30)
trace.add_process(200, 1, "child_a")

# Scenario 2: pid reuse. Process 300 is ended by sched_process_free, then the
# pid reappears as an unrelated process.
trace.add_packet(ts=2)
trace.add_process(300, 1, "orig_b")

trace.add_ftrace_packet(0)
trace.add_process_free(ts=20, tid=300, comm="orig_b", prio=0)

trace.add_packet(ts=40)
trace.add_process(300, 2000, "reused_b")

