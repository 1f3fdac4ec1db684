from conformance_synth import create_trace, CLONE_THREAD

trace = create_trace()

trace.add_ftrace_packet(cpu=0)
trace.add_sched(ts=50, prev_pid=1, next_pid=2, prev_comm='t1', next_comm='t2')
trace.add_print(ts=51, tid=2, buf='I|2|t2_event\n')
trace.add_sched(ts=52, prev_pid=2, next_pid=1, prev_comm='t2', next_comm='t1')
trace.add_print(ts=53, tid=1, buf='I|1|t1_event\n')
