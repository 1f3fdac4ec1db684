SELECT
  id,
  name,
  extract_arg(arg_set_id, "chrome.host_app_package_name") AS host_app
FROM process;
