//! Kernel field reads and writes (`vma->vm_pgoff`, `avc->anon_vma`, ...): one table per kernel
//! object ([`fields_of`]), each row a field's name, its type as models see it, how it is read
//! and, when a model may assign it, how it is written. The schema the type checker reads
//! (`src/world/schema.rs`) is built from these tables, and a compiled model names a field by its
//! row ([`FieldId`]), so adding a field is adding one row here.
//!
//! A write of a key field (`vm_start`, `vm_end`, `vm_pgoff`, `vm_anon_pgoff`, `avc->vma`) marks
//! the trees dirty for the structural checks (and marks the trees whose nodes read it,
//! `world::tree_marks`), and a VMA that is in its mm must be write-locked
//! (`vma_start_write`) before its range changes.

use super::{fault, World, R};
use crate::exec::host::{FieldId, ObjKind, ThreadId, Value};
use crate::world::objects::Vma;
use crate::world::schema::Ty;

/// How a field is read: `obj->field` of object `i` of the row's kind.
type Read = fn(&World, usize) -> R<Value>;

/// How a field is written: `(world, thread, obj, i, value, field name)`.
type Write = fn(&mut World, ThreadId, Value, usize, Value, &'static str) -> R<()>;

/// One field of a kernel object as models see it.
pub(crate) struct FieldRow {
    pub name: &'static str,
    pub ty: Ty,
    pub read: Read,
    /// `None` for a field models may not assign.
    pub write: Option<Write>,
}

const fn row(name: &'static str, ty: Ty, read: Read, write: Option<Write>) -> FieldRow {
    FieldRow {
        name,
        ty,
        read,
        write,
    }
}

/// A VMA key field (`set` stores it): write-locked when the VMA is in its mm, never negative.
fn vma_key(
    w: &mut World,
    t: ThreadId,
    obj: Value,
    i: usize,
    v: Value,
    f: &str,
    set: fn(&mut Vma, u64),
) -> R<()> {
    w.scratch.trees_dirty = true;
    w.mark_trees_reading_vma(i as u32);
    let x = World::int_arg(v, f)?;
    if x < 0 {
        return fault(format!("{f} = {x}: negative"));
    }
    // A VMA that is in an mm must be write-locked before its range changes.
    let id = i as u32;
    let in_mm = w.vmas[i]
        .vm_mm
        .is_some_and(|mm| w.mms[mm as usize].vmas.values().any(|&(_, v)| v == id));
    if in_mm {
        w.vma_lock_op(
            t,
            "vma_assert_write_locked",
            super::locks::VmaLockOp::AssertWriteLocked,
            &[obj],
        )?;
    }
    set(&mut w.vmas[i], x as u64);
    Ok(())
}

/// A field that is no value: a list head, walked only with `list_for_each_entry*()`.
fn list_head(_: &World, _: usize) -> R<Value> {
    Err(crate::exec::host::HostError::Fault(String::new()))
}

const VMA_FIELDS: &[FieldRow] = &[
    row(
        "vm_start",
        Ty::Int,
        |w, i| Ok(Value::Int(w.vmas[i].vm_start as i64)),
        Some(|w, t, o, i, v, f| vma_key(w, t, o, i, v, f, |x, n| x.vm_start = n)),
    ),
    row(
        "vm_end",
        Ty::Int,
        |w, i| Ok(Value::Int(w.vmas[i].vm_end as i64)),
        Some(|w, t, o, i, v, f| vma_key(w, t, o, i, v, f, |x, n| x.vm_end = n)),
    ),
    row(
        "vm_pgoff",
        Ty::Int,
        |w, i| Ok(Value::Int(w.vmas[i].vm_pgoff as i64)),
        Some(|w, t, o, i, v, f| vma_key(w, t, o, i, v, f, |x, n| x.vm_pgoff = n)),
    ),
    row(
        "vm_anon_pgoff",
        Ty::Int,
        |w, i| Ok(Value::Int(w.vmas[i].vm_anon_pgoff as i64)),
        Some(|w, t, o, i, v, f| vma_key(w, t, o, i, v, f, |x, n| x.vm_anon_pgoff = n)),
    ),
    row(
        "vm_flags",
        Ty::Int,
        |w, i| Ok(Value::Int(w.vmas[i].vm_flags)),
        Some(|w, _, _, i, v, f| {
            w.vmas[i].vm_flags = World::int_arg(v, f)?;
            Ok(())
        }),
    ),
    row(
        "vm_file",
        Ty::Ptr(ObjKind::File),
        |w, i| Ok(World::opt(ObjKind::File, w.vmas[i].vm_file)),
        Some(|w, _, _, i, v, f| {
            w.vmas[i].vm_file = w.opt_id(v, ObjKind::File, f)?;
            Ok(())
        }),
    ),
    row(
        "vm_mm",
        Ty::Ptr(ObjKind::Mm),
        |w, i| Ok(World::opt(ObjKind::Mm, w.vmas[i].vm_mm)),
        Some(|w, _, _, i, v, f| {
            w.vmas[i].vm_mm = w.opt_id(v, ObjKind::Mm, f)?;
            Ok(())
        }),
    ),
    row(
        "anon_vma",
        Ty::Ptr(ObjKind::AnonVma),
        |w, i| Ok(World::opt(ObjKind::AnonVma, w.vmas[i].anon_vma)),
        Some(|w, t, _, i, v, f| {
            w.check_anon_vma_write(t, i as u32);
            w.vmas[i].anon_vma = w.opt_id(v, ObjKind::AnonVma, f)?;
            Ok(())
        }),
    ),
    // list head, only walked with list_for_each_entry*(); reading it as a value faults
    row("anon_vma_chain", Ty::Int, list_head, None),
];

const FILE_FIELDS: &[FieldRow] = &[row(
    "f_mapping",
    Ty::Ptr(ObjKind::Mapping),
    |w, i| Ok(Value::Obj(ObjKind::Mapping, w.files[i].f_mapping)),
    None,
)];

/// `anon_vma->root` and `->parent`: never NULL.
fn anon_vma_link(w: &mut World, v: Value, f: &str) -> R<u32> {
    match w.opt_id(v, ObjKind::AnonVma, f)? {
        Some(x) => Ok(x),
        None => fault(format!("{f} = NULL")),
    }
}

const ANON_VMA_FIELDS: &[FieldRow] = &[
    row(
        "root",
        Ty::Ptr(ObjKind::AnonVma),
        |w, i| Ok(Value::Obj(ObjKind::AnonVma, w.anon_vmas[i].root)),
        Some(|w, _, _, i, v, f| {
            // which lock guards the tree: marked, conservatively (`world::tree_marks`)
            w.mark_tree(false, i as u32);
            w.anon_vmas[i].root = anon_vma_link(w, v, f)?;
            Ok(())
        }),
    ),
    row(
        "parent",
        Ty::Ptr(ObjKind::AnonVma),
        |w, i| Ok(Value::Obj(ObjKind::AnonVma, w.anon_vmas[i].parent)),
        Some(|w, _, _, i, v, f| {
            w.anon_vmas[i].parent = anon_vma_link(w, v, f)?;
            Ok(())
        }),
    ),
    row(
        "refcount",
        Ty::Int,
        |w, i| Ok(Value::Int(w.anon_vmas[i].refcount)),
        None,
    ),
    row(
        "num_children",
        Ty::Int,
        |w, i| Ok(Value::Int(w.anon_vmas[i].num_children)),
        Some(|w, _, _, i, v, f| {
            w.anon_vmas[i].num_children = World::int_arg(v, f)?;
            Ok(())
        }),
    ),
    row(
        "num_active_vmas",
        Ty::Int,
        |w, i| Ok(Value::Int(w.anon_vmas[i].num_active_vmas)),
        Some(|w, _, _, i, v, f| {
            w.anon_vmas[i].num_active_vmas = World::int_arg(v, f)?;
            Ok(())
        }),
    ),
];

const AVC_FIELDS: &[FieldRow] = &[
    row(
        "vma",
        Ty::Ptr(ObjKind::Vma),
        |w, i| Ok(World::opt(ObjKind::Vma, w.avcs[i].vma)),
        Some(|w, _, _, i, v, f| {
            w.scratch.trees_dirty = true;
            w.mark_trees_holding_avc(i as u32);
            w.avcs[i].vma = w.opt_id(v, ObjKind::Vma, f)?;
            Ok(())
        }),
    ),
    row(
        "anon_vma",
        Ty::Ptr(ObjKind::AnonVma),
        |w, i| Ok(World::opt(ObjKind::AnonVma, w.avcs[i].anon_vma)),
        Some(|w, _, _, i, v, f| {
            w.avcs[i].anon_vma = w.opt_id(v, ObjKind::AnonVma, f)?;
            Ok(())
        }),
    ),
    row(
        "cached_vma_start",
        Ty::Int,
        |w, i| Ok(Value::Int(w.avcs[i].cached_vma_start as i64)),
        Some(|w, _, _, i, v, f| {
            w.avcs[i].cached_vma_start = World::int_arg(v, f)? as u64;
            Ok(())
        }),
    ),
    row(
        "cached_vma_last",
        Ty::Int,
        |w, i| Ok(Value::Int(w.avcs[i].cached_vma_last as i64)),
        Some(|w, _, _, i, v, f| {
            w.avcs[i].cached_vma_last = World::int_arg(v, f)? as u64;
            Ok(())
        }),
    ),
];

const MM_FIELDS: &[FieldRow] = &[row(
    "map_count",
    Ty::Int,
    |w, i| Ok(Value::Int(w.mms[i].map_count)),
    Some(|w, _, _, i, v, f| {
        w.mms[i].map_count = World::int_arg(v, f)?;
        Ok(())
    }),
)];

/// The fields of one kind of kernel object, in the order models' [`FieldId`]s index them.
pub(crate) fn fields_of(kind: ObjKind) -> &'static [FieldRow] {
    match kind {
        ObjKind::Vma => VMA_FIELDS,
        ObjKind::File => FILE_FIELDS,
        ObjKind::AnonVma => ANON_VMA_FIELDS,
        ObjKind::Avc => AVC_FIELDS,
        ObjKind::Mm => MM_FIELDS,
        ObjKind::Mapping => &[],
    }
}

