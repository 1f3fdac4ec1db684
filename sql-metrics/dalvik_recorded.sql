-- dalvik_recorded: whether the trace recorded ART's atrace category dalvik,
-- which writes the GC slices: without it no GC is unknown, with it no GC
-- slice in a window is a measured zero.
--
-- Evidence, cheapest first: ART's "Heap size (KB)" counter of any process;
-- a slice named like a GC (artscope_gc_pattern) at any depth in any
-- process; a slice only ART writes with that category (thread suspension,
-- monitor deflation, GC waits, lock contention).
--
-- Output columns (one row):
--   heap_counter   some process has ART's heap counter
--   gc_slices      some slice is named like a GC
--   art_slices     some other dalvik-only slice exists
--   recorded       any of the three
--
-- Column types: heap_counter BOOL, gc_slices BOOL, art_slices BOOL, recorded BOOL
WITH
evidence AS (
  SELECT
    EXISTS (SELECT 1 FROM process_counter_track WHERE name = 'Heap size (KB)') AS heap_counter,
    EXISTS (SELECT 1 FROM slice s
            WHERE EXISTS (SELECT 1 FROM artscope_gc_pattern p WHERE s.name GLOB p.pattern))
      AS gc_slices,
    EXISTS (SELECT 1 FROM slice s
            WHERE s.name IN ('Suspending mutator threads', 'ThreadListFlip',
                             'Deflating monitors')
               OR s.name GLOB 'GC: Wait For Completion*'
               OR s.name GLOB 'Lock contention on *'
               OR s.name GLOB 'monitor contention with owner *') AS art_slices
)
SELECT heap_counter, gc_slices, art_slices,
  (heap_counter OR gc_slices OR art_slices) AS recorded
FROM evidence
