SELECT value
FROM counters
WHERE name = "batt.power_mw"
