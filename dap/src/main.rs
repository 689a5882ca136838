//! `shaderdbg-dap [--port N]`: the Debug Adapter Protocol server. On stdio by
//! default (stdout carries the protocol, nothing else); with `--port N` it
//! listens on 127.0.0.1:N and serves one connection. Logs go to stderr only
//! when `SHADERDBG_DAP_LOG` asks (a `tracing` filter such as `debug` or
//! `shaderdbg_dap=debug,shaderdbg_session=info`).

use std::io::{BufReader, Write};
use std::net::TcpListener;

use anyhow::Context;
use clap::Parser;

#[derive(Parser)]
#[command(
    name = "shaderdbg-dap",
    version,
    about = "The shaderdbg debug adapter (Debug Adapter Protocol)"
)]
struct Cli {
    /// Serve one connection on 127.0.0.1:PORT instead of stdio (0: any free
    /// port; the port is printed to stderr as `listening on 127.0.0.1:PORT`).
    #[arg(long, value_name = "PORT")]
    port: Option<u16>,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    if let Ok(filter) = std::env::var("SHADERDBG_DAP_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(std::io::stderr)
            .with_ansi(false)
            .init();
    }
    match cli.port {
        None => {
            let stdin = BufReader::new(std::io::stdin());
            let stdout = std::io::stdout();
            shaderdbg_dap::serve(stdin, stdout);
        }
        Some(port) => {
            let listener = TcpListener::bind(("127.0.0.1", port))
                .with_context(|| format!("listening on 127.0.0.1:{port}"))?;
            let addr = listener.local_addr()?;
            eprintln!("listening on {addr}");
            std::io::stderr().flush()?;
            let (stream, peer) = listener.accept().context("accepting a connection")?;
            tracing::info!(%peer, "client connected");
            drop(listener);
            let reader = BufReader::new(stream.try_clone()?);
            shaderdbg_dap::serve(reader, stream);
        }
    }
    Ok(())
}
