//! PNG in (channel textures) and out (`--png`).

use std::path::Path;

use anyhow::{bail, Context as _};

/// An RGBA8 image stored bottom row first (GL's order, texture row 0 at
/// `t = 0`).
#[derive(Debug, Clone)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba_bottom_up: Vec<u8>,
}

/// Reverses the row order of a tightly packed RGBA8 image.
pub fn flip_rows(rgba: &[u8], width: u32) -> Vec<u8> {
    let row = width as usize * 4;
    if row == 0 {
        return Vec::new();
    }
    rgba.chunks_exact(row).rev().flatten().copied().collect()
}

/// Loads a PNG of any colour type and bit depth as RGBA8. The PNG's top
/// row becomes the image's *last* row, so that a texture made from it shows
/// the picture upright when sampled with `fragCoord / iResolution`
/// (Shadertoy's default vertical flip): `texelFetch(iChannel0, ivec2(0, 0),
/// 0)` is the PNG's bottom-left pixel.
pub fn load_png(path: &Path) -> anyhow::Result<Image> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let bad = || format!("{} is not a readable PNG", path.display());
    let mut reader = decoder.read_info().with_context(bad)?;
    let mut buf = vec![0u8; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).with_context(bad)?;
    let (width, height) = (info.width, info.height);
    let data = &buf[..info.buffer_size()];
    let pixels = width as usize * height as usize;
    let rgba: Vec<u8> = match info.color_type {
        png::ColorType::Rgba => data.to_vec(),
        png::ColorType::Rgb => data
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => data
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale => data.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => bail!("{}: palette was not expanded", path.display()),
    };
    if info.bit_depth != png::BitDepth::Eight || rgba.len() != pixels * 4 {
        bail!(
            "{}: unexpected decoded layout ({:?}, {:?})",
            path.display(),
            info.color_type,
            info.bit_depth
        );
    }
    Ok(Image {
        width,
        height,
        rgba_bottom_up: flip_rows(&rgba, width),
    })
}

/// Writes RGBA8 pixels (bottom row first) as a PNG, top row first.
pub fn write_png(
    path: &Path,
    width: u32,
    height: u32,
    rgba_bottom_up: &[u8],
) -> anyhow::Result<()> {
    let ctx = || format!("cannot write {}", path.display());
    let file = std::fs::File::create(path).with_context(ctx)?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().with_context(ctx)?;
    writer
        .write_image_data(&flip_rows(rgba_bottom_up, width))
        .with_context(ctx)?;
    writer.finish().with_context(ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flip() {
        let img = [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4];
        assert_eq!(
            flip_rows(&img, 2),
            vec![3, 3, 3, 3, 4, 4, 4, 4, 1, 1, 1, 1, 2, 2, 2, 2]
        );
    }

    #[test]
    fn png_round_trip_grey_and_rgb() {
        let dir = std::env::temp_dir().join(format!("shaderdbg-host-img-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rgb.png");
        {
            let file = std::fs::File::create(&path).unwrap();
            let mut e = png::Encoder::new(file, 1, 2);
            e.set_color(png::ColorType::Rgb);
            e.set_depth(png::BitDepth::Eight);
            let mut w = e.write_header().unwrap();
            w.write_image_data(&[10, 20, 30, 40, 50, 60]).unwrap();
        }
        let img = load_png(&path).unwrap();
        assert_eq!((img.width, img.height), (1, 2));
        // Bottom row (the PNG's second row) first.
        assert_eq!(img.rgba_bottom_up, vec![40, 50, 60, 255, 10, 20, 30, 255]);
        let out = dir.join("out.png");
        write_png(&out, 1, 2, &img.rgba_bottom_up).unwrap();
        let back = load_png(&out).unwrap();
        assert_eq!(back.rgba_bottom_up, img.rgba_bottom_up);
        std::fs::write(dir.join("bad.png"), b"not a png").unwrap();
        let err = load_png(&dir.join("bad.png")).unwrap_err();
        assert!(format!("{err:#}").contains("not a readable PNG"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
