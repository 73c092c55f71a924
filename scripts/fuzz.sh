#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang, ASan + UBSan) and runs them from their seed corpora in
# fuzz/corpus/<target>/. New inputs a run finds go to a scratch copy of the corpus, never into the repository.
#
#   scripts/fuzz.sh                    every target for MODELKIT_FUZZ_SECONDS seconds each (default 4: the CI smoke)
#   scripts/fuzz.sh TARGET [SECONDS]   one target (e.g. npz_fuzz) for SECONDS (default 600)
#
# A crash, a leak, a sanitizer report or an input slower than 10 s fails the run; libFuzzer writes the input that
# did it to build/fuzz/findings/ (add it to the bad-input catalogue or a unit test once fixed). Prints executions
# per target.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo_root}"
targets=(tokenizer_json_fuzz tokenizer_encode_fuzz chat_template_fuzz genai_config_fuzz npz_fuzz safetensors_fuzz
  onnx_logits_fuzz)
seconds="${MODELKIT_FUZZ_SECONDS:-4}"
if [[ $# -ge 1 ]]; then
  targets=("$1")
  seconds="${2:-600}"
fi

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target modelkit_fuzz_all

findings="build/fuzz/findings"
mkdir -p "${findings}"
scratch="$(mktemp -d)"
trap 'rm -rf "${scratch}"' EXIT
# ORT's and the tokenizer's one-time allocations are not leaks of the code under test.
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
failed=0
for target in "${targets[@]}"; do
  binary="$(find build/fuzz -type f -name "modelkit_${target}" -perm -u+x | head -n 1)"
  if [[ -z "${binary}" ]]; then
    echo "fuzz: no binary for ${target}" >&2
    exit 1
  fi
  mkdir -p "${scratch}/${target}"
  cp -r "fuzz/corpus/${target}/." "${scratch}/${target}/"
  log="${scratch}/${target}.log"
  if "${binary}" -max_total_time="${seconds}" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
       -artifact_prefix="${findings}/${target}-" "${scratch}/${target}" >"${log}" 2>&1; then
    runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "${log}" | grep -o '[0-9]*$' || echo '?')"
    echo "fuzz: ${target}: ${runs} executions in ${seconds} s, no findings"
  else
    echo "fuzz: ${target} FAILED; last lines of its log:" >&2
    tail -n 40 "${log}" >&2
    failed=1
  fi
done
exit "${failed}"
