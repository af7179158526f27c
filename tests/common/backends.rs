//! The backends the store's tests run on: a folder, memory (objects never
//! appended to, as on object storage), and with their features
//! `object_store`'s in-memory store and S3 (a moto server, `moto.rs`).
//! A test that is not about local files runs on each of them through
//! [`each_backend`].

#![allow(dead_code)] // each test binary uses a part

#[cfg(feature = "aws")]
#[path = "moto.rs"]
pub mod moto;
#[cfg(feature = "aws")]
#[path = "venv.rs"]
pub mod venv;

use std::path::Path;
use std::sync::Arc;

use codec::store::backend::folder::Folder;
use codec::store::backend::memory::Memory;
use codec::store::backend::Backend;
use codec::{Cache, CacheOptions, StoreError};

/// One fresh store on one backend.
pub struct Store {
    /// The backend's name, for the messages of failed assertions.
    pub name: &'static str,
    backend: Arc<dyn Backend>,
    /// The folder of the folder backend, removed when the store goes.
    dir: Option<tempfile::TempDir>,
}

impl Store {
    /// A new handle on the store, default options.
    pub fn open(&self) -> Cache {
        self.open_with(CacheOptions::default())
    }

    /// A new handle on the store.
    pub fn open_with(&self, options: CacheOptions) -> Cache {
        self.try_open(options)
            .unwrap_or_else(|e| panic!("opening the store on {}: {e}", self.name))
    }

    /// A new handle on the store, or the error of opening it.
    pub fn try_open(&self, options: CacheOptions) -> Result<Cache, StoreError> {
        Cache::open_backend(self.backend.clone(), options)
    }

    /// The names of the objects under `folder` (`"data"`, `""` for the
    /// root) whose names end with `suffix`, sorted.
    pub fn objects(&self, folder: &str, suffix: &str) -> Vec<String> {
        let prefix = match folder {
            "" => String::new(),
            f => format!("{f}/"),
        };
        self.backend
            .list(&prefix)
            .unwrap_or_else(|e| panic!("listing {prefix} on {}: {e}", self.name))
            .into_iter()
            .map(|listed| listed.name)
            .filter(|name| name.ends_with(suffix))
            .collect()
    }

    /// The bytes of object `name`, if there is one.
    pub fn read(&self, name: &str) -> Option<Vec<u8>> {
        self.backend
            .read(name)
            .unwrap_or_else(|e| panic!("reading {name} on {}: {e}", self.name))
    }

    /// Writes object `name` whole, as another program could.
    pub fn write(&self, name: &str, bytes: &[u8]) {
        self.backend
            .write(name, bytes, false)
            .unwrap_or_else(|e| panic!("writing {name} on {}: {e}", self.name))
    }

    /// The folder, on the folder backend.
    pub fn folder(&self) -> Option<&Path> {
        self.dir.as_ref().map(|d| d.path())
    }
}

/// The backends of this build, each a fresh store.
pub fn backends() -> Vec<Store> {
    let dir = tempfile::tempdir().unwrap();
    let mut stores = vec![
        Store {
            name: "a folder",
            backend: Arc::new(Folder::new(dir.path())),
            dir: Some(dir),
        },
        Store {
            name: "memory",
            backend: Arc::new(Memory::new()),
            dir: None,
        },
    ];
    #[cfg(feature = "object-store")]
    {
        use codec::store::backend::object::Objects;
        let store = Arc::new(object_store::memory::InMemory::new());
        stores.push(Store {
            name: "object_store's InMemory",
            backend: Arc::new(Objects::new(store, "p", "memory:///p").unwrap()),
            dir: None,
        });
    }
    #[cfg(feature = "aws")]
    {
        use codec::store::backend::object::Objects;
        let moto = moto::moto();
        let bucket = moto.bucket("case");
        let url = format!("s3://{bucket}/p");
        stores.push(Store {
            name: "S3 (moto)",
            backend: Arc::new(Objects::new(moto.store(&bucket), "p", url).unwrap()),
            dir: None,
        });
    }
    stores
}

/// Runs `check` on a fresh store of each backend of this build.
pub fn each_backend(mut check: impl FnMut(&Store)) {
    for store in backends() {
        check(&store);
    }
}
