//! Lock checks for the functions mm/interval_tree.c exports beside the five tree operations
//! the glue wraps by name: a helper a patch adds there (a propagate, a re-key) changes a tree
//! too, and must run with the tree's lock held for write like the operations do.
//!
//! At build time every exported function of the (patched) mm/interval_tree.c that takes a
//! `struct address_space *` or a `struct anon_vma *` is compiled under a `__real_` name, and a
//! wrapper by its own name (generated here into `rmap_helpers.c`, which the harness includes
//! after glue.c) checks the lock of that mapping or of that anon_vma's root, as the glue's
//! named wrappers do, then calls it. A call without the lock is a `lock-discipline`
//! violation. The queries (`*_iter_first`, `*_iter_next`) are left alone: rmap walkers call
//! them under the lock held for read, and the walker checkpoints at moments that lock is free.
//!
//! A helper whose parameters this reader cannot name (a function pointer among them) could not
//! be wrapped: [`helpers`] lists it as unchecked and the build refuses the tree, rather than
//! search a tree with a tree-changing function it does not check.

/// Which lock a helper's caller must hold for write, through which parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeLock {
    /// `i_mmap_rwsem` of the `struct address_space *` parameter.
    File(String),
    /// The root rwsem of the `struct anon_vma *` parameter.
    Anon(String),
}

/// An exported function of mm/interval_tree.c that gets a checking wrapper.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Helper {
    pub name: String,
    /// The head as written (return type, name, parameters).
    pub head: String,
    /// Whether it returns `void`.
    pub void: bool,
    /// The parameters' names, in order.
    pub params: Vec<String>,
    pub lock: TreeLock,
}

/// The helpers of `exported` (name and head, from [`super::csource::exported`]) that take a
/// tree's owner, except the queries; and the names of those that take one but whose
/// parameters could not be read.
pub fn helpers(exported: &[(String, String)]) -> (Vec<Helper>, Vec<String>) {
    let mut out = Vec::new();
    let mut unchecked = Vec::new();
    for (name, head) in exported {
        if name.contains("iter_") {
            continue;
        }
        let Some(open) = head.find('(') else { continue };
        let Some(close) = head.rfind(')') else {
            continue;
        };
        let ret = head[..open].trim_end();
        let ret = ret[..ret.len().saturating_sub(name.len())].trim();
        let list = head[open + 1..close].trim();
        let raw: Vec<&str> = if list == "void" || list.is_empty() {
            Vec::new()
        } else {
            list.split(',').map(str::trim).collect()
        };
        let owner = |p: &&str| is_pointer_to(p, "address_space") || is_pointer_to(p, "anon_vma");
        if !raw.iter().any(owner) {
            continue;
        }
        let params: Option<Vec<String>> = raw.iter().map(|p| param_name(p)).collect();
        let Some(params) = params else {
            unchecked.push(name.clone());
            continue;
        };
        let lock = raw
            .iter()
            .zip(&params)
            .find(|(p, _)| is_pointer_to(p, "address_space"))
            .map(|(_, n)| TreeLock::File(n.clone()))
            .or_else(|| {
                raw.iter()
                    .zip(&params)
                    .find(|(p, _)| is_pointer_to(p, "anon_vma"))
                    .map(|(_, n)| TreeLock::Anon(n.clone()))
            });
        let Some(lock) = lock else { continue };
        out.push(Helper {
            name: name.clone(),
            head: head.clone(),
            void: ret == "void",
            params,
            lock,
        });
    }
    (out, unchecked)
}

/// Whether the parameter `p` is a `struct TAG *` (exactly that tag).
fn is_pointer_to(p: &str, tag: &str) -> bool {
    let words: Vec<&str> = p
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '*'))
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .any(|w| w[0] == "struct" && w[1].trim_end_matches('*') == tag)
        && p.contains('*')
}

/// The name a parameter declares: its last identifier; `None` for a function pointer or an
/// array, whose name is not last.
fn param_name(p: &str) -> Option<String> {
    if p.contains('(') || p.contains('[') {
        return None;
    }
    let last = p
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find(|w| !w.is_empty())?;
    (last.chars().next()?.is_ascii_alphabetic() || last.starts_with('_')).then(|| last.into())
}

