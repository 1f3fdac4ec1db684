from conformance_synth import create_trace, CLONE_THREAD

trace = create_trace()

# Add a tracing_started packet which should cause all ftrace
# events before this ts to be dropped.
packet = trace.add_packet(ts=100)
packet.service_event.tracing_started = True

# Everything in this packet should be dropped.
trace.add_ftrace_packet(cpu=0)
trace.add_sched(ts=50, prev_pid=1, next_pid=2, prev_comm='t1', next_comm='t2')
trace.add_sched(ts=60, prev_pid=2, next_pid=1, prev_comm='t2', next_comm='t1')
trace.add_sched(ts=70, prev_pid=1, next_pid=2, prev_comm='t1', next_comm='t2')
trace.add_sched(
    ts=80, prev_pid=2, next_pid=0, prev_comm='t2', next_comm='swapper')

# The first 2 slices here should also be dropped but the last one should be
# retained.
trace.add_ftrace_packet(cpu=2)
trace.add_sched(
    ts=80, prev_pid=0, next_pid=1, prev_comm='swapper', next_comm='t1')
trace.add_sched(ts=90, prev_pid=1, next_pid=2, prev_comm='t1', next_comm='t2')
trace.add_sched(ts=100, prev_pid=2, next_pid=1, prev_comm='t2', next_comm='t1')
trace.add_sched(ts=110, prev_pid=1, next_pid=2, prev_comm='t1', next_comm='t2')
