//! binder ftrace events -> binder transaction / reply slices with their args
//! (trace_processor's importers/ftrace/binder_tracker.cc, as v58 imports
//! binder_transaction, binder_transaction_received and
//! binder_transaction_alloc_buf).
//!
//! A synchronous transaction opens "binder transaction" on the sender's
//! thread track; its receipt opens "binder reply" on the receiver's and adds
//! the destination thread to the sender's slice; the reply transaction adds
//! its args to "binder reply" and ends it; the reply's receipt ends the
//! sender's slice. A one-way transaction is a "binder transaction async"
//! instant on the sender and a "binder async rcv" instant (with the
//! sender's args) on the receiver. binder_transaction_alloc_buf adds data /
//! offsets sizes to the sender's open "binder transaction". All have
//! category "binder". A transaction's receipt adds a flow from the sending
//! slice to the receiving one ("binder transaction" -> "binder reply",
//! "binder transaction async" -> "binder async rcv"), as trace_processor
//! infers them (flow.trace_id NULL).
//!
//! binder_command / binder_return follow each thread's transactions as a
//! stack of frames (BC_TRANSACTION, binder_transaction, BR_TRANSACTION_COMPLETE,
//! ...): a failed one (BR_FAILED_REPLY, BR_DEAD_REPLY, BR_FROZEN_REPLY,
//! BR_TRANSACTION_PENDING_FROZEN) ends the sender's open "binder
//! transaction" slice there, as trace_processor does. Not imported: binder
//! locks.

use rustc_hash::FxHashMap as HashMap;

use crate::trackers::core::atrace::thread_track;
use crate::trackers::core::slices::PendingSliceArgs;
use crate::trackers::core::tracks::ArgVal;
use crate::trackers::Ctx;

const CATEGORY: &str = "binder";
const LOCK_WAITING: &str = "binder lock waiting";
const LOCK_HELD: &str = "binder lock held";
const TRANSACTION: &str = "binder transaction";
const TRANSACTION_ASYNC: &str = "binder transaction async";
const REPLY: &str = "binder reply";
const ASYNC_RCV: &str = "binder async rcv";
const ONE_WAY: i128 = 0x01;

type ArgList = Vec<(&'static str, ArgVal)>;

struct Outstanding {
    is_reply: bool,
    is_oneway: bool,
    args: ArgList,
    send_track: u32,
    /// the sending slice (None for a reply, or a slice dropped too deep)
    send_slice: Option<u32>,
}

const BC_TRANSACTION: i128 = 0x40406300;
const BC_REPLY: i128 = 0x40406301;
const BC_TRANSACTION_SG: i128 = 0x40486311;
const BC_REPLY_SG: i128 = 0x40486312;
const BR_TRANSACTION_SEC_CTX: i128 = 0x80487202;
const BR_TRANSACTION: i128 = 0x80407202;
const BR_REPLY: i128 = 0x80407203;
const BR_DEAD_REPLY: i128 = 0x7205;
const BR_TRANSACTION_COMPLETE: i128 = 0x7206;
const BR_FAILED_REPLY: i128 = 0x7211;
const BR_FROZEN_REPLY: i128 = 0x7212;
const BR_ONEWAY_SPAM_SUSPECT: i128 = 0x7213;
const BR_TRANSACTION_PENDING_FROZEN: i128 = 0x7214;

/// Where a thread is in a transaction, from the commands it sent and the
/// returns it got (the sender's side `Snd*`, the receiver's `Rcv*`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum FrameState {
    SndAfterBcTransaction,
    SndAfterTransaction,
    SndAfterBrTransactionComplete,
    SndAfterTransactionReceived,
    RcvAfterTransactionReceived,
    RcvAfterBrTransaction,
    RcvAfterBcReply,
    RcvAfterTransaction,
}

struct Frame {
    state: FrameState,
    /// (is_oneway, is_reply) of the frame's transaction, once seen
    txn: Option<(bool, bool)>,
}

