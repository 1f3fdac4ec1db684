SELECT
  freq,
  GROUP_CONCAT(cpu.cpu) AS cpus
FROM cpu_available_frequencies
JOIN cpu using (ucpu)
WHERE machine_id is not NULL
GROUP BY freq
ORDER BY freq;
