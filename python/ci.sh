#!/usr/bin/env bash
# The Python package's checks, run by .ci/run after the Rust workspace's:
# format and lints of its Rust crate (a workspace of its own, so the main
# workspace's commands do not build it), then `pip install ./python` into a
# fresh virtual environment and its pytest tests, compared against the
# command line built by the workspace's tests.
# Needs cargo and python3 (3.9 or later); pip brings maturin, numpy and pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# One target directory with the workspace: what `cargo test --release
# --workspace` built is reused where the features agree.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"

cargo fmt --manifest-path python/Cargo.toml -- --check
cargo clippy --manifest-path python/Cargo.toml --release --features extension-module -- -D warnings

venv=$(mktemp -d)/venv
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check ./python numpy pytest

cargo build --release --quiet -p twofold --bin twofold
export TWOFOLD_CLI="$CARGO_TARGET_DIR/release/twofold"
"$venv/bin/python" -m pytest python/tests -q
echo "python/ci.sh: ${SECONDS}s"
