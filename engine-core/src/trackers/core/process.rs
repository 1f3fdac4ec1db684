//! Thread and process identity, as trace_processor's ProcessTracker assigns it
//! (importers/common/process_tracker.cc): utids/upids in order of first sight
//! during the ts-ordered replay; tid/pid reuse through thread ends
//! (sched_process_free), new processes (task_newtask without CLONE_THREAD) and
//! process-tree associations. Thread names carry priorities: a write wins only
//! if its priority is >= the current one.

use rustc_hash::FxHashMap as HashMap;

pub const PRIO_OTHER: u8 = 0;
pub const PRIO_FTRACE: u8 = 1;
pub const PRIO_PROCESS_TREE: u8 = 2;
pub const PRIO_TRACK_DESCRIPTOR: u8 = 4;
pub const PRIO_SWAPPER: u8 = 5;

/// ProcessNamePriority: a track descriptor's process name does not
/// override the system's (process tree, ftrace comms); Chrome's process
/// type names sit below it, a renderer's above it.
pub const PNAME_CHROME_LABEL: u8 = 1;
pub const PNAME_TRACK_DESCRIPTOR: u8 = 2;
pub const PNAME_CHROME_LABEL_RENDERER: u8 = 3;
pub const PNAME_SYSTEM: u8 = 4;

/// A name: an owned string (thread comms are shared through an Rc-free id
/// into the caller's pool is not worth it here; names change rarely).
pub type Name = Option<std::sync::Arc<str>>;

#[derive(Default)]
pub struct ProcessTracker {
    // thread columns (utid = index)
    pub t_tid: Vec<i64>,
    pub t_name: Vec<Name>,
    pub t_prio: Vec<u8>,
    pub t_start: Vec<Option<i64>>,
    pub t_end: Vec<Option<i64>>,
    pub t_upid: Vec<Option<u32>>,
    // process columns (upid = index)
    pub p_pid: Vec<i64>,
    pub p_name: Vec<Name>,
    /// the priority of each process's name (ProcessNamePriority)
    pub p_name_prio: Vec<u8>,
    pub p_start: Vec<Option<i64>>,
    pub p_end: Vec<Option<i64>>,
    pub p_parent: Vec<Option<u32>>,
    pub p_uid: Vec<Option<i64>>,
    pub p_cmdline: Vec<Option<String>>,
    /// upid -> its args' set (process args: is_kthread), where it has one
    pub p_args: HashMap<u32, i64>,
    /// utid -> its args' set, where it has one
    pub t_args: HashMap<u32, i64>,
    /// the sort order hints of track descriptors (SetProcessSortIndex /
    /// SetThreadSortIndex), added to the args at the end
    pub p_sort_index: HashMap<u32, i64>,
    pub t_sort_index: HashMap<u32, i64>,
    tids: HashMap<i64, Vec<u32>>,
    /// tid -> the thread a bare lookup finds (trace_processor's `live_tid_`
    /// cache): set when a thread starts or is reaffirmed in its process,
    /// refreshed to the tid's newest live thread only when a thread ends or
    /// its process ends or is replaced. Between those, it keeps its answer
    /// even where a scan would now find another thread (e.g. a process of a
    /// pid whose newer process ended counts alive again).
    /// (a slot per tid below 2^20, where tids usually are: Linux's default
    /// pid_max is 32,768; any other in a map. A lookup per sched event.)
    live: crate::trackers::SmallKeyMap<u32, { 1 << 20 }>,
    /// upid -> the threads associated with it (`process_threads_`): whose
    /// bare lookups are refreshed when it ends or is replaced
    p_threads: HashMap<u32, Vec<u32>>,
    pids: HashMap<i64, u32>,
    /// per pid, every upid ever given it (pid reuse)
    upids_of_pid: HashMap<i64, Vec<u32>>,
    /// per upid: `pids` maps its pid to another process (is_alive's test,
    /// kept here: is_alive runs for every event, a hash lookup there showed
    /// in profiles)
    p_shadowed: Vec<bool>,
    pending_assocs: Vec<(u32, u32)>,
    pending_parent: Vec<(u32, u32)>,
    /// pid-namespaced processes (ProcessTree nspid): root-level pid -> its
    /// pid at each namespace level, and its threads' root-level tids ...
    namespaced_processes: HashMap<i64, (Vec<i64>, Vec<i64>)>,
    /// ... and theirs: root-level tid -> its tid at each level
    namespaced_threads: HashMap<i64, Vec<i64>>,
    pub errors: i64,
    /// the rows of remote machines (`crate::machines`), by utid / upid: the
    /// others are the host's
    pub t_machine: HashMap<u32, u16>,
    pub p_machine: HashMap<u32, u16>,
    /// the remote machines' idle threads
    pub remote_idle: Vec<u32>,
    /// The machine whose pids and tids the calls name (set by the replay
    /// per event; 0: the host): each machine has its own pid and tid
    /// spaces, as trace_processor's per-machine ProcessTracker.
    pub machine: u16,
    /// process_tracker_parent_pid_changed: a process's parent given again,
    /// differently (the first one is kept: reparenting)
    pub parent_pid_changed: i64,
}

