//! Why a command stopped: the command's own errors, with each cause kept
//! as its `source()` and printed once.

use std::error::Error as StdError;
use std::fmt;
use std::io;

use codec::StoreError;

/// Why a command stopped.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// The store refused or failed: its message and causes, as they are.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A command that works on a folder's files was given a URL.
    #[error(
        "{what} needs a cache folder, and {location} is on object storage, where it is not there yet"
    )]
    NeedsAFolder {
        /// The command.
        what: &'static str,
        /// The URL given.
        location: String,
    },
    /// A URL given to a command built without object storage.
    #[cfg(not(feature = "object-store"))]
    #[error(
        "cannot open {location}: this codec command was built without object storage; \
         build it with `--features aws` (or gcp, azure)"
    )]
    NoObjectStorage {
        /// The URL given.
        location: String,
    },
    /// Writing the output failed (a closed pipe among others).
    #[error("cannot write the output")]
    Output(#[from] io::Error),
}

impl Failure {
    /// The message, then each cause after a colon.
    pub fn with_causes(&self) -> impl fmt::Display + '_ {
        WithCauses(self)
    }
}

struct WithCauses<'a>(&'a Failure);

impl fmt::Display for WithCauses<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut cause = self.0.source();
        while let Some(e) = cause {
            write!(f, ": {e}")?;
            cause = e.source();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_is_printed_once() {
        let io = io::Error::new(io::ErrorKind::PermissionDenied, "no access");
        let store = codec::Cache::open_existing("/no/such/cache").unwrap_err();
        for failure in [Failure::Output(io), Failure::Store(store)] {
            let text = failure.with_causes().to_string();
            let mut cause: Option<&dyn StdError> = Some(&failure);
            while let Some(e) = cause {
                let message = e.to_string();
                assert_eq!(text.matches(&message).count(), 1, "{message:?} in {text:?}");
                cause = e.source();
            }
        }
    }
}
