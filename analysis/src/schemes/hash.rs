//! stub: being written.
use super::SchemeKind;
/// Registration.
pub const KIND: SchemeKind = SchemeKind {
    name: "hash",
    about: "stub",
    params: &[],
    needs_warmup: |_| false,
    build: |_, _| Err(crate::AnalysisError::Config("not yet".into())),
};
