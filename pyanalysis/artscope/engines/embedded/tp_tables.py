"""The names of trace_processor's tables and views, to tell a table the
embedded engine does not serve from a name no engine has (a typo).

Listed from trace_processor_shell v58.2 (the reference build, perfetto ec5d16b) with
``SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT
LIKE 'sqlite_%'`` on a loaded trace. Tables of Perfetto's standard library
(``INCLUDE PERFETTO MODULE ...``) are not among them: they exist only once
included.
"""

from __future__ import annotations

#: Public tables, views and table functions (``ancestor_slice(id)``).
PUBLIC_TABLES: frozenset[str] = frozenset({
    "_linux_interrupt_mapping", "_stat_key_to_severity_and_name", "_trace_bounds",
    "_trace_import_logs", "_trace_metrics", "actual_frame_timeline_slice", "ancestor_slice",
    "android_dumpstate", "android_game_intervention_list", "android_logs", "args",
    "clock_snapshot", "counter", "counter_track", "counters", "cpu",
    "cpu_available_frequencies", "cpu_counter_track", "cpu_profile_stack_sample", "cpu_track",
    "descendant_slice", "directly_connected_flow", "expected_frame_timeline_slice",
    "experimental_ancestor_stack_profile_callsite", "experimental_annotated_callstack",
    "experimental_flamegraph", "experimental_flat_slice",
    "experimental_missing_chrome_processes", "experimental_proto_content",
    "experimental_proto_path", "experimental_slice_layout", "filedescriptor", "flow",
    "following_flow", "frame_slice", "ftrace_event", "gpu", "gpu_counter_group",
    "gpu_counter_track", "gpu_slice", "gpu_track", "heap_graph", "heap_graph_class",
    "heap_graph_object", "heap_graph_object_data", "heap_graph_primitive",
    "heap_graph_reference", "heap_graph_thread_callsite", "heap_profile",
    "heap_profile_allocation", "instant", "instruments_sample", "logs", "machine",
    "memory_snapshot", "memory_snapshot_edge", "memory_snapshot_node", "metadata",
    "package_list", "perf_counter_track", "perf_sample", "perf_session", "perfetto_table_info",
    "perfetto_tables", "preceding_flow", "process", "process_counter_track",
    "process_memory_mappings", "process_memory_snapshot", "process_state_track",
    "process_track", "profiler_smaps", "protolog", "raw", "sched", "sched_slice", "slice",
    "slices", "spurious_sched_wakeup", "stack_profile_callsite", "stack_profile_frame",
    "stack_profile_mapping", "stack_profile_symbol", "stack_sample",
    "stack_sample_async_context", "stack_sample_counter", "stack_sample_counter_track",
    "stack_sample_execution_context", "stack_sample_session", "stack_sample_task_context",
    "state", "state_track", "stats", "surfaceflinger_layer", "surfaceflinger_layers_snapshot",
    "surfaceflinger_transactions", "thread", "thread_counter_track", "thread_state",
    "thread_state_track", "thread_track", "trace_bounds", "trace_metrics", "track",
    "vulkan_memory_allocations", "window_manager_shell_transition_handlers",
    "window_manager_shell_transitions",
})

