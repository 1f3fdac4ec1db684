select ts, ct.name, cast(c.value as int) value 
from counter_track ct join counter c on ct.id = c.track_id