/// Open transactions and the args of binder slices (sets made at finish:
/// args are added to a slice after it opened).
#[derive(Default)]
pub struct BinderTracker {
    outstanding: HashMap<i128, Outstanding>,
    /// per utid: its transaction frames (innermost last)
    frames: HashMap<u32, Vec<Frame>>,
    /// binder slices' args so far
    slice_args: PendingSliceArgs,
    /// per track: binder slice rows opened there (most recent last)
    opened: HashMap<u32, Vec<u32>>,
    /// (sending slice, receiving slice) of each received transaction
    flows: Vec<(u32, u32)>,
    /// pids waiting for the binder lock (binder_lock seen)
    attempt_lock: HashMap<i64, i64>,
    /// pids holding it (binder_locked seen)
    lock_acquired: HashMap<i64, i64>,
}

/// `0x%02x` as base::IntToHexString.
pub fn hex(v: i128) -> String {
    format!("0x{v:02x}")
}

fn flags_human(flags: i128) -> String {
    let mut s = String::new();
    if flags & ONE_WAY != 0 {
        s += "this is a one-way call: async, no return; ";
    }
    if flags & 0x04 != 0 {
        s += "contents are the components root object; ";
    }
    if flags & 0x08 != 0 {
        s += "contents are a 32-bit status code; ";
    }
    if flags & 0x10 != 0 {
        s += "allow replies with file descriptors; ";
    }
    if flags == 0 {
        s += "No Flags Set";
    }
    s
}

pub struct Transaction {
    pub tid: i64,
    pub transaction_id: i128,
    pub dest_node: i128,
    pub dest_tgid: i128,
    pub dest_tid: i128,
    pub is_reply: bool,
    pub flags: i128,
    /// the code as trace_processor prints it before " Java Layer Dependent"
    pub code: String,
}

impl BinderTracker {
    fn add_args(&mut self, row: u32, items: ArgList) {
        self.slice_args.add(row, items);
    }

    /// Opens a binder slice; its row, unless it was dropped (too deep).
    fn begin(
        &mut self,
        c: &mut Ctx,
        track: u32,
        ts: i64,
        name: &str,
        dur: i64,
        args: ArgList,
    ) -> Option<u32> {
        let row = c
            .slices
            .begin_in(CATEGORY, track, ts, name.to_owned(), dur, None)?;
        self.opened.entry(track).or_default().push(row);
        self.add_args(row, args);
        Some(row)
    }

    /// The innermost open binder slice named `name` on `track`.
    fn open_named(&self, c: &Ctx, track: u32, name: &str) -> Option<u32> {
        let rows = self.opened.get(&track)?;
        rows.iter().rev().copied().find(|&r| {
            let s = &c.slices.rows[r as usize];
            s.dur == -1 && s.name == name
        })
    }

    /// The destination thread's args: its tid as `tid_value` (signed where
    /// the reply names it, unsigned where the receiving thread is the
    /// event's own pid, as trace_processor types them) and its name.
    fn thread_name_args(c: &Ctx, utid: u32, tid_value: ArgVal) -> ArgList {
        let mut items = vec![("destination thread", tid_value)];
        if let Some(name) = c.pt.t_name[utid as usize].as_deref() {
            items.push(("destination name", ArgVal::Str(name.to_owned())));
        }
        items
    }

