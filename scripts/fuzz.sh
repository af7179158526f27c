#!/usr/bin/env bash
# Runs every fuzz target for a bounded time: scripts/fuzz.sh [seconds per target, default 60]
# Needs the nightly toolchain and cargo-fuzz (cargo install cargo-fuzz).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds="${1:-60}"
for target in decode_msgpack decode_json; do
  echo "== $target for ${seconds}s"
  cargo +nightly fuzz run "$target" -- -max_total_time="$seconds" -max_len=4096 2>&1 | tail -n 5
done
