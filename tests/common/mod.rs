//! Shared test fixtures: a small kernel schema and a mock world that records builtin calls.
#![allow(dead_code)]

use rmapcheck::exec::host::{BuiltinId, FieldId, Host, HostError, ObjKind, ThreadId, Value};
use rmapcheck::lang::types::{BuiltinSig, FieldDef, Schema, Type};
use rmapcheck::lang::{load_str, Program};
use std::collections::BTreeMap;
use std::path::Path;

fn field(name: &str, ty: Type, writable: bool) -> FieldDef {
    FieldDef {
        name: name.into(),
        ty,
        writable,
    }
}

fn ptr(tag: &str) -> Type {
    Type::Ptr(tag.into())
}

/// A cut-down schema: VMAs, files, mappings, anon_vmas and their chains.
pub fn schema() -> Schema {
    let mut s = Schema::default();
    s.structs.insert(
        "vm_area_struct".into(),
        vec![
            field("vm_start", Type::Int, true),
            field("vm_end", Type::Int, true),
            field("vm_pgoff", Type::Int, true),
            field("vm_file", ptr("file"), true),
            field("anon_vma", ptr("anon_vma"), true),
            field("vm_mm", ptr("mm_struct"), false),
            field("anon_vma_chain", Type::Int, false),
        ],
    );
    s.structs.insert(
        "file".into(),
        vec![field("f_mapping", ptr("address_space"), false)],
    );
    s.structs.insert("address_space".into(), vec![]);
    s.structs.insert("anon_vma".into(), vec![]);
    s.structs.insert("mm_struct".into(), vec![]);
    s.structs.insert(
        "anon_vma_chain".into(),
        vec![
            field("vma", ptr("vm_area_struct"), false),
            field("anon_vma", ptr("anon_vma"), false),
        ],
    );
    let mut b = |name: &str, params: Vec<Type>, ret: Type| {
        let id = BuiltinId(s.builtins.len() as u16);
        s.builtins.insert(
            name.into(),
            BuiltinSig {
                id,
                name: name.into(),
                params,
                ret,
            },
        );
    };
    b("i_mmap_lock_write", vec![ptr("address_space")], Type::Void);
    b(
        "i_mmap_unlock_write",
        vec![ptr("address_space")],
        Type::Void,
    );
    b(
        "mapping_rmap_tree_insert",
        vec![ptr("vm_area_struct"), ptr("address_space")],
        Type::Void,
    );
    b(
        "mapping_rmap_tree_remove",
        vec![ptr("vm_area_struct"), ptr("address_space")],
        Type::Void,
    );
    b("anon_vma_lock_write", vec![ptr("anon_vma")], Type::Void);
    b("anon_vma_unlock_write", vec![ptr("anon_vma")], Type::Void);
    b("record", vec![Type::Int], Type::Void);
    b("gate", vec![], Type::Int);
    b("is_ready", vec![], Type::Bool);
    s
}

pub const VMA0: Value = Value::Obj(ObjKind::Vma, 0);
pub const VMA1: Value = Value::Obj(ObjKind::Vma, 1);
pub const FILE0: Value = Value::Obj(ObjKind::File, 0);
pub const MAPPING0: Value = Value::Obj(ObjKind::Mapping, 0);
pub const AV0: Value = Value::Obj(ObjKind::AnonVma, 0);

pub fn avc(i: u32) -> Value {
    Value::Obj(ObjKind::Avc, i)
}

/// A mock world: fields in a map, lists as vectors, and a log of builtin calls. `gate()`
/// blocks until `gate_open` is set.
#[derive(Clone, Debug, Default)]
pub struct MockHost {
    pub fields: BTreeMap<(Value, String), Value>,
    pub lists: BTreeMap<(Value, String), Vec<Value>>,
    pub calls: Vec<String>,
    pub gate_open: bool,
}

