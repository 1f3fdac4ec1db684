"""Thread and process identity, as trace_processor's ProcessTracker assigns it.

Mirrors src/trace_processor/importers/common/process_tracker.cc: utids/upids
are assigned in order of first sight while events are replayed in timestamp
order; tid/pid reuse is detected through thread ends (sched_process_free),
new processes (task_newtask without CLONE_THREAD) and process-tree
associations. Names carry priorities: a write wins only if its priority is
>= the current one.
"""

from __future__ import annotations

# Thread name priorities (ThreadNamePriority in trace_processor).
PRIO_OTHER = 0
PRIO_FTRACE = 1
PRIO_PROCESS_TREE = 2
PRIO_TRACK_DESCRIPTOR = 3
PRIO_SWAPPER = 5


class ProcessTracker:
    def __init__(self) -> None:
        # thread table columns (utid = index)
        self.t_tid: list[int] = [0]
        self.t_name: list[str | None] = ["swapper"]
        self.t_prio: list[int] = [PRIO_SWAPPER]
        self.t_start: list[int | None] = [None]
        self.t_end: list[int | None] = [None]
        self.t_upid: list[int | None] = [0]
        # process table columns (upid = index)
        self.p_pid: list[int] = [0]
        self.p_name: list[str | None] = [None]
        self.p_start: list[int | None] = [None]
        self.p_end: list[int | None] = [None]
        self.p_parent: list[int | None] = [None]
        self.p_uid: list[int | None] = [None]
        self.p_cmdline: list[str | None] = [None]
        self.tids: dict[int, list[int]] = {0: [0]}
        self.pids: dict[int, int] = {0: 0}
        self.pending_assocs: list[tuple[int, int]] = []
        self.pending_parent: list[tuple[int, int]] = []
        self.errors = 0

    # -- threads -------------------------------------------------------------

    def start_new_thread(self, ts: int | None, tid: int) -> int:
        utid = len(self.t_tid)
        self.t_tid.append(tid)
        self.t_name.append(None)
        self.t_prio.append(PRIO_OTHER)
        self.t_start.append(ts)
        self.t_end.append(None)
        self.t_upid.append(None)
        self.tids.setdefault(tid, []).append(utid)
        return utid

    def is_alive(self, utid: int) -> bool:
        if self.t_end[utid] is not None:
            return False
        upid = self.t_upid[utid]
        if upid is None:
            return True
        if self.p_end[upid] is not None:
            return False
        cur = self.pids.get(self.p_pid[upid])
        return cur is None or cur == upid

    def get_thread(self, tid: int, pid: int | None = None) -> int | None:
        utids = self.tids.get(tid)
        if not utids:
            return None
        for utid in reversed(utids):
            if not self.is_alive(utid):
                continue
            upid = self.t_upid[utid]
            if upid is None or pid is None or self.p_pid[upid] == pid:
                return utid
        return None

    def get_or_create_thread(self, tid: int) -> int:
        # Fast path: the newest utid of the tid is alive and has no process
        # conflict (the overwhelmingly common case for sched events).
        utids = self.tids.get(tid)
        if utids:
            utid = utids[-1]
            if self.t_end[utid] is None:
                upid = self.t_upid[utid]
                if upid is None or (self.p_end[upid] is None
                                    and self.pids.get(self.p_pid[upid], upid) == upid):
                    return utid
            found = self.get_thread(tid)
            if found is not None:
                return found
        return self.start_new_thread(None, tid)

    def set_thread_name(self, utid: int, name: str | None, prio: int) -> None:
        if name is None:
            return
        if prio >= self.t_prio[utid]:
            self.t_name[utid] = name
            self.t_prio[utid] = prio

    def update_thread_name(self, tid: int, name: str | None, prio: int) -> int:
        utid = self.get_or_create_thread(tid)
        self.set_thread_name(utid, name, prio)
        return utid

    def update_thread(self, tid: int, pid: int) -> int:
        """Thread ``tid`` belongs to thread-group ``pid`` (tgid)."""
        utid = self.get_thread(tid, pid)
        if utid is None:
            utid = self.start_new_thread(None, tid)
        if self.t_upid[utid] is None:
            self.associate_thread_to_process(utid, self.get_or_create_process(pid))
        self.resolve_pending(utid, self.t_upid[utid])
        return utid

    def end_thread(self, ts: int, tid: int) -> None:
        utid = self.get_or_create_thread(tid)
        self.t_end[utid] = ts
        lst = self.tids.get(tid)
        if lst and utid in lst:
            lst.remove(utid)
        upid = self.t_upid[utid]
        if upid is not None and self.p_pid[upid] == tid:
            self.p_end[upid] = ts
            # Retire the pid: later events with it start a new process.
            if self.pids.get(tid) == upid:
                del self.pids[tid]

    def update_thread_name_and_maybe_process(self, tid: int, name: str, prio: int) -> None:
        utid = self.update_thread_name(tid, name, prio)
        upid = self.t_upid[utid]
        if upid is not None and self.p_pid[upid] == tid:
            self.p_name[upid] = name

    # -- processes -----------------------------------------------------------

    def get_or_create_process(self, pid: int) -> int:
        upid = self.pids.get(pid)
        if upid is not None:
            return upid
        upid = len(self.p_pid)
        self.p_pid.append(pid)
        self.p_name.append(None)
        self.p_start.append(None)
        self.p_end.append(None)
        self.p_parent.append(None)
        self.p_uid.append(None)
        self.p_cmdline.append(None)
        self.pids[pid] = upid
        self.update_thread(pid, pid)
        return upid

    def start_new_process(self, ts: int | None, parent_tid: int | None, pid: int,
                          name: str | None, prio: int) -> int:
        self.pids.pop(pid, None)
        main = self.start_new_thread(ts, pid)
        upid = self.get_or_create_process(pid)
        if ts is not None:
            self.p_start[upid] = ts
        self.p_name[upid] = name
        self.set_thread_name(main, name, prio)
        if parent_tid is not None:
            parent_utid = self.get_or_create_thread(parent_tid)
            pu = self.t_upid[parent_utid]
            if pu is not None:
                self.p_parent[upid] = pu
            else:
                self.pending_parent.append((parent_utid, upid))
        return upid

    def associate_thread_to_process(self, utid: int, upid: int) -> None:
        self.t_upid[utid] = upid

    def associate_threads(self, utid1: int, utid2: int) -> None:
        u1, u2 = self.t_upid[utid1], self.t_upid[utid2]
        if u1 is not None and u2 is None:
            self.associate_thread_to_process(utid2, u1)
            self.resolve_pending(utid2, u1)
            return
        if u2 is not None and u1 is None:
            self.associate_thread_to_process(utid1, u2)
            self.resolve_pending(utid1, u2)
            return
        if u1 is not None and u1 != u2:
            self.errors += 1
            return
        self.pending_assocs.append((utid1, utid2))

    def resolve_pending(self, utid_arg: int, upid: int | None) -> None:
        if upid is None or not (self.pending_assocs or self.pending_parent):
            return
        todo = [utid_arg]
        while todo:
            utid = todo.pop()
            keep = []
            for parent_utid, child_upid in self.pending_parent:
                if parent_utid == utid:
                    self.p_parent[child_upid] = upid
                else:
                    keep.append((parent_utid, child_upid))
            self.pending_parent = keep
            keep2 = []
            for a, b in self.pending_assocs:
                other = b if a == utid else a if b == utid else None
                if other is None:
                    keep2.append((a, b))
                    continue
                self.associate_thread_to_process(other, upid)
                todo.append(other)
            self.pending_assocs = keep2

    def set_process_uid(self, upid: int, uid: int) -> None:
        self.p_uid[upid] = uid

    # -- output --------------------------------------------------------------

    def is_main_thread(self, utid: int) -> int | None:
        upid = self.t_upid[utid]
        if upid is None:
            return None
        return 1 if self.p_pid[upid] == self.t_tid[utid] else 0
