//! Hand-derived shapes: the same operation sequence must give the same shape and colours as
//! lib/rbtree.c. Each expected string was worked out by hand from the kernel's case analysis
//! (derivations in the comments). Notation: `2B(1B,4R(3B,-))` is node 2, black, with left
//! child 1 and right child 4; `-` is an empty child; leaves drop the parentheses. Nodes are
//! named by their start; every interval is [start*10 .. start*10 + 5] unless said otherwise.

use rmapcheck::tree::{interval, validate, Color, IntervalKeys, NodeId, RbRoot, TreeObs};

struct Keys(Vec<(u64, u64)>);

impl IntervalKeys for Keys {
    fn start(&self, n: NodeId) -> u64 {
        self.0[n as usize].0
    }
    fn last(&self, n: NodeId) -> u64 {
        self.0[n as usize].1
    }
}

/// Builds a tree by inserting keys (given as small numbers) in order; id i is the i-th key.
struct Fixture {
    t: RbRoot,
    k: Keys,
    obs: TreeObs,
}

impl Fixture {
    fn new(order: &[u64]) -> Self {
        let mut f = Fixture {
            t: RbRoot::new(),
            k: Keys(Vec::new()),
            obs: TreeObs::default(),
        };
        for &x in order {
            f.insert(x);
        }
        f
    }

    fn insert(&mut self, x: u64) {
        let id = self.k.0.len() as NodeId;
        self.k.0.push((x * 10, x * 10 + 5));
        interval::insert(&mut self.t, &self.k, id, &mut self.obs).unwrap();
        assert_eq!(validate(&self.t, &self.k), vec![]);
    }

    fn id_of(&self, x: u64) -> NodeId {
        self.k.0.iter().position(|k| k.0 == x * 10).unwrap() as NodeId
    }

    fn erase(&mut self, x: u64) {
        let id = self.id_of(x);
        interval::remove(&mut self.t, &self.k, id, &mut self.obs).unwrap();
        assert_eq!(validate(&self.t, &self.k), vec![]);
    }

    fn shape(&self) -> String {
        fn go(f: &Fixture, n: Option<NodeId>) -> String {
            let Some(n) = n else { return "-".into() };
            let rec = f.t.node(n).unwrap();
            let c = if rec.color == Color::Red { 'R' } else { 'B' };
            let me = format!("{}{c}", f.k.0[n as usize].0 / 10);
            if rec.left.is_none() && rec.right.is_none() {
                me
            } else {
                format!("{me}({},{})", go(f, rec.left), go(f, rec.right))
            }
        }
        go(self, self.t.root())
    }
}

/// Ascending 1..=7.
/// 1: root, black.  2: black parent, stays red right of 1.
/// 3: red parent 2, no uncle, outer child -> case 3, left rotate at 1: 2B(1R,3R).
/// 4: uncle 1 red -> case 1 flip: 1B 3B, 2 red then recoloured black as root.
/// 5: parent 4 red, no uncle, outer -> left rotate at 3: 2B(1B,4B(3R,5R)).
/// 6: uncle 3 red -> flip: 3B 5B 4R; 4's parent 2 is black, stop.
/// 7: parent 6 red, no uncle -> left rotate at 5: 6 takes 5's black, 5 red.
#[test]
fn ascending_one_to_seven() {
    let mut f = Fixture::new(&[1, 2, 3]);
    assert_eq!(f.shape(), "2B(1R,3R)");
    f.insert(4);
    assert_eq!(f.shape(), "2B(1B,3B(-,4R))");
    f.insert(5);
    assert_eq!(f.shape(), "2B(1B,4B(3R,5R))");
    f.insert(6);
    assert_eq!(f.shape(), "2B(1B,4R(3B,5B(-,6R)))");
    f.insert(7);
    assert_eq!(f.shape(), "2B(1B,4R(3B,6B(5R,7R)))");
    // Rotations: at 1 (ins 3), at 3 (ins 5), at 5 (ins 7).
    assert_eq!(f.obs.stats.rotations, 3);
}

/// Descending is the mirror image of ascending.
#[test]
fn descending_seven_to_one_is_the_mirror() {
    let f = Fixture::new(&[7, 6, 5, 4, 3, 2, 1]);
    assert_eq!(f.shape(), "6B(4R(2B(1R,3R),5B),7B)");
}

/// Insert case 2 then 3: 3, 1, 2. 2 lands right of 1 (inner child of grandparent 3): case 2
/// rotates left at 1 (2 above 1), case 3 rotates right at 3; 2 takes 3's black.
#[test]
fn insert_inner_child_double_rotation() {
    let f = Fixture::new(&[3, 1, 2]);
    assert_eq!(f.shape(), "2B(1R,3R)");
    assert_eq!(f.obs.stats.rotations, 2);
}

