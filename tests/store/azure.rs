//! The store on Azure Blob Storage (an Azurite server,
//! `tests/common/azurite.rs`): the seam's commits, the typed API, and
//! writers in several processes that open the store by its `az://` URL,
//! as users do, from the environment's variables. The cases of every
//! backend (`backends.rs` and the others) run on it too.

use codec::store::backend::object::Objects;
use codec::{Cache, CacheOptions};

use crate::fixtures::azurite::{azurite, CONTAINER};
use crate::fixtures::child;
use crate::fixtures::{server, shared};

#[test]
fn the_store_on_azure_keeps_its_promises() {
    let azurite = azurite();

    // The seam's commits: create-if-absent and replace-if-unchanged.
    let prefix = azurite.prefix("seam");
    let url = format!("az://{CONTAINER}/{prefix}");
    server::check_seam(&Objects::new(azurite.store(), &prefix, url).unwrap());

    // The typed API, two handles.
    let prefix = azurite.prefix("cache");
    let open = || Cache::open_store(azurite.store(), &prefix, CacheOptions::default()).unwrap();
    server::check_two_handles(&open);
    let reader = open();
    assert_eq!(reader.location(), format!("az://{CONTAINER}/{prefix}"));
}

/// Opens `CODEC_URL` (an `az://` URL, the server found from the
/// environment) and puts `CODEC_COUNT` entries on the shared keys as
/// writer `CODEC_WRITER`.
#[test]
#[ignore = "a child process of the tests below"]
fn child_url_writer() {
    let Some(url) = child::var::<String>("CODEC_URL") else {
        return;
    };
    let writer = child::var("CODEC_WRITER").unwrap();
    let count = child::var("CODEC_COUNT").unwrap();
    let cache = Cache::open_url(&url).unwrap();
    shared::put_acknowledged(&cache, writer, count);
}

#[test]
fn three_processes_open_an_az_url_and_the_latest_write_wins() {
    let azurite = azurite();
    let url = format!("az://{CONTAINER}/{}", azurite.prefix("processes"));
    let count = 150;
    let children = (0..3)
        .map(|w| {
            let mut child = child!(child_url_writer)
                .env("CODEC_URL", &url)
                .env("CODEC_WRITER", w.to_string())
                .env("CODEC_COUNT", count.to_string());
            for (key, value) in azurite.env() {
                child = child.env(key, value);
            }
            child.spawn()
        })
        .collect();
    let puts = shared::acknowledged(children);
    let acked: usize = puts.values().map(Vec::len).sum();
    assert_eq!(acked, 3 * count as usize);
    let prefix = url.trim_start_matches(&format!("az://{CONTAINER}/"));
    let reader = Cache::open_store(azurite.store(), prefix, CacheOptions::default()).unwrap();
    shared::check_latest_won(&reader, &puts);
}
