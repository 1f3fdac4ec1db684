SELECT 
  s_out.name as name_out,
  s_out.ts as ts_out,
  s_in.name as name_in,
  s_in.ts as ts_in,
  f.trace_id
FROM flow f
JOIN slice s_out ON f.slice_out = s_out.id  
JOIN slice s_in ON f.slice_in = s_in.id
ORDER BY f.id;
