//! The state of an interleaving exploration: the world and every thread's stack. A step
//! changes the world and one thread, so a successor shares the other threads with its parent
//! (each thread is behind an `Arc`, copied only when stepped: [`IState::step_with`]), and each
//! thread's hash (`Thread::state_hash`) is kept beside it, worked out again only when it is stepped: a state's
//! fingerprint hashes the world and those per-thread hashes. Copies are made into states an
//! exploration is done with ([`spare_copy`], [`recycle`]), so that the world's vectors and a
//! stepped thread's frames keep their allocations.

use crate::exec::Thread;
use crate::world::World;
use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A search state.
pub struct IState {
    pub world: World,
    /// Every thread, shared with the states this one was copied from until it is stepped.
    /// Change a thread only through [`IState::step_with`], which keeps its hash.
    pub threads: Vec<Arc<Thread>>,
    /// `hashes[i]`: `threads[i].state_hash()`.
    hashes: Vec<u64>,
}

impl IState {
    /// A state of `world` and `threads`.
    pub fn new(world: World, threads: Vec<Thread>) -> IState {
        let hashes = threads.iter().map(Thread::state_hash).collect();
        IState {
            world,
            threads: threads.into_iter().map(Arc::new).collect(),
            hashes,
        }
    }

    /// Run `f` on thread `tid` (copied first if another state shares it) and the world; the
    /// thread's hash is then worked out again.
    pub fn step_with<R>(&mut self, tid: usize, f: impl FnOnce(&mut Thread, &mut World) -> R) -> R {
        let slot = &mut self.threads[tid];
        if Arc::get_mut(slot).is_none() {
            let fresh = match SPARE_THREADS.with(|p| p.borrow_mut().pop()) {
                Some(mut a) => {
                    Arc::get_mut(&mut a)
                        .expect("a spare thread is no state's")
                        .clone_from(slot);
                    a
                }
                None => Arc::new(Thread::clone(slot)),
            };
            *slot = fresh;
        }
        let t = Arc::get_mut(slot).expect("the thread was just copied");
        let r = f(t, &mut self.world);
        self.hashes[tid] = t.state_hash();
        r
    }
}

impl PartialEq for IState {
    fn eq(&self, other: &Self) -> bool {
        self.world == other.world && self.threads == other.threads
    }
}

impl Eq for IState {}

/// The world, then each thread's hash: equal states hash alike.
impl Hash for IState {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.world.hash(h);
        self.hashes.hash(h);
    }
}

impl Clone for IState {
    fn clone(&self) -> Self {
        IState {
            world: self.world.clone(),
            threads: self.threads.clone(),
            hashes: self.hashes.clone(),
        }
    }

    /// Overwrites `self` keeping its world's allocations; its threads go to the spares.
    fn clone_from(&mut self, src: &Self) {
        self.world.clone_from(&src.world);
        for t in self.threads.drain(..) {
            recycle_thread(t);
        }
        self.threads.extend(src.threads.iter().cloned());
        self.hashes.clone_from(&src.hashes);
    }
}

/// Most states, and most threads, kept for reuse per OS thread.
const SPARES: usize = 256;

thread_local! {
    /// States an exploration on this OS thread is done with (a successor already seen, a
    /// state expanded, a blocked step's copy), overwritten by the next copies instead of
    /// allocating new ones. Kept across explorations: those of one call against its walkers
    /// have worlds of one shape.
    // boxed: the search's states are the boxes themselves, kept and handed out as they are
    #[allow(clippy::vec_box)]
    static SPARE_STATES: RefCell<Vec<Box<IState>>> = const { RefCell::new(Vec::new()) };
    /// Threads no state holds any more, overwritten by the next thread stepped.
    static SPARE_THREADS: RefCell<Vec<Arc<Thread>>> = const { RefCell::new(Vec::new()) };
}

/// A copy of `s` in a spare state, or a new copy.
pub(super) fn spare_copy(s: &IState) -> Box<IState> {
    match SPARE_STATES.with(|p| p.borrow_mut().pop()) {
        Some(mut n) => {
            (*n).clone_from(s);
            n
        }
        None => Box::new(s.clone()),
    }
}

/// Keep `s` for a later [`spare_copy`], and its threads no other state holds for later
/// steps (up to [`SPARES`] of each per OS thread; the rest are dropped).
pub(super) fn recycle(mut s: Box<IState>) {
    for t in s.threads.drain(..) {
        recycle_thread(t);
    }
    SPARE_STATES.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() < SPARES {
            p.push(s);
        }
    });
}

/// Keep `t` for a later step if no state holds it any more (else drop this hold).
fn recycle_thread(mut t: Arc<Thread>) {
    if Arc::get_mut(&mut t).is_some() {
        SPARE_THREADS.with(|p| {
            let mut p = p.borrow_mut();
            if p.len() < SPARES {
                p.push(t);
            }
        });
    }
}
