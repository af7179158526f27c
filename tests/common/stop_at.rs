//! An object store that stops its process at one request: it prints
//! `stopped <request>` and blocks for good, before sending the request or
//! once the server answered it, so that the parent test kills the process
//! (kill -9) exactly there, in whatever phase of an operation it chose.

use std::fmt;
use std::io::Write;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures::stream::BoxStream;
use object_store::path::Path;
use object_store::{
    GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, Result,
};

/// Where to stop: the `nth` request (from 1) that `pattern` describes,
/// `after` its answer or before sending it. A pattern is a method and a
/// part of the path, the path's end written `$`: `PUT p/checkpoint.json$`,
/// `DELETE -info.jsonl$` (any log segment), `LIST p$` (the root's
/// listing), `LIST p/data$`.
#[derive(Debug, Clone)]
pub struct Point {
    pub pattern: String,
    pub nth: usize,
    pub after: bool,
}

impl Point {
    /// `<pattern> <nth> <before|after>`, as [`fmt::Display`] writes it.
    pub fn parse(text: &str) -> Point {
        let mut fields = text.rsplitn(3, ' ');
        let after = fields.next().unwrap() == "after";
        let nth = fields.next().unwrap().parse().unwrap();
        let pattern = fields.next().unwrap().to_owned();
        Point {
            pattern,
            nth,
            after,
        }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let when = if self.after { "after" } else { "before" };
        write!(f, "{} {} {when}", self.pattern, self.nth)
    }
}

/// An object store that stops its process at a [`Point`].
#[derive(Debug)]
pub struct StopAt {
    inner: Arc<dyn ObjectStore>,
    point: Point,
    seen: AtomicUsize,
}

impl StopAt {
    pub fn new(inner: Arc<dyn ObjectStore>, point: Point) -> Arc<StopAt> {
        Arc::new(StopAt {
            inner,
            point,
            seen: AtomicUsize::new(0),
        })
    }

    /// Whether the request `method` of `path` is the one to stop at.
    fn is_point(&self, method: &str, path: &str) -> bool {
        let (want, part) = self.point.pattern.split_once(' ').unwrap();
        want == method
            && format!("{path}$").contains(part)
            && self.seen.fetch_add(1, Ordering::SeqCst) + 1 == self.point.nth
    }

    /// Runs `request`, stopping before or after it if it is the point.
    async fn run<T>(
        &self,
        method: &str,
        path: &str,
        request: impl std::future::Future<Output = T>,
    ) -> T {
        let stop = self.is_point(method, path);
        if stop && !self.point.after {
            halt(method, path);
        }
        let answer = request.await;
        if stop {
            halt(method, path);
        }
        answer
    }
}

/// Prints where the process stopped and blocks until it is killed.
fn halt(method: &str, path: &str) -> ! {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "stopped {method} {path}");
    let _ = out.flush();
    loop {
        std::thread::sleep(Duration::from_secs(60));
    }
}

impl fmt::Display for StopAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StopAt({})", self.inner)
    }
}

fn shown(path: Option<&Path>) -> String {
    path.map(Path::to_string).unwrap_or_default()
}

#[async_trait]
impl ObjectStore for StopAt {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        let put = self.inner.put_opts(location, payload, opts);
        self.run("PUT", location.as_ref(), put).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        let method = if options.head { "HEAD" } else { "GET" };
        let get = self.inner.get_opts(location, options);
        self.run(method, location.as_ref(), get).await
    }

    async fn get_range(&self, location: &Path, range: Range<u64>) -> Result<bytes::Bytes> {
        let get = self.inner.get_range(location, range);
        self.run("GET", location.as_ref(), get).await
    }

    async fn delete(&self, location: &Path) -> Result<()> {
        let delete = self.inner.delete(location);
        self.run("DELETE", location.as_ref(), delete).await
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        let list = self.inner.list_with_delimiter(prefix);
        self.run("LIST", &shown(prefix), list).await
    }

    async fn copy(&self, from: &Path, to: &Path) -> Result<()> {
        self.inner.copy(from, to).await
    }

    async fn copy_if_not_exists(&self, from: &Path, to: &Path) -> Result<()> {
        self.inner.copy_if_not_exists(from, to).await
    }
}