impl MockHost {
    /// vma#0 [0, 10) pgoff 0, file-backed by file#0 -> mapping#0, anon_vma#0, with an
    /// anon_vma_chain of three entries; vma#1 [10, 20).
    pub fn new() -> MockHost {
        let mut h = MockHost::default();
        let set = |h: &mut MockHost, o: Value, f: &str, v: Value| {
            h.fields.insert((o, f.to_string()), v);
        };
        set(&mut h, VMA0, "vm_start", Value::Int(0));
        set(&mut h, VMA0, "vm_end", Value::Int(10));
        set(&mut h, VMA0, "vm_pgoff", Value::Int(0));
        set(&mut h, VMA0, "vm_file", FILE0);
        set(&mut h, VMA0, "anon_vma", AV0);
        set(&mut h, VMA1, "vm_start", Value::Int(10));
        set(&mut h, VMA1, "vm_end", Value::Int(20));
        set(&mut h, VMA1, "vm_pgoff", Value::Int(10));
        set(&mut h, VMA1, "vm_file", Value::Null);
        set(&mut h, VMA1, "anon_vma", Value::Null);
        set(&mut h, FILE0, "f_mapping", MAPPING0);
        for i in 0..3 {
            set(&mut h, avc(i), "vma", VMA0);
            set(&mut h, avc(i), "anon_vma", AV0);
        }
        h.lists.insert(
            (VMA0, "anon_vma_chain".into()),
            vec![avc(0), avc(1), avc(2)],
        );
        h
    }

    pub fn get(&self, o: Value, f: &str) -> Value {
        self.fields[&(o, f.to_string())]
    }
}

/// The test schema's name of a kernel field.
fn field_name(id: FieldId) -> String {
    schema().structs[id.kind.struct_tag()][id.index as usize]
        .name
        .clone()
}

/// The test schema's name of a builtin.
fn builtin_name(id: BuiltinId) -> String {
    let s = schema();
    let b = s.builtins.values().find(|b| b.id == id).expect("a builtin");
    b.name.clone()
}

impl Host for MockHost {
    fn read_field(&mut self, _t: ThreadId, obj: Value, id: FieldId) -> Result<Value, HostError> {
        let field = field_name(id);
        self.fields
            .get(&(obj, field.to_string()))
            .copied()
            .ok_or_else(|| HostError::Fault(format!("no field {obj}->{field}")))
    }

    fn write_field(
        &mut self,
        _t: ThreadId,
        obj: Value,
        id: FieldId,
        value: Value,
    ) -> Result<(), HostError> {
        self.fields.insert((obj, field_name(id)), value);
        Ok(())
    }

    fn call(&mut self, _t: ThreadId, id: BuiltinId, args: &[Value]) -> Result<Value, HostError> {
        let name = builtin_name(id);
        let name = name.as_str();
        if name == "gate" && !self.gate_open {
            return Err(HostError::Blocked);
        }
        let a: Vec<String> = args.iter().map(|v| v.to_string()).collect();
        self.calls.push(format!("{name}({})", a.join(", ")));
        Ok(match name {
            "gate" => Value::Int(7),
            "is_ready" => Value::Bool(true),
            _ => Value::Void,
        })
    }

    fn list_first(&mut self, _t: ThreadId, head: Value, list: FieldId) -> Result<Value, HostError> {
        Ok(self
            .lists
            .get(&(head, field_name(list)))
            .and_then(|l| l.first().copied())
            .unwrap_or(Value::Null))
    }

    fn list_next(
        &mut self,
        _t: ThreadId,
        head: Value,
        list: FieldId,
        cur: Value,
    ) -> Result<Value, HostError> {
        let l = self
            .lists
            .get(&(head, field_name(list)))
            .ok_or_else(|| HostError::Fault("no such list".into()))?;
        let i = l
            .iter()
            .position(|v| *v == cur)
            .ok_or_else(|| HostError::Fault(format!("{cur} is not on the list")))?;
        Ok(l.get(i + 1).copied().unwrap_or(Value::Null))
    }
}

/// Loads `text` as `test.rmap` with the test schema; panics with rendered diagnostics on error.
pub fn load(text: &str) -> Program {
    match load_str("test.rmap", text, Path::new("."), &schema()) {
        Ok(p) => p,
        Err(d) => panic!("{}", rmapcheck::lang::render_diagnostics(&d)),
    }
}

/// A fresh scratch directory for model files, removed when the guard is dropped.
pub fn scratch_dir(tag: &str) -> crate::scratch::Scratch {
    crate::scratch::scratch(tag)
}
