//! `vk_subpass [FRAMES] [SIZE] [plain|nonsemantic]`: one render pass of
//! two subpasses per frame, offscreen, SIZE x SIZE (default 64) RGBA8. The
//! first subpass draws `vk_triangle.frag` (frame time `t` = frame * 0.125,
//! a push constant) into an image of its own; the second reads that image
//! at each pixel as an input attachment (`vk_subpass.frag`, `subpassLoad`)
//! and writes it tinted into the image that is read back. Prints `frame N
//! checksum HEX` (64-bit FNV-1a of that image, top row first) for FRAMES
//! (default 3) frames.

use ash::vk;
use shaderdbg_vk_test_apps::{shader, Args, Binding, Scene, Shaders};

fn main() -> anyhow::Result<()> {
    let args = Args::parse()?;
    let mut scene = Scene::with_input_attachment(args.size)?;
    let vertex = shader("vk_triangle.vert", args.debug_info)?;
    let fragment = vk::ShaderStageFlags::FRAGMENT;
    let push = [vk::PushConstantRange::default()
        .stage_flags(fragment)
        .size(4)];
    scene.set_pipeline(&Shaders {
        vertex: &vertex,
        fragment: &shader("vk_triangle.frag", args.debug_info)?,
        set_layouts: &[],
        push_constants: &push,
        specialization: None,
    })?;
    let (draw, draw_layout) = (scene.pipeline(), scene.layout());
    let input = Binding::InputAttachment(scene.input_view()?);
    let (set_layout, set) = scene.descriptor_set(fragment, &[input])?;
    scene.set_pipeline_in(
        1,
        &Shaders {
            vertex: &vertex,
            fragment: &shader("vk_subpass.frag", args.debug_info)?,
            set_layouts: &[set_layout],
            push_constants: &[],
            specialization: None,
        },
    )?;
    let (read, read_layout) = (scene.pipeline(), scene.layout());
    let cmd = scene.command_buffer();
    let graphics = vk::PipelineBindPoint::GRAPHICS;
    for frame in 0..args.frames {
        let t = frame as f32 * 0.125;
        scene.record(cmd, |d, cmd| {
            // SAFETY: recording into `cmd`, inside the scene's render
            // pass, with pipelines and a set made for its subpasses.
            unsafe {
                d.cmd_bind_pipeline(cmd, graphics, draw);
                d.cmd_push_constants(cmd, draw_layout, fragment, 0, &t.to_le_bytes());
                d.cmd_draw(cmd, 3, 1, 0, 0);
                d.cmd_next_subpass(cmd, vk::SubpassContents::INLINE);
                d.cmd_bind_pipeline(cmd, graphics, read);
                d.cmd_bind_descriptor_sets(cmd, graphics, read_layout, 0, &[set], &[]);
                d.cmd_draw(cmd, 3, 1, 0, 0);
            }
        })?;
        scene.submit(cmd)?;
        println!("frame {frame} checksum {:016x}", scene.checksum()?);
    }
    Ok(())
}
