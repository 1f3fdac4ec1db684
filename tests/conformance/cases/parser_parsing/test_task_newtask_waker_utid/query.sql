SELECT waker_utid FROM thread_state
