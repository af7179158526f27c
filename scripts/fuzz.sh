#!/usr/bin/env bash
# Runs every fuzz target for a bounded time: scripts/fuzz.sh [seconds per target, default 60] [target...]
# Needs the nightly toolchain and cargo-fuzz (cargo install cargo-fuzz --locked).
# The store's targets start from the committed corpora (fuzz/corpus/<target>/),
# written from real stores by `cargo run --bin seeds -- corpus` (in fuzz/).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(decode_msgpack decode_json envelope index_lines checkpoint layout local_cache arrow_ipc)
fi
for target in "${targets[@]}"; do
  case "$target" in
    # A store's files, whole: tables, logs and data of a few entries.
    checkpoint | index_lines) max_len=65536 ;;
    *) max_len=4096 ;;
  esac
  mkdir -p "corpus/$target"
  echo "== $target for ${seconds}s"
  nice cargo +nightly fuzz run "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -max_len="$max_len" -print_final_stats=1 2>&1 | tail -n 20
done
