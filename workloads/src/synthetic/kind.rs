//! What a workload family registers ([`WorkloadKind`], [`Param`]) and implements
//! ([`KeyModel`]): the types every workload file uses, apart from the registry in the parent
//! module that lists the workloads, so that no workload imports the module that imports it.

use crate::{Op, Spec, SpecError};

/// The random generator of every workload: xoshiro256++, whose output is fixed by its
/// published algorithm (unlike `StdRng`, which may change between `rand` releases).
pub type WorkloadRng = rand_xoshiro::Xoshiro256PlusPlus;

/// One family of workloads: its name, its parameters and how to build its key model.
#[derive(Debug)]
pub struct WorkloadKind {
    /// The name before the colon in a spec (`zipf`).
    pub name: &'static str,
    /// One line saying what the workload models.
    pub about: &'static str,
    /// The workload's own parameters (the shared ones are in [`COMMON_PARAMS`]).
    pub params: &'static [Param],
    /// The default share of point operations that are puts.
    pub default_writes: f64,
    /// Builds a fresh key model (with its initial state) from a checked spec.
    pub build: fn(&Spec) -> Result<Box<dyn KeyModel>, SpecError>,
}

/// A parameter of a workload spec, for validation, help texts and label normalization.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// The name before `=`.
    pub name: &'static str,
    /// What kind of value it takes.
    pub kind: ParamKind,
    /// The default, as it would be written in a spec.
    pub default: &'static str,
    /// One line saying what it controls.
    pub about: &'static str,
}

/// The kind of value a [`Param`] takes; labels print each kind in one canonical form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A whole number (`1_000_000` is accepted and printed `1000000`).
    Count,
    /// A number in `[0, 1]`.
    Fraction,
    /// Any real number (ranges are checked by the workload).
    Number,
    /// `true` or `false`.
    Flag,
}

/// Where an event sits in its stream, for key models that depend on time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Position of the event in the stream (0-based).
    pub index: u64,
    /// The event's timestamp in microseconds (`floor(index * 1e6 / rate)`).
    pub time_us: u64,
}

/// The key choice of one workload, with whatever state it keeps between events.
///
/// The shared layer decides the operation first, then asks for its key. For a scan the key
/// is the scan's start. Implementations must not allocate per call.
pub trait KeyModel: Send {
    /// The first part of [`WorkloadSpec::describe`](super::WorkloadSpec::describe), e.g. `Uniform over 1,000 keys`.
    fn describe(&self) -> String;

    /// The key of the event at `slot` doing `op`.
    fn next_key(&mut self, op: Op, slot: Slot, rng: &mut WorkloadRng) -> u64;

    /// Told the stream's length before the first event (YCSB sizes its key chooser by the
    /// operation count). The default ignores it.
    fn set_events(&mut self, _events: u64) {}

    /// For workloads with their own operation mix (YCSB): the op, key and exclusive scan end
    /// of the event at `slot`, drawn instead of the shared `scans`/`writes` mix and
    /// [`KeyModel::next_key`]. `None`, the default, leaves the op to the shared mix.
    fn next_event(&mut self, _slot: Slot, _rng: &mut WorkloadRng) -> Option<(Op, u64, u64)> {
        None
    }

    /// True when [`KeyModel::next_event`] defines the op mix; the description is then
    /// [`KeyModel::describe`] alone.
    fn own_op_mix(&self) -> bool {
        false
    }
}
