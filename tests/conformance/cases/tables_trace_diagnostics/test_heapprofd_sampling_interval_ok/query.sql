SELECT count(*) AS n FROM __intrinsic_trace_diagnostics;