    pub fn transaction(&mut self, c: &mut Ctx, ts: i64, t: Transaction) {
        let utid = c.pt.get_or_create_thread(t.tid);
        let track = thread_track(c, utid);
        let args: ArgList = vec![
            ("transaction id", ArgVal::Int(t.transaction_id)),
            ("destination node", ArgVal::Int(t.dest_node)),
            ("destination process", ArgVal::Int(t.dest_tgid)),
            ("reply transaction?", ArgVal::Bool(t.is_reply)),
            (
                "flags",
                ArgVal::Str(format!("{} {}", hex(t.flags), flags_human(t.flags))),
            ),
            (
                "code",
                ArgVal::Str(format!("{} Java Layer Dependent", t.code)),
            ),
            ("calling tid", ArgVal::Uint(t.tid as u64)),
        ];
        let is_oneway = t.flags & ONE_WAY != 0;
        let mut send_slice = None;
        if t.is_reply {
            let dest = c.pt.get_or_create_thread(t.dest_tid as i64);
            if let Some(row) = self.open_named(c, track, REPLY) {
                let items = Self::thread_name_args(c, dest, ArgVal::Int(t.dest_tid));
                self.add_args(row, items);
            }
            if let Some(row) = c.slices.end(track, ts) {
                self.add_args(row, args.clone());
            }
        } else if is_oneway {
            send_slice = self.begin(c, track, ts, TRANSACTION_ASYNC, 0, args.clone());
        } else {
            send_slice = self.begin(c, track, ts, TRANSACTION, -1, args.clone());
        }
        self.outstanding.insert(
            t.transaction_id,
            Outstanding {
                is_reply: t.is_reply,
                is_oneway,
                args,
                send_track: track,
                send_slice,
            },
        );
        if let Some(frame) = self.top(utid) {
            let txn = Some((is_oneway, t.is_reply));
            match frame.state {
                FrameState::SndAfterBcTransaction => {
                    frame.state = FrameState::SndAfterTransaction;
                    frame.txn = txn;
                }
                FrameState::RcvAfterBcReply => {
                    frame.state = FrameState::RcvAfterTransaction;
                    frame.txn = txn;
                }
                // commands are probably not traced
                FrameState::RcvAfterTransactionReceived => self.pop(utid),
                _ => {}
            }
        }
    }

    fn top(&mut self, utid: u32) -> Option<&mut Frame> {
        self.frames.get_mut(&utid).and_then(|s| s.last_mut())
    }

    fn push(&mut self, utid: u32, state: FrameState, txn: Option<(bool, bool)>) {
        self.frames
            .entry(utid)
            .or_default()
            .push(Frame { state, txn });
    }

    fn pop(&mut self, utid: u32) {
        if let Some(stack) = self.frames.get_mut(&utid) {
            stack.pop();
            if stack.is_empty() {
                self.frames.remove(&utid);
            }
        }
    }

    /// binder_command: the thread starts a transaction or a reply.
    pub fn command(&mut self, c: &mut Ctx, pid: i64, cmd: i128) {
        let utid = c.pt.get_or_create_thread(pid);
        match cmd {
            BC_TRANSACTION | BC_TRANSACTION_SG => {
                self.push(utid, FrameState::SndAfterBcTransaction, None)
            }
            BC_REPLY | BC_REPLY_SG => {
                if let Some(f) = self.top(utid) {
                    if f.state == FrameState::RcvAfterBrTransaction {
                        f.state = FrameState::RcvAfterBcReply;
                    }
                }
            }
            _ => {}
        }
    }

    /// binder_return: what the kernel answered the thread; a failed
    /// transaction ends the sender's open slice.
    pub fn returned(&mut self, c: &mut Ctx, ts: i64, pid: i64, cmd: i128) {
        let utid = c.pt.get_or_create_thread(pid);
        let Some(frame) = self.top(utid) else {
            return;
        };
        match cmd {
            BR_DEAD_REPLY | BR_FAILED_REPLY | BR_FROZEN_REPLY | BR_TRANSACTION_PENDING_FROZEN => {
                match frame.state {
                    // failed before binder_transaction: no slice opened
                    FrameState::SndAfterBcTransaction => self.pop(utid),
                    FrameState::RcvAfterBcReply
                    | FrameState::SndAfterTransaction
                    | FrameState::RcvAfterTransaction
                    | FrameState::SndAfterBrTransactionComplete => {
                        if frame.txn == Some((false, false)) {
                            let track = thread_track(c, utid);
                            c.slices.end(track, ts);
                        }
                        self.pop(utid);
                    }
                    _ => {}
                }
            }
            BR_TRANSACTION_COMPLETE | BR_ONEWAY_SPAM_SUSPECT => match frame.state {
                FrameState::RcvAfterTransaction | FrameState::SndAfterBcTransaction => {
                    self.pop(utid)
                }
                FrameState::SndAfterTransaction => {
                    if matches!(frame.txn, Some((false, _))) {
                        frame.state = FrameState::SndAfterBrTransactionComplete;
                    } else {
                        // a one-way transaction's last event
                        self.pop(utid);
                    }
                }
                _ => {}
            },
            BR_REPLY if frame.state == FrameState::SndAfterTransactionReceived => {
                self.pop(utid);
            }
            BR_TRANSACTION | BR_TRANSACTION_SEC_CTX
                if frame.state == FrameState::RcvAfterTransactionReceived =>
            {
                frame.state = FrameState::RcvAfterBrTransaction;
            }
            _ => {}
        }
    }

