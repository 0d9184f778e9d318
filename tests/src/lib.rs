//! Cross-crate tests live in `tests/tests/`; fixtures in `tests/fixtures/`.
