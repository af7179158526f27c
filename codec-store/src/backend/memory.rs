//! The memory backend: objects in a map, gone with the last handle. For
//! tests of the core and of the backend contract; it has no maps, no
//! folder, and a writer's log is one object per append (as on object
//! storage, which has no append).

use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::backend::{
    checked_name, Appender, Backend, BackendError, Created, Listed, Replaced, Segments, Version,
};

/// Objects in memory, shared by the clones of one `Memory`.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    objects: Arc<Mutex<BTreeMap<String, Object>>>,
    /// Versions are numbers, never reused.
    versions: Arc<AtomicU64>,
}

#[derive(Debug, Clone)]
struct Object {
    bytes: Arc<[u8]>,
    version: u64,
}

impl Memory {
    /// An empty store.
    pub fn new() -> Memory {
        Memory::default()
    }

    fn objects(&self) -> parking_lot::MutexGuard<'_, BTreeMap<String, Object>> {
        self.objects.lock()
    }

    fn checked(&self, op: &'static str, name: &str) -> Result<(), BackendError> {
        checked_name(self, op, name)
    }

    fn object(&self, bytes: &[u8]) -> Object {
        Object {
            bytes: bytes.into(),
            version: self.versions.fetch_add(1, Ordering::Relaxed) + 1,
        }
    }
}

impl Backend for Memory {
    fn location(&self) -> String {
        "memory://".to_owned()
    }

    fn address(&self, name: &str) -> String {
        format!("memory://{name}")
    }

    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, BackendError> {
        self.checked("read", name)?;
        Ok(self.objects().get(name).map(|o| o.bytes.to_vec()))
    }

    fn read_range(&self, name: &str, range: Range<u64>) -> Result<Vec<u8>, BackendError> {
        self.checked("read", name)?;
        let objects = self.objects();
        let Some(object) = objects.get(name) else {
            return Err(BackendError::new(
                "read",
                self.address(name),
                io::ErrorKind::NotFound.into(),
            ));
        };
        let len = object.bytes.len() as u64;
        let (start, end) = (range.start.min(len), range.end.min(len));
        Ok(object.bytes[start as usize..end.max(start) as usize].to_vec())
    }

    fn list(&self, prefix: &str) -> Result<Vec<Listed>, BackendError> {
        let objects = self.objects();
        Ok(objects
            .range(prefix.to_owned()..)
            .take_while(|(name, _)| name.starts_with(prefix))
            .filter(|(name, _)| !name[prefix.len()..].contains('/'))
            .map(|(name, o)| Listed {
                name: name.clone(),
                size: o.bytes.len() as u64,
            })
            .collect())
    }

    fn write(&self, name: &str, bytes: &[u8], _sync: bool) -> Result<(), BackendError> {
        self.checked("write", name)?;
        let object = self.object(bytes);
        self.objects().insert(name.to_owned(), object);
        Ok(())
    }

    fn create(&self, name: &str, bytes: &[u8], _sync: bool) -> Result<Created, BackendError> {
        self.checked("create", name)?;
        let object = self.object(bytes);
        let mut objects = self.objects();
        if objects.contains_key(name) {
            return Ok(Created::Exists);
        }
        objects.insert(name.to_owned(), object);
        Ok(Created::Yes)
    }

    fn read_versioned(&self, name: &str) -> Result<Option<(Vec<u8>, Version)>, BackendError> {
        self.checked("read", name)?;
        Ok(self
            .objects()
            .get(name)
            .map(|o| (o.bytes.to_vec(), Version(o.version.to_string()))))
    }

    fn replace(
        &self,
        name: &str,
        bytes: &[u8],
        version: &Version,
    ) -> Result<Replaced, BackendError> {
        self.checked("replace", name)?;
        let object = self.object(bytes);
        let mut objects = self.objects();
        match objects.get_mut(name) {
            Some(current) if current.version.to_string() == version.0 => {
                let new = Version(object.version.to_string());
                *current = object;
                Ok(Replaced::Yes(new))
            }
            _ => Ok(Replaced::Changed),
        }
    }

    fn delete(&self, name: &str) -> Result<(), BackendError> {
        self.checked("delete", name)?;
        self.objects().remove(name);
        Ok(())
    }

    fn append_to(&self, name: &str) -> Result<Box<dyn Appender>, BackendError> {
        self.checked("append", name)?;
        Ok(Box::new(Segments::new(self.clone(), name)))
    }
}
