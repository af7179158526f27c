//! What every backend must do, checked against each of them.

use std::sync::{Arc, Barrier};

use crate::backend::folder::Folder;
use crate::backend::memory::Memory;
use crate::backend::{Appends, Backend, Created, Replaced};

/// Runs `check` against a fresh store of every backend.
pub(crate) fn each_backend(check: impl Fn(&dyn Backend)) {
    each_shared_backend(|b| check(&*b));
}

/// The same, for checks that share the store between threads.
fn each_shared_backend(check: impl Fn(Arc<dyn Backend>)) {
    let dir = tempfile::tempdir().unwrap();
    check(Arc::new(Folder::new(dir.path())));
    check(Arc::new(Memory::new()));
    #[cfg(feature = "object-store")]
    {
        let store = Arc::new(object_store::memory::InMemory::new());
        let objects = crate::backend::object::Objects::new(store, "a/prefix", "memory:///a/prefix");
        check(Arc::new(objects.unwrap()));
    }
}

#[test]
fn a_written_object_reads_back_whole_and_by_range() {
    each_backend(|b| {
        assert_eq!(b.read("data/a.bin").unwrap(), None);
        b.write("data/a.bin", b"0123456789", false).unwrap();
        assert_eq!(b.read("data/a.bin").unwrap().unwrap(), b"0123456789");
        assert_eq!(b.read_range("data/a.bin", 2..5).unwrap(), b"234");
        // Past the end: what there is, then nothing.
        assert_eq!(b.read_range("data/a.bin", 8..20).unwrap(), b"89");
        assert_eq!(b.read_range("data/a.bin", 30..40).unwrap(), b"");
        b.write("data/a.bin", b"new", false).unwrap();
        assert_eq!(b.read("data/a.bin").unwrap().unwrap(), b"new");
        b.delete("data/a.bin").unwrap();
        b.delete("data/a.bin").unwrap();
        assert_eq!(b.read("data/a.bin").unwrap(), None);
    });
}

#[test]
fn a_missing_object_read_by_range_is_not_found() {
    each_backend(|b| {
        let err = b.read_range("data/none.bin", 0..4).unwrap_err();
        assert_eq!(err.source.kind(), std::io::ErrorKind::NotFound, "{err}");
        assert!(err.to_string().contains("none.bin"), "{err}");
        assert_eq!(err.op, "read");
    });
}

#[test]
fn names_that_leave_the_root_are_refused() {
    each_backend(|b| {
        for name in ["../x", "/etc/passwd", "data/../../x", "", "a//b", ".hidden"] {
            let err = b.write(name, b"x", false).unwrap_err();
            assert_eq!(
                err.source.kind(),
                std::io::ErrorKind::InvalidInput,
                "{name}"
            );
            assert!(b.read(name).is_err(), "{name}");
        }
    });
}

#[test]
fn listing_gives_one_level_by_prefix_sorted() {
    each_backend(|b| {
        assert!(b.list("data/").unwrap().is_empty());
        for name in [
            "b-info.jsonl",
            "a-info.jsonl",
            "data/a.bin",
            "data/b.bin",
            "zz.json",
        ] {
            b.write(name, name.as_bytes(), false).unwrap();
        }
        let names = |prefix| {
            b.list(prefix)
                .unwrap()
                .into_iter()
                .map(|l| (l.name, l.size))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(""),
            [
                ("a-info.jsonl".to_owned(), 12),
                ("b-info.jsonl".to_owned(), 12),
                ("zz.json".to_owned(), 7)
            ]
        );
        assert_eq!(names("data/b"), [("data/b.bin".to_owned(), 10)]);
        assert_eq!(names("data/").len(), 2);
        assert!(names("schemas/").is_empty());
    });
}

