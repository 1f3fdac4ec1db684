SELECT ts, value FROM counter;
