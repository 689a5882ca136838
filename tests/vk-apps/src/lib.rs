//! What the Vulkan test programs share: the SPIR-V of their shaders (built
//! by build.rs, with and without debug information), arguments, and the
//! checksum of a frame.

/// SPIR-V words of a shader built by build.rs.
pub fn spirv(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The words of a SPIR-V file build.rs wrote.
macro_rules! built_spirv {
    ($file:literal) => {
        spirv(include_bytes!(concat!(env!("OUT_DIR"), "/", $file)))
    };
}

/// The shaders of `vk_triangle`: `(vertex, fragment)`, with debug
/// information (the GLSL embedded) or without.
pub fn triangle_shaders(debug_info: bool) -> (Vec<u32>, Vec<u32>) {
    if debug_info {
        let vertex = built_spirv!("vk_triangle.vert.g.spv");
        (vertex, built_spirv!("vk_triangle.frag.g.spv"))
    } else {
        let vertex = built_spirv!("vk_triangle.vert.spv");
        (vertex, built_spirv!("vk_triangle.frag.spv"))
    }
}

/// The `i`-th command-line argument, or `default`.
pub fn arg<T: std::str::FromStr>(i: usize, name: &str, default: T) -> anyhow::Result<T> {
    match std::env::args().nth(i + 1) {
        None => Ok(default),
        Some(s) => s
            .parse()
            .map_err(|_| anyhow::anyhow!("{name} must be a number, got {s:?}")),
    }
}

/// 64-bit FNV-1a, as the GL test apps print it.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// One object's destruction.
type Destroy = Box<dyn FnOnce(&ash::Device)>;

/// What to destroy, registered as each object is created and destroyed in
/// reverse order when dropped: also when a frame fails half-way.
pub struct Cleanup {
    device: ash::Device,
    steps: Vec<Destroy>,
}

impl Cleanup {
    pub fn new(device: &ash::Device) -> Cleanup {
        Cleanup {
            device: device.clone(),
            steps: Vec::new(),
        }
    }

    /// Registers `destroy`, to run before everything registered earlier.
    pub fn add(&mut self, destroy: impl FnOnce(&ash::Device) + 'static) {
        self.steps.push(Box::new(destroy));
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        // SAFETY: the device is idle once nothing is in flight; objects are
        // destroyed before what they were made from.
        unsafe {
            let _ = self.device.device_wait_idle();
        }
        while let Some(step) = self.steps.pop() {
            step(&self.device);
        }
    }
}
