//! Tree generations: the kernel trees the C harness builds from, told apart by the functions
//! their mm/interval_tree.c defines, and for each the kernel's names of what the glue calls by
//! the harness's names (the v7.3 ones) with the C that expresses the one in the other.
//!
//! The glue (cglue/) is written against v7.3: the rmap trees' functions take the tree's owner
//! (`mapping_rmap_tree_insert(vma, mapping)`, `anon_rmap_tree_insert(avc, anon_vma)`) and a VMA
//! has two page offsets (`vm_pgoff` and the anonymous one). A v7.2 tree names the same trees'
//! functions `vma_interval_tree_*` and `anon_vma_interval_tree_*` and passes the tree's root
//! (`&mapping->i_mmap`, `&anon_vma->rb_root`), and keeps one page offset, `vm_pgoff`, which
//! keys both trees. [`GENERATIONS`] is the one table of such differences; the build
//! (`build.rs`) writes a generation's C into the build directory as `generation.h` (before the
//! kernel's files: the routes of the tree operations to the glue's checked wrappers) and at the
//! end of `rmap_gen.c` (after mm/interval_tree.c: the harness's names in the tree's terms).
//! Every line of that C is ours; none is taken from a kernel tree.

use super::csource;
use std::path::Path;

/// One generation of kernel trees.
#[derive(Debug)]
pub struct Generation {
    /// Its name in reports and errors.
    pub name: &'static str,
    /// The release whose files every entry was read from.
    pub read_in: &'static str,
    /// The model of this generation's kernel, which `check --kernel` and `cdiff` compare with
    /// the tree's C unless a model is named.
    pub model: &'static str,
    /// A function that this generation's mm/interval_tree.c defines and no other's does.
    pub marker: &'static str,
    /// The harness's names (v7.3's) that this generation's kernel spells otherwise:
    /// `(harness name, kernel name)`. The tree operations among them are compiled from
    /// mm/interval_tree.c under `__real_KERNEL`, and the stubs the build cuts from the tests'
    /// include/stubs.h are looked up by the kernel name.
    pub renames: &'static [(&'static str, &'static str)],
    /// C routing each tree operation, by the name and with the arguments this generation's
    /// mm/vma.c and mm/rmap.c call it, to the glue's checked wrapper `glue_HARNESS` (which takes
    /// the tree's owner). Emitted before mm/vma.c, and again after mm/interval_tree.c.
    pub routes: &'static str,
    /// Where this generation's C does what the v7.3 model does not: a divergence from another
    /// generation's model (not [`Generation::model`]) whose first differing line is explained
    /// by one of them is named so.
    pub differences: &'static [VersionDifference],
    /// C emitted after mm/interval_tree.c, before the functions of mm/rmap.c and the glue:
    /// `__real_HARNESS` (what the glue's wrappers call) and every other harness name the glue
    /// or the compiled kernel functions use, in this generation's terms.
    pub shims: &'static str,
}

/// A behaviour of a generation's kernel that the v7.3 model does not have: a reason the model
/// may leave that tree's C, found by the field it shows in the canonical world.
#[derive(Debug)]
pub struct VersionDifference {
    pub name: &'static str,
    /// The canonical world's field (a `NAME VALUE` pair of a VMA line) in which it shows.
    pub field: &'static str,
    /// What the tree's kernel does, what v7.3 does, naming the kernel files and functions.
    pub what: &'static str,
}

