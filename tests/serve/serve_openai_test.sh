#!/usr/bin/env bash
# `modelkit serve` driven by the real OpenAI client (the openai npm package): a built bundle is served with an API key,
# two sessions and a short queue; openai_client_test.cjs checks models, chat and completions (streamed and not, the
# same text both ways and the same as `modelkit generate`), stop sequences, OpenAI-style errors, a client that leaves
# mid-stream (its generation stops) and 8 concurrent streams (each completes or gets 429, none lost). Then SIGTERM:
# the server drains and exits 0.
# Usage: serve_openai_test.sh MODELKIT NODE_MODULES_DIR TOKENIZER_DIR
set -euo pipefail
modelkit="$1"
node_modules="$2"
tokenizer="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

work="$(mktemp -d)"
server_pid=""
cleanup() {
  [[ -n "${server_pid}" ]] && kill -9 "${server_pid}" 2>/dev/null
  [[ -n "${KEEP_SERVE_LOG:-}" ]] && cp "${work}/server.err" "${KEEP_SERVE_LOG}"
  rm -rf "${work}"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  [[ -f "${work}/server.err" ]] && tail -20 "${work}/server.err" >&2
  exit 1
}
export MODELKIT_EP_CATALOG=none HOME="${work}"

"${modelkit}" build --random --arch qwen3 --seed 11 --hidden-size 64 --layers 1 --heads 2 --kv-heads 1 --head-dim 32 \
  --intermediate-size 128 --context-length 512 --tokenizer "${tokenizer}" -o "${work}/tiny" > /dev/null
# What `generate` says for the prompt the client sends first: the reference for the server's text.
"${modelkit}" generate -m "${work}/tiny" --prompt "Hello there" --greedy --max-new-tokens 8 -f json \
  > "${work}/generate.json"
echo "sk-test-$$" > "${work}/key"

# Starts the server on a free port in the background; sets server_pid and port once it says it is ready.
start_server() {
  "${modelkit}" serve -m "${work}/tiny" --port 0 --max-concurrency 2 --queue 2 --max-body-kb 64 \
    --api-key-file "${work}/key" 2> "${work}/server.err" &
  server_pid=$!
  for _ in $(seq 1 600); do
    grep -q '^ready$' "${work}/server.err" && break
    kill -0 "${server_pid}" 2>/dev/null || fail "the server exited before it was ready"
    sleep 0.1
  done
  grep -q '^ready$' "${work}/server.err" || fail "the server was not ready within 60 s"
  port="$(sed -n 's|^listening on http://127.0.0.1:\([0-9]*\)$|\1|p' "${work}/server.err")"
  [[ -n "${port}" ]] || fail "the server did not say where it listens"
}
# Sends SIGTERM and expects exit 0 after "stopped".
stop_server() {
  kill -TERM "${server_pid}"
  local status=0
  wait "${server_pid}" || status=$?
  server_pid=""
  [[ "${status}" -eq 0 ]] || fail "the server exited ${status} on SIGTERM, not 0"
  grep -q '^stopped$' "${work}/server.err" || fail "the server did not say it stopped"
}
client() { NODE_PATH="${node_modules}" node "${here}/openai_client_test.cjs" "http://127.0.0.1:${port}" "$(cat "${work}/key")" tiny "$@"; }

start_server
grep -q "^model tiny: .* on config" "${work}/server.err" || fail "the server did not log the model's EP"
client "${work}/generate.json" || fail "the client checks failed"
grep -qE '^POST /v1/chat/completions 200 model=tiny stream=1 prompt_tokens=[0-9]+ completion_tokens=[0-9]+ ttft_ms=' \
  "${work}/server.err" || fail "no access log line for a streamed chat completion"
grep -q '^GET /health 200$' "${work}/server.err" || fail "no access log line for /health"
stop_server

# SIGTERM while two streams run: they finish (the grace is long enough), then the server exits 0.
start_server
client --drain > "${work}/drain.out" &
client_pid=$!
for _ in $(seq 1 300); do
  grep -q '^streaming$' "${work}/drain.out" && break
  kill -0 "${client_pid}" 2>/dev/null || break
  sleep 0.1
done
grep -q '^streaming$' "${work}/drain.out" || fail "the two streams did not start"
stop_server
wait "${client_pid}" || fail "the streams running at SIGTERM did not finish: $(cat "${work}/drain.out")"
grep -q '^drained' "${work}/drain.out" || fail "the drain client did not finish"

# Two models, and --idle-timeout: both are listed, and without requests the server stops by itself, exit 0.
cp -r "${work}/tiny" "${work}/tiny2"
"${modelkit}" serve -m "${work}/tiny" -m "${work}/tiny2" --port 0 --idle-timeout 5 2> "${work}/idle.err" &
idle_pid=$!
for _ in $(seq 1 600); do grep -q '^ready$' "${work}/idle.err" && break; sleep 0.1; done
idle_port="$(sed -n 's|^listening on http://127.0.0.1:\([0-9]*\)$|\1|p' "${work}/idle.err")"
models="$(python3 -c 'import json, sys, urllib.request
print(" ".join(m["id"] for m in json.load(urllib.request.urlopen(sys.argv[1]))["data"]))' \
  "http://127.0.0.1:${idle_port}/v1/models")" || fail "GET /v1/models of two models failed"
[[ "${models}" == "tiny tiny2" ]] || fail "two served models listed as '${models}'"
status=0
wait "${idle_pid}" || status=$?
[[ "${status}" -eq 0 ]] || fail "the idle server exited ${status}, not 0"
grep -q '^idle for 5 s (--idle-timeout)$' "${work}/idle.err" || fail "the idle server did not say why it stopped"

# A bundle that fails to load: one error line, the generate exit code, and it never listened.
cp -r "${work}/tiny" "${work}/broken"
echo 'not an onnx model' > "${work}/broken/model.onnx"
status=0
"${modelkit}" serve -m "${work}/broken" --port 0 2> "${work}/broken.err" || status=$?
[[ "${status}" -eq 3 ]] || { cat "${work}/broken.err" >&2; fail "serve of a broken bundle exited ${status}, not 3"; }
[[ "$(grep -c '^error: ' "${work}/broken.err")" -eq 1 ]] || { cat "${work}/broken.err" >&2; fail "not one error line"; }
if grep -q '^listening' "${work}/broken.err"; then fail "serve listened with a bundle it could not load"; fi
echo "ok: the OpenAI client's checks passed; SIGTERM drained running streams and exited 0; a broken bundle exits 3"
