//! Kernel field reads and writes (`vma->vm_pgoff`, `avc->anon_vma`, ...), the fields the schema
//! (`src/world/schema.rs`) gives the models.
//!
//! A write of a key field (`vm_start`, `vm_end`, `vm_pgoff`, `avc->vma`) marks the trees dirty
//! for the structural checks, and a VMA that is in its mm must be write-locked
//! (`vma_start_write`) before its range changes.

use super::{fault, World, R};
use crate::exec::host::{ObjKind, ThreadId, Value};

impl World {
    /// The object `obj` names and its id, or the fault of `what`ing through it.
    fn field_obj(&self, obj: Value, field: &str, what: &str) -> R<(ObjKind, usize)> {
        match obj {
            Value::Obj(k, i) => self.obj(obj, k, field).map(|_| (k, i as usize)),
            Value::Null => fault(format!("NULL pointer dereference {what} ->{field}")),
            _ => fault(format!("no field {field} in {obj}")),
        }
    }

    /// `obj->field`.
    pub(super) fn read_field_of(&self, obj: Value, field: &str) -> R<Value> {
        let bad = || fault(format!("no field {field} in {obj}"));
        let (kind, i) = self.field_obj(obj, field, "reading")?;
        Ok(match kind {
            ObjKind::Vma => {
                let v = &self.vmas[i];
                match field {
                    "vm_start" => Value::Int(v.vm_start as i64),
                    "vm_end" => Value::Int(v.vm_end as i64),
                    "vm_pgoff" => Value::Int(v.vm_pgoff as i64),
                    "vm_anon_pgoff" => Value::Int(v.vm_anon_pgoff as i64),
                    "vm_flags" => Value::Int(v.vm_flags),
                    "vm_file" => Self::opt(ObjKind::File, v.vm_file),
                    "vm_mm" => Self::opt(ObjKind::Mm, v.vm_mm),
                    "anon_vma" => Self::opt(ObjKind::AnonVma, v.anon_vma),
                    _ => return bad(),
                }
            }
            ObjKind::File => match field {
                "f_mapping" => Value::Obj(ObjKind::Mapping, self.files[i].f_mapping),
                _ => return bad(),
            },
            ObjKind::AnonVma => {
                let a = &self.anon_vmas[i];
                match field {
                    "root" => Value::Obj(ObjKind::AnonVma, a.root),
                    "parent" => Value::Obj(ObjKind::AnonVma, a.parent),
                    "refcount" => Value::Int(a.refcount),
                    "num_children" => Value::Int(a.num_children),
                    "num_active_vmas" => Value::Int(a.num_active_vmas),
                    _ => return bad(),
                }
            }
            ObjKind::Avc => {
                let c = &self.avcs[i];
                match field {
                    "vma" => Self::opt(ObjKind::Vma, c.vma),
                    "anon_vma" => Self::opt(ObjKind::AnonVma, c.anon_vma),
                    "cached_vma_start" => Value::Int(c.cached_vma_start as i64),
                    "cached_vma_last" => Value::Int(c.cached_vma_last as i64),
                    _ => return bad(),
                }
            }
            ObjKind::Mm => match field {
                "map_count" => Value::Int(self.mms[i].map_count),
                _ => return bad(),
            },
            ObjKind::Mapping => return bad(),
        })
    }

    /// `obj->field = value`.
    pub(super) fn write_field_of(
        &mut self,
        t: ThreadId,
        obj: Value,
        field: &str,
        value: Value,
    ) -> R<()> {
        let (kind, i) = self.field_obj(obj, field, "writing")?;
        if matches!(
            (kind, field),
            (
                ObjKind::Vma,
                "vm_start" | "vm_end" | "vm_pgoff" | "vm_anon_pgoff"
            ) | (ObjKind::Avc, "vma")
        ) {
            self.scratch.trees_dirty = true;
        }
        let written = match kind {
            ObjKind::Vma => self.write_vma_field(t, obj, i, field, value)?,
            ObjKind::AnonVma => self.write_anon_vma_field(i, field, value)?,
            ObjKind::Avc => self.write_avc_field(i, field, value)?,
            ObjKind::Mm if field == "map_count" => {
                self.mms[i].map_count = Self::int_arg(value, field)?;
                true
            }
            _ => false,
        };
        if !written {
            return fault(format!("field {field} of {obj} is not writable"));
        }
        Ok(())
    }

    /// A field of VMA `i` (`obj`); false if it has no such writable field.
    fn write_vma_field(
        &mut self,
        t: ThreadId,
        obj: Value,
        i: usize,
        field: &str,
        value: Value,
    ) -> R<bool> {
        match field {
            "vm_start" | "vm_end" | "vm_pgoff" | "vm_anon_pgoff" => {
                let x = Self::int_arg(value, field)?;
                if x < 0 {
                    return fault(format!("{field} = {x}: negative"));
                }
                // A VMA that is in an mm must be write-locked before its range changes.
                let id = i as u32;
                let in_mm = self.vmas[i]
                    .vm_mm
                    .is_some_and(|mm| self.mms[mm as usize].vmas.values().any(|&(_, v)| v == id));
                if in_mm {
                    self.vma_lock_op(t, "vma_assert_write_locked", &[obj])?;
                }
                let v = &mut self.vmas[i];
                match field {
                    "vm_start" => v.vm_start = x as u64,
                    "vm_end" => v.vm_end = x as u64,
                    "vm_pgoff" => v.vm_pgoff = x as u64,
                    _ => v.vm_anon_pgoff = x as u64,
                }
            }
            "vm_flags" => self.vmas[i].vm_flags = Self::int_arg(value, field)?,
            "vm_file" => self.vmas[i].vm_file = self.opt_id(value, ObjKind::File, field)?,
            "vm_mm" => self.vmas[i].vm_mm = self.opt_id(value, ObjKind::Mm, field)?,
            "anon_vma" => self.vmas[i].anon_vma = self.opt_id(value, ObjKind::AnonVma, field)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A field of anon_vma `i`; false if it has no such writable field.
    fn write_anon_vma_field(&mut self, i: usize, field: &str, value: Value) -> R<bool> {
        match field {
            "root" | "parent" => {
                let Some(x) = self.opt_id(value, ObjKind::AnonVma, field)? else {
                    return fault(format!("{field} = NULL"));
                };
                let a = &mut self.anon_vmas[i];
                if field == "root" {
                    a.root = x
                } else {
                    a.parent = x
                }
            }
            "num_children" | "num_active_vmas" => {
                let x = Self::int_arg(value, field)?;
                let a = &mut self.anon_vmas[i];
                if field == "num_children" {
                    a.num_children = x
                } else {
                    a.num_active_vmas = x
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A field of anon_vma_chain `i`; false if it has no such writable field.
    fn write_avc_field(&mut self, i: usize, field: &str, value: Value) -> R<bool> {
        match field {
            "vma" => self.avcs[i].vma = self.opt_id(value, ObjKind::Vma, field)?,
            "anon_vma" => self.avcs[i].anon_vma = self.opt_id(value, ObjKind::AnonVma, field)?,
            "cached_vma_start" => {
                self.avcs[i].cached_vma_start = Self::int_arg(value, field)? as u64
            }
            "cached_vma_last" => self.avcs[i].cached_vma_last = Self::int_arg(value, field)? as u64,
            _ => return Ok(false),
        }
        Ok(true)
    }
}
