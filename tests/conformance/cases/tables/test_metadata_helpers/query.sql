SELECT
  extract_metadata('system_name') as primary_system,
  extract_metadata_for_machine(0, 'system_name') as machine_0_system,
  extract_metadata_for_machine(1, 'system_name') as machine_1_system,
  extract_metadata('ftrace_latest_data_start_ns') as primary_ftrace_start,
  extract_metadata_for_machine(0, 'ftrace_latest_data_start_ns') as machine_0_ftrace_start,
  extract_metadata_for_machine(1, 'ftrace_latest_data_start_ns') as machine_1_ftrace_start;
