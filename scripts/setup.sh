#!/usr/bin/env bash
# One-time set-up of a fresh Debian 12 machine for building and testing modelkit: installs the Debian packages the
# build and the tests need (only what is missing) and fetches ONNX Runtime and a software Vulkan driver (for the
# WebGPU EP) into the build tree.
# Safe to run again: with everything present it changes nothing and needs no network.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Build tools, libraries (CLI11, nlohmann_json, fmt, spdlog, GoogleTest/GoogleMock, Google Benchmark, PCRE2,
# utf8proc and simdjson for the tokenizer), what the test fixtures are made with (Debian's python3 with onnx and
# numpy), the tokenizer tests' text (unicode-data's NormalizationTest.txt.bz2 read with bzcat, wamerican's word
# list), strace (tests check which files a run opens), the ONNX conformance test data (libonnx-testdata, also run
# through the simulated NPU) and clang with its libFuzzer and sanitizer runtimes for the fuzz preset (scripts/fuzz.sh).
packages=(
  build-essential cmake ninja-build pkg-config clang-format clang-14 libclang-rt-14-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libzip-dev zipcmp zipmerge ziptool libxxhash-dev
  python3 python3-onnx python3-numpy python3-pil fonts-dejavu-core libonnx-testdata
  npm ca-certificates dpkg-dev strace
  libpcre2-dev libutf8proc-dev libsimdjson-dev unicode-data wamerican bzip2 python3-jinja2
  # `modelkit compare`: ALGLIB's Mann-Whitney U test and libcsv; scipy is the tests' independent reference
  libalglib-dev libcsv-dev python3-scipy
  # the HTML report is checked in a real browser (headless, networking off)
  chromium
  # `modelkit serve`: the HTTP server library
  libcpp-httplib-dev
  # the man pages are checked by rendering them; the Debian package is inspected and installed into a scratch root
  groff-base fakeroot
  # shared libraries of Mesa's software Vulkan driver (lavapipe), fetched by scripts/fetch_lavapipe.sh
  libllvm15 libdrm2 libwayland-client0 libx11-xcb1 libxcb1 libxcb-dri3-0 libxcb-present0 libxcb-randr0
  libxcb-shm0 libxcb-sync1 libxcb-xfixes0 libxshmfence1 libzstd1 libexpat1 libelf1 zlib1g
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm may come from a NodeSource install rather than Debian's package: accept any npm on PATH.
if command -v npm >/dev/null; then
  filtered=(); for p in "${missing[@]}"; do [[ "$p" == npm ]] || filtered+=("$p"); done; missing=("${filtered[@]}")
fi

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null || { echo "error: setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo_cmd=(sudo)
  fi
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

"${repo_root}/scripts/fetch_onnxruntime.sh"
"${repo_root}/scripts/fetch_lavapipe.sh"
"${repo_root}/scripts/fetch_test_models.sh"
"${repo_root}/scripts/fetch_minja.sh"
"${repo_root}/scripts/fetch_test_tokenizers.sh"