impl ProcessTracker {
    pub fn new() -> Self {
        let mut pt = ProcessTracker::default();
        let (utid, upid) = pt.push_idle_rows();
        pt.tids.insert(0, vec![utid]);
        pt.live.insert(0, utid);
        pt.upids_of_pid.insert(0, vec![upid]);
        pt.map_pid(0, upid);
        pt
    }

    /// A machine's idle process (pid 0) and its swapper thread (tid 0),
    /// not mapped yet.
    fn push_idle_rows(&mut self) -> (u32, u32) {
        let (utid, upid) = (self.t_tid.len() as u32, self.p_pid.len() as u32);
        self.t_tid.push(0);
        self.t_name.push(Some("swapper".into()));
        self.t_prio.push(PRIO_SWAPPER);
        self.t_start.push(None);
        self.t_end.push(None);
        self.t_upid.push(Some(upid));
        self.push_process_row(0);
        (utid, upid)
    }

    /// A new process row of `pid` (unnamed, not mapped): its upid.
    fn push_process_row(&mut self, pid: i64) -> u32 {
        let upid = self.p_pid.len() as u32;
        self.p_pid.push(pid);
        self.p_name.push(None);
        self.p_name_prio.push(0);
        self.p_start.push(None);
        self.p_end.push(None);
        self.p_parent.push(None);
        self.p_uid.push(None);
        self.p_cmdline.push(None);
        self.p_shadowed.push(false);
        upid
    }

    /// A remote machine's idle process and swapper thread, which
    /// trace_processor's ProcessTracker makes when it is forked for the
    /// machine: its pid and tid 0.
    pub fn add_remote_idle(&mut self, machine: u16) -> u32 {
        let (utid, upid) = self.push_idle_rows();
        self.t_machine.insert(utid, machine);
        self.p_machine.insert(upid, machine);
        let host = std::mem::replace(&mut self.machine, machine);
        let key = self.key(0);
        self.tids.insert(key, vec![utid]);
        self.live.insert(key, utid);
        self.upids_of_pid.insert(key, vec![upid]);
        self.map_pid(0, upid);
        self.machine = host;
        self.remote_idle.push(utid);
        utid
    }

    /// The maps' key of the current machine's pid or tid `id` (the id
    /// itself on the host: ids of another machine are offset by 2^40 per
    /// machine, far past any pid).
    #[inline]
    fn key(&self, id: i64) -> i64 {
        id.wrapping_add((self.machine as i64) << 40)
    }

    /// A new row's machine, when it is not the host's.
    fn note_machine(&mut self, utid: Option<u32>, upid: Option<u32>) {
        if self.machine != 0 {
            if let Some(u) = utid {
                self.t_machine.insert(u, self.machine);
            }
            if let Some(u) = upid {
                self.p_machine.insert(u, self.machine);
            }
        }
    }

    /// Whether `utid` is a machine's idle thread (the host's is utid 0).
    pub fn is_idle(&self, utid: u32) -> bool {
        utid == 0 || self.remote_idle.contains(&utid)
    }

    pub fn n_threads(&self) -> usize {
        self.t_tid.len()
    }

    pub fn start_new_thread(&mut self, ts: Option<i64>, tid: i64) -> u32 {
        let utid = self.t_tid.len() as u32;
        self.t_tid.push(tid);
        self.t_name.push(None);
        self.t_prio.push(PRIO_OTHER);
        self.t_start.push(ts);
        self.t_end.push(None);
        self.t_upid.push(None);
        let key = self.key(tid);
        self.tids.entry(key).or_default().push(utid);
        self.live.insert(key, utid);
        self.note_machine(Some(utid), None);
        utid
    }

