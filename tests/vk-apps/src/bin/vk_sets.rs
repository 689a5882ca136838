//! `vk_sets [FRAMES] [SIZE] [plain|nonsemantic|source] [full|early]`: a full-screen draw whose
//! fragment shader (`shaders/vk_sets.frag`) reads three descriptor sets:
//! set 0 a uniform buffer (`scale = (0.5, 0.25, 1, 1)` and the frame
//! number), set 1 a storage buffer (a palette of four colours, [`PALETTE`]),
//! set 2 the 8x8 texture of [`texture_rgba`] (uploaded in a submission of
//! its own before the first frame); so the layer's debug set is set 3.
//! `full`: the pipeline layout has as many sets as the device can bind
//! (`maxBoundDescriptorSets`; the ones after set 2 empty), leaving none
//! for the layer's. `early`: the pipeline layout is made of set layouts of
//! its own (defined as the sets' are, so compatible), destroyed as soon
//! as the pipeline exists, as Vulkan allows.
//! Records and submits one command buffer per frame; prints `frame N
//! checksum HEX` for FRAMES (default 3) frames of SIZE x SIZE (default 64).

use ash::vk;
use shaderdbg_vk_test_apps::{
    le_bytes, shader, texture_rgba, Args, Binding, Scene, Shaders, TEXTURE_SIZE,
};

/// The palette in set 1.
const PALETTE: [[f32; 4]; 4] = [
    [0.1, 0.2, 0.3, 1.0],
    [0.9, 0.1, 0.5, 1.0],
    [0.3, 0.8, 0.2, 1.0],
    [0.7, 0.6, 0.9, 1.0],
];

fn main() -> anyhow::Result<()> {
    let args = Args::parse()?;
    let mut scene = Scene::offscreen(args.size)?;
    let fragment = vk::ShaderStageFlags::FRAGMENT;
    let (view, sampler) = scene.texture(TEXTURE_SIZE, TEXTURE_SIZE, &texture_rgba())?;
    // std140: vec4 scale, int frame, padded to 32 bytes.
    let params = scene.host_buffer(32, vk::BufferUsageFlags::UNIFORM_BUFFER)?;
    let palette = scene.host_buffer(64, vk::BufferUsageFlags::STORAGE_BUFFER)?;
    palette.write(&le_bytes(PALETTE.as_flattened(), f32::to_le_bytes))?;
    let bindings = [
        [Binding::UniformBuffer(params.buffer)],
        [Binding::StorageBuffer(palette.buffer)],
        [Binding::Texture(view, sampler)],
    ];
    let sets = [
        scene.descriptor_set(fragment, &bindings[0])?,
        scene.descriptor_set(fragment, &bindings[1])?,
        scene.descriptor_set(fragment, &bindings[2])?,
    ];
    let mode = std::env::args().nth(4);
    let mut set_layouts = sets.map(|(layout, _)| layout).to_vec();
    if mode.as_deref() == Some("full") {
        while set_layouts.len() < scene.limits().max_bound_descriptor_sets as usize {
            set_layouts.push(scene.empty_set_layout()?);
        }
    }
    let early = mode.as_deref() == Some("early");
    if early {
        set_layouts = bindings
            .iter()
            .map(|b| scene.set_layout(fragment, b))
            .collect::<anyhow::Result<_>>()?;
    }
    scene.set_pipeline(&Shaders {
        vertex: &shader("vk_triangle.vert", args.debug_info)?,
        fragment: &shader("vk_sets.frag", args.debug_info)?,
        set_layouts: &set_layouts,
        push_constants: &[],
        specialization: None,
    })?;
    if early {
        for layout in set_layouts {
            // SAFETY: only the pipeline layout was made from it.
            unsafe { scene.device().destroy_descriptor_set_layout(layout, None) };
        }
    }
    let cmd = scene.command_buffer();
    for frame in 0..args.frames {
        let mut bytes = le_bytes(&[0.5f32, 0.25, 1.0, 1.0], f32::to_le_bytes);
        bytes.extend((frame as i32).to_le_bytes());
        params.write(&bytes)?;
        scene.record_draw(cmd, &sets.map(|(_, set)| set), 3)?;
        scene.submit(cmd)?;
        println!("frame {frame} checksum {:016x}", scene.checksum()?);
    }
    Ok(())
}