#: Tables behind the public ones (``__intrinsic_*``).
INTRINSIC_TABLES: frozenset[str] = frozenset({
    "__intrinsic_aggregate_profile", "__intrinsic_aggregate_sample",
    "__intrinsic_android_aflags", "__intrinsic_android_cpu_per_uid_track",
    "__intrinsic_android_dumpstate", "__intrinsic_android_game_intervention_list",
    "__intrinsic_android_input_event_dispatch", "__intrinsic_android_key_events",
    "__intrinsic_android_motion_events", "__intrinsic_android_network_packets",
    "__intrinsic_android_track_event_process", "__intrinsic_android_user_list",
    "__intrinsic_args", "__intrinsic_build_flags", "__intrinsic_chrome_raw",
    "__intrinsic_chrome_stack_sample_extras", "__intrinsic_clock_snapshot",
    "__intrinsic_counter", "__intrinsic_cpu", "__intrinsic_cpu_freq",
    "__intrinsic_dfs_weight_bounded", "__intrinsic_elf_file", "__intrinsic_etm_v4_chunk",
    "__intrinsic_etm_v4_configuration", "__intrinsic_etm_v4_session",
    "__intrinsic_experimental_missing_chrome_processes", "__intrinsic_file",
    "__intrinsic_filedescriptor", "__intrinsic_flow", "__intrinsic_ftrace_event",
    "__intrinsic_gpu", "__intrinsic_gpu_context", "__intrinsic_gpu_counter_group",
    "__intrinsic_heap_graph", "__intrinsic_heap_graph_class",
    "__intrinsic_heap_graph_java_oome_details", "__intrinsic_heap_graph_object",
    "__intrinsic_heap_graph_object_data", "__intrinsic_heap_graph_primitive",
    "__intrinsic_heap_graph_reference", "__intrinsic_heap_graph_thread_callsite",
    "__intrinsic_heap_profile", "__intrinsic_heap_profile_allocation",
    "__intrinsic_inputmethod_clients", "__intrinsic_inputmethod_manager_service",
    "__intrinsic_inputmethod_service", "__intrinsic_jit_code", "__intrinsic_jit_frame",
    "__intrinsic_logs", "__intrinsic_machine", "__intrinsic_memory_snapshot",
    "__intrinsic_memory_snapshot_edge", "__intrinsic_memory_snapshot_node",
    "__intrinsic_metadata", "__intrinsic_mmap_record", "__intrinsic_modules",
    "__intrinsic_package_list", "__intrinsic_process", "__intrinsic_process_memory_snapshot",
    "__intrinsic_profiler_async_context", "__intrinsic_profiler_counter_set",
    "__intrinsic_profiler_execution_context", "__intrinsic_profiler_sample",
    "__intrinsic_profiler_session", "__intrinsic_profiler_smaps",
    "__intrinsic_profiler_task_context", "__intrinsic_protolog", "__intrinsic_sched_slice",
    "__intrinsic_slice", "__intrinsic_spe_record", "__intrinsic_spurious_sched_wakeup",
    "__intrinsic_stack_profile_callsite", "__intrinsic_stack_profile_frame",
    "__intrinsic_stack_profile_mapping", "__intrinsic_stack_profile_symbol",
    "__intrinsic_state", "__intrinsic_stats", "__intrinsic_stdlib_objects",
    "__intrinsic_surfaceflinger_display", "__intrinsic_surfaceflinger_layer",
    "__intrinsic_surfaceflinger_layers_snapshot", "__intrinsic_surfaceflinger_transaction",
    "__intrinsic_surfaceflinger_transaction_flag", "__intrinsic_surfaceflinger_transactions",
    "__intrinsic_thread", "__intrinsic_thread_state", "__intrinsic_trace_diagnostics",
    "__intrinsic_trace_file", "__intrinsic_trace_import_logs", "__intrinsic_track",
    "__intrinsic_track_event_callstacks", "__intrinsic_v8_internal_code",
    "__intrinsic_v8_isolate", "__intrinsic_v8_js_code", "__intrinsic_v8_js_function",
    "__intrinsic_v8_js_script", "__intrinsic_v8_regexp_code", "__intrinsic_v8_wasm_code",
    "__intrinsic_v8_wasm_script", "__intrinsic_video_frames", "__intrinsic_viewcapture",
    "__intrinsic_viewcapture_view", "__intrinsic_vulkan_memory_allocations",
    "__intrinsic_wattson_curves_cpu_1d", "__intrinsic_wattson_curves_cpu_2d",
    "__intrinsic_wattson_curves_gpu", "__intrinsic_wattson_curves_l3",
    "__intrinsic_wattson_curves_tpu", "__intrinsic_window_manager_shell_transition_handlers",
    "__intrinsic_window_manager_shell_transition_participants",
    "__intrinsic_window_manager_shell_transition_protos",
    "__intrinsic_window_manager_shell_transitions", "__intrinsic_windowmanager",
    "__intrinsic_windowmanager_windowcontainer", "__intrinsic_winscope_fill_region",
    "__intrinsic_winscope_rect", "__intrinsic_winscope_trace_rect",
    "__intrinsic_winscope_transform",
})

TRACE_PROCESSOR_TABLES: frozenset[str] = PUBLIC_TABLES | INTRINSIC_TABLES
