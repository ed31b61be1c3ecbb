//! `rmapcheck drift`: the model's functions against a kernel source tree ([`command`]), the
//! model's documented stand-ins for kernel helpers ([`stand_ins`]) and the C-token text side
//! ([`text`]).

pub mod command;
mod stand_ins;
mod text;

pub use command::{drift, DriftArgs};
