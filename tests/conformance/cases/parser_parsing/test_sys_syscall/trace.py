import conformance_synth as synth_common  # noqa: F401
from conformance_synth import *  # noqa: F401,F403


trace = synth_common.create_trace()
trace.add_system_info(arch='aarch64')

trace.add_packet()
trace.add_process(pid=1, ppid=0, cmdline="init")
trace.add_process(pid=2, ppid=1, cmdline="two_thread_process")
trace.add_process(pid=4, ppid=1, cmdline="single_thread_process")
trace.add_thread(tid=3, tgid=2, cmdline="two_thread_process")

trace.add_ftrace_packet(cpu=0)
trace.add_sys_enter(ts=100, tid=1, id=0)
trace.add_sys_enter(ts=105, tid=2, id=1)
trace.add_sys_exit(ts=106, tid=1, id=0, ret=0)
trace.add_sys_exit(ts=110, tid=2, id=1, ret=0)