/// Position of `name` in `rows`, at compile time.
const fn position(rows: &[FieldRow], name: &str) -> u16 {
    let mut i = 0;
    while i < rows.len() {
        let (a, b) = (rows[i].name.as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return i as u16;
            }
        }
        i += 1;
    }
    panic!("no such field")
}

/// `vma->anon_vma_chain`, the one kernel list models walk.
pub(crate) const ANON_VMA_CHAIN: FieldId = FieldId {
    kind: ObjKind::Vma,
    index: position(VMA_FIELDS, "anon_vma_chain"),
};

/// The name of field `id`, for messages.
pub(crate) fn field_name(id: FieldId) -> &'static str {
    field_row(id).map_or("?", |r| r.name)
}

/// The row `id` names, if it names one.
pub(crate) fn field_row(id: FieldId) -> Option<&'static FieldRow> {
    fields_of(id.kind).get(id.index as usize)
}

impl World {
    /// The row of `field` for object `obj` and the object's index, or the fault of `what`ing
    /// through `obj` (NULL, a freed-out id, or an object of another kind).
    fn field_target(
        &self,
        obj: Value,
        field: FieldId,
        what: &str,
    ) -> R<(&'static FieldRow, usize)> {
        let name = field_name(field);
        match obj {
            Value::Obj(k, i) => {
                self.obj(obj, k, name)?;
                match field_row(field) {
                    Some(r) if k == field.kind => Ok((r, i as usize)),
                    _ => fault(format!("no field {name} in {obj}")),
                }
            }
            Value::Null => fault(format!("NULL pointer dereference {what} ->{name}")),
            _ => fault(format!("no field {name} in {obj}")),
        }
    }

