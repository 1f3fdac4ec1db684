SELECT value
FROM counters
WHERE name = "batt.charge_uah"
