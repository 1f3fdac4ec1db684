select
  ts,
  dur as slice_dur,
  slice.name as slice_name
from slice