    /// [`World::field_target`] when it succeeds (`obj` is an object of the field's kind that
    /// the world has, and the field has a row), without the message it would build otherwise.
    #[inline]
    fn field_target_fast(&self, obj: Value, field: FieldId) -> Option<(&'static FieldRow, usize)> {
        match obj {
            Value::Obj(k, i) if k == field.kind && (i as usize) < self.count(k) => {
                Some((field_row(field)?, i as usize))
            }
            _ => None,
        }
    }

    /// `obj->field`.
    #[inline]
    pub(super) fn read_field_of(&self, obj: Value, field: FieldId) -> R<Value> {
        let (r, i) = match self.field_target_fast(obj, field) {
            Some(t) => t,
            None => self.field_target(obj, field, "reading")?,
        };
        (r.read)(self, i).or_else(|_| fault(format!("no field {} in {obj}", r.name)))
    }

    /// `obj->field = value`.
    #[inline]
    pub(super) fn write_field_of(
        &mut self,
        t: ThreadId,
        obj: Value,
        field: FieldId,
        value: Value,
    ) -> R<()> {
        let (r, i) = match self.field_target_fast(obj, field) {
            Some(t) => t,
            None => self.field_target(obj, field, "writing")?,
        };
        match r.write {
            Some(w) => w(self, t, obj, i, value, r.name),
            None => fault(format!("field {} of {obj} is not writable", r.name)),
        }
    }
}
