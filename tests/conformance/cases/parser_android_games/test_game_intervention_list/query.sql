SELECT
  package_name,
  uid,
  current_mode,
  standard_mode_supported,
  standard_mode_downscale,
  standard_mode_use_angle,
  standard_mode_fps,
  perf_mode_supported,
  perf_mode_downscale,
  perf_mode_use_angle,
  perf_mode_fps,
  battery_mode_supported,
  battery_mode_downscale,
  battery_mode_use_angle,
  battery_mode_fps
FROM android_game_intervention_list
ORDER BY package_name;
