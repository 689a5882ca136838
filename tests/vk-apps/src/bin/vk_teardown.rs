//! `vk_teardown [SIZE]`: one frame of `vk_triangle`'s shaders (at time
//! 0.25) submitted on a thread of its own while the main thread tears
//! everything down: once the thread is about to submit, the main thread
//! waits half a second, prints `tearing down`, waits for the device to be
//! idle (`vkDeviceWaitIdle`), prints `frame 0 checksum HEX`, destroys every
//! object and the device, and only then joins the thread. Alone, the
//! submission is long done when the device goes; a debugger stopped in it
//! must hold the teardown until the stop is over.

use std::time::Duration;

use anyhow::anyhow;
use shaderdbg_vk_test_apps::{arg, DebugInfo, Scene};

fn main() -> anyhow::Result<()> {
    let size: u32 = arg(0, "SIZE", 32)?;
    let scene = Scene::new(size, DebugInfo::Source)?;
    scene.record_triangles(scene.command_buffer(), &[0.25])?;
    let submitter = scene.submitter();
    let (about_to_submit, wait) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        let _ = about_to_submit.send(());
        submitter.submit()
    });
    wait.recv()?;
    std::thread::sleep(Duration::from_millis(500));
    println!("tearing down");
    scene.wait_idle()?;
    println!("frame 0 checksum {:016x}", scene.checksum()?);
    drop(scene);
    thread
        .join()
        .map_err(|_| anyhow!("the submitting thread panicked"))??;
    Ok(())
}
