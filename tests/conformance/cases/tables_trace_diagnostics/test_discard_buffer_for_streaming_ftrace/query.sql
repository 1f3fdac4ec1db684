SELECT key FROM __intrinsic_trace_diagnostics;
