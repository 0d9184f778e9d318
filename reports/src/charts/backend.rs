//! One drawing backend for both outputs: every call goes to the SVG or the bitmap backend, so
//! each chart is drawn by one function and the SVG keeps its vector paths and text elements.

use plotters::prelude::{BitMapBackend, SVGBackend};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

/// The SVG or the PNG (RGB buffer) backend.
pub enum AnyBackend<'a> {
    /// Vector output.
    Svg(SVGBackend<'a>),
    /// Raster output into an RGB buffer.
    Bitmap(BitMapBackend<'a>),
}

/// A backend error, as text (the two backends have different error types).
#[derive(Debug)]
pub struct BackendError(String);

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BackendError {}

type Res = Result<(), DrawingErrorKind<BackendError>>;

fn conv_err<E: std::error::Error + Send + Sync>(
    e: DrawingErrorKind<E>,
) -> DrawingErrorKind<BackendError> {
    match e {
        DrawingErrorKind::DrawingError(e) => {
            DrawingErrorKind::DrawingError(BackendError(e.to_string()))
        }
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    }
}

/// Calls the same method on whichever backend this is.
macro_rules! both {
    ($self:ident, $b:ident => $call:expr) => {
        match $self {
            AnyBackend::Svg($b) => $call.map_err(conv_err),
            AnyBackend::Bitmap($b) => $call.map_err(conv_err),
        }
    };
}

/// Draws text into the bitmap with the embedded font, each glyph at its own left side bearing.
///
/// plotters' `ab_glyph` text drops the bearing, so glyphs such as `:` overlap their neighbour;
/// this keeps plotters' layout (same width estimate, baseline half the size below the top,
/// same anchors and rotations) and places glyphs as the font says.
fn draw_text_pixels<S: BackendTextStyle>(
    b: &mut BitMapBackend<'_>,
    text: &str,
    style: &S,
    pos: BackendCoord,
) -> Res {
    use ab_glyph::{point, Font, Glyph, PxScale, ScaleFont};
    use plotters_backend::text_anchor::{HPos, VPos};

    let color = style.color();
    let Some(font) = super::font::glyph_font() else {
        return b.draw_text(text, style, pos).map_err(conv_err);
    };
    if color.alpha == 0.0 {
        return Ok(());
    }
    let size = style.size() as f32;
    let scaled = font.as_scaled(size);
    let width: f32 = text
        .chars()
        .map(|c| scaled.h_advance(scaled.glyph_id(c)))
        .sum();
    let height = (style.size() / 1.24) as i32;
    let dx = match style.anchor().h_pos {
        HPos::Left => 0,
        HPos::Right => -(width as i32),
        HPos::Center => -(width as i32) / 2,
    };
    let dy = match style.anchor().v_pos {
        VPos::Top => 0,
        VPos::Center => -height / 2,
        VPos::Bottom => -height,
    };
    let transform = style.transform();
    let (w, h) = b.get_size();
    let mut pixels: Vec<(i32, i32, f32)> = Vec::new();
    let (mut caret, mut previous) = (0.0f32, None);
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = previous {
            caret += scaled.kern(p, id);
        }
        let glyph = Glyph {
            id,
            scale: PxScale::from(size),
            position: point(caret, size / 2.0),
        };
        if let Some(outline) = font.outline_glyph(glyph) {
            let bounds = outline.px_bounds();
            outline.draw(|gx, gy, coverage| {
                let (x, y) = transform.transform(
                    bounds.min.x as i32 + gx as i32 + dx,
                    bounds.min.y as i32 + gy as i32 + dy,
                );
                pixels.push((pos.0 + x, pos.1 + y, coverage));
            });
        }
        caret += scaled.h_advance(id);
        previous = Some(id);
    }
    for (x, y, coverage) in pixels {
        if x >= 0 && y >= 0 && x < w as i32 && y < h as i32 && coverage > 0.0 {
            let c = BackendColor {
                alpha: color.alpha * coverage.min(1.0) as f64,
                rgb: color.rgb,
            };
            b.draw_pixel((x, y), c).map_err(conv_err)?;
        }
    }
    Ok(())
}

impl DrawingBackend for AnyBackend<'_> {
    type ErrorType = BackendError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            AnyBackend::Svg(b) => b.get_size(),
            AnyBackend::Bitmap(b) => b.get_size(),
        }
    }

    fn ensure_prepared(&mut self) -> Res {
        both!(self, b => b.ensure_prepared())
    }

    fn present(&mut self) -> Res {
        both!(self, b => b.present())
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Res {
        both!(self, b => b.draw_pixel(point, color))
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Res {
        both!(self, b => b.draw_line(from, to, style))
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Res {
        both!(self, b => b.draw_rect(upper_left, bottom_right, style, fill))
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Res {
        both!(self, b => b.draw_path(path, style))
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Res {
        both!(self, b => b.draw_circle(center, radius, style, fill))
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Res {
        both!(self, b => b.fill_polygon(vert, style))
    }

    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, pos: BackendCoord) -> Res {
        match self {
            AnyBackend::Svg(b) => b.draw_text(text, style, pos).map_err(conv_err),
            AnyBackend::Bitmap(b) => draw_text_pixels(b, text, style, pos),
        }
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<BackendError>> {
        both!(self, b => b.estimate_text_size(text, style))
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Res {
        both!(self, b => b.blit_bitmap(pos, size, src))
    }
}
