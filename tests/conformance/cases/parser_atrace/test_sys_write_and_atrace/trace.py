import conformance_synth as synth_common  # noqa: F401
from conformance_synth import *  # noqa: F401,F403


trace = synth_common.create_trace()
# sys_write id is 64 on arm64
trace.add_system_info(arch="aarch64")

trace.add_ftrace_packet(cpu=0)
# expect: one normal sys_write slice
trace.add_sys_enter(ts=100, tid=42, id=64)
trace.add_sys_exit(ts=200, tid=42, id=64, ret=0)
# expect: truncated sys_write slice due to nesting workarounds
trace.add_sys_enter(ts=300, tid=42, id=64)
trace.add_sys_exit(ts=400, tid=42, id=64, ret=0)
# expect: truncated sys_write slice due to nesting workarounds
trace.add_sys_enter(ts=600, tid=42, id=64)
trace.add_sys_exit(ts=700, tid=42, id=64, ret=0)

trace.add_atrace_begin(ts=350, tid=42, pid=42, buf='test')
trace.add_atrace_end(ts=650, tid=42, pid=42)

