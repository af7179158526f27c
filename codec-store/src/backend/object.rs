//! Object storage through the `object_store` crate (S3, GCS, Azure, its
//! in-memory store): the `object-store` feature.
//!
//! Objects are never changed in place: a writer's log and shared data are
//! immutable segments under names of their own ([`Segments`]), each made
//! by a create-if-absent PUT (`PutMode::Create`); what must change in
//! place is replaced by compare-and-swap (`PutMode::Update` with the
//! version read). Calls block the calling thread while a runtime of the
//! backend's own does the I/O: they work from any thread, inside
//! `tokio::task::spawn_blocking` too (on an async worker thread they work
//! as well, but hold up that thread's other tasks while they wait).

use std::future::Future;
use std::io;
use std::ops::Range;
use std::sync::Arc;

use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, PutMode, PutOptions, PutPayload, UpdateVersion};

use crate::backend::{
    checked_name, Appender, Backend, BackendError, Created, Listed, Replaced, Retries, Segments,
    Version,
};

/// A store under a prefix of an [`ObjectStore`].
#[derive(Clone)]
pub struct Objects {
    store: Arc<dyn ObjectStore>,
    /// The store's root, `/`-separated, without a slash at either end.
    prefix: String,
    /// What messages call the root: `s3://bucket/prefix`, say.
    url: String,
    runtime: Arc<Runtime>,
}

/// The backend's runtime, shut down without waiting when the last handle
/// goes (a runtime dropped inside another one would panic).
struct Runtime(Option<tokio::runtime::Runtime>);

impl Runtime {
    /// Waits for `future` on this thread, its I/O and timers driven by the
    /// runtime's threads. Unlike tokio's `block_on`, this works inside
    /// another runtime's `spawn_blocking` and async tasks, which refuse
    /// it (a runtime's context is set on their threads).
    fn block_on<F: Future>(&self, future: F) -> F::Output {
        let runtime = self.0.as_ref().expect("taken in drop only");
        let _context = runtime.enter();
        futures_executor::block_on(future)
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

impl std::fmt::Debug for Objects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Objects").field("url", &self.url).finish()
    }
}

