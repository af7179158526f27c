//! An Azure Blob Storage server for the tests: Azurite, installed by npm
//! (its registry is the only network it needs) into a folder of its own
//! under the target folder, one server per test binary, in memory, with
//! one container that the cases share, each under a prefix of its own.
//! Requests are signed with the emulator's well-known account key.

#![allow(dead_code)] // each test binary uses a part

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use object_store::azure::MicrosoftAzureBuilder;
use object_store::{ClientOptions, ObjectStore, RetryConfig};

/// The container every case writes into.
pub const CONTAINER: &str = "codec";

/// Azurite's account and its published key (the emulator's, not a secret).
pub const ACCOUNT: &str = "devstoreaccount1";
pub const KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// The packages npm installs, pinned.
const PACKAGES: [&str; 2] = ["azurite@3.35.0", "@azure/storage-blob@12.29.1"];

/// Starts Azurite's blob service in memory, creates the container, prints
/// `ready`; ends with the server when its parent (the test binary) is
/// gone, as a static is never dropped.
const SERVE: &str = r#"
const { spawn } = require("child_process");
const path = require("path");
const [root, port, container, account, key] = process.argv.slice(2);
const parent = process.ppid;
const server = spawn(process.execPath, [
  path.join(root, "node_modules/azurite/dist/src/blob/main.js"),
  "--blobHost", "127.0.0.1", "--blobPort", port,
  "--inMemoryPersistence", "--skipApiVersionCheck", "--silent", "--loose",
], { stdio: "ignore" });
const stop = (code) => { server.kill("SIGKILL"); process.exit(code); };
setInterval(() => { if (process.ppid !== parent) stop(0); }, 200);
process.on("SIGTERM", () => stop(0));
server.on("exit", () => stop(1));
const blob = require(path.join(root, "node_modules/@azure/storage-blob"));
const client = new blob.BlobServiceClient(
  `http://127.0.0.1:${port}/${account}`,
  new blob.StorageSharedKeyCredential(account, key));
(async () => {
  for (let i = 0; ; i++) {
    try { await client.getContainerClient(container).createIfNotExists(); break; }
    catch (e) {
      if (i > 600) { console.error(String(e)); stop(1); }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  console.log("ready");
})();
"#;

/// The Azurite server of this test binary.
pub struct Azurite {
    pub port: u16,
    _child: Mutex<Child>,
}

/// The server of this test binary, started on first use.
pub fn azurite() -> &'static Azurite {
    static AZURITE: OnceLock<Azurite> = OnceLock::new();
    AZURITE.get_or_init(Azurite::start)
}

impl Azurite {
    fn start() -> Azurite {
        let root = installed();
        let port = free_port();
        let mut child = Command::new("node")
            .arg(root.join("serve.js"))
            .arg(&root)
            .args([&port.to_string(), CONTAINER, ACCOUNT, KEY])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting Azurite (node must be installed)");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "ready", "Azurite did not start");
        Azurite {
            port,
            _child: Mutex::new(child),
        }
    }

    /// A prefix of the container no other case uses, named from `hint`.
    pub fn prefix(&self, hint: &str) -> String {
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        format!("{hint}-{}-{n}", std::process::id())
    }

    /// The container on this server, retrying a failed request twice.
    pub fn store(&self) -> Arc<dyn ObjectStore> {
        store_at(self.port, 2)
    }

    /// What `Cache::open_url("az://...")` reads from the environment to
    /// reach this server.
    pub fn env(&self) -> [(&'static str, String); 2] {
        [
            ("AZURE_STORAGE_USE_EMULATOR", "true".to_owned()),
            (
                "AZURITE_BLOB_STORAGE_URL",
                format!("http://127.0.0.1:{}", self.port),
            ),
        ]
    }
}

/// The container through the server at `port`, retrying a failed request
/// `retries` times, quickly.
pub fn store_at(port: u16, retries: usize) -> Arc<dyn ObjectStore> {
    let store = MicrosoftAzureBuilder::new()
        .with_account(ACCOUNT)
        .with_access_key(KEY)
        .with_container_name(CONTAINER)
        .with_endpoint(format!("http://127.0.0.1:{port}/{ACCOUNT}"))
        .with_allow_http(true)
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

/// The folder npm installed Azurite into, with the server's script: once,
/// built aside and renamed so concurrent runs never see half of it.
fn installed() -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let dir = root.join("azurite-3.35.0");
    if dir.join("serve.js").exists() {
        return dir;
    }
    let staging = root.join(format!("azurite.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).unwrap();
    let out = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
        .arg(&staging)
        .args(PACKAGES)
        .output()
        .expect("running npm (node and npm must be installed)");
    assert!(
        out.status.success(),
        "npm install {} failed:\n{}\n{}",
        PACKAGES.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(staging.join("serve.js"), SERVE).unwrap();
    if std::fs::rename(&staging, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&staging); // another run won the race
    }
    dir
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
