//! An S3 server for the tests: moto, installed into a venv of its own
//! under the target folder (pip reaches PyPI), one server per test binary,
//! a fresh bucket per case, every request signed. moto checks a
//! precondition and then writes without a lock, so these tests prove the
//! protocol, not the atomicity S3 gives.
//!
//! [`Proxy`] sits between a client and the server to cut the connection
//! or answer every request with a 503, as a server gone or overloaded.

#![allow(dead_code)] // each test binary uses a part

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use object_store::aws::AmazonS3Builder;
use object_store::{ClientOptions, ObjectStore, RetryConfig};

use super::venv;

/// The moto server of this test binary.
pub struct Moto {
    pub port: u16,
    _child: Mutex<Child>,
}

/// moto's server, ended by a thread of its own when its parent (this test
/// binary) is gone: a static is never dropped.
const SERVE: &str = "\
import os, sys, threading, time
parent = os.getppid()
def watch():
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(0)
threading.Thread(target=watch, daemon=True).start()
from moto.server import main
main(sys.argv[1:])
";

/// The server of this test binary, started on first use.
pub fn moto() -> &'static Moto {
    static MOTO: OnceLock<Moto> = OnceLock::new();
    MOTO.get_or_init(Moto::start)
}

impl Moto {
    fn start() -> Moto {
        let python = venv::python(
            "moto-venv",
            "moto-5.2.5.ready",
            &["moto[s3]==5.2.5", "flask", "flask-cors"],
        );
        let port = free_port();
        let child = Command::new(python)
            .args(["-c", SERVE, "-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting moto's server");
        let moto = Moto {
            port,
            _child: Mutex::new(child),
        };
        let start = Instant::now();
        while request(port, "POST", "/moto-api/reset").is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "moto did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        moto
    }

    /// A fresh bucket, unique in this server, named from `hint`.
    pub fn bucket(&self, hint: &str) -> String {
        static N: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "{hint}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        assert_eq!(request(self.port, "PUT", &format!("/{name}")).unwrap(), 200);
        name
    }

    /// The store of `bucket` on this server.
    pub fn store(&self, bucket: &str) -> Arc<dyn ObjectStore> {
        store_at(self.port, bucket, 2)
    }
}

/// The store of `bucket` through the server at `port` (this server, or a
/// proxy of it), retrying a failed request `retries` times, quickly.
pub fn store_at(port: u16, bucket: &str, retries: usize) -> Arc<dyn ObjectStore> {
    let store = AmazonS3Builder::new()
        .with_endpoint(format!("http://127.0.0.1:{port}"))
        .with_bucket_name(bucket)
        .with_region("us-east-1")
        .with_access_key_id("test")
        .with_secret_access_key("test")
        .with_client_options(
            ClientOptions::new()
                .with_timeout(Duration::from_secs(5))
                .with_connect_timeout(Duration::from_secs(1))
                .with_allow_http(true),
        )
        .with_retry(RetryConfig {
            max_retries: retries,
            retry_timeout: Duration::from_secs(10),
            backoff: object_store::BackoffConfig {
                init_backoff: Duration::from_millis(20),
                max_backoff: Duration::from_millis(200),
                base: 2.,
            },
        })
        .build()
        .unwrap();
    Arc::new(store)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// An unsigned request (moto's own API, bucket creation); its status.
pub fn request(port: u16, method: &str, path: &str) -> std::io::Result<u16> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let status = response.split(' ').nth(1).and_then(|s| s.parse().ok());
    status.ok_or_else(|| std::io::Error::other(format!("no status in {response:?}")))
}

/// What a [`Proxy`] does with requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u16)]
pub enum Mode {
    /// Passes them to the server.
    Up,
    /// Closes every connection: the server is gone.
    Down,
    /// Answers each with `503 Slow Down`.
    Storm,
}

/// A TCP proxy in front of the server, in a [`Mode`] the test sets.
pub struct Proxy {
    pub port: u16,
    mode: Arc<AtomicU16>,
    /// Requests answered with a 503.
    pub refused: Arc<AtomicUsize>,
    /// Connections open through it, to cut when the mode changes.
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    /// A proxy of the server at `server` (a port), up.
    pub fn start(server: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let proxy = Proxy {
            port: listener.local_addr().unwrap().port(),
            mode: Arc::new(AtomicU16::new(Mode::Up as u16)),
            refused: Arc::default(),
            open: Arc::default(),
        };
        let (mode, refused, open) = (
            proxy.mode.clone(),
            proxy.refused.clone(),
            proxy.open.clone(),
        );
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let mode = mode.load(Ordering::SeqCst);
                if mode == Mode::Down as u16 {
                    let _ = client.shutdown(Shutdown::Both);
                } else if mode == Mode::Storm as u16 {
                    open.lock().unwrap().push(client.try_clone().unwrap());
                    let refused = refused.clone();
                    std::thread::spawn(move || answer_503(client, &refused));
                } else if let Ok(upstream) = TcpStream::connect(("127.0.0.1", server)) {
                    let mut open = open.lock().unwrap();
                    open.push(client.try_clone().unwrap());
                    open.push(upstream.try_clone().unwrap());
                    pump(client.try_clone().unwrap(), upstream.try_clone().unwrap());
                    pump(upstream, client);
                }
            }
        });
        proxy
    }

    /// Sets the mode, cutting the connections open through the proxy.
    pub fn set(&self, mode: Mode) {
        self.mode.store(mode as u16, Ordering::SeqCst);
        for stream in self.open.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

/// Copies `from` to `to` in a thread until either ends.
fn pump(mut from: TcpStream, mut to: TcpStream) {
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut from, &mut to);
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    });
}

/// Reads requests on `client` and answers each with a 503.
fn answer_503(mut client: TcpStream, refused: &AtomicUsize) {
    let _ = client.set_read_timeout(Some(Duration::from_secs(5)));
    let mut buf = Vec::new();
    let mut chunk = [0; 64 * 1024];
    loop {
        // One request: its head, then its body.
        let Some(head_end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            match client.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
            continue;
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
        let body: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        while buf.len() < head_end + 4 + body {
            match client.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        buf.drain(..head_end + 4 + body);
        refused.fetch_add(1, Ordering::SeqCst);
        let answer = "HTTP/1.1 503 Slow Down\r\nContent-Length: 0\r\n\r\n";
        if client.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}
