//! What the breadth-first search keeps between depths: parent links (8 bytes a state, the
//! actions numbered once each), the seen-set of fingerprints, and the frontier, the states of
//! one depth still to expand. For a system that rebuilds a successor from its parent
//! ([`FrontierTuning::successor`]) the frontier is compact: a node and a fingerprint per
//! state, the state itself rebuilt by a [`Replayer`] from the initial state along its parent
//! links when a worker expands it. Otherwise the frontier holds whole states.

use super::FrontierTuning;
use std::collections::HashMap;
use std::hash::Hash;

/// The node of the initial state.
pub(super) const ROOT: u32 = 0;
/// No parent, no action (the initial state's node).
const NONE: u32 = u32::MAX;

/// The seen-set: the fingerprints, already uniform, hashed as themselves.
pub(super) type Seen = nohash_hasher::IntSet<u64>;

/// Parent link of a state: its parent's node and the number of the action that reached it.
#[derive(Clone, Copy)]
pub(super) struct Node {
    parent: u32,
    action: u32,
}

/// The parent links of every state that was or will be expanded, and the actions they name.
/// Workers read it while a depth is expanded; what the merge adds meanwhile waits in
/// [`NewLinks`] until the depth ends.
pub(super) struct Links<A> {
    pub(super) nodes: Vec<Node>,
    pub(super) actions: Vec<A>,
}

impl<A: Clone> Links<A> {
    pub(super) fn new() -> Self {
        Links {
            nodes: vec![Node {
                parent: NONE,
                action: NONE,
            }],
            actions: Vec::new(),
        }
    }

    /// The actions from the initial state to node `idx`.
    pub(super) fn path(&self, mut idx: u32) -> Vec<A> {
        let mut out = Vec::new();
        while idx != NONE {
            let n = self.nodes[idx as usize];
            if n.action != NONE {
                out.push(self.actions[n.action as usize].clone());
            }
            idx = n.parent;
        }
        out.reverse();
        out
    }

    /// Bytes the links hold (`action_bytes`: the heap bytes of one action).
    pub(super) fn bytes(&self, action_bytes: impl Fn(&A) -> usize) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.actions.capacity() * std::mem::size_of::<A>()
            + self.actions.iter().map(action_bytes).sum::<usize>()
    }
}

/// The links the merge of one depth adds: new nodes, new actions, and the numbering of every
/// action seen so far.
pub(super) struct NewLinks<A> {
    nodes: Vec<Node>,
    actions: Vec<A>,
    ids: HashMap<A, u32>,
}

impl<A: Clone + Eq + Hash> NewLinks<A> {
    pub(super) fn new() -> Self {
        NewLinks {
            nodes: Vec::new(),
            actions: Vec::new(),
            ids: HashMap::new(),
        }
    }

    /// Add a node reached from `parent` by `action`; its index.
    pub(super) fn push(&mut self, links: &Links<A>, parent: u32, action: A) -> u32 {
        let next = (links.actions.len() + self.actions.len()) as u32;
        let id = match self.ids.get(&action) {
            Some(&id) => id,
            None => {
                self.actions.push(action.clone());
                self.ids.insert(action, next);
                next
            }
        };
        self.nodes.push(Node { parent, action: id });
        (links.nodes.len() + self.nodes.len() - 1) as u32
    }

    /// Append what was added to `links` (at the end of a depth).
    pub(super) fn commit(&mut self, links: &mut Links<A>) {
        links.nodes.append(&mut self.nodes);
        links.actions.append(&mut self.actions);
    }

    /// Heap bytes of the action numbering.
    pub(super) fn bytes(&self) -> usize {
        self.ids.capacity() * (std::mem::size_of::<(A, u32)>() + 1)
    }
}

/// The states of one depth to expand, in order: node and fingerprint (compact), or node and
/// state.
pub(super) enum Frontier<S> {
    Compact(Vec<(u32, u64)>),
    Whole(Vec<(u32, S)>),
}

