//! Where a cache is: a folder (a path or `file:///path`) or, with the
//! `object-store` feature (`aws`, `gcp`, `azure`), a URL of object
//! storage (`s3://bucket/prefix`).

use std::fmt;
use std::path::{Path, PathBuf};

use codec::{Cache, StoreError};

/// A cache's location, as given on the command line.
#[derive(Debug, Clone)]
pub enum Location {
    Folder(PathBuf),
    Url(String),
}

impl Location {
    /// A path, `file:///path`, or another URL.
    pub fn parse(arg: &str) -> Result<Location, String> {
        Ok(match arg.strip_prefix("file://") {
            Some(path) => Location::Folder(PathBuf::from(path)),
            None if arg.contains("://") => Location::Url(arg.to_owned()),
            None => Location::Folder(PathBuf::from(arg)),
        })
    }

    /// The folder, for what only a folder offers (`what`); an error that
    /// says so for a URL.
    pub fn folder(&self, what: &str) -> Result<&Path, StoreError> {
        match self {
            Location::Folder(dir) => Ok(dir),
            Location::Url(url) => Err(StoreError::Custom {
                message: format!(
                    "{what} needs a cache folder, and {url} is on object storage, where it is not there yet"
                ),
            }),
        }
    }

    /// Opens the existing cache here; a typo must not create an empty one.
    pub fn open(&self) -> Result<Cache, StoreError> {
        match self {
            Location::Folder(dir) => open_folder(dir),
            Location::Url(url) => open_url(url),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Folder(dir) => write!(f, "{}", dir.display()),
            Location::Url(url) => f.write_str(url),
        }
    }
}

fn open_folder(dir: &Path) -> Result<Cache, StoreError> {
    if !dir.join("codec-store.json").exists() {
        return Err(StoreError::Custom {
            message: format!(
                "{} is not a codec cache folder (no codec-store.json)",
                dir.display()
            ),
        });
    }
    Cache::open(dir)
}

#[cfg(feature = "object-store")]
fn open_url(url: &str) -> Result<Cache, StoreError> {
    use codec::store::backend::object::{At, Objects};
    use codec::store::backend::Backend;
    let at = Objects::from_url(url).map_err(|e| StoreError::Custom {
        message: format!("cannot open the cache at {url}: {}", e.source),
    })?;
    match at {
        At::Folder(dir) => open_folder(&dir),
        At::Objects(objects) => {
            if objects.read("codec-store.json")?.is_none() {
                return Err(StoreError::Custom {
                    message: format!("{url} is not a codec cache (no codec-store.json)"),
                });
            }
            Cache::open_backend(std::sync::Arc::new(objects), Default::default())
        }
    }
}

#[cfg(not(feature = "object-store"))]
fn open_url(url: &str) -> Result<Cache, StoreError> {
    Err(StoreError::Custom {
        message: format!(
            "cannot open {url}: this codec command was built without object storage; \
             build it with `--features aws` (or gcp, azure)"
        ),
    })
}
