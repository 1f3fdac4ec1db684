SELECT * FROM machine
