#!/usr/bin/env bash
# The Python package (codec-py/) as a user installs it: a wheel maturin
# builds from the repo's files, installed by pip into a venv of its own,
# then its tests (pytest, which drive a Rust program sharing the caches)
# and mypy --strict on a sample program. Pinned packages from pip's
# registry; the venv is kept under the target folder between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
venv="$target_dir/codec-py-venv"
packages=("maturin==1.16.0" "msgspec==0.22.0" "pytest==8.4.2" "mypy==2.4.1"
    "moto[s3]==5.2.5" "flask" "flask-cors" "numpy==2.4.6")
# The marker names the packages and is written last: a venv an interrupted
# run left half made, or one of other packages, is made again.
ready="$venv/ready-$(printf '%s\n' "${packages[@]}" | sha256sum | cut -c1-12)"
if [ ! -e "$ready" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}"
    touch "$ready"
fi
# The Rust program the tests share caches with, as the workspace's tests
# built it (nothing is built again after them).
cargo build --quiet --workspace --all-features --example python_shared
export CODEC_SHARED_PROGRAM="$target_dir/debug/examples/python_shared"
cargo fmt --manifest-path codec-py/Cargo.toml --check
wheels="$target_dir/wheels"
rm -rf "$wheels"
start=$(date +%s)
CARGO_TARGET_DIR="$target_dir" "$venv/bin/maturin" build --quiet \
    --manifest-path codec-py/Cargo.toml --locked --interpreter "$venv/bin/python" --out "$wheels"
echo "wheel built in $(( $(date +%s) - start )) s: $(ls "$wheels")"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/*.whl
cd codec-py
# Azurite (as the Rust tests installed it), moto and numpy: none of their
# tests may be skipped.
export CODEC_PY_SERVERS=required
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests
"$venv/bin/python" -m mypy --strict --no-incremental python/codec

# A user's program under mypy --strict, with the classes the Rust program
# generates beside it, then run against a cache.
sample="$target_dir/codec-py-sample"
rm -rf "$sample"
mkdir -p "$sample"
cp sample/app.py "$sample/"
"$CODEC_SHARED_PROGRAM" module v1 > "$sample/shared_v1.py"
(cd "$sample" && "$venv/bin/python" -m mypy --strict --no-incremental app.py shared_v1.py)
(cd "$sample" && "$venv/bin/python" app.py "$sample/cache")
