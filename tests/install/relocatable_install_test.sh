#!/usr/bin/env bash
# The installed tree works wherever it is moved: installed to one prefix and moved to another, modelkit runs without
# LD_LIBRARY_PATH (--version, sys, perf of an ONNX model, build and perf of a bundle), finds its own ONNX Runtime and
# plugin EP, and opens nothing under the source or build tree (every open is traced); no installed file names them.
# Usage: relocatable_install_test.sh BUILD_DIR SOURCE_DIR ONNX_MODEL TOKENIZER_DIR
set -euo pipefail
build_dir="$(cd "$1" && pwd)"
source_dir="$(cd "$2" && pwd)"
model="$3"
tokenizer="$4"

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "${build_dir}" --prefix "${work}/first" --strip > "${work}/install.log"
mv "${work}/first" "${work}/moved"
prefix="${work}/moved"
modelkit="${prefix}/bin/modelkit"

[[ -x "${modelkit}" ]] || fail "no ${modelkit}"
for file in libonnxruntime.so.1 libsim_npu.so ep_catalog.json libsim_npu.manifest.json; do
  [[ -f "${prefix}/lib/modelkit/${file}" ]] || fail "lib/modelkit/${file} is not installed"
done
if grep -rlF "${source_dir}/" "${prefix}"; then fail "installed files name the source or build tree"; fi
readelf -d "${modelkit}" | grep -q 'RUNPATH.*\$ORIGIN/../lib/modelkit' || fail "RUNPATH is not \$ORIGIN-relative"

# Inputs copied out of the build tree, and caches in the work folder.
cp "${model}" "${work}/model.onnx"
cp -r "${tokenizer}" "${work}/tokenizer"
mkdir -p "${work}/home"

# Runs the installed modelkit under strace; fails when it opened (or tried to open) anything in the source tree.
run() {
  local name="$1"
  shift
  env -u LD_LIBRARY_PATH -u MODELKIT_EP_CATALOG -u MODELKIT_EP_LIBRARIES -u XDG_CACHE_HOME HOME="${work}/home" \
    strace -f -qq -e trace=open,openat,execve -o "${work}/${name}.trace" "${modelkit}" "$@" > "${work}/${name}.out" \
    2> "${work}/${name}.err" || { cat "${work}/${name}.err" >&2; fail "modelkit $* exited $?"; }
  if grep -F "${source_dir}/" "${work}/${name}.trace" | head -5 >&2; then fail "modelkit $* opened files of the source tree"; fi
}

run version --version
grep -q "^ONNX Runtime .*(${prefix}/lib/modelkit/libonnxruntime.so" "${work}/version.out" || {
  cat "${work}/version.out" >&2
  fail "--version does not name the installed ONNX Runtime"
}
grep -q "^plugin EP SimNpu.virtual (${prefix}/lib/modelkit/libsim_npu.so" "${work}/version.out" || {
  cat "${work}/version.out" >&2
  fail "--version does not name the installed plugin"
}

run sys sys
grep -q "SimNpuExecutionProvider" "${work}/sys.out" || { cat "${work}/sys.out" >&2; fail "sys lists no simulated NPU"; }

run onnx perf -m "${work}/model.onnx" --iterations 3 --warmup 1 -o "${work}/onnx.json"
run build build --random --arch qwen3 --seed 3 --hidden-size 64 --layers 1 --heads 2 --kv-heads 1 --head-dim 32 \
  --intermediate-size 128 --context-length 64 --tokenizer "${work}/tokenizer" --layout pipeline --ep simnpu \
  -o "${work}/bundle"
run genai perf -m "${work}/bundle" --iterations 1 --warmup 0 --max-new-tokens 4 -o "${work}/genai.json"
grep -q '"SimNpuExecutionProvider"' "${work}/genai.json" || fail "the bundle's stages did not run on the simulated NPU"
echo "ok: installed to ${work}/first, moved to ${prefix}, ran without the build tree"
