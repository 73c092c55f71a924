#!/usr/bin/env python3
"""The windowed static NPU layout (`modelkit build --window`) against the dynamic pipeline, on the CPU.

Builds, if missing, three Qwen3-0.6B-shaped int4 bundles of the same random weights: the dynamic NPU pipeline
(`--layout pipeline`), the windowed layout with its uint8 KV cache (`--window W`) and the same with an fp32 cache
(`--kv-type fp32`). Then, interleaved run by run on the same prompt token ids, runs `modelkit generate` on each and
onnxruntime-genai 0.15.2's greedy driver on the uint8 windowed bundle, and prints medians with their min-max spread:
- prefill and decode tokens/s, windowed vs dynamic (modelkit), and modelkit vs onnxruntime-genai on the windowed
  bundle (which moves its whole cache after every token where modelkit copies the new positions);
- the KV cache's bytes, uint8 vs fp32 (expect 1/4);
- time outside ORT Run per decode step as a share of the step (the runtime's own work: target <= 3%);
- whether the token ids agree: windowed uint8 modelkit vs onnxruntime-genai (must), fp32-KV windowed vs dynamic
  (must: same math), uint8 vs dynamic (may differ: quantised cache).
Asserts nothing.

Usage (from the project root, after the build): bench/windowed_layout.py [--runs 3] [--new-tokens 64]
  [--window 64] [--context 2048] [--prompts 128,512] [--work /tmp/modelkit-windowed] [--modelkit PATH]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generation_vs_genai as common  # noqa: E402  (the shared runners: genai_greedy and modelkit generate)

LAYOUTS = {
    "dynamic": ["--layout", "pipeline"],
    "windowed-uint8": ["--layout", "pipeline", "--window", "{window}"],
    "windowed-fp32kv": ["--layout", "pipeline", "--window", "{window}", "--kv-type", "fp32"],
}


def run_modelkit(modelkit, bundle, ids, new_tokens):
    out, rss = common.run_measured([modelkit, "generate", "-m", bundle, "--prompt-ids", ",".join(map(str, ids)),
                                    "--max-new-tokens", str(new_tokens), "--ignore-eos", "-f", "json"])
    report = json.loads(out)
    timings = report["timings"]
    steps, inside = timings["durations_ns"]["decode_tokens"], timings["durations_ns"]["decode_tokens_ort"]
    return {"prefill_tps": len(ids) * 1e9 / timings["durations_ns"]["prefill"],
            "decode_tps": 1e9 * len(steps) / sum(steps),
            "outside_share": statistics.median((s - i) / s for s, i in zip(steps, inside)),
            "kv_bytes": report["kv_cache_bytes"], "rss_mb": rss, "ids": report["generated_ids"]}


def run_genai(bundle, ids, new_tokens):
    # onnxruntime-genai counts its prompt padding toward max_length: ask for a window more, compare the common part.
    result = common.run_genai(bundle, ids, new_tokens + 64, 2, {})
    result["prefill_tps"] = len(ids) * 1000.0 / result["prefill_ms"]
    return result


def spread(values, digits=1):
    return f"{statistics.median(values):.{digits}f} [{min(values):.{digits}f}-{max(values):.{digits}f}]"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--window", type=int, default=64)
    parser.add_argument("--context", type=int, default=2048)
    parser.add_argument("--prompts", default="128,512")
    parser.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "modelkit-windowed"))
    parser.add_argument("--modelkit")
    args = parser.parse_args()
    modelkit = common.find_binary(args.modelkit, "modelkit")
    prompts = [int(p) for p in args.prompts.split(",")]
    print(f"{args.runs} interleaved runs; {args.new_tokens} new tokens; window {args.window}; context "
          f"{args.context}; load average {os.getloadavg()[0]:.2f}")
    bundles = {}
    for name, flags in LAYOUTS.items():
        bundle = Path(args.work) / f"qwen3-0.6b-int4-{name}"
        if not (bundle / "genai_config.json").exists():
            subprocess.run([modelkit, "build", "-o", bundle, "--random", *common.SHAPE, "--precision", "int4",
                            *[f.format(window=args.window) for f in flags], "--tokenizer", common.TOKENIZER,
                            "--context-length", str(args.context), "--overwrite"], check=True, cwd=common.ROOT)
        bundles[name] = bundle
    vocab = json.loads((bundles["dynamic"] / "genai_config.json").read_text())["model"]["vocab_size"]

    results = {}  # (runner, prompt) -> [measurements]
    for _ in range(args.runs):
        for prompt in prompts:
            ids = common.prompt_ids(prompt, vocab)
            for name, bundle in bundles.items():
                results.setdefault((name, prompt), []).append(run_modelkit(modelkit, bundle, ids, args.new_tokens))
            results.setdefault(("genai", prompt), []).append(run_genai(bundles["windowed-uint8"], ids,
                                                                      args.new_tokens))

    def median(runner, prompt, key):
        return statistics.median(m[key] for m in results[(runner, prompt)])

    def agree(a, b, prompt):
        return all(x["ids"][:args.new_tokens] == y["ids"][:args.new_tokens]
                   for x, y in zip(results[(a, prompt)], results[(b, prompt)]))

    for prompt in prompts:
        windows = -(-prompt // args.window)
        print(f"\n== prompt {prompt} tokens ({windows} windows of {args.window})")
        print(f"{'':34} {'prefill tok/s':>24} {'decode tok/s':>24} {'outside Run / step':>20}")
        for runner in ("dynamic", "windowed-uint8", "windowed-fp32kv", "genai"):
            rows = results[(runner, prompt)]
            label = "onnxruntime-genai, windowed-uint8" if runner == "genai" else f"modelkit, {runner}"
            outside = "-" if runner == "genai" else f"{100 * median(runner, prompt, 'outside_share'):.2f}%"
            print(f"{label:34} {spread([m['prefill_tps'] for m in rows]):>24} "
                  f"{spread([m['decode_tps'] for m in rows]):>24} {outside:>20}")
        print(f"windowed-uint8 / dynamic: prefill "
              f"{median('windowed-uint8', prompt, 'prefill_tps') / median('dynamic', prompt, 'prefill_tps'):.2f}x, "
              f"decode {median('windowed-uint8', prompt, 'decode_tps') / median('dynamic', prompt, 'decode_tps'):.2f}x")
        print(f"modelkit / onnxruntime-genai on windowed-uint8: prefill "
              f"{median('windowed-uint8', prompt, 'prefill_tps') / median('genai', prompt, 'prefill_tps'):.2f}x, "
              f"decode {median('windowed-uint8', prompt, 'decode_tps') / median('genai', prompt, 'decode_tps'):.2f}x")
        print(f"token ids: modelkit == onnxruntime-genai (uint8): {agree('windowed-uint8', 'genai', prompt)}; "
              f"fp32-KV windowed == dynamic: {agree('windowed-fp32kv', 'dynamic', prompt)}; "
              f"uint8 windowed == dynamic: {agree('windowed-uint8', 'dynamic', prompt)}")
    uint8 = median("windowed-uint8", prompts[0], "kv_bytes")
    fp32 = median("windowed-fp32kv", prompts[0], "kv_bytes")
    print(f"\nKV cache: uint8 {uint8 / 2**20:.1f} MiB, fp32 {fp32 / 2**20:.1f} MiB: {uint8 / fp32:.3f} of it")


if __name__ == "__main__":
    main()
