SELECT id, slice_out, slice_in, trace_id, arg_set_id FROM flow;