impl Objects {
    /// The store under `prefix` of `store`; `url` names it in messages.
    pub fn new(
        store: Arc<dyn ObjectStore>,
        prefix: &str,
        url: impl Into<String>,
    ) -> io::Result<Objects> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("codec-object-store")
            .enable_all()
            .build()?;
        Ok(Objects {
            store,
            prefix: prefix.trim_matches('/').to_owned(),
            url: without_final_slash(url.into()),
            runtime: Arc::new(Runtime(Some(runtime))),
        })
    }

    /// Where `url` points: a folder (`file:///path`) or objects (`s3://`,
    /// `gs://`, `az://` with their features, `memory://`), credentials,
    /// region and endpoint from the usual environment variables (`AWS_*`,
    /// `GOOGLE_*`, `AZURE_*`), failed requests retried as
    /// `object_store` does by default. Nothing is read or written yet. A
    /// URL refused is an error of operation `open` on it, saying why.
    pub(crate) fn from_url(url: &str) -> Result<At, BackendError> {
        Self::from_url_with(url, &Retries::default())
    }

    /// [`from_url`](Self::from_url), failed requests retried as `retries`
    /// says.
    pub(crate) fn from_url_with(url: &str, retries: &Retries) -> Result<At, BackendError> {
        let refused = |why: String| {
            BackendError::new(
                "open",
                url,
                io::Error::new(io::ErrorKind::InvalidInput, why),
            )
        };
        let parsed = url::Url::parse(url).map_err(|e| refused(e.to_string()))?;
        if parsed.scheme() == "file" {
            let path = parsed
                .to_file_path()
                .map_err(|()| refused("not a local path".into()))?;
            return Ok(At::Folder(path));
        }
        let env = std::env::vars()
            .filter(|(k, _)| {
                ["AWS_", "GOOGLE_", "AZURE_"]
                    .iter()
                    .any(|p| k.starts_with(p))
            })
            .map(|(k, v)| (k.to_ascii_lowercase(), v));
        let (store, prefix) = store_of_url(&parsed, env, retries)
            .map_err(|e| refused(format!("{e} ({})", url_hint(&parsed))))?;
        let objects = Objects::new(Arc::from(store), prefix.as_ref(), url)
            .map_err(|e| refused(e.to_string()))?;
        Ok(At::Objects(objects))
    }

    fn path(&self, name: &str) -> ObjectPath {
        match self.prefix.is_empty() {
            true => ObjectPath::from(name),
            false => ObjectPath::from(format!("{}/{name}", self.prefix)),
        }
    }

    /// Runs `op` on object `name`, blocking; errors carry the operation
    /// and the object's URL.
    fn run<T, F>(&self, op: &'static str, name: &str, future: F) -> Result<T, BackendError>
    where
        F: Future<Output = object_store::Result<T>>,
    {
        checked_name(self, op, name)?;
        self.block(op, self.address(name), future)
    }

    /// Runs `op` on the object at `address`, blocking.
    fn block<T, F>(&self, op: &'static str, address: String, future: F) -> Result<T, BackendError>
    where
        F: Future<Output = object_store::Result<T>>,
    {
        self.runtime
            .block_on(future)
            .map_err(|e| BackendError::new(op, address, io::Error::from(e)))
    }

    fn put(&self, op: &'static str, name: &str, bytes: &[u8], mode: PutMode) -> Put {
        let path = self.path(name);
        let payload = PutPayload::from(bytes.to_vec());
        let options = PutOptions::from(mode);
        let store = &self.store;
        let fail = |e: io::Error| BackendError::new(op, self.address(name), e);
        if let Err(e) = checked_name(self, op, name) {
            return Put::Failed(e);
        }
        match self
            .runtime
            .block_on(store.put_opts(&path, payload, options))
        {
            Ok(result) => Put::Done(version(result.e_tag, result.version)),
            Err(object_store::Error::AlreadyExists { .. }) => Put::Exists,
            Err(object_store::Error::Precondition { .. }) => Put::Changed,
            Err(object_store::Error::NotFound { .. }) if op == "replace" => Put::Changed,
            Err(e) => Put::Failed(fail(io::Error::from(e))),
        }
    }
}

/// Where a URL points ([`Objects::from_url`]).
#[derive(Debug)]
pub(crate) enum At {
    /// A folder (`file:///path`).
    Folder(std::path::PathBuf),
    /// Objects in an object store.
    Objects(Objects),
}

/// The store `url` names and the path in it, as `object_store`'s
/// `parse_url_opts` builds it (`options` are its builder's settings by
/// name), retrying failed requests as `retries` says.
// Without a cloud's feature, the store is in memory: nothing to retry.
#[allow(unused_variables)]
fn store_of_url(
    url: &url::Url,
    options: impl IntoIterator<Item = (String, String)>,
    retries: &Retries,
) -> object_store::Result<(Box<dyn ObjectStore>, ObjectPath)> {
    #[allow(unused_macros)]
    macro_rules! build {
        ($builder:ty, $path:expr) => {{
            let retry = object_store::RetryConfig {
                max_retries: retries.max_retries,
                retry_timeout: retries.retry_timeout,
                ..Default::default()
            };
            let builder = options.into_iter().fold(
                <$builder>::new().with_url(url.to_string()),
                |builder, (key, value)| match key.parse() {
                    Ok(key) => builder.with_config(key, value),
                    Err(_) => builder,
                },
            );
            let store = Box::new(builder.with_retry(retry).build()?) as Box<dyn ObjectStore>;
            Ok((store, ObjectPath::parse($path)?))
        }};
    }
    let (scheme, path) = object_store::ObjectStoreScheme::parse(url)?;
    match scheme {
        #[cfg(feature = "aws")]
        object_store::ObjectStoreScheme::AmazonS3 => {
            build!(object_store::aws::AmazonS3Builder, path)
        }
        #[cfg(feature = "gcp")]
        object_store::ObjectStoreScheme::GoogleCloudStorage => {
            build!(object_store::gcp::GoogleCloudStorageBuilder, path)
        }
        #[cfg(feature = "azure")]
        object_store::ObjectStoreScheme::MicrosoftAzure => {
            build!(
                object_store::azure::MicrosoftAzureBuilder,
                azure_path(url, path.as_ref())
            )
        }
        // In memory (no requests to retry), or a scheme whose feature is
        // off: `object_store` says which.
        _ => object_store::parse_url_opts(url, options),
    }
}

/// The path in its container of Azure URL `url`, whose path as
/// `ObjectStoreScheme::parse` reads it is `parsed`. For `az://` that
/// reading drops the first segment (as if the URL were
/// `az://account/container/path`), while the builder takes the host for
/// the container (`az://container/path`): the path is then the URL's
/// whole path, else the store would live at the container's root.
#[cfg_attr(not(feature = "azure"), allow(dead_code))]
fn azure_path<'u>(url: &'u url::Url, parsed: &'u str) -> &'u str {
    let container_is_host = matches!(url.scheme(), "az" | "abfs" | "abfss" | "adl" | "azure")
        && url.username().is_empty();
    match container_is_host {
        true => url.path(),
        false => parsed,
    }
}

/// What to say after an error of building the store of `url`: the cargo
/// feature its scheme needs when that feature is off, else where the
/// settings come from.
fn url_hint(url: &url::Url) -> String {
    use object_store::ObjectStoreScheme as Scheme;
    let (feature, compiled, vars) = match Scheme::parse(url) {
        Ok((Scheme::AmazonS3, _)) => ("aws", cfg!(feature = "aws"), "AWS_*"),
        Ok((Scheme::GoogleCloudStorage, _)) => ("gcp", cfg!(feature = "gcp"), "GOOGLE_*"),
        Ok((Scheme::MicrosoftAzure, _)) => ("azure", cfg!(feature = "azure"), "AZURE_*"),
        Ok(_) => return "memory:// needs no settings".to_owned(),
        Err(_) => return "codec opens s3://, gs://, az://, memory:// and file:// URLs".to_owned(),
    };
    match compiled {
        false => format!("{}:// needs the `{feature}` feature of codec", url.scheme()),
        true => {
            format!("credentials, region and endpoint come from the {vars} environment variables")
        }
    }
}

/// What a conditional PUT did.
enum Put {
    Done(Version),
    Exists,
    Changed,
    Failed(BackendError),
}

fn version(e_tag: Option<String>, version: Option<String>) -> Version {
    Version(format!(
        "{}\n{}",
        e_tag.unwrap_or_default(),
        version.unwrap_or_default()
    ))
}

fn update_version(v: &Version) -> UpdateVersion {
    let (e_tag, version) = v.0.split_once('\n').unwrap_or((&v.0, ""));
    let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    UpdateVersion {
        e_tag: some(e_tag),
        version: some(version),
    }
}

impl Backend for Objects {
    fn location(&self) -> String {
        self.url.clone()
    }

    fn address(&self, name: &str) -> String {
        format!("{}/{name}", self.url)
    }

    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, BackendError> {
        Ok(self.read_versioned(name)?.map(|(bytes, _)| bytes))
    }

    fn read_range(&self, name: &str, range: Range<u64>) -> Result<Vec<u8>, BackendError> {
        if range.start >= range.end {
            return Ok(Vec::new());
        }
        let path = self.path(name);
        let got = self.run("read", name, self.store.get_range(&path, range.clone()));
        match got {
            Ok(bytes) => Ok(bytes.to_vec()),
            // A range that starts past the end is refused by stores: an
            // object that short has none of those bytes.
            Err(e) if e.source.kind() != io::ErrorKind::NotFound => {
                let size = self.run("read", name, self.store.head(&path))?.size;
                match range.start >= size {
                    true => Ok(Vec::new()),
                    false => Err(e),
                }
            }
            Err(e) => Err(e),
        }
    }

    fn list(&self, prefix: &str) -> Result<Vec<Listed>, BackendError> {
        let (folder, start) = prefix.rsplit_once('/').unwrap_or(("", prefix));
        let listed_folder = match (self.prefix.is_empty(), folder.is_empty()) {
            (true, true) => None,
            (true, false) => Some(ObjectPath::from(folder)),
            (false, true) => Some(ObjectPath::from(self.prefix.as_str())),
            (false, false) => Some(ObjectPath::from(format!("{}/{folder}", self.prefix))),
        };
        let listing = self.block(
            "list",
            self.address(folder),
            self.store.list_with_delimiter(listed_folder.as_ref()),
        );
        let listing = match listing {
            Ok(listing) => listing,
            Err(e) if e.source.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut out: Vec<Listed> = listing
            .objects
            .into_iter()
            .filter_map(|meta| {
                let file = meta.location.filename()?.to_owned();
                file.starts_with(start).then(|| Listed {
                    name: match folder.is_empty() {
                        true => file,
                        false => format!("{folder}/{file}"),
                    },
                    size: meta.size,
                })
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    fn write(&self, name: &str, bytes: &[u8], _sync: bool) -> Result<(), BackendError> {
        match self.put("write", name, bytes, PutMode::Overwrite) {
            Put::Failed(e) => Err(e),
            _ => Ok(()),
        }
    }

    fn create(&self, name: &str, bytes: &[u8], _sync: bool) -> Result<Created, BackendError> {
        match self.put("create", name, bytes, PutMode::Create) {
            Put::Done(_) => Ok(Created::Yes),
            Put::Exists | Put::Changed => Ok(Created::Exists),
            Put::Failed(e) => Err(e),
        }
    }

    fn read_versioned(&self, name: &str) -> Result<Option<(Vec<u8>, Version)>, BackendError> {
        let path = self.path(name);
        let store = &self.store;
        let got = self.run("read", name, async {
            let got = store.get(&path).await?;
            let v = version(got.meta.e_tag.clone(), got.meta.version.clone());
            Ok((got.bytes().await?.to_vec(), v))
        });
        match got {
            Ok(got) => Ok(Some(got)),
            Err(e) if e.source.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn replace(
        &self,
        name: &str,
        bytes: &[u8],
        version: &Version,
    ) -> Result<Replaced, BackendError> {
        let mode = PutMode::Update(update_version(version));
        match self.put("replace", name, bytes, mode) {
            Put::Done(v) => Ok(Replaced::Yes(v)),
            Put::Exists | Put::Changed => Ok(Replaced::Changed),
            Put::Failed(e) => Err(e),
        }
    }

    fn delete(&self, name: &str) -> Result<(), BackendError> {
        let path = self.path(name);
        match self.run("delete", name, self.store.delete(&path)) {
            Err(e) if e.source.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    fn append_to(&self, name: &str) -> Result<Box<dyn Appender>, BackendError> {
        checked_name(self, "append", name)?;
        Ok(Box::new(Segments::new(self.clone(), name)))
    }
}

/// The URL of a store a user configured, for messages: `s3://bucket`,
/// `gs://bucket` and `az://container` read from the store's `Display`
/// (object_store keeps the URL it was built from to itself), else that
/// `Display`.
pub(crate) fn store_url(store: &dyn ObjectStore) -> String {
    let shown = store.to_string();
    let bucket = |kind: &str| {
        let rest = shown.strip_prefix(kind)?.strip_prefix('(')?;
        rest.strip_suffix(')').map(str::to_owned)
    };
    // `MicrosoftAzure { account: a, container: c }`
    let container = || {
        let rest = shown.strip_prefix("MicrosoftAzure {")?.strip_suffix('}')?;
        let (_, container) = rest.split_once("container: ")?;
        Some(container.split(',').next()?.trim().to_owned())
    };
    match (
        bucket("AmazonS3"),
        bucket("GoogleCloudStorage"),
        container(),
    ) {
        (Some(bucket), _, _) => format!("s3://{bucket}"),
        (_, Some(bucket), _) => format!("gs://{bucket}"),
        (_, _, Some(container)) => format!("az://{container}"),
        _ => shown,
    }
}

/// `url` without a final `/`, unless the URL has no path (`memory://`).
fn without_final_slash(url: String) -> String {
    match url.trim_end_matches('/') {
        short if short.ends_with(':') => url,
        short => short.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{azure_path, url_hint};

    #[test]
    fn an_az_url_keeps_its_whole_path_in_the_container_its_host_names() {
        let path = |u: &str| {
            let url = url::Url::parse(u).unwrap();
            let (_, parsed) = object_store::ObjectStoreScheme::parse(&url).unwrap();
            azure_path(&url, parsed.as_ref()).to_owned()
        };
        assert_eq!(path("az://container/prefix"), "/prefix");
        assert_eq!(path("az://container/a/b"), "/a/b");
        assert_eq!(path("abfs://container/a"), "/a");
        // The account in the host: the container is the first segment.
        assert_eq!(
            path("https://account.blob.core.windows.net/container/a/b"),
            "a/b"
        );
    }

    #[test]
    fn a_url_error_names_the_missing_feature_or_where_settings_come_from() {
        let hint = |u: &str| url_hint(&url::Url::parse(u).unwrap());
        let s3 = hint("s3://bucket/p");
        match cfg!(feature = "aws") {
            true => assert!(s3.contains("AWS_* environment variables"), "{s3}"),
            false => assert_eq!(s3, "s3:// needs the `aws` feature of codec"),
        }
        let gs = hint("gs://bucket/p");
        match cfg!(feature = "gcp") {
            true => assert!(gs.contains("GOOGLE_*"), "{gs}"),
            false => assert_eq!(gs, "gs:// needs the `gcp` feature of codec"),
        }
        assert!(
            hint("ftp://host/p").contains("codec opens s3://"),
            "{}",
            hint("ftp://host/p")
        );
    }
}
