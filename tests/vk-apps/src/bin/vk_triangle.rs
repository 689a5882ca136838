//! `vk_triangle [FRAMES] [SIZE] [plain|nonsemantic|source] [DRAWS]`: renders FRAMES (default 3) frames
//! of a full-screen fragment shader (`shaders/vk_triangle.{vert,frag}`, the
//! frame's time in a push constant) into a SIZE x SIZE (default 64) RGBA8
//! image with Vulkan, offscreen (no swapchain), copies every frame to a
//! host-visible buffer and prints `frame N checksum HEX` (64-bit FNV-1a of
//! the pixels, top row first). `plain` uses SPIR-V built without debug
//! information, `nonsemantic` SPIR-V whose source is in
//! NonSemantic.Shader.DebugInfo.100 (`-gVS`), else `-g`. One submission
//! per frame, waited on with a fence, of DRAWS (default 1) draws, draw `i`
//! of frame `f` at time `f * 0.125 + i * 0.25` (each covers the last).

use shaderdbg_vk_test_apps::{arg, Args, Scene};

fn main() -> anyhow::Result<()> {
    let args = Args::parse()?;
    let draws: u32 = arg(3, "DRAWS", 1)?;
    for (frame, sum) in render(&args, draws)?.iter().enumerate() {
        println!("frame {frame} checksum {sum:016x}");
    }
    Ok(())
}

fn render(args: &Args, draws: u32) -> anyhow::Result<Vec<u64>> {
    let scene = Scene::new(args.size, args.debug_info)?;
    (0..args.frames)
        .map(|frame| {
            let ts = (0..draws).map(|i| frame as f32 * 0.125 + i as f32 * 0.25);
            scene.frame(&[ts.collect()])
        })
        .collect()
}
