import conformance_synth as synth_common  # noqa: F401
from conformance_synth import *  # noqa: F401,F403


trace = synth_common.create_trace()

# Create a parent process which  will be forked below.
trace.add_packet(ts=1)
trace.add_process(10, 0, "parent")
trace.add_process(11, 0, "short_lived")

# Make the short lived thread emit a begin/end pair then exit.
trace.add_ftrace_packet(0)
trace.add_atrace_begin(ts=10, tid=11, pid=11, buf='test')
trace.add_atrace_end(ts=11, tid=11, pid=11)
trace.add_process_free(ts=12, tid=11, comm='short_lived', prio=0)

# Now, reuse tid 11 and emit a begin on the parent and an end on the child.
# This is an abuse of sync events (which technically should always be associated
# with a single thread) but this happens all the time in places like ART so
# we should support it.
trace.add_ftrace_packet(0)
trace.add_newtask(
    ts=15, tid=10, new_tid=11, new_comm='child', flags=CLONE_THREAD)
trace.add_rename(
    ts=17, tid=11, old_comm='child', new_comm='true_name', oom_score_adj=1000)
trace.add_atrace_begin(ts=18, tid=10, pid=10, buf='test')
trace.add_atrace_end(ts=19, tid=11, pid=10)