    pub fn received(&mut self, c: &mut Ctx, ts: i64, pid: i64, transaction_id: i128) {
        let Some(t) = self.outstanding.remove(&transaction_id) else {
            return;
        };
        let utid = c.pt.get_or_create_thread(pid);
        let track = thread_track(c, utid);
        if !t.is_oneway {
            if !t.is_reply {
                self.push(
                    utid,
                    FrameState::RcvAfterTransactionReceived,
                    Some((false, false)),
                );
            } else if let Some(f) = self.top(utid) {
                if f.state == FrameState::SndAfterBrTransactionComplete {
                    f.state = FrameState::SndAfterTransactionReceived;
                }
            }
        }
        if t.is_reply {
            // the reply's receipt ends the sender's slice; no flow
            c.slices.end(track, ts);
            return;
        }
        let recv_slice = if t.is_oneway {
            self.begin(c, track, ts, ASYNC_RCV, 0, t.args)
        } else {
            if let Some(row) = self.open_named(c, t.send_track, TRANSACTION) {
                let items = Self::thread_name_args(c, utid, ArgVal::Uint(pid as u64));
                self.add_args(row, items);
            }
            self.begin(c, track, ts, REPLY, -1, Vec::new())
        };
        // the flow from the sending slice to this one
        if let (Some(out), Some(into)) = (t.send_slice, recv_slice) {
            self.flows.push((out, into));
        }
    }

    pub fn alloc_buf(&mut self, c: &mut Ctx, pid: i64, data_size: i128, offsets_size: i128) {
        let utid = c.pt.get_or_create_thread(pid);
        let track = thread_track(c, utid);
        if let Some(row) = self.open_named(c, track, TRANSACTION) {
            self.add_args(
                row,
                vec![
                    ("data size", ArgVal::Uint(data_size as u64)),
                    ("offsets size", ArgVal::Uint(offsets_size as u64)),
                ],
            );
        }
    }

    /// binder_lock (BinderTracker::Lock): "binder lock waiting" opens on the
    /// thread's track.
    pub fn lock(&mut self, c: &mut Ctx, ts: i64, pid: i64) {
        self.attempt_lock.insert(pid, ts);
        let utid = c.pt.get_or_create_thread(pid);
        let track = thread_track(c, utid);
        self.begin(c, track, ts, LOCK_WAITING, -1, Vec::new());
    }

    /// binder_locked (BinderTracker::Locked): after a binder_lock, the
    /// innermost open slice ends and "binder lock held" opens.
    pub fn locked(&mut self, c: &mut Ctx, ts: i64, pid: i64) {
        let utid = c.pt.get_or_create_thread(pid);
        if self.attempt_lock.remove(&pid).is_none() {
            return;
        }
        let track = thread_track(c, utid);
        c.slices.end(track, ts);
        self.begin(c, track, ts, LOCK_HELD, -1, Vec::new());
        self.lock_acquired.insert(pid, ts);
    }

    /// binder_unlock (BinderTracker::Unlock): after a binder_locked, the
    /// innermost open "binder lock held" ends.
    pub fn unlock(&mut self, c: &mut Ctx, ts: i64, pid: i64) {
        let utid = c.pt.get_or_create_thread(pid);
        if self.lock_acquired.remove(&pid).is_none() {
            return;
        }
        let track = thread_track(c, utid);
        c.slices
            .end_matching(track, ts, Some(CATEGORY), Some(LOCK_HELD));
    }

    /// The binder slices' arg sets, made once every arg is known, and the
    /// flows.
    pub fn finish(self, c: &mut Ctx) {
        c.flows
            .extend(self.flows.into_iter().map(|(o, i)| (o, i, None)));
        self.slice_args.commit(c);
    }
}