    /// RefreshLiveTid: a bare lookup of `tid` finds its newest live thread
    /// (none: nothing).
    fn refresh_live(&mut self, tid: i64) {
        let key = self.key(tid);
        let newest = self
            .tids
            .get(&key)
            .and_then(|utids| utids.iter().rev().copied().find(|&u| self.is_alive(u)));
        match newest {
            Some(utid) => self.live.insert(key, utid),
            None => self.live.remove(key),
        };
    }

    /// InvalidateProcessThreads: the bare lookups of `upid`'s threads'
    /// tids are refreshed (it ended or its pid names another process).
    fn refresh_live_of_process(&mut self, upid: u32) {
        let utids = self.p_threads.get(&upid).cloned().unwrap_or_default();
        for utid in utids {
            self.refresh_live(self.t_tid[utid as usize]);
        }
    }

    /// AssociateThreadToProcessInternal: `utid` is a thread of `upid`.
    fn associate(&mut self, utid: u32, upid: u32) {
        self.t_upid[utid as usize] = Some(upid);
        self.p_threads.entry(upid).or_default().push(utid);
    }

    pub fn is_alive(&self, utid: u32) -> bool {
        let u = utid as usize;
        if self.t_end[u].is_some() {
            return false;
        }
        let Some(upid) = self.t_upid[u] else {
            return true;
        };
        if self.p_end[upid as usize].is_some() {
            return false;
        }
        !self.p_shadowed[upid as usize]
    }

    /// `pids` maps `pid` to `upid`: the other processes of that pid are
    /// shadowed.
    fn map_pid(&mut self, pid: i64, upid: u32) {
        let pid = self.key(pid);
        self.pids.insert(pid, upid);
        for &u in self.upids_of_pid.get(&pid).map_or(&[][..], |v| v) {
            self.p_shadowed[u as usize] = u != upid;
        }
    }

    /// `pids` no longer maps `pid`: none of its processes is shadowed.
    fn unmap_pid(&mut self, pid: i64) {
        let pid = self.key(pid);
        self.pids.remove(&pid);
        for &u in self.upids_of_pid.get(&pid).map_or(&[][..], |v| v) {
            self.p_shadowed[u as usize] = false;
        }
    }

    /// UpdateNamespacedProcess: `pid` runs in pid namespaces, where it is
    /// `nspid` (outermost level first).
    pub fn update_namespaced_process(&mut self, pid: i64, nspid: Vec<i64>) {
        let pid = self.key(pid);
        self.namespaced_processes.insert(pid, (nspid, Vec::new()));
    }

    /// UpdateNamespacedThread: thread `tid` of namespaced process `pid` is
    /// `nstid` at each level; false (nothing kept) when `pid` is not known
    /// as namespaced.
    pub fn update_namespaced_thread(&mut self, pid: i64, tid: i64, nstid: Vec<i64>) -> bool {
        let (pid, tid) = (self.key(pid), self.key(tid));
        let Some((_, threads)) = self.namespaced_processes.get_mut(&pid) else {
            return false;
        };
        if !threads.contains(&tid) {
            threads.push(tid);
        }
        self.namespaced_threads.insert(tid, nstid);
        true
    }

    /// ResolveNamespacedTid: the root-level tid of `tid` as seen inside the
    /// namespace of process `root_pid` (its main thread or a thread whose
    /// innermost-level tid it is); None when that process is not namespaced.
    pub fn resolve_namespaced_tid(&self, root_pid: i64, tid: i64) -> Option<i64> {
        if root_pid <= 0 {
            return None;
        }
        let (nspid, threads) = self.namespaced_processes.get(&self.key(root_pid))?;
        let level = nspid.len().checked_sub(1)?;
        if nspid.last() == Some(&tid) {
            return Some(root_pid);
        }
        // (the threads are kept by key: their tid is the key less the offset)
        let offset = self.key(0);
        threads
            .iter()
            .copied()
            .find(|t| {
                self.namespaced_threads
                    .get(t)
                    .and_then(|nstid| nstid.get(level))
                    == Some(&tid)
            })
            .map(|t| t.wrapping_sub(offset))
    }

    /// The newest live thread of `tid` in process `pid`, or of no known
    /// process (GetThreadOrNull with a pid: a scan, not the cache).
    fn thread_in_process(&self, tid: i64, pid: i64) -> Option<u32> {
        let utids = self.tids.get(&self.key(tid))?;
        utids.iter().rev().copied().find(|&utid| {
            self.is_alive(utid)
                && self.t_upid[utid as usize].map_or(true, |up| self.p_pid[up as usize] == pid)
        })
    }

