import conformance_synth as synth_common  # noqa: F401
from conformance_synth import *  # noqa: F401,F403


trace = synth_common.create_trace()

# Create a multi-threaded process which will be forked below.
trace.add_packet(ts=1)
trace.add_process(10, 0, "main_thread")
trace.add_thread(11, 10, "worker_thread")

# Fork off the new process from the worker thread.
trace.add_ftrace_packet(0)
trace.add_newtask(ts=15, tid=11, new_tid=20, new_comm='child', flags=0)

