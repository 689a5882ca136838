//! Custom requests for the VS Code extension. The contract, exactly:
//!
//! ## `shaderdbg/frameImage`
//!
//! Arguments `{}`. Only while stopped at a draw. Response body
//! `{"frame":u64,"draw":u64,"width":u32,"height":u32,"shows":"beforeDraw"|"afterSubmission",
//!   "origin":"bottomLeft"|"topLeft","png":"<base64 PNG, top row first>"}`:
//! the framebuffer the stopped draw renders to (`ScreenshotAt::Now`), as it
//! is before the draw (OpenGL: `beforeDraw`) or after the stopped
//! submission, all its draws done (Vulkan: `afterSubmission`); `origin` is
//! where `gl_FragCoord`'s origin is in it (as for `valuesImage`), so that
//! a pixel clicked is named as the shader names it. Otherwise an error
//! response saying why.
//!
//! ## `shaderdbg/debugPixel`
//!
//! Arguments `{"x":u32,"y":u32}` in `gl_FragCoord` convention (origin
//! bottom-left). Sets pixel history for that pixel in the next frame
//! (`StopFilter { pixel, pixel_history: true, frame: next }`) and continues
//! (resumes a stop). Response body `{"frame":u64}` (the frame). The program
//! then stops at each draw covering the pixel: `stopped` with reason
//! `"entry"` (the first draw of that frame) or `"step"` (later draws) and
//! description `"Pixel (x, y) history"`. After that frame the previous
//! filter comes back (the session restores it when the agent reports the
//! frame's end; a draw the program makes right after its swap, before the
//! agent reads that message, still sees the one-frame filter).
//!
//! ## `shaderdbg/valuesImage`
//!
//! Arguments `{"expression":string,"frameId"?:number}`. While stopped at a
//! draw: the per-fragment value of the expression at the current line of the
//! frame (the top frame of the current thread when absent), before that line
//! first executes, over the whole draw (`ToAgent::Watch`). Response body:
//!
//! ```text
//! {"expression":string,"type":"vec3","line":u32,"width":u32,"height":u32,
//!  "components":u32,
//!  "data":"<base64 little-endian f32, width*height*components, bottom row first>",
//!  "covered":"<base64 u8 per pixel, 1 where a fragment of the draw produced a value>",
//!  "min":[...],"max":[...],"nan":u32,"inf":u32,"origin":"bottomLeft"|"topLeft"}
//! ```
//!
//! `data` is upright (bottom row first) for every API; `origin` is where
//! `gl_FragCoord`'s origin is in the stopped API (Vulkan: `topLeft`, y
//! down), so that a pixel is named as the shader and the stop name it.
//!
//! `line` is the line as the client sees it (in the file when the shader
//! came from one). Ints, uints and bools are converted to f32 (true = 1);
//! matrices are column-major (`components` = columns * rows). Uncovered
//! pixels are 0. `min`/`max` are per component over covered finite values
//! (`null` when there are none); `nan`/`inf` count covered pixels with a
//! NaN / an infinite component.
//!
//! ## Event `shaderdbg/runtimeSource`
//!
//! Body `{"path":string,"source":string}`: the program compiled a shader
//! from the file at `path` (bound by content), and `source` is what it
//! compiled (headers and replaced placeholders included). The extension
//! hands it to the language server (`shaderdbg/runtimeContext`), which
//! analyses the file in that context while the session runs.

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use shaderdbg_glsl::{Type, Value};
use shaderdbg_session::WatchImage;

pub const FRAME_IMAGE: &str = "shaderdbg/frameImage";
pub const DEBUG_PIXEL: &str = "shaderdbg/debugPixel";
pub const VALUES_IMAGE: &str = "shaderdbg/valuesImage";

/// The body of the `shaderdbg/runtimeSource` event.
#[derive(Debug, Clone, Serialize)]
pub struct RuntimeSourceBody {
    pub path: String,
    pub source: String,
}

