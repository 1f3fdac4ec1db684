SELECT name, value FROM stats WHERE name = 'track_event_parser_errors';
