//! Opening a cache folder: a new, empty or cache folder opens; a folder of
//! other files, or a mistyped URL, is refused and left as it was.

use std::path::Path;

use codec::{Cache, CacheOptions, StoreError};

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// A project root: a manifest, sources and a schema folder.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), "[package]\n").unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
    std::fs::create_dir(dir.path().join("schemas")).unwrap();
    std::fs::write(dir.path().join("schemas/Chunk.json"), "{}").unwrap();
    dir
}

#[test]
fn a_folder_of_other_files_is_refused_and_left_untouched() {
    let root = project();
    let before = listing(root.path());
    for dir in [root.path().to_owned(), root.path().join("src")] {
        let err = Cache::open(&dir).map(drop).unwrap_err();
        assert!(matches!(err, StoreError::NotACache { .. }), "{err}");
        let message = err.to_string();
        assert!(message.contains(&dir.display().to_string()), "{message}");
        assert!(message.contains("adopt_folder(true)"), "{message}");
    }
    assert_eq!(listing(root.path()), before);
    assert_eq!(listing(&root.path().join("src")), ["lib.rs"]);
    assert_eq!(listing(&root.path().join("schemas")), ["Chunk.json"]);
}

#[test]
fn a_folder_of_other_files_becomes_a_cache_when_asked() {
    let root = project();
    let options = CacheOptions::default().adopt_folder(true);
    let cache = Cache::open_with(root.path(), options).unwrap();
    cache.put("k", &1u32).unwrap();
    drop(cache);
    // Once it holds a cache, it opens as one.
    assert_eq!(
        Cache::open(root.path()).unwrap().get::<u32>("k").unwrap(),
        Some(1)
    );
    assert!(root.path().join("src/lib.rs").exists());
}

#[test]
fn new_empty_and_cache_folders_open() {
    let root = tempfile::tempdir().unwrap();
    // Missing, nested.
    let new = root.path().join("a/b/cache");
    Cache::open(&new).unwrap().put("k", &1u32).unwrap();
    // Holding a cache.
    assert_eq!(Cache::open(&new).unwrap().get::<u32>("k").unwrap(), Some(1));
    // Empty.
    let empty = root.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    Cache::open(&empty).unwrap();
    // Another handle creating the cache at this moment: its empty
    // subfolders and its lock, not its layout file yet.
    let starting = root.path().join("starting");
    for sub in ["data", "schemas"] {
        std::fs::create_dir_all(starting.join(sub)).unwrap();
    }
    std::fs::write(starting.join("codec-store.lock"), "").unwrap();
    Cache::open(&starting).unwrap();
    // Kept empty for the cache in version control.
    let kept = root.path().join("kept");
    std::fs::create_dir(&kept).unwrap();
    std::fs::write(kept.join(".gitignore"), "*\n").unwrap();
    Cache::open(&kept).unwrap();
}

#[test]
fn a_cache_with_its_layout_file_lost_still_opens() {
    let root = tempfile::tempdir().unwrap();
    let cache = Cache::open(root.path()).unwrap();
    cache.put("k", &7u32).unwrap();
    drop(cache);
    std::fs::remove_file(root.path().join("codec-store.json")).unwrap();
    // Its index logs say it is a cache.
    let cache = Cache::open(root.path()).unwrap();
    assert_eq!(cache.get::<u32>("k").unwrap(), Some(7));
}

#[test]
fn a_mistyped_url_is_refused_not_taken_for_a_folder() {
    for location in [
        "s3:/codec-test-bucket/x",
        "s3:codec-test-bucket/x",
        "memory:",
    ] {
        let err = Cache::open(location).map(drop).unwrap_err();
        assert!(
            matches!(err, StoreError::NotAUrl { .. }),
            "{location}: {err}"
        );
        let message = err.to_string();
        assert!(
            message.contains("s3://codec-test-bucket/x") || message.contains("memory://"),
            "{message}"
        );
    }
    assert!(!Path::new("s3:").exists());
    assert!(!Path::new("memory:").exists());
}
