SELECT name, mapping, rel_pc FROM stack_profile_frame ORDER BY name;
