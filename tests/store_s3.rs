//! The store on S3: a moto server (installed into a venv of its own under
//! the target folder; pip reaches PyPI), started and stopped here, every
//! request signed. moto checks a precondition and then writes without a
//! lock, so these tests prove the protocol, not the atomicity S3 gives.

#[path = "common/venv.rs"]
mod venv;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use codec::store::backend::object::Objects;
use codec::store::backend::{Backend, Created, Replaced};
use codec::{Cache, CacheOptions, Codec};
use object_store::aws::AmazonS3Builder;
use object_store::{ObjectStore, RetryConfig};

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "test.Chunk")]
struct Chunk {
    text: String,
    vector: codec::Bytes,
}

fn chunk(i: u32, len: usize) -> Chunk {
    Chunk {
        text: format!("chunk number {i}"),
        vector: codec::Bytes((0..len).map(|b| (b as u32 * 7 + i) as u8).collect()),
    }
}

/// A Python with moto 5.2.5, installed once into a venv under the target folder.
fn python() -> PathBuf {
    venv::python(
        "moto-venv",
        "moto-5.2.5.ready",
        &["moto[s3]==5.2.5", "flask", "flask-cors"],
    )
}

/// A moto server on a free port, stopped when dropped.
struct Moto {
    child: Child,
    port: u16,
}

impl Moto {
    fn start() -> Moto {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(python())
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting moto_server");
        let moto = Moto { child, port };
        let start = Instant::now();
        while moto.request("POST", "/moto-api/reset").is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "moto did not start"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        moto
    }

    /// An unsigned request (moto's own API, bucket creation); its status.
    fn request(&self, method: &str, path: &str) -> std::io::Result<u16> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))?;
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            self.port
        )?;
        let mut response = String::new();
        stream.read_to_string(&mut response)?;
        let status = response.split(' ').nth(1).and_then(|s| s.parse().ok());
        status.ok_or_else(|| std::io::Error::other(format!("no status in {response:?}")))
    }

    /// A fresh bucket, and the store of it (signed requests).
    fn bucket(&self, name: &str) -> Arc<dyn ObjectStore> {
        assert_eq!(self.request("PUT", &format!("/{name}")).unwrap(), 200);
        let store = AmazonS3Builder::new()
            .with_endpoint(format!("http://127.0.0.1:{}", self.port))
            .with_allow_http(true)
            .with_bucket_name(name)
            .with_region("us-east-1")
            .with_access_key_id("test")
            .with_secret_access_key("test")
            .with_retry(RetryConfig {
                max_retries: 2,
                retry_timeout: Duration::from_secs(5),
                ..RetryConfig::default()
            })
            .build()
            .unwrap();
        Arc::new(store)
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_store_on_s3_keeps_its_promises() {
    let moto = Moto::start();

    // The seam's commits: create-if-absent and replace-if-unchanged.
    let store = moto.bucket("seam");
    let backend = Objects::new(store.clone(), "root", "s3://seam/root").unwrap();
    assert_eq!(
        backend.create("m.json", b"one", false).unwrap(),
        Created::Yes
    );
    assert_eq!(
        backend.create("m.json", b"two", false).unwrap(),
        Created::Exists
    );
    let (bytes, v1) = backend.read_versioned("m.json").unwrap().unwrap();
    assert_eq!(bytes, b"one");
    assert!(matches!(
        backend.replace("m.json", b"two", &v1).unwrap(),
        Replaced::Yes(_)
    ));
    assert_eq!(
        backend.replace("m.json", b"three", &v1).unwrap(),
        Replaced::Changed
    );
    assert_eq!(backend.read_range("m.json", 1..10).unwrap(), b"wo");
    assert_eq!(backend.read_range("m.json", 10..20).unwrap(), b"");
    let listed: Vec<_> = backend
        .list("m")
        .unwrap()
        .into_iter()
        .map(|l| l.name)
        .collect();
    assert_eq!(listed, ["m.json"]);

    // The typed API, two handles.
    let store = moto.bucket("cache");
    let open = || Cache::open_store(store.clone(), "runs/1", CacheOptions::default()).unwrap();
    let (a, b) = (open(), open());
    for i in 0..20 {
        a.put(&format!("k/{i}"), &chunk(i, 10 + 300 * i as usize))
            .unwrap();
    }
    b.put("k/3", &chunk(99, 10)).unwrap();
    assert!(b.remove("k/4").unwrap());
    let reader = open();
    assert_eq!(reader.len().unwrap(), 19);
    assert_eq!(reader.get::<Chunk>("k/3").unwrap(), Some(chunk(99, 10)));
    assert_eq!(reader.get::<Chunk>("k/4").unwrap(), None);
    assert_eq!(
        reader.get::<Chunk>("k/19").unwrap(),
        Some(chunk(19, 10 + 300 * 19))
    );

    // Faults are typed errors naming the object.
    let gone = Cache::open_store(moto.bucket("other"), "x", CacheOptions::default()).unwrap();
    drop(moto);
    let err = gone.put("k", &chunk(1, 10)).unwrap_err();
    assert!(err.to_string().contains("/x/"), "{err}");
}
