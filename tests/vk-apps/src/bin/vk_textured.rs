//! `vk_textured [FRAMES] [SIZE] [plain|nonsemantic]`: a textured quad over
//! the middle half of a SIZE x SIZE (default 64) image, offscreen
//! (`shaders/vk_textured.{vert,frag}`): an 8x8 RGBA8 texture
//! ([`texture_rgba`], uploaded through a staging buffer in a submission of
//! its own before the first frame) sampled at the nearest texel, tinted by
//! a uniform buffer (`tint = (1, 0.5 + 0.25 frame, 0.25, 1)`, written
//! before each submit). The command buffer is recorded once and submitted
//! every frame. Prints `frame N checksum HEX` for FRAMES (default 3) frames.

use ash::vk;
use shaderdbg_vk_test_apps::{
    le_bytes, shader, texture_rgba, Args, Binding, Scene, Shaders, TEXTURE_SIZE,
};

fn main() -> anyhow::Result<()> {
    let args = Args::parse()?;
    let mut scene = Scene::offscreen(args.size)?;
    let fragment = vk::ShaderStageFlags::FRAGMENT;
    let (view, sampler) = scene.texture(TEXTURE_SIZE, TEXTURE_SIZE, &texture_rgba())?;
    let tint = scene.host_buffer(16, vk::BufferUsageFlags::UNIFORM_BUFFER)?;
    let (set_layout, set) = scene.descriptor_set(
        fragment,
        &[
            Binding::UniformBuffer(tint.buffer),
            Binding::Texture(view, sampler),
        ],
    )?;
    scene.set_pipeline(&Shaders {
        vertex: &shader("vk_textured.vert", args.debug_info)?,
        fragment: &shader("vk_textured.frag", args.debug_info)?,
        set_layouts: &[set_layout],
        push_constants: &[],
        specialization: None,
    })?;
    // Recorded once: each frame differs only by the uniform buffer.
    let cmd = scene.command_buffer();
    scene.record_draw(cmd, &[set], 6)?;
    for frame in 0..args.frames {
        let green = 0.5 + 0.25 * frame as f32;
        tint.write(&le_bytes(&[1.0, green, 0.25, 1.0], f32::to_le_bytes))?;
        scene.submit(cmd)?;
        println!("frame {frame} checksum {:016x}", scene.checksum()?);
    }
    Ok(())
}
