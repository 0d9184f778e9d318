//! The font charts are drawn with, embedded so that PNG text renders on a machine without any
//! system font (plotters' `ab_glyph` feature never looks for one).
//!
//! DejaVu Sans, from Debian's fonts-dejavu-core; its license is `assets/DejaVuSans-LICENSE.txt`.

use std::sync::OnceLock;

use plotters::style::FontStyle;

/// The family name charts ask for; SVG output names it too, so browsers use their sans-serif.
pub const FAMILY: &str = "sans-serif";

static DEJAVU_SANS: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// The embedded font for drawing glyphs directly (PNG text; see `backend.rs`).
pub fn glyph_font() -> Option<&'static ab_glyph::FontRef<'static>> {
    static FONT: OnceLock<Option<ab_glyph::FontRef<'static>>> = OnceLock::new();
    FONT.get_or_init(|| ab_glyph::FontRef::try_from_slice(DEJAVU_SANS).ok())
        .as_ref()
}

/// Registers the embedded font once; returns false when it could not be parsed.
pub fn ensure_registered() -> bool {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    *REGISTERED.get_or_init(|| {
        [FontStyle::Normal, FontStyle::Bold]
            .into_iter()
            .all(|style| plotters::style::register_font(FAMILY, style, DEJAVU_SANS).is_ok())
    })
}