#[test]
fn create_if_absent_has_one_winner_among_racers() {
    each_shared_backend(|b| {
        let racers = 8;
        let barrier = Arc::new(Barrier::new(racers));
        let handles: Vec<_> = (0..racers)
            .map(|i| {
                let (b, barrier) = (b.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    let mine = format!("racer {i}");
                    (
                        b.create("manifest.json", mine.as_bytes(), false).unwrap(),
                        mine,
                    )
                })
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let winners: Vec<_> = results.iter().filter(|(c, _)| *c == Created::Yes).collect();
        assert_eq!(winners.len(), 1, "{results:?}");
        let stored = b.read("manifest.json").unwrap().unwrap();
        assert_eq!(stored, winners[0].1.as_bytes());
    });
}

#[test]
fn replace_if_unchanged_refuses_a_stale_version() {
    each_backend(|b| {
        b.write("checkpoint.json", b"one", false).unwrap();
        let (bytes, v1) = b.read_versioned("checkpoint.json").unwrap().unwrap();
        assert_eq!(bytes, b"one");
        let Replaced::Yes(v2) = b.replace("checkpoint.json", b"two", &v1).unwrap() else {
            panic!("the first replace from v1 must win");
        };
        assert_ne!(v1, v2);
        // Same length, same content as before: still stale.
        assert_eq!(
            b.replace("checkpoint.json", b"one", &v1).unwrap(),
            Replaced::Changed
        );
        assert_eq!(b.read("checkpoint.json").unwrap().unwrap(), b"two");
        let (_, now) = b.read_versioned("checkpoint.json").unwrap().unwrap();
        assert_eq!(now, v2);
        b.delete("checkpoint.json").unwrap();
        assert_eq!(
            b.replace("checkpoint.json", b"three", &v2).unwrap(),
            Replaced::Changed
        );
        assert_eq!(b.read("checkpoint.json").unwrap(), None);
    });
}

#[test]
fn replace_if_unchanged_has_one_winner_among_racers() {
    each_shared_backend(|b| {
        b.write("m.json", b"start", false).unwrap();
        let (_, version) = b.read_versioned("m.json").unwrap().unwrap();
        let racers = 6;
        let barrier = Arc::new(Barrier::new(racers));
        let handles: Vec<_> = (0..racers)
            .map(|i| {
                let (b, barrier, version) = (b.clone(), barrier.clone(), version.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    let won = b.replace("m.json", format!("r{i}").as_bytes(), &version);
                    matches!(won.unwrap(), Replaced::Yes(_))
                })
            })
            .collect();
        let winners = handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .filter(|&won| won)
            .count();
        assert_eq!(winners, 1);
    });
}

#[test]
fn appends_land_in_order_and_read_back_by_range() {
    each_backend(|b| {
        let mut log = b.append_to("w1-info.jsonl").unwrap();
        let first = log.append(b"line one\n", 1).unwrap();
        let second = log.append(b"line two\n", 1).unwrap();
        for (appended, text) in [(&first, "line one\n"), (&second, "line two\n")] {
            let range = appended.offset..appended.offset + text.len() as u64;
            assert_eq!(
                b.read_range(&appended.name, range).unwrap(),
                text.as_bytes()
            );
            assert!(appended.end >= appended.offset + text.len() as u64);
            let listed = b.list("").unwrap();
            assert!(listed.iter().any(|l| l.name == appended.name), "{listed:?}");
        }
        log.sync().unwrap();

        // Aligned appends of data.
        let mut data = b.append_to("data/w1.bin").unwrap();
        let a = data.append(b"abc", 1).unwrap();
        let c = data.append(&[9u8; 100], 64).unwrap();
        assert_eq!(c.offset % 64, 0);
        assert_eq!(
            b.read_range(&a.name, a.offset..a.offset + 3).unwrap(),
            b"abc"
        );
        assert_eq!(
            b.read_range(&c.name, c.offset..c.offset + 100).unwrap(),
            [9u8; 100]
        );
        // Where appends grow the object in place, the next one goes on
        // at its end.
        if b.appends() == Appends::InPlace {
            assert_eq!(data.end(), (c.name.clone(), c.end));
        }
    });
}

#[test]
fn a_log_is_taken_up_only_where_its_writer_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let folder = Folder::new(dir.path());
    let logs = vec!["w1-info.jsonl".to_owned()];
    let mut live = folder.append_to("w1-info.jsonl").unwrap();
    live.append(b"x\n", 1).unwrap();
    assert!(folder.take_up_log(&logs).unwrap().is_none());
    drop(live);
    let taken = folder.take_up_log(&logs).unwrap().unwrap();
    assert_eq!(taken.end(), ("w1-info.jsonl".to_owned(), 2));
    // The memory backend tells no live writer from a gone one.
    assert!(Memory::new().take_up_log(&logs).unwrap().is_none());
}

#[test]
fn only_the_folder_maps_objects() {
    each_backend(|b| {
        b.write("data/m.bin", b"mapped", false).unwrap();
        match b.maps() {
            Some(maps) => assert_eq!(&maps.map("data/m.bin").unwrap()[..], b"mapped"),
            None => assert!(b.file_path("data/m.bin").is_none()),
        }
    });
}