impl Generation {
    /// The difference of this generation that explains a first differing line pair (the C's
    /// `c`, the model's `model`): the lines agree once its field is left out of both.
    pub fn explain(&self, c: &str, model: &str) -> Option<&'static VersionDifference> {
        fn without<'a>(l: &'a str, field: &str) -> Vec<&'a str> {
            let w: Vec<&str> = l.split_whitespace().collect();
            let mut out = Vec::new();
            let mut i = 0;
            while i < w.len() {
                if w[i] == field {
                    i += 2;
                } else {
                    out.push(w[i]);
                    i += 1;
                }
            }
            out
        }
        self.differences.iter().find(|d| {
            c.split_whitespace().any(|w| w == d.field)
                && c != model
                && without(c, d.field) == without(model, d.field)
        })
    }

    /// [`Generation::explain`] for a comparison with the model `model`: nothing when it is this
    /// generation's own model ([`Generation::model`]), which follows this tree's kernel, so that
    /// a divergence from it is never excused as a version difference.
    pub fn explain_for(
        &self,
        model: &Path,
        c: &str,
        m: &str,
    ) -> Option<&'static VersionDifference> {
        if self.is_own_model(model) {
            None
        } else {
            self.explain(c, m)
        }
    }

    /// Whether `model` names this generation's model file.
    pub fn is_own_model(&self, model: &Path) -> bool {
        crate::models::same_file(model, Path::new(self.model))
    }

    /// Why `model` is the one compared with this generation's tree, for the reports' tree line:
    /// `named` on the command line, or else this generation's.
    pub fn model_origin(&self, model: &Path, named: bool) -> String {
        match named {
            true if self.is_own_model(model) => format!("named; the {} tree's model", self.name),
            true => format!("named; the {} tree's model is {}", self.name, self.model),
            false => format!(
                "the default for a {} tree, read in {}",
                self.name, self.read_in
            ),
        }
    }

    /// The report's paragraph naming `d` as the reason for a divergence.
    pub fn difference_text(&self, d: &VersionDifference) -> String {
        format!(
            "\nVERSION DIFFERENCE `{}`: this is a {} tree (read in {}) and the model follows \
             {} (read in {}); the first differing line differs only in `{}`, where the two \
             kernels differ: {} (the model of this tree's generation is {})\n",
            d.name, self.name, self.read_in, V7_3.name, V7_3.read_in, d.field, d.what, self.model
        )
    }

    /// The kernel's name, in this generation, of the harness's name `harness`.
    pub fn kernel_name<'a>(&self, harness: &'a str) -> &'a str {
        self.renames
            .iter()
            .find(|(h, _)| *h == harness)
            .map_or(harness, |(_, k)| k)
    }

    /// `names` (harness names) as this generation's kernel spells them.
    pub fn kernel_names(&self, names: &[&'static str]) -> Vec<&'static str> {
        names.iter().map(|n| self.kernel_name(n)).collect()
    }

    /// Bytes that change with the generation, for the build's cache key.
    pub fn key_bytes(&self) -> Vec<u8> {
        [self.name, "\0", self.routes, "\0", self.shims]
            .concat()
            .into_bytes()
    }
}

/// The tree operations mm/vma.c and mm/rmap.c call, by the harness's names: each is routed
/// through the glue's lock-checking wrapper `glue_NAME` (cglue/glue.c).
pub const TREE_OPS: &[&str] = &[
    "mapping_rmap_tree_insert",
    "mapping_rmap_tree_insert_after",
    "mapping_rmap_tree_remove",
    "anon_rmap_tree_insert",
    "anon_rmap_tree_remove",
];

/// The routes of the harness's (v7.3's) names of the tree operations to the glue's checked
/// wrappers: v7.3's own routes, and in an older generation's shims the glue's own calls.
macro_rules! owner_routes {
    () => {
        "\
#define mapping_rmap_tree_insert glue_mapping_rmap_tree_insert
#define mapping_rmap_tree_insert_after glue_mapping_rmap_tree_insert_after
#define mapping_rmap_tree_remove glue_mapping_rmap_tree_remove
#define anon_rmap_tree_insert glue_anon_rmap_tree_insert
#define anon_rmap_tree_remove glue_anon_rmap_tree_remove
"
    };
}

/// v7.3 (read in v7.3-rc7): the names the glue is written in.
pub const V7_3: Generation = Generation {
    name: "v7.3",
    read_in: "v7.3-rc7",
    model: crate::models::BASELINE,
    marker: "mapping_rmap_tree_insert",
    renames: &[],
    differences: &[],
    routes: owner_routes!(),
    shims: "\
/* a boundary move may give the VMA that keeps its start any file offset (cglue/contract.c) */
static inline bool glue_kept_pgoff_allowed(struct vm_area_struct *vma, pgoff_t pgoff)
{
	(void)vma;
	(void)pgoff;
	return true;
}

/* a boundary move's anonymous page offset (cglue/contract.c) */
static inline void glue_vmg_set_anon_pgoff(struct vma_merge_struct *vmg, pgoff_t pgoff)
{
	vmg->anon_pgoff = pgoff;
}
",
};

/// v7.2 (read in 7.2.13): the rmap trees before their functions took the tree's owner, and a
/// VMA with one page offset.
pub const V7_2: Generation = Generation {
    name: "v7.2",
    read_in: "7.2.13",
    model: crate::models::V7_2_MODEL,
    marker: "vma_interval_tree_insert_after",
    differences: &[ONE_PAGE_OFFSET],
    renames: &[
        ("mapping_rmap_tree_insert", "vma_interval_tree_insert"),
        (
            "mapping_rmap_tree_insert_after",
            "vma_interval_tree_insert_after",
        ),
        ("mapping_rmap_tree_remove", "vma_interval_tree_remove"),
        ("anon_rmap_tree_insert", "anon_vma_interval_tree_insert"),
        ("anon_rmap_tree_remove", "anon_vma_interval_tree_remove"),
    ],
    routes: "\
/* 7.2's tree operations take the tree's root: the glue's wrappers take the root's owner */
#define vma_interval_tree_insert(vma, root) \\
	glue_mapping_rmap_tree_insert(vma, container_of(root, struct address_space, i_mmap))
#define vma_interval_tree_insert_after(vma, prev, root) \\
	glue_mapping_rmap_tree_insert_after(vma, prev, \\
		container_of(root, struct address_space, i_mmap))
#define vma_interval_tree_remove(vma, root) \\
	glue_mapping_rmap_tree_remove(vma, container_of(root, struct address_space, i_mmap))
#define anon_vma_interval_tree_insert(avc, root) \\
	glue_anon_rmap_tree_insert(avc, container_of(root, struct anon_vma, rb_root))
#define anon_vma_interval_tree_remove(avc, root) \\
	glue_anon_rmap_tree_remove(avc, container_of(root, struct anon_vma, rb_root))
",
    shims: V7_2_SHIMS,
};

/// 7.2's VMA has one page offset; v7.3 added the anonymous one.
pub const ONE_PAGE_OFFSET: VersionDifference = VersionDifference {
    name: "one-page-offset",
    field: "anon_pgoff",
    what: "7.2.13 has no anonymous page offset: vm_pgoff keys the anon trees too \
           (mm/interval_tree.c: avc_start_pgoff() is the VMA's vm_pgoff) and indexes anonymous \
           folios, and mm/vma.c copy_vma() keeps it when mremap moves a VMA (it sets pgoff to \
           the new address only for an unfaulted anonymous VMA). v7.3-rc7 keeps a second, \
           anonymous page offset (include/linux/mm.h vma_start_anon_pgoff()) that keys the \
           anon trees: __mmap_region() sets it to the mapping's address, copy_vma() sets an \
           unfaulted VMA's to its new address, and can_vma_merge_before()/after() require it \
           adjacent for a file mapping that is copy-on-write (needs_adjacent_anon_pgoff()). \
           The harness shows 7.2's vm_pgoff as its anon_pgoff; the v7.3 model cannot be \
           compared with a 7.2 tree past such a call, the v7.2 model (models/v7.2/v7.2.rmap, \
           the default on a 7.2 tree) keeps the two offsets equal",
};

/// The harness's names in 7.2's terms (the C of [`V7_2`]'s `shims`).
const V7_2_SHIMS: &str = concat!(
    "\
/* the tree operations the glue's wrappers run, on the owner's tree */
static inline void __real_mapping_rmap_tree_insert(struct vm_area_struct *vma,
						   struct address_space *mapping)
{
	__real_vma_interval_tree_insert(vma, &mapping->i_mmap);
}

static inline void __real_mapping_rmap_tree_insert_after(struct vm_area_struct *vma,
		struct vm_area_struct *prev, struct address_space *mapping)
{
	__real_vma_interval_tree_insert_after(vma, prev, &mapping->i_mmap);
}

static inline void __real_mapping_rmap_tree_remove(struct vm_area_struct *vma,
						   struct address_space *mapping)
{
	__real_vma_interval_tree_remove(vma, &mapping->i_mmap);
}

static inline void __real_anon_rmap_tree_insert(struct anon_vma_chain *avc,
						struct anon_vma *anon_vma)
{
	__real_anon_vma_interval_tree_insert(avc, &anon_vma->rb_root);
}

static inline void __real_anon_rmap_tree_remove(struct anon_vma_chain *avc,
						struct anon_vma *anon_vma)
{
	__real_anon_vma_interval_tree_remove(avc, &anon_vma->rb_root);
}

/* the queries the rmap walks make (pages.c, checkpoint.c) */
static inline struct vm_area_struct *
mapping_rmap_tree_iter_first(struct address_space *mapping, pgoff_t first, pgoff_t last)
{
	return vma_interval_tree_iter_first(&mapping->i_mmap, first, last);
}

static inline struct vm_area_struct *
mapping_rmap_tree_iter_next(struct vm_area_struct *vma, pgoff_t first, pgoff_t last)
{
	return vma_interval_tree_iter_next(vma, first, last);
}

static inline struct anon_vma_chain *
anon_rmap_tree_iter_first(struct anon_vma *anon_vma, pgoff_t first, pgoff_t last)
{
	return anon_vma_interval_tree_iter_first(&anon_vma->rb_root, first, last);
}

static inline struct anon_vma_chain *
anon_rmap_tree_iter_next(struct anon_vma_chain *avc, pgoff_t first, pgoff_t last)
{
	return anon_vma_interval_tree_iter_next(avc, first, last);
}

/*
 * One page offset: vm_pgoff keys the file tree and, through avc_start_pgoff() and
 * avc_last_pgoff() of mm/interval_tree.c, the anon trees too; an anonymous folio's index is
 * its linear page index. So the anonymous page offset the glue reads is vm_pgoff, and setting
 * it is setting nothing more than what the caller sets in vm_pgoff.
 */
static inline pgoff_t vma_start_anon_pgoff(const struct vm_area_struct *vma)
{
	return vma->vm_pgoff;
}

static inline pgoff_t vma_last_anon_pgoff(const struct vm_area_struct *vma)
{
	return vma->vm_pgoff + ((vma->vm_end - vma->vm_start) >> PAGE_SHIFT) - 1;
}

static inline void vma_set_pgoff(struct vm_area_struct *vma, pgoff_t pgoff)
{
	vma->vm_pgoff = pgoff;
}

static inline void vma_set_anon_pgoff(struct vm_area_struct *vma, pgoff_t pgoff)
{
	(void)vma;
	(void)pgoff;
}

static inline pgoff_t linear_page_index(const struct vm_area_struct *vma, unsigned long addr)
{
	return vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT);
}

static inline pgoff_t __linear_anon_page_index(const struct vm_area_struct *vma,
					       unsigned long addr)
{
	return linear_page_index(vma, addr);
}

static inline void glue_vmg_set_anon_pgoff(struct vma_merge_struct *vmg, pgoff_t pgoff)
{
	(void)vmg;
	(void)pgoff;
}

/*
 * A boundary move (cglue/contract.c) may not give the VMA that keeps its start another pgoff
 * once it has an anon_vma: vm_pgoff is also its anonymous pages' index here, and the callers of
 * commit_merge() in 7.2.13 (vma_merge_existing_range()) give it its own vm_pgoff. The harness
 * refuses the call (-EINVAL), so the v7.3 model, whose anonymous offset stays, diverges there.
 */
static inline bool glue_kept_pgoff_allowed(struct vm_area_struct *vma, pgoff_t pgoff)
{
	return !vma->anon_vma || pgoff == vma->vm_pgoff;
}

/* mm/internal.h's range setter, which the tests define in their shared.c */
void vma_set_range(struct vm_area_struct *vma, unsigned long start, unsigned long end,
		   pgoff_t pgoff)
{
	vma->vm_start = start;
	vma->vm_end = end;
	vma->vm_pgoff = pgoff;
}

/* the test headers' attach test, which 7.2's include/dup.h lacks (mm/rmap.c asks it) */
static inline bool vma_is_attached(struct vm_area_struct *vma)
{
	return refcount_read(&vma->vm_refcnt);
}

/* the glue's own calls of the tree operations (dup_mmap()'s insert_after, calls.c) */
",
    owner_routes!(),
    "
/* the calls the glue makes with v7.3's arguments, made with 7.2's */
#define copy_vma(vmap, addr, len, pgoff, anon_pgoff, need_rmap_locks, keep_source) \\
	(copy_vma)(vmap, addr, len, pgoff, need_rmap_locks, keep_source)
#define vma_shrink(vmi, vma, end) \\
	(vma_shrink)(vmi, vma, (vma)->vm_start, end, (vma)->vm_pgoff)
#define mmap_region(file, addr, len, vma_flags, pgoff, uf) \\
	(mmap_region)(file, addr, len, vma_flags_to_legacy(vma_flags), pgoff, uf)
"
);

