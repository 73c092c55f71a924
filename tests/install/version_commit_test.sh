#!/usr/bin/env bash
# `modelkit --version` names the commit the binary was built from, as git says it now (with -dirty when tracked files
# differ from it), not the commit of the last configure.
# Usage: version_commit_test.sh MODELKIT SOURCE_DIR
set -euo pipefail
modelkit="$1"
cd "$2"
expected="$(git rev-parse --short=12 HEAD)"
git diff --quiet HEAD -- || expected="${expected}-dirty"
line="$(env -u MODELKIT_EP_CATALOG "${modelkit}" --version | head -1)"
[[ "${line}" == "modelkit "*" (commit ${expected})" ]] || { echo "FAIL: '${line}' does not name commit ${expected}" >&2; exit 1; }
echo "ok: ${line}"
