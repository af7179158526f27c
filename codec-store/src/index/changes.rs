//! The keys whose live line changed, for a reader that keeps its own view
//! of the live entries up to date (the passes of the bounds) without
//! reading the whole store each time.

/// Keys past which the index stops recording them (tens of MiB at
/// most): a reader that took none for so long reads the whole store again
/// instead.
const MAX_KEYS: usize = 1 << 20;

/// The keys whose line changed since the last [`Index::take_changes`](super::Index::take_changes).
#[derive(Default)]
pub(crate) struct Changes {
    keys: Vec<Box<str>>,
    /// Lines changed that no key recorded names: a checkpoint taken up
    /// that covers lines this index never read, or the lines forgotten
    /// and read again. The whole store must be read.
    pub(crate) whole: bool,
}

impl Changes {
    /// Records that `key`'s line changed; past [`MAX_KEYS`], only that
    /// the whole store must be read.
    pub(crate) fn changed(&mut self, key: &str) {
        if self.whole {
            return;
        }
        if self.keys.len() >= MAX_KEYS {
            self.unknown();
            return;
        }
        self.keys.push(key.into());
    }

    /// Records that lines changed that no key names.
    pub(crate) fn unknown(&mut self) {
        self.whole = true;
        self.keys = Vec::new();
    }

    /// Records what `other` recorded too.
    pub(crate) fn absorb(&mut self, other: Changes) {
        if other.whole {
            self.unknown();
        }
        for key in other.keys {
            self.changed(&key);
        }
    }

    /// The keys changed, each once.
    pub(crate) fn keys(mut self) -> Vec<Box<str>> {
        self.keys.sort_unstable();
        self.keys.dedup();
        self.keys
    }
}

#[cfg(test)]
mod tests {
    use super::{Changes, MAX_KEYS};

    #[test]
    fn past_its_most_keys_only_that_the_whole_changed_is_kept() {
        let mut changes = Changes::default();
        for n in 0..MAX_KEYS {
            changes.changed(&n.to_string());
        }
        assert!(!changes.whole);
        changes.changed("one more");
        assert!(changes.whole);
        assert!(changes.keys.capacity() == 0);
        changes.changed("after");
        assert!(changes.keys().is_empty());
    }
}
