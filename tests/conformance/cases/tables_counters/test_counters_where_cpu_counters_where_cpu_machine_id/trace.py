import conformance_synth as synth_common  # noqa: F401
from conformance_synth import *  # noqa: F401,F403


trace = synth_common.create_trace()

trace.add_ftrace_packet(cpu=0)
trace.add_cpufreq(ts=1000, freq=3000, cpu=1)
trace.add_cpufreq(ts=1001, freq=4000, cpu=1)
trace.add_cpufreq(ts=1002, freq=5000, cpu=2)