/// The lines rmap_gen.c puts around mm/interval_tree.c's text: before it, each helper renamed
/// to `__real_NAME`; after it, the names given back (to the wrappers).
pub fn renames(helpers: &[Helper]) -> (String, String) {
    let before = helpers
        .iter()
        .map(|h| format!("#define {0} __real_{0}", h.name))
        .collect::<Vec<_>>()
        .join("\n");
    let after = helpers
        .iter()
        .map(|h| format!("#undef {}", h.name))
        .collect::<Vec<_>>()
        .join("\n");
    (before, after)
}

/// rmap_helpers.c: for each helper, the `__real_` declaration and the checking wrapper.
pub fn wrappers(helpers: &[Helper]) -> String {
    let mut out = String::from(
        "/* generated by rmapcheck at build time: a lock check before each function the tree's\n \
         * mm/interval_tree.c exports beside the tree operations glue.c wraps */\n",
    );
    for h in helpers {
        let open = h.head.find('(').unwrap_or(h.head.len());
        let at = h.head[..open].rfind(&h.name).unwrap_or(0);
        let real = format!(
            "{}__real_{}{}",
            &h.head[..at],
            h.name,
            &h.head[at + h.name.len()..]
        );
        let check = match &h.lock {
            TreeLock::File(p) => format!("glue_check_file_locks(\"{}\", {p});", h.name),
            TreeLock::Anon(p) => format!("glue_check_anon_lock(\"{}\", {p});", h.name),
        };
        let call = format!("__real_{}({})", h.name, h.params.join(", "));
        let body = if h.void {
            format!("\t{call};")
        } else {
            format!("\treturn {call};")
        };
        out.push_str(&format!(
            "\n{real};\n\n{}\n{{\n\t{check}\n{body}\n}}\n",
            h.head
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(head: &str) -> (Vec<Helper>, Vec<String>) {
        let name = head
            .split('(')
            .next()
            .unwrap()
            .rsplit([' ', '*', '\n'])
            .next()
            .unwrap();
        helpers(&[(name.to_string(), head.to_string())])
    }

    #[test]
    fn a_helper_taking_a_mapping_is_wrapped_with_the_file_lock_check() {
        let (h, u) =
            one("void tree_fix(struct vm_area_struct *vma,\n\t\t struct address_space *mapping)");
        assert!(u.is_empty());
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].lock, TreeLock::File("mapping".into()));
        assert!(h[0].void);
        let c = wrappers(&h);
        assert!(c.contains("void __real_tree_fix(struct vm_area_struct *vma,\n\t\t struct address_space *mapping);"), "{c}");
        assert!(c.contains("\tglue_check_file_locks(\"tree_fix\", mapping);\n\t__real_tree_fix(vma, mapping);\n}"), "{c}");
        let (before, after) = renames(&h);
        assert_eq!(before, "#define tree_fix __real_tree_fix");
        assert_eq!(after, "#undef tree_fix");
    }

    #[test]
    fn an_anon_helper_returning_a_value_returns_it() {
        let (h, _) = one(
            "struct anon_vma_chain *\nchain_fix(struct anon_vma_chain *avc, struct anon_vma *av)",
        );
        assert_eq!(h[0].lock, TreeLock::Anon("av".into()));
        assert!(!h[0].void);
        assert!(wrappers(&h).contains("\treturn __real_chain_fix(avc, av);"));
    }

    #[test]
    fn queries_and_functions_without_an_owner_are_left_alone() {
        assert!(one(
            "struct vm_area_struct *\nx_iter_first(struct address_space *mapping, unsigned long a)"
        )
        .0
        .is_empty());
        // anon_vma_chain is not anon_vma
        assert!(one("void verify(struct anon_vma_chain *node)").0.is_empty());
        assert!(one("void none(void)").0.is_empty());
    }

    #[test]
    fn a_function_pointer_parameter_leaves_the_helper_unchecked_and_named() {
        let (h, u) = one("void walk(struct address_space *m, void (*f)(int))");
        assert!(h.is_empty());
        assert_eq!(u, vec!["walk".to_string()]);
    }
}
