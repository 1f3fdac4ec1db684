SELECT
  freq,
  GROUP_CONCAT(cpu) AS cpus
FROM cpu_available_frequencies
GROUP BY freq
ORDER BY freq;