/// Erase colour case 1 (red sibling) followed by case 2 ending at a red parent.
/// From 2B(1B,4R(3B,6B(5R,7R))) erase 1: black leaf, rebalance at 2 with node on the left.
/// Sibling 4 red -> case 1: rotate left at 2, 4 takes 2's black, 2 red, new sibling 3.
/// 3 has no children -> case 2: 3 red; parent 2 red -> 2 black, done.
#[test]
fn erase_case1_then_case2_red_parent() {
    let mut f = Fixture::new(&[1, 2, 3, 4, 5, 6, 7]);
    let before = f.obs.stats.rotations;
    f.erase(1);
    assert_eq!(f.shape(), "4B(2B(-,3R),6B(5R,7R))");
    assert_eq!(f.obs.stats.rotations - before, 1);
}

/// Erase colour case 2 climbing to the root: 1,2,3,4 then erase 4 (red leaf, no
/// rebalancing) gives 2B(1B,3B); erase 1: sibling 3 black with no children -> 3 red, parent 2
/// black -> move up to 2, which is the root: stop.
#[test]
fn erase_case2_reaches_root() {
    let mut f = Fixture::new(&[1, 2, 3, 4]);
    f.erase(4);
    assert_eq!(f.shape(), "2B(1B,3B)");
    f.erase(1);
    assert_eq!(f.shape(), "2B(-,3R)");
}

/// Erase colour case 3 then case 4: 2,1,4,3 gives 2B(1B,4B(3R,-)). Erase 1: sibling 4 black,
/// its outer (right) child absent, inner 3 red -> case 3 rotates right at 4 (3 above 4);
/// case 4 rotates left at 2: 3 takes 2's black, 2 and 4 black.
#[test]
fn erase_case3_then_case4() {
    let mut f = Fixture::new(&[2, 1, 4, 3]);
    assert_eq!(f.shape(), "2B(1B,4B(3R,-))");
    let before = f.obs.stats.rotations;
    f.erase(1);
    assert_eq!(f.shape(), "3B(2B,4B)");
    assert_eq!(f.obs.stats.rotations - before, 2);
}

/// Erase colour case 4 alone, and its mirror image.
/// 2,1,3,4 gives 2B(1B,3B(-,4R)); erase 1: sibling 3's outer child 4 red -> rotate left at 2.
/// 3,4,2,1 gives 3B(2B(1R,-),4B); erase 4: the mirror, rotate right at 3.
#[test]
fn erase_case4_and_mirror() {
    let mut f = Fixture::new(&[2, 1, 3, 4]);
    assert_eq!(f.shape(), "2B(1B,3B(-,4R))");
    f.erase(1);
    assert_eq!(f.shape(), "3B(2B,4B)");

    let mut g = Fixture::new(&[3, 4, 2, 1]);
    assert_eq!(g.shape(), "3B(2B(1R,-),4B)");
    g.erase(4);
    assert_eq!(g.shape(), "2B(1B,3B)");
}

/// Erase with two children, successor deep (erase case 3): from the 1..=7 tree erase 4
/// (red). Successor = leftmost of 6's subtree = 5; 6.left <- 5's right (none); 5 takes 4's
/// place and colour (red). 5 was red, so no rebalancing.
#[test]
fn erase_two_children_deep_successor() {
    let mut f = Fixture::new(&[1, 2, 3, 4, 5, 6, 7]);
    f.erase(4);
    assert_eq!(f.shape(), "2B(1B,5R(3B,6B(-,7R)))");
}

/// Erase with two children, successor is the right child (erase case 2): from the 1..=7
/// tree erase 6 (black). 7 takes 6's place and colour (black), adopts 5. 7 was red: no
/// rebalancing.
#[test]
fn erase_two_children_successor_is_right_child() {
    let mut f = Fixture::new(&[1, 2, 3, 4, 5, 6, 7]);
    f.erase(6);
    assert_eq!(f.shape(), "2B(1B,4R(3B,7B(5R,-)))");
}

/// Erase the root of the 1..=7 tree: successor 3 (black, leftmost under 4) takes the root;
/// 4 loses its left child and is one black short -> rebalance at 4, node on the left,
/// sibling 6 black with red outer child 7 -> case 4: rotate left at 4, 6 takes 4's red, 4 and
/// 7 black, 5 moves under 4.
#[test]
fn erase_root_black_successor_rebalances() {
    let mut f = Fixture::new(&[1, 2, 3, 4, 5, 6, 7]);
    f.erase(2);
    assert_eq!(f.shape(), "3B(1B,6R(4B(-,5R),7B))");
}

/// subtree_last follows rotations and erases. Intervals: 1:[10..90], others [x*10..x*10+5].
#[test]
fn augment_tracks_rotations_and_erase() {
    let mut f = Fixture::new(&[]);
    f.k.0.push((10, 90));
    interval::insert(&mut f.t, &f.k, 0, &mut f.obs).unwrap();
    for x in 2..=7 {
        f.insert(x);
    }
    let root = f.t.root().unwrap();
    assert_eq!(f.t.node(root).unwrap().subtree_last, 90);
    f.erase(1);
    let root = f.t.root().unwrap();
    assert_eq!(f.t.node(root).unwrap().subtree_last, 75);
    assert_eq!(validate(&f.t, &f.k), vec![]);
}
