SELECT value FROM stats WHERE name = 'cpu_info_unknown_cpu_features';
