import conformance_synth as synth_common  # noqa: F401
from conformance_synth import *  # noqa: F401,F403


trace = synth_common.create_trace()

# kfree:
# field:unsigned long call_site;        offset:8;       size:8; signed:0;
# field:const void * ptr;               offset:16;      size:8; signed:0;

# kmalloc:
# field:unsigned long call_site;        offset:8;       size:8; signed:0;
# field:const void * ptr;               offset:16;      size:8; signed:0;
# field:size_t bytes_req;               offset:24;      size:8; signed:0;
# field:size_t bytes_alloc;             offset:32;      size:8; signed:0;
# field:gfp_t gfp_flags;                offset:40;      size:4; signed:0;

# Without special-casing, we print everything as unsigned decimal.

trace.add_packet()
trace.add_process(pid=10, ppid=1, cmdline="perfetto")

trace.add_ftrace_packet(cpu=0)
trace.add_kfree(ts=100, tid=10, call_site=16, ptr=32)
trace.add_kfree(ts=101, tid=10, call_site=(1 << 64) - 16, ptr=(1 << 64) - 32)
trace.add_kmalloc(
    ts=102,
    tid=10,
    bytes_alloc=32,
    bytes_req=16,
    call_site=(1 << 64) - 16,
    gfp_flags=0,
    ptr=(1 << 64) - 32)

