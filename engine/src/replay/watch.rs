//! What sees a replayed stream's events in order beside the workers ([`StreamWatch`]).

use workloads::EventChunk;

/// Something that sees a replayed stream's events in order, such as a profile of its first
/// events: it runs on a thread of its own, fed the chunks the workers decoded (put back in
/// stream order), so that it neither decodes again nor holds the workers back while they
/// cut the input.
pub trait StreamWatch: Sync {
    /// Sees the next events of the stream; false once it wants no more.
    fn watch(&self, chunk: &EventChunk) -> bool;

    /// Called on its thread once it has seen its last events (it wanted no more, or the
    /// stream ended): the place to finish its own work beside the rest of the replay.
    fn finish(&self) {}
}
