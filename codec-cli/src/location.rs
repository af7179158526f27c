//! Where a cache is: a folder (a path or `file:///path`) or, with the
//! `object-store` feature (`aws`, `gcp`, `azure`), a URL of object
//! storage (`s3://bucket/prefix`).

use std::fmt;
use std::path::{Path, PathBuf};

use codec::Cache;

use crate::error::Failure;

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
    pub fn folder(&self, what: &'static str) -> Result<&Path, Failure> {
        match self {
            Location::Folder(dir) => Ok(dir),
            Location::Url(url) => Err(Failure::NeedsAFolder {
                what,
                location: url.clone(),
            }),
        }
    }

    /// Opens the existing cache here; a typo must not create an empty one.
    pub fn open(&self) -> Result<Cache, Failure> {
        match self {
            Location::Folder(dir) => Ok(Cache::open_existing(dir)?),
            #[cfg(feature = "object-store")]
            Location::Url(url) => Ok(Cache::open_existing(url)?),
            // Said for this command, which a feature of its own builds with
            // object storage.
            #[cfg(not(feature = "object-store"))]
            Location::Url(url) => Err(Failure::NoObjectStorage {
                location: url.clone(),
            }),
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