    pub fn get_or_create_thread(&mut self, tid: i64) -> u32 {
        match self.thread_or_none(tid) {
            Some(utid) => utid,
            None => self.start_new_thread(None, tid),
        }
    }

    /// The thread a bare lookup of `tid` finds, if any (GetThreadOrNull
    /// without a pid: the `live` cache).
    #[inline]
    pub fn thread_or_none(&self, tid: i64) -> Option<u32> {
        self.live.get(self.key(tid)).copied()
    }

    pub fn set_thread_name(&mut self, utid: u32, name: &Name, prio: u8) {
        if name.is_none() {
            return;
        }
        let u = utid as usize;
        if prio >= self.t_prio[u] {
            // (names usually come from one Arc per comm: the name given is
            // kept even when its text is the thread's name already, so the
            // next write of it is told equal by its address, not by reading
            // the text, a comparison per sched event)
            let same = match (&self.t_name[u], name) {
                (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
                _ => false,
            };
            if !same {
                self.t_name[u] = name.clone();
            }
            self.t_prio[u] = prio;
        }
    }

    /// UpdateProcessName: the name wins if its priority is >= the current
    /// one's. (A None name leaves the process's name as it is.)
    pub fn set_process_name(&mut self, upid: u32, name: &Name, prio: u8) {
        let u = upid as usize;
        if name.is_some() && prio >= self.p_name_prio[u] {
            self.p_name[u] = name.clone();
            self.p_name_prio[u] = prio;
        }
    }

    pub fn update_thread_name(&mut self, tid: i64, name: &Name, prio: u8) -> u32 {
        let utid = self.get_or_create_thread(tid);
        self.set_thread_name(utid, name, prio);
        utid
    }

    /// Thread `tid` belongs to thread-group `pid` (tgid). The process comes
    /// first (with its main thread), then the thread, as trace_processor's
    /// UpdateThread numbers them.
    pub fn update_thread(&mut self, tid: i64, pid: i64) -> u32 {
        let process = self.get_or_create_process(pid);
        let utid = match self.thread_in_process(tid, pid) {
            Some(u) => {
                // a thread reaffirmed in its process becomes the tid's
                // newest: bare lookups find it (trace_processor's
                // live_tid_ update in GetOrCreateThreadWithParentInternal,
                // after v58.2: an out-of-order /proc dump had put the tid
                // in another process)
                let key = self.key(tid);
                self.live.insert(key, u);
                if let Some(utids) = self.tids.get_mut(&key) {
                    if utids.last() != Some(&u) {
                        utids.retain(|&x| x != u);
                        utids.push(u);
                    }
                }
                u
            }
            None => self.start_new_thread(None, tid),
        };
        if self.t_upid[utid as usize].is_none() {
            self.associate(utid, process);
        }
        let upid = self.t_upid[utid as usize];
        self.resolve_pending(utid, upid);
        utid
    }

    /// sched_process_free: ends the live thread `tid`. None live: nothing
    /// (trace_processor creates no thread just to end it, b/193520421).
    pub fn end_thread(&mut self, ts: i64, tid: i64) {
        let Some(utid) = self.thread_or_none(tid) else {
            return;
        };
        self.t_end[utid as usize] = Some(ts);
        let key = self.key(tid);
        if let Some(lst) = self.tids.get_mut(&key) {
            lst.retain(|&u| u != utid);
        }
        self.refresh_live(tid);
        if let Some(upid) = self.t_upid[utid as usize] {
            if self.p_pid[upid as usize] == tid {
                // the main thread: its process ends, and the pid names no
                // process (whichever it named: pids_.Erase)
                self.p_end[upid as usize] = Some(ts);
                self.unmap_pid(tid);
                self.refresh_live_of_process(upid);
            }
        }
    }

    pub fn update_thread_name_and_maybe_process(&mut self, tid: i64, name: &Name, prio: u8) {
        let utid = self.update_thread_name(tid, name, prio);
        if let Some(upid) = self.t_upid[utid as usize] {
            if self.p_pid[upid as usize] == tid {
                self.set_process_name(upid, name, PNAME_SYSTEM);
            }
        }
    }

    pub fn get_or_create_process(&mut self, pid: i64) -> u32 {
        if let Some(&upid) = self.pids.get(&self.key(pid)) {
            return upid;
        }
        let upid = self.push_process_row(pid);
        let key = self.key(pid);
        self.upids_of_pid.entry(key).or_default().push(upid);
        self.note_machine(None, Some(upid));
        self.map_pid(pid, upid);
        self.update_thread(pid, pid);
        upid
    }

    pub fn start_new_process(
        &mut self,
        ts: Option<i64>,
        parent_tid: Option<i64>,
        pid: i64,
        name: &Name,
        prio: u8,
    ) -> u32 {
        let key = self.key(pid);
        let recycled = self.pids.get(&key).copied();
        self.unmap_pid(pid);
        // a pid is never two live processes: every thread of that tid is
        // forgotten (StartNewProcessInternal erases tids_[pid])
        self.tids.remove(&key);
        self.live.remove(key);
        let main = self.start_new_thread(ts, pid);
        let upid = self.get_or_create_process(pid);
        if ts.is_some() {
            self.p_start[upid as usize] = ts;
        }
        self.set_process_name(upid, name, PNAME_SYSTEM);
        self.set_thread_name(main, name, prio);
        // the process the pid named before: its threads' bare lookups
        if let Some(upid) = recycled {
            self.refresh_live_of_process(upid);
        }
        if let Some(ptid) = parent_tid {
            let parent_utid = self.get_or_create_thread(ptid);
            match self.t_upid[parent_utid as usize] {
                Some(pu) => self.p_parent[upid as usize] = Some(pu),
                None => self.pending_parent.push((parent_utid, upid)),
            }
        }
        upid
    }

    /// SetProcessParent: the first parent given is kept, a different one
    /// later only counted.
    pub fn set_process_parent(&mut self, upid: u32, pupid: u32) {
        match self.p_parent[upid as usize] {
            None => self.p_parent[upid as usize] = Some(pupid),
            Some(prev) if prev != pupid => self.parent_pid_changed += 1,
            Some(_) => {}
        }
    }

    pub fn associate_threads(&mut self, utid1: u32, utid2: u32) {
        let (u1, u2) = (self.t_upid[utid1 as usize], self.t_upid[utid2 as usize]);
        match (u1, u2) {
            (Some(a), None) => {
                self.associate(utid2, a);
                self.resolve_pending(utid2, Some(a));
            }
            (None, Some(b)) => {
                self.associate(utid1, b);
                self.resolve_pending(utid1, Some(b));
            }
            (Some(a), b) if Some(a) != b => self.errors += 1,
            _ => self.pending_assocs.push((utid1, utid2)),
        }
    }

    fn resolve_pending(&mut self, utid_arg: u32, upid: Option<u32>) {
        let Some(upid) = upid else { return };
        if self.pending_assocs.is_empty() && self.pending_parent.is_empty() {
            return;
        }
        let mut todo = vec![utid_arg];
        while let Some(utid) = todo.pop() {
            let mut keep = Vec::new();
            for &(parent_utid, child_upid) in &self.pending_parent {
                if parent_utid == utid {
                    self.p_parent[child_upid as usize] = Some(upid);
                } else {
                    keep.push((parent_utid, child_upid));
                }
            }
            self.pending_parent = keep;
            let mut keep2 = Vec::new();
            let assocs = std::mem::take(&mut self.pending_assocs);
            for (a, b) in assocs {
                let other = if a == utid {
                    b
                } else if b == utid {
                    a
                } else {
                    keep2.push((a, b));
                    continue;
                };
                self.associate(other, upid);
                todo.push(other);
            }
            self.pending_assocs = keep2;
        }
    }

    pub fn is_main_thread(&self, utid: usize) -> Option<i64> {
        let upid = self.t_upid[utid]?;
        Some((self.p_pid[upid as usize] == self.t_tid[utid]) as i64)
    }
}

/// ProcessTracker::AddArgsToProcess: a process's args are one set of its
/// own, extended in place (a key given again takes its new value) and
/// stored, once with any equal set, when the trace ends.
pub fn add_process_args(
    c: &mut crate::trackers::Ctx,
    upid: u32,
    items: &[(&str, Option<crate::trackers::core::tracks::ArgVal>)],
) {
    match c.pt.p_args.get(&upid) {
        Some(&set) => c.args.extend_set(set, items),
        None => {
            let set = c.args.add_set_unique(items);
            c.pt.p_args.insert(upid, set);
        }
    }
}
