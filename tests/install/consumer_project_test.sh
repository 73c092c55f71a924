#!/usr/bin/env bash
# A C++ project built on the installed library: modelkit is installed to a temporary prefix, tests/install/consumer is
# configured with find_package(modelkit CONFIG) against that prefix alone and built (every public header is also
# compiled on its own), then run without LD_LIBRARY_PATH: it lists EPs, benchmarks an ONNX model, and generates from a
# bundle with an EP override. Its tokens must equal `modelkit generate` with the same settings, and it must open
# nothing of the source or build tree.
# Usage: consumer_project_test.sh BUILD_DIR SOURCE_DIR ONNX_MODEL TOKENIZER_DIR [CXX_FLAGS]
set -euo pipefail
build_dir="$(cd "$1" && pwd)"
source_dir="$(cd "$2" && pwd)"
model="$3"
tokenizer="$4"
cxx_flags="${5:-}"

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

prefix="${work}/prefix"
cmake --install "${build_dir}" --prefix "${prefix}" > "${work}/install.log"
for file in include/modelkit/modelkit.h lib/modelkit/cmake/modelkitConfig.cmake; do
  [[ -f "${prefix}/${file}" ]] || fail "${file} is not installed"
done
[[ -f "$(echo "${prefix}"/lib/modelkit/libmodelkit.so.*.*.*)" ]] || fail "libmodelkit.so is not installed"
# Only the public API is exported: no symbol of the modules inside (e.g. the generation runtime's namespace). Names
# are compared without their parameter lists, which may name internal types (the API's Impl constructors).
if nm -D --defined-only -C "${prefix}"/lib/modelkit/libmodelkit.so | sed 's/(.*//' |
  grep -E 'modelkit::(generate|session|perf|device|bundle|compile|report|ort|builder|serve)::'; then
  fail "libmodelkit.so exports symbols of its private modules"
fi
private_headers=$(cd "${prefix}/include" && find modelkit -name '*.h' | sort | tr '\n' ' ')
[[ "${private_headers}" == *"modelkit/api/genai_session.h"* ]] || fail "the public headers are missing: ${private_headers}"
[[ "${private_headers}" != *"modelkit/generate/"* ]] || fail "private headers are installed: ${private_headers}"

cp "${model}" "${work}/model.onnx"
mkdir -p "${work}/home"
export HOME="${work}/home"
unset LD_LIBRARY_PATH MODELKIT_EP_CATALOG MODELKIT_EP_LIBRARIES XDG_CACHE_HOME
"${prefix}/bin/modelkit" build --random --arch qwen3 --seed 5 --hidden-size 64 --layers 1 --heads 2 --kv-heads 1 \
  --head-dim 32 --intermediate-size 128 --context-length 64 --tokenizer "${tokenizer}" --layout pipeline \
  --ep simnpu -o "${work}/bundle" > /dev/null
# The bundle runs on simnpu; the override moves it to simnpu2, the simulated NPU registered under a second name by the
# example catalog installed beside the library.
catalog="${prefix}/lib/modelkit/sim_npu_catalog.json"
prompt_ids="9707,11,1879,0,576,374"
"${prefix}/bin/modelkit" generate -m "${work}/bundle" --ep-catalog "${catalog}" --ep simnpu2 --prompt-ids "${prompt_ids}" --max-new-tokens 8 \
  --greedy --ignore-eos -f json > "${work}/generate.json"
expected=$(python3 -c 'import json,sys; print(",".join(map(str, json.load(open(sys.argv[1]))["generated_ids"])))' \
  "${work}/generate.json")

cmake -S "${source_dir}/tests/install/consumer" -B "${work}/consumer-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="${prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_CXX_FLAGS="${cxx_flags}" > "${work}/configure.log" ||
  { cat "${work}/configure.log" >&2; fail "the consumer project does not configure"; }
cmake --build "${work}/consumer-build" > "${work}/build.log" 2>&1 ||
  { cat "${work}/build.log" >&2; fail "the consumer project does not build"; }

strace -f -qq -e trace=open,openat,execve -o "${work}/consumer.trace" "${work}/consumer-build/consumer" \
  "${work}/model.onnx" "${work}/bundle" "${catalog}" simnpu2 "${prompt_ids}" 8 > "${work}/consumer.out" 2> "${work}/consumer.err" ||
  { cat "${work}/consumer.err" >&2; fail "the consumer exited $?"; }
if grep -F "${source_dir}/" "${work}/consumer.trace" | head -5 >&2; then fail "the consumer opened files of the source tree"; fi

expect() {
  grep -qxF "$1" "${work}/consumer.out" || { cat "${work}/consumer.out" >&2; fail "the consumer did not print '$1'"; }
}
expect "version=$("${prefix}/bin/modelkit" --version | head -1 | cut -d' ' -f2)"
expect "ep=cpu usable=1"
expect "ep=simnpu usable=1"
expect "ep=simnpu2 usable=1"
expect "cpu_ep=cpu"
expect "onnx_ep=CPUExecutionProvider samples=5 report_has_latency=1"
expect "effective_ep=simnpu2"
expect "generated_ids=${expected}"
expect "streamed_equals_text=1"
expect "decoded_equals_text=1"
expect "cancelled_stop_reason=cancelled"
expect "missing_bundle_exit=2"
echo "ok: the consumer built against ${prefix} generated ${expected}, as modelkit generate did"
