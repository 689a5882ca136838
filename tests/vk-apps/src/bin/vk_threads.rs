//! `vk_threads [THREADS] [FRAMES] [SIZE]`: THREADS (default 2) threads at
//! once, each with its own instance, device and queue ([`Scene`]), render
//! FRAMES (default 3) frames of `vk_triangle`'s shaders at SIZE (default 32),
//! thread T at time `0.125 * frame + 0.5 * T`. Prints `thread T frame N
//! checksum HEX` in thread and frame order once all are done, so the output
//! does not depend on scheduling. For the layer's dispatch tables: several
//! instances, devices and queues created, used and destroyed concurrently.

use anyhow::anyhow;
use shaderdbg_vk_test_apps::{arg, DebugInfo, Scene};

fn main() -> anyhow::Result<()> {
    let threads: u32 = arg(0, "THREADS", 2)?;
    let frames: u32 = arg(1, "FRAMES", 3)?;
    let size: u32 = arg(2, "SIZE", 32)?;
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            std::thread::spawn(move || -> anyhow::Result<Vec<u64>> {
                let scene = Scene::new(size, DebugInfo::Source)?;
                (0..frames)
                    .map(|f| scene.frame(&[vec![f as f32 * 0.125 + t as f32 * 0.5]]))
                    .collect()
            })
        })
        .collect();
    for (t, w) in workers.into_iter().enumerate() {
        let sums = w.join().map_err(|_| anyhow!("thread {t} panicked"))??;
        for (f, sum) in sums.iter().enumerate() {
            println!("thread {t} frame {f} checksum {sum:016x}");
        }
    }
    Ok(())
}
