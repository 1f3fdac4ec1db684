SELECT t.name, t.parent_id is null as is_root
FROM track t
ORDER BY t.name;
