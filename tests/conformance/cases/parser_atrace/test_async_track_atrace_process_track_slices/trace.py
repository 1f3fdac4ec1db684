from conformance_synth import create_trace, CLONE_THREAD

trace = create_trace()

trace.add_packet()
trace.add_process(pid=1, ppid=0, cmdline="p1")
trace.add_process(pid=2, ppid=1, cmdline="p2")

trace.add_thread(tid=1, tgid=1, cmdline='p1', name='p1')
trace.add_thread(tid=2, tgid=2, cmdline='p2', name='p2')

trace.add_ftrace_packet(cpu=0)
trace.add_print(ts=50, tid=1, buf='G|1|track|ev|1024\n')
trace.add_print(ts=55, tid=1, buf='G|1|track|ev|2048\n')
trace.add_print(ts=60, tid=2, buf='G|2|track|ev|1024\n')
trace.add_print(ts=65, tid=2, buf='H|2|track|ev|1024\n')
trace.add_print(ts=70, tid=1, buf='H|1|track|2048\n')
trace.add_print(ts=75, tid=1, buf='H|1|track|ev|1024\n')