/// The functions the glue calls that every generation's shims define (cglue/contract.c).
pub const GLUE_HOOKS: &[&str] = &["glue_vmg_set_anon_pgoff", "glue_kept_pgoff_allowed"];

/// Every generation, newest first.
pub const GENERATIONS: &[&Generation] = &[&V7_3, &V7_2];

/// The generation of the tree whose mm/interval_tree.c reads `interval_tree`: the first of
/// [`GENERATIONS`] whose marker it defines, else the newest, whose build then fails at the first
/// of its anchors that the tree lacks (a tree neither layout fits).
pub fn detect_text(interval_tree: &str) -> &'static Generation {
    let defined: Vec<String> = csource::definitions(interval_tree)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    GENERATIONS
        .iter()
        .find(|g| defined.iter().any(|d| d == g.marker))
        .copied()
        .unwrap_or(GENERATIONS[0])
}

/// The model to compare with the C of the tree `tree`: its generation's
/// ([`Generation::model`]), or the newest generation's when the tree's mm/interval_tree.c
/// cannot be read (the build then says what is missing).
pub fn model_for(tree: &Path) -> &'static str {
    detect(tree).unwrap_or(GENERATIONS[0]).model
}

/// The model `named` on the command line, else [`model_for`] the tree: what `check --kernel`,
/// `cdiff`, `creplay` and `review` compare the tree's C with.
pub fn model_or_default(named: Option<&Path>, tree: &Path) -> std::path::PathBuf {
    named.map_or_else(|| model_for(tree).into(), Path::to_path_buf)
}

