//! The floor under chapter 13's HTTP numbers: hyper on tokio's
//! multi-threaded runtime, as chapter 13 runs it, with none of MCP. Every
//! request's body is read (a server must read it to keep the connection)
//! and answered with the same bytes: the result chapter 13 gives the
//! benchmark's `tools/call` of `add`. What chapter 13 costs beyond this is
//! its own work: parsing, checking headers and `_meta`, running the tool.
//!
//! `plain-http-server [ADDR]` listens on ADDR (default `127.0.0.1:0`) and
//! says where on stderr, in chapter 13's words: `listening on http://…/mcp`.

use std::convert::Infallible;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// One constant reply: chapter 13's answer to the benchmark, byte for byte.
const REPLY: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ch13-http","version":"0.1.0"}},"content":[{"text":"{\"sum\":5}","type":"text"}],"isError":false,"resultType":"complete","structuredContent":{"sum":5}}}"#;

async fn reply(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    // Read the whole body, as any real server must, then drop it.
    let _ = request.into_body().collect().await;
    let response = Response::builder()
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from_static(REPLY.as_bytes())))
        .expect("a constant response is valid");
    Ok(response)
}

async fn serve(address: String) -> std::io::Result<()> {
    let listener = TcpListener::bind(&address).await?;
    eprintln!("listening on http://{}/mcp", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(async move {
            let io = TokioIo::new(stream);
            let _ = http1::Builder::new()
                .serve_connection(io, service_fn(reply))
                .await;
        });
    }
}

fn main() -> std::process::ExitCode {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".to_string());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build();
    match runtime.map(|runtime| runtime.block_on(serve(address))) {
        Ok(Ok(())) => std::process::ExitCode::SUCCESS,
        Ok(Err(err)) | Err(err) => {
            eprintln!("plain-http-server: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}
