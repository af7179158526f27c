//! The reference "log" workload (../shared/bench/LOG_DATASET.md): 10,000
//! records, generated identically for every library compared.

pub const RECORDS: usize = 10_000;

/// splitmix64, seeded as the dataset specifies.
pub struct Rng(u64);

impl Default for Rng {
    fn default() -> Self {
        Self::new()
    }
}

impl Rng {
    pub fn new() -> Self {
        Rng(0x5eed_1234)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    pub fn word(&mut self, lo: u64, hi: u64) -> String {
        const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789_-";
        let len = self.range(lo, hi);
        (0..len)
            .map(|_| ALPHABET[self.range(0, ALPHABET.len() as u64 - 1) as usize] as char)
            .collect()
    }
}

/// One generated record, independent of any library's types.
pub struct Raw {
    pub service: String,
    pub path: String,
    pub ts: u64,
    pub status: u16,
    pub user: Option<String>,
    pub tags: Vec<u32>,
    /// 0: Cached, 1: Computed(n), 2: Failed { code, reason }
    pub kind: (u8, u32, String),
}

pub fn generate() -> Vec<Raw> {
    const STATUSES: [u16; 10] = [200, 200, 200, 201, 204, 301, 304, 400, 404, 500];
    let mut rng = Rng::new();
    (0..RECORDS as u64)
        .map(|i| {
            let service = rng.word(6, 12);
            let path = format!("/api/{}", rng.word(5, 20));
            let ts = 1_700_000_000_000 + i * 37 + rng.range(0, 1000);
            let status = STATUSES[rng.range(0, 9) as usize];
            let user = if rng.range(0, 1) == 0 {
                None
            } else {
                Some(rng.word(5, 10))
            };
            let n = rng.range(2, 6);
            let tags = (0..n).map(|_| rng.range(0, 99_999) as u32).collect();
            let kind = match rng.range(0, 2) {
                0 => (0, 0, String::new()),
                1 => (1, rng.range(0, u32::MAX as u64) as u32, String::new()),
                _ => (2, rng.range(0, 999) as u32, rng.word(8, 20)),
            };
            Raw {
                service,
                path,
                ts,
                status,
                user,
                tags,
                kind,
            }
        })
        .collect()
}
