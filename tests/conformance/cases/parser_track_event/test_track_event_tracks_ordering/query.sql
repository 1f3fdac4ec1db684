SELECT
  t.name,
  p.name AS parent_name,
  EXTRACT_ARG(t.source_arg_set_id, 'child_ordering') AS ordering,
  EXTRACT_ARG(t.source_arg_set_id, 'sibling_order_rank') AS rank
FROM track t
LEFT JOIN track p ON t.parent_id = p.id
ORDER BY p.name, t.name
