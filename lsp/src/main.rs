//! `shaderdbg-lsp`: the shaderdbg language server, LSP on stdin/stdout.

fn main() {
    if std::env::args().any(|a| a == "--version" || a == "-V") {
        println!("shaderdbg-lsp {}", env!("CARGO_PKG_VERSION"));
        return;
    }
    // Few malloc arenas: with one per thread, memory freed after an analysis
    // on one blocking thread stays with that thread.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: a malloc tuning call made before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
    // The engine recurses over syntax trees: every thread that touches them
    // (async workers and blocking analysis threads) gets a big stack.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(16 << 20)
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("shaderdbg-lsp: cannot start the runtime: {e}");
            std::process::exit(1);
        }
    };
    // Served from a task, so that request handlers run on the runtime's
    // threads (with their big stacks), not on the main thread.
    let served = runtime.block_on(async {
        tokio::spawn(shaderdbg_lsp::server::serve(
            tokio::io::stdin(),
            tokio::io::stdout(),
        ))
        .await
    });
    if let Err(e) = served {
        eprintln!("shaderdbg-lsp: {e}");
        std::process::exit(1);
    }
    // Blocking analyses still running are abandoned.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
}