/// [`detect_text`] on the tree's mm/interval_tree.c.
pub fn detect(tree: &Path) -> Result<&'static Generation, String> {
    Ok(detect_text(&csource::read(
        &tree.join("mm/interval_tree.c"),
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::V7_2_MODEL;

    /// Tiny interval_tree.c files in kernel style, with none of the kernel's text: which
    /// functions each defines is all that tells them apart.
    const OWNER_STYLE: &str =
        "#include <x.h>\n\nvoid mapping_rmap_tree_insert(int a,\n\t\tint b)\n{\n}\n";
    const ROOT_STYLE: &str = "static int helper(void)\n{\n\treturn 0;\n}\n\nvoid vma_interval_tree_insert_after(int a, int b,\n\t\tint c)\n{\n}\n";
    const NEITHER: &str = "void interval_tree_put(int a)\n{\n}\n";

    #[test]
    fn the_generation_is_told_by_the_functions_interval_tree_defines() {
        assert_eq!(detect_text(OWNER_STYLE).name, "v7.3");
        assert_eq!(detect_text(ROOT_STYLE).name, "v7.2");
        // a declaration or a call is not a definition
        let called = "void f(void)\n{\n\tvma_interval_tree_insert_after(1, 2, 3);\n}\nvoid vma_interval_tree_insert_after(int a);\n";
        assert_eq!(detect_text(called).name, "v7.3");
    }

    #[test]
    fn a_tree_neither_layout_fits_gets_the_newest_generation() {
        assert_eq!(detect_text(NEITHER).name, GENERATIONS[0].name);
    }

    #[test]
    fn detect_reads_the_trees_interval_tree() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("mm")).unwrap();
        std::fs::write(d.path().join("mm/interval_tree.c"), ROOT_STYLE).unwrap();
        assert_eq!(detect(d.path()).unwrap().name, "v7.2");
        std::fs::write(d.path().join("mm/interval_tree.c"), OWNER_STYLE).unwrap();
        assert_eq!(detect(d.path()).unwrap().name, "v7.3");
        let e = detect(&d.path().join("nothere")).unwrap_err();
        assert!(e.contains("mm/interval_tree.c"), "{e}");
    }

    /// Each generation's model exists and loads, and a tree gets its generation's model (the
    /// newest generation's when its mm/interval_tree.c cannot be read).
    #[test]
    fn a_tree_gets_the_model_of_its_generation() {
        for g in GENERATIONS {
            crate::models::load_model(Path::new(g.model))
                .unwrap_or_else(|e| panic!("{}: {}: {e}", g.name, g.model));
        }
        assert_ne!(V7_2.model, V7_3.model);
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("mm")).unwrap();
        std::fs::write(d.path().join("mm/interval_tree.c"), ROOT_STYLE).unwrap();
        assert_eq!(model_for(d.path()), crate::models::V7_2_MODEL);
        std::fs::write(d.path().join("mm/interval_tree.c"), OWNER_STYLE).unwrap();
        assert_eq!(model_for(d.path()), crate::models::BASELINE);
        assert_eq!(
            model_for(&d.path().join("nothere")),
            crate::models::BASELINE
        );
        assert!(crate::models::is_older_trees_model(Path::new(V7_2_MODEL)));
        assert!(!crate::models::is_older_trees_model(Path::new(
            crate::models::BASELINE
        )));
        // the same model in a copy of the models directory (the fuzz targets' beside the
        // executable) is the older tree's model too
        assert!(crate::models::is_older_trees_model(Path::new(
            "/nowhere/rmapcheck-models/v7.2/v7.2.rmap"
        )));
        let named = Path::new("models/patches/x.rmap");
        assert_eq!(model_or_default(Some(named), d.path()), named);
        assert_eq!(
            model_or_default(None, &d.path().join("nothere")),
            Path::new(crate::models::BASELINE)
        );
        let o = V7_2.model_origin(Path::new(V7_2_MODEL), false);
        assert_eq!(o, "the default for a v7.2 tree, read in 7.2.13");
        let o = V7_2.model_origin(Path::new(crate::models::BASELINE), true);
        assert_eq!(o, format!("named; the v7.2 tree's model is {V7_2_MODEL}"));
    }

    #[test]
    fn harness_names_map_to_the_generations_kernel_names() {
        assert_eq!(
            V7_2.kernel_names(TREE_OPS),
            vec![
                "vma_interval_tree_insert",
                "vma_interval_tree_insert_after",
                "vma_interval_tree_remove",
                "anon_vma_interval_tree_insert",
                "anon_vma_interval_tree_remove",
            ]
        );
        assert_eq!(V7_3.kernel_names(TREE_OPS), TREE_OPS.to_vec());
        assert_eq!(V7_2.kernel_name("i_mmap_lock_write"), "i_mmap_lock_write");
    }

    /// Every generation routes every tree operation by its kernel name, defines the `__real_`
    /// harness name its wrappers call unless the kernel's own name is it, and has a marker no
    /// other generation has.
    #[test]
    fn every_generation_covers_every_tree_operation() {
        for g in GENERATIONS {
            for op in TREE_OPS {
                let k = g.kernel_name(op);
                assert!(
                    g.routes.contains(&format!("#define {k}")),
                    "{}: {k}",
                    g.name
                );
                assert!(g.routes.contains(&format!("glue_{op}")), "{}: {op}", g.name);
                if k != *op {
                    assert!(
                        g.shims.contains(&format!("__real_{op}(")),
                        "{}: {op}",
                        g.name
                    );
                }
            }
            for hook in GLUE_HOOKS {
                assert!(g.shims.contains(&format!(" {hook}(")), "{}: {hook}", g.name);
            }
            let others = GENERATIONS.iter().filter(|o| o.marker == g.marker).count();
            assert_eq!(others, 1, "{}", g.name);
        }
        assert_ne!(V7_3.key_bytes(), V7_2.key_bytes());
    }

    /// A first difference in the anon_pgoff field alone is named on a 7.2 tree, and nothing
    /// else is: another field differing, or the same lines on a v7.3 tree.
    #[test]
    fn a_difference_in_the_anonymous_page_offset_alone_is_named() {
        let c = "vma mm0:1 [1, 2) pgoff 0 anon_pgoff 0 file#0 file-backed rw";
        let m = "vma mm0:1 [1, 2) pgoff 0 anon_pgoff 1 file#0 file-backed rw";
        assert_eq!(V7_2.explain(c, m).map(|d| d.name), Some("one-page-offset"));
        assert!(V7_3.explain(c, m).is_none());
        let other = "vma mm0:1 [1, 3) pgoff 0 anon_pgoff 1 file#0 file-backed rw";
        assert!(V7_2.explain(c, other).is_none());
        assert!(V7_2.explain(c, c).is_none());
        // compared with the tree generation's own model, nothing is excused as a version
        // difference; with another model (the v7.3 one on a 7.2 tree) it is
        let own = Path::new(V7_2_MODEL);
        assert!(V7_2.is_own_model(own));
        assert!(V7_2.explain_for(own, c, m).is_none());
        let v7_3 = Path::new(crate::models::BASELINE);
        assert!(!V7_2.is_own_model(v7_3));
        assert_eq!(
            V7_2.explain_for(v7_3, c, m).map(|d| d.name),
            Some("one-page-offset")
        );
        // another spelling of the same file is the same model
        assert!(V7_2.is_own_model(Path::new("models/v7.2/../v7.2/v7.2.rmap")));
        let t = V7_2.difference_text(&ONE_PAGE_OFFSET);
        assert!(
            t.contains("VERSION DIFFERENCE `one-page-offset`: this is a v7.2 tree"),
            "{t}"
        );
    }
}
