//! `wgpu_quad [FRAMES] [SIZE] [nodebug|debug] [SCALE]`: renders FRAMES
//! (default 3) frames of `shaders/wgpu_quad.wgsl` (a full-screen triangle;
//! the frame's time and SCALE, default 32, in a uniform buffer: 0 makes
//! every colour NaN) into a SIZE x SIZE (default 64) RGBA8
//! texture with wgpu on its Vulkan backend, offscreen, reads every frame
//! back and prints `frame N checksum HEX` (64-bit FNV-1a of the pixels, top
//! row first). wgpu compiles the WGSL to SPIR-V with naga; with
//! `InstanceFlags::DEBUG` (the default here; `nodebug` turns it off) the
//! SPIR-V carries the WGSL text and the module's label as its file name.

use anyhow::{anyhow, Context};

const SHADER: &str = include_str!("../../shaders/wgpu_quad.wgsl");

fn arg(i: usize, name: &str, default: u32) -> anyhow::Result<u32> {
    match std::env::args().nth(i + 1) {
        None => Ok(default),
        Some(a) => a
            .parse()
            .with_context(|| format!("{name}: `{a}` is not a number")),
    }
}

fn main() -> anyhow::Result<()> {
    let frames = arg(0, "FRAMES", 3)?;
    let size = arg(1, "SIZE", 64)?;
    let debug = std::env::args().nth(3).as_deref() != Some("nodebug");
    let scale = match std::env::args().nth(4) {
        None => 32.0,
        Some(a) => a
            .parse()
            .with_context(|| format!("SCALE: `{a}` is not a number"))?,
    };
    for (frame, sum) in pollster::block_on(render(frames, size, debug, scale))?
        .iter()
        .enumerate()
    {
        println!("frame {frame} checksum {sum:016x}");
    }
    Ok(())
}

async fn render(frames: u32, size: u32, debug: bool, scale: f32) -> anyhow::Result<Vec<u64>> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN,
        flags: if debug {
            wgpu::InstanceFlags::DEBUG
        } else {
            wgpu::InstanceFlags::empty()
        },
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .context("no Vulkan adapter (lavapipe: Debian's mesa-vulkan-drivers)")?;
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor::default())
        .await
        .context("creating the device")?;
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("wgpu_quad.wgsl"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let uniform = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("frame"),
        size: 16,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("quad"),
        layout: None,
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: &[Some(format.into())],
        }),
        primitive: Default::default(),
        depth_stencil: None,
        multisample: Default::default(),
        multiview_mask: None,
        cache: None,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: uniform.as_entire_binding(),
        }],
    });
    let target = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("target"),
        size: wgpu::Extent3d {
            width: size,
            height: size,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = target.create_view(&Default::default());
    // Rows padded to the copy alignment.
    let row = (size * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
        * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: u64::from(row * size),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut sums = Vec::new();
    for frame in 0..frames {
        let values = [frame as f32 * 0.125, scale, 0.0, 0.0];
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        queue.write_buffer(&uniform, 0, &bytes);
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: None,
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.draw(0..3, 0..1);
        }
        enc.copy_texture_to_buffer(
            target.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: None,
                },
            },
            wgpu::Extent3d {
                width: size,
                height: size,
                depth_or_array_layers: 1,
            },
        );
        queue.submit([enc.finish()]);
        let slice = readback.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| anyhow!("waiting for the frame: {e}"))?;
        rx.recv()
            .context("the mapping was dropped")?
            .context("mapping the readback buffer")?;
        let data = slice
            .get_mapped_range()
            .map_err(|e| anyhow!("reading the frame: {e}"))?;
        let pixels: Vec<u8> = data
            .chunks(row as usize)
            .flat_map(|r| &r[..(size * 4) as usize])
            .copied()
            .collect();
        drop(data);
        readback.unmap();
        sums.push(fnv1a(&pixels));
    }
    Ok(sums)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}
