//! An object store that counts the requests made of it, by kind: the
//! request counts of the store's operations on object storage.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures::stream::BoxStream;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{
    GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, Result,
};

/// An object store that counts the requests made of it, by kind.
#[derive(Debug)]
pub struct Counting {
    pub inner: InMemory,
    counts: Mutex<BTreeMap<&'static str, usize>>,
    /// The byte ranges of ranged GETs, by object.
    ranges: Mutex<Vec<(String, Range<u64>)>>,
}

impl Counting {
    pub fn new() -> Arc<Counting> {
        Arc::new(Counting {
            inner: InMemory::new(),
            counts: Mutex::default(),
            ranges: Mutex::default(),
        })
    }

    fn count(&self, kind: &'static str) {
        *self.counts.lock().unwrap().entry(kind).or_default() += 1;
    }

    /// The requests since the last call, by kind.
    pub fn take(&self) -> BTreeMap<&'static str, usize> {
        std::mem::take(&mut *self.counts.lock().unwrap())
    }

    /// The objects and byte ranges of the ranged GETs since the last call.
    #[allow(dead_code)] // not every test file reads them
    pub fn take_ranges(&self) -> Vec<(String, Range<u64>)> {
        std::mem::take(&mut *self.ranges.lock().unwrap())
    }
}

impl fmt::Display for Counting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Counting({})", self.inner)
    }
}

#[async_trait]
impl ObjectStore for Counting {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        self.count("PUT");
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.count("multipart");
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.count(if options.head { "HEAD" } else { "GET" });
        self.inner.get_opts(location, options).await
    }

    async fn get_range(&self, location: &Path, range: Range<u64>) -> Result<bytes::Bytes> {
        self.count("GET");
        (self.ranges.lock().unwrap()).push((location.to_string(), range.clone()));
        self.inner.get_range(location, range).await
    }

    async fn delete(&self, location: &Path) -> Result<()> {
        self.count("DELETE");
        self.inner.delete(location).await
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.count("LIST");
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.count("LIST");
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy(&self, from: &Path, to: &Path) -> Result<()> {
        self.count("COPY");
        self.inner.copy(from, to).await
    }

    async fn copy_if_not_exists(&self, from: &Path, to: &Path) -> Result<()> {
        self.count("COPY");
        self.inner.copy_if_not_exists(from, to).await
    }
}

/// Requests by kind, for comparing with [`Counting::take`].
pub fn counts(pairs: &[(&'static str, usize)]) -> BTreeMap<&'static str, usize> {
    pairs.iter().copied().collect()
}
