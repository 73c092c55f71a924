#!/usr/bin/env bash
# Offline test of scripts/fetch_onnxruntime.sh's cache rules, with npm and apt made unreachable:
#  - a truncated (interrupted) tarball in the cache is not trusted: the run fails with one error line and leaves no
#    runtime tree;
#  - with verified downloads cached, a run assembles the tree without the network;
#  - a tree missing its completion record is rebuilt; a complete one is reused.
# Usage: fetch_onnxruntime_test.sh <repo root> <downloads dir of a completed fetch>
set -euo pipefail
repo="$1"
good_downloads="$2"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "${work}/offline-bin" "${work}/deps/downloads"
for tool in npm apt-get apt-cache; do
  printf '#!/bin/sh\necho "%s: network disabled by test" >&2\nexit 1\n' "${tool}" >"${work}/offline-bin/${tool}"
  chmod +x "${work}/offline-bin/${tool}"
done
run_fetch() {
  MODELKIT_DEPS_DIR="${work}/deps" PATH="${work}/offline-bin:${PATH}" "${repo}/scripts/fetch_onnxruntime.sh"
}

tarball="$(ls "${good_downloads}"/onnxruntime-node-*.tgz)"
deb="$(ls "${good_downloads}"/libonnxruntime-dev_*.deb | tail -n 1)"
[[ -f "${tarball}" && -f "${deb}" ]] || fail "no completed downloads in ${good_downloads}"
cp "${deb}" "${work}/deps/downloads/"

# 1. An interrupted download: the first MiB of the tarball.
head -c 1048576 "${tarball}" >"${work}/deps/downloads/${tarball##*/}"
if run_fetch 2>"${work}/stderr1"; then fail "a truncated tarball was trusted"; fi
grep -q '^error: ' "${work}/stderr1" || fail "no error line: $(cat "${work}/stderr1")"
[[ ! -e "${work}/deps/onnxruntime" ]] || fail "a runtime tree was left after a failed fetch"
[[ ! -e "${work}/deps/downloads/${tarball##*/}" ]] || fail "the truncated tarball was kept"
ls -d "${work}"/deps/.fetch.* 2>/dev/null && fail "temporary folders were left behind"

# 2. Verified downloads cached: assembles offline.
cp "${tarball}" "${work}/deps/downloads/"
run_fetch 2>"${work}/stderr2" || fail "offline assembly failed: $(cat "${work}/stderr2")"
[[ -f "${work}/deps/onnxruntime/lib/libonnxruntime.so.1" ]] || fail "no runtime library"
[[ -f "${work}/deps/onnxruntime/include/onnxruntime/onnxruntime_cxx_api.h" ]] || fail "no C++ headers"
[[ -f "${work}/deps/onnxruntime/include/onnxruntime/onnxruntime_ep_c_api.h" ]] || fail "no plugin EP headers"
grep -q '^runtime onnxruntime-node@1.30.0$' "${work}/deps/onnxruntime/VERSIONS" || fail "bad VERSIONS"

# 3. A tree without its completion record (killed before the rename finished) is rebuilt.
rm "${work}/deps/onnxruntime/VERSIONS"
run_fetch 2>"${work}/stderr3" || fail "rebuild failed: $(cat "${work}/stderr3")"
grep -q 'installed' "${work}/stderr3" || fail "incomplete tree was not rebuilt: $(cat "${work}/stderr3")"

# 4. A complete tree is reused.
run_fetch 2>"${work}/stderr4" || fail "reuse failed"
grep -q 'present' "${work}/stderr4" || fail "complete tree was not reused: $(cat "${work}/stderr4")"
echo "fetch_onnxruntime cache rules hold"
