SELECT * FROM (
  (SELECT AVG(value) AS capacity_percent FROM counters
   WHERE name='batt.capacity_pct'),
  (SELECT AVG(value) AS charge_uah FROM counters
   WHERE name='batt.charge_uah'),
  (SELECT AVG(value) AS current_ua FROM counters
   WHERE name='batt.current_ua')
);
