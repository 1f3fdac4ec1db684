select
  ts,
  rtrim(extract_arg(raw.arg_set_id, "buf"), char(0x0a)) as raw_print,
  slice.dur as slice_dur,
  slice.name as slice_name
from raw left join slice using (ts)