/// `shaderdbg/frameImage`'s response body.
#[derive(Debug, Clone, Serialize)]
pub struct FrameImageBody {
    pub frame: u64,
    pub draw: u64,
    pub width: u32,
    pub height: u32,
    /// `beforeDraw` or `afterSubmission` (the moment the image shows).
    pub shows: &'static str,
    /// `bottomLeft` (OpenGL) or `topLeft` (Vulkan): `gl_FragCoord`'s origin.
    pub origin: &'static str,
    /// Base64 PNG, top row first.
    pub png: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DebugPixelArguments {
    pub x: u32,
    pub y: u32,
}

/// `shaderdbg/debugPixel`'s response body: the frame whose pixel history is shown.
#[derive(Debug, Clone, Serialize)]
pub struct DebugPixelBody {
    pub frame: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValuesImageArguments {
    pub expression: String,
    #[serde(default)]
    pub frame_id: Option<i64>,
}

/// `shaderdbg/valuesImage`'s response body (see the module docs).
#[derive(Debug, Clone, Serialize)]
pub struct ValuesImageBody {
    pub expression: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub line: u32,
    pub width: u32,
    pub height: u32,
    pub components: u32,
    pub data: String,
    pub covered: String,
    /// Per component; `None` (null) where no covered value is finite.
    pub min: Vec<Option<f32>>,
    pub max: Vec<Option<f32>>,
    pub nan: u32,
    pub inf: u32,
    /// `bottomLeft` (OpenGL) or `topLeft` (Vulkan): `gl_FragCoord`'s origin.
    pub origin: &'static str,
}

/// A watch image of a value that is not made of scalars.
#[derive(Debug, thiserror::Error)]
#[error("`{expr}` is a {ty}: only scalars, vectors and matrices can be shown")]
pub struct NotAnImage {
    pub expr: String,
    pub ty: Type,
}

pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Scalars of a value, flattened (matrices column by column), as f32.
fn flatten(v: &Value, out: &mut Vec<f32>) {
    match v {
        Value::Bool(b) => out.push(f32::from(u8::from(*b))),
        Value::Int(i) => out.push(*i as f32),
        Value::Uint(u) => out.push(*u as f32),
        Value::Float(f) => out.push(*f),
        Value::Double(d) => out.push(*d as f32),
        Value::List(items) => items.iter().for_each(|i| flatten(i, out)),
        Value::Struct(fields) => fields.iter().for_each(|(_, f)| flatten(f, out)),
        Value::Undefined => out.push(0.0),
    }
}

/// The number of scalars of a type shown in a values image.
pub fn components(ty: &Type) -> Option<u32> {
    match ty {
        Type::Scalar(_) => Some(1),
        Type::Vector(_, n) => Some(u32::from(*n)),
        Type::Matrix { cols, rows, .. } => Some(u32::from(*cols) * u32::from(*rows)),
        _ => None,
    }
}

/// The `shaderdbg/valuesImage` body for a watch image.
pub fn values_image_body(img: &WatchImage, line: u32) -> Result<ValuesImageBody, NotAnImage> {
    let components = components(&img.ty).ok_or_else(|| NotAnImage {
        expr: img.expr.clone(),
        ty: img.ty.clone(),
    })?;
    let n = components as usize;
    let pixels = img.width as usize * img.height as usize;
    let mut data = Vec::with_capacity(pixels * n * 4);
    let mut covered = Vec::with_capacity(pixels);
    let mut min = vec![f32::INFINITY; n];
    let mut max = vec![f32::NEG_INFINITY; n];
    let (mut nan, mut inf) = (0u32, 0u32);
    let mut scalars = Vec::with_capacity(n);
    // The body is bottom row first whatever the API's origin.
    for slot in img.bottom_row_first().into_iter().take(pixels) {
        scalars.clear();
        match slot {
            Some(v) => {
                flatten(v, &mut scalars);
                scalars.resize(n, 0.0);
                covered.push(1u8);
                if scalars.iter().any(|f| f.is_nan()) {
                    nan += 1;
                }
                if scalars.iter().any(|f| f.is_infinite()) {
                    inf += 1;
                }
                for (i, f) in scalars.iter().enumerate() {
                    if f.is_finite() {
                        min[i] = min[i].min(*f);
                        max[i] = max[i].max(*f);
                    }
                }
            }
            None => {
                scalars.resize(n, 0.0);
                covered.push(0u8);
            }
        }
        for f in &scalars {
            data.extend_from_slice(&f.to_le_bytes());
        }
    }
    let bound = |v: &[f32]| {
        v.iter()
            .map(|f| Some(*f).filter(|f| f.is_finite()))
            .collect()
    };
    Ok(ValuesImageBody {
        expression: img.expr.clone(),
        ty: img.ty.to_string(),
        line,
        width: img.width,
        height: img.height,
        components,
        data: base64(&data),
        covered: base64(&covered),
        min: bound(&min),
        max: bound(&max),
        nan,
        inf,
        origin: origin_name(img.origin),
    })
}

/// An image's `origin` as the custom requests spell it.
pub fn origin_name(origin: shaderdbg_session::images::Origin) -> &'static str {
    match origin {
        shaderdbg_session::images::Origin::BottomLeft => "bottomLeft",
        shaderdbg_session::images::Origin::TopLeft => "topLeft",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use shaderdbg_glsl::types::Scalar;

    #[test]
    fn values_image_encoding() {
        let img = WatchImage {
            expr: "v".into(),
            ty: Type::Vector(Scalar::Float, 2),
            line: 3,
            width: 2,
            height: 1,
            values: vec![
                Some(Value::List(vec![Value::Float(1.0), Value::Float(f32::NAN)])),
                None,
            ],
            origin: Default::default(),
        };
        let b = serde_json::to_value(values_image_body(&img, 5).unwrap()).unwrap();
        assert_eq!(b["components"], 2);
        assert_eq!(b["line"], 5);
        assert_eq!(b["type"], "vec2");
        assert_eq!(b["nan"], 1);
        assert_eq!(b["min"], json!([1.0, null]));
        let data = base64::engine::general_purpose::STANDARD
            .decode(b["data"].as_str().unwrap())
            .unwrap();
        assert_eq!(data.len(), 2 * 2 * 4);
        assert_eq!(f32::from_le_bytes(data[0..4].try_into().unwrap()), 1.0);
        assert_eq!(b["covered"], base64(&[1, 0]));
    }

    /// A Vulkan image (row 0 at the top, y down) is sent bottom row first
    /// like a GL one, so that it is shown upright.
    #[test]
    fn values_images_are_bottom_row_first_whatever_the_origin() {
        use shaderdbg_session::images::Origin;
        // gl_FragCoord.y of a 1x3 draw: slot y holds y + 0.5.
        let rows = |origin| WatchImage {
            expr: "gl_FragCoord.y".into(),
            ty: Type::Scalar(Scalar::Float),
            line: 1,
            width: 1,
            height: 3,
            values: (0..3).map(|y| Some(Value::Float(y as f32 + 0.5))).collect(),
            origin,
        };
        let first_rows = |origin| {
            let b = serde_json::to_value(values_image_body(&rows(origin), 1).unwrap()).unwrap();
            let data = base64::engine::general_purpose::STANDARD
                .decode(b["data"].as_str().unwrap())
                .unwrap();
            data.chunks(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect::<Vec<_>>()
        };
        assert_eq!(first_rows(Origin::BottomLeft), [0.5, 1.5, 2.5]);
        // Vulkan's bottom row is the one at y = 2.5.
        assert_eq!(first_rows(Origin::TopLeft), [2.5, 1.5, 0.5]);
    }
}
