//! The tools the layer runs as child processes (SPIRV-Cross to decompile,
//! glslang to compile), fed on stdin.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use crate::error::Error;

/// Runs `cmd` with `input` on its stdin and collects its output; the error
/// says in words why it could not run.
pub fn run_piped(cmd: &mut Command, input: Vec<u8>) -> Result<Output, Error> {
    let name = cmd.get_program().to_string_lossy().into_owned();
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| Error::Spawn {
            program: name.clone(),
            source,
        })?;
    let mut stdin = child.stdin.take().ok_or(Error::NoStdin)?;
    // Written on a thread: a large input could fill the pipe while the
    // child waits for us to read its output.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().map_err(|source| Error::Wait {
        program: name,
        source,
    })?;
    let _ = writer.join();
    Ok(out)
}
