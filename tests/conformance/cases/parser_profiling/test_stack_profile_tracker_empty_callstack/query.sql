SELECT count(1) AS count FROM heap_profile_allocation;
