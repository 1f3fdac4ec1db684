import conformance_synth as synth_common  # noqa: F401
from conformance_synth import *  # noqa: F401,F403


trace = synth_common.create_trace()

trace.add_packet()
trace.add_process(pid=1, ppid=0, cmdline="p1")
trace.add_process(pid=2, ppid=1, cmdline="p2")

trace.add_ftrace_packet(cpu=0)
trace.add_sched(ts=50, prev_pid=1, next_pid=2, prev_comm='t1', next_comm='t2')
trace.add_print(ts=51, tid=2, buf='N|2|track_p2|ev1\n')
trace.add_sched(ts=52, prev_pid=2, next_pid=1, prev_comm='t2', next_comm='t1')
trace.add_print(ts=53, tid=1, buf='N|1|track_p1|ev2\n')

