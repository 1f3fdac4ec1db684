SELECT id, ts, upid, heap_name, callsite_id, count, size
FROM heap_profile_allocation;