impl<S> Frontier<S> {
    pub(super) fn new(compact: bool) -> Self {
        if compact {
            Frontier::Compact(Vec::new())
        } else {
            Frontier::Whole(Vec::new())
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Frontier::Compact(v) => v.len(),
            Frontier::Whole(v) => v.len(),
        }
    }

    /// The node of the `k`-th state.
    pub(super) fn node(&self, k: usize) -> u32 {
        match self {
            Frontier::Compact(v) => v[k].0,
            Frontier::Whole(v) => v[k].0,
        }
    }

    /// The `k`-th state, where the frontier keeps states.
    pub(super) fn state_mut(&mut self, k: usize) -> Option<&mut S> {
        match self {
            Frontier::Compact(_) => None,
            Frontier::Whole(v) => Some(&mut v[k].1),
        }
    }

    /// Hand every state the frontier keeps to `done` (a frontier that was expanded).
    pub(super) fn release(self, done: impl FnMut(S)) {
        if let Frontier::Whole(v) = self {
            v.into_iter().map(|(_, s)| s).for_each(done);
        }
    }

    /// Add a state (`state` is dropped by a compact frontier).
    pub(super) fn push(&mut self, node: u32, fp: u64, state: Option<S>) {
        match (self, state) {
            (Frontier::Compact(v), _) => v.push((node, fp)),
            (Frontier::Whole(v), Some(s)) => v.push((node, s)),
            (Frontier::Whole(_), None) => unreachable!("a whole frontier is given every state"),
        }
    }
}

/// Rebuilds the states of a compact frontier by replaying their paths from the initial state,
/// keeping the states along the last path rebuilt: the frontier lists siblings together and
/// parents in order, so a state usually costs one [`FrontierTuning::successor`].
pub(super) struct Replayer<'a, T: FrontierTuning> {
    sys: &'a T,
    links: &'a Links<T::Action>,
    root: &'a T::State,
    /// `(node, state)` at depths 1, 2, ... of the last path rebuilt.
    path: Vec<(u32, T::State)>,
    /// Scratch: the nodes from depth 1 to the one asked for.
    chain: Vec<u32>,
}

impl<'a, T: FrontierTuning> Replayer<'a, T> {
    pub(super) fn new(sys: &'a T, links: &'a Links<T::Action>, root: &'a T::State) -> Self {
        Replayer {
            sys,
            links,
            root,
            path: Vec::new(),
            chain: Vec::new(),
        }
    }

    /// The state of node `idx`, checked against its fingerprint `fp`; why it could not be
    /// rebuilt otherwise (never expected: the search then stops, incomplete).
    pub(super) fn state(&mut self, idx: u32, fp: u64) -> Result<&T::State, String> {
        self.chain.clear();
        let mut i = idx;
        while i != ROOT {
            self.chain.push(i);
            i = self.links.nodes[i as usize].parent;
        }
        self.chain.reverse();
        let keep = self
            .path
            .iter()
            .zip(&self.chain)
            .take_while(|((n, _), c)| n == *c)
            .count();
        for (_, s) in self.path.drain(keep..) {
            self.sys.recycle(s);
        }
        for k in keep..self.chain.len() {
            let node = self.chain[k];
            let parent = self.path.last().map_or(self.root, |(_, s)| s);
            let action = self.links.nodes[node as usize].action;
            let a = &self.links.actions[action as usize];
            let s = self.sys.successor(parent, a).ok_or_else(|| {
                "internal error: the system cannot rebuild a state of its compact frontier"
                    .to_string()
            })?;
            self.path.push((node, s));
        }
        let s = self.path.last().map_or(self.root, |(_, s)| s);
        if self.sys.fingerprint(s) != fp {
            return Err(format!(
                "internal error: the state rebuilt along path {:?} does not have the \
                 fingerprint it was found with",
                self.chain
            ));
        }
        Ok(s)
    }
}
