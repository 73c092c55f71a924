# Sourced by the fetch scripts: download a pinned npm package tarball into a cache folder, trusted only when its
# size and SHA-256 match the pinned values (npm versions are immutable, so the pins never change).
#
#   npm_fetch_tarball <package@version> <sha256> <size> <cache dir> <work dir>
# Prints the cached tarball's path. A cached file that fails verification (an interrupted download) is deleted and
# fetched again; without network that is an error. Returns non-zero with a message on stderr on failure.

npm_tarball_ok() {  # <file> <sha256> <size>
  [[ -f "$1" ]] && [[ "$(stat -c %s "$1")" == "$3" ]] && [[ "$(sha256sum "$1" | cut -d' ' -f1)" == "$2" ]]
}

npm_fetch_tarball() {
  local spec="$1" sha="$2" size="$3" cache="$4" work="$5"
  local name="${spec%@*}" version="${spec##*@}"
  local file="${name#@}"
  file="${file//\//-}-${version}.tgz"
  local cached="${cache}/${file}"
  if npm_tarball_ok "${cached}" "${sha}" "${size}"; then
    echo "${cached}"
    return 0
  fi
  rm -f "${cached}"
  command -v npm >/dev/null || { echo "npm is needed to download ${spec} (install Node.js/npm)" >&2; return 1; }
  echo "downloading ${spec} from the npm registry" >&2
  mkdir -p "${cache}" "${work}/npm-pack"
  (cd "${work}/npm-pack" && npm pack "${spec}" --cache "${work}/npm-cache" --silent >/dev/null) ||
    { echo "npm pack ${spec} failed" >&2; return 1; }
  npm_tarball_ok "${work}/npm-pack/${file}" "${sha}" "${size}" ||
    { echo "downloaded ${file} does not match the pinned size/SHA-256" >&2; return 1; }
  mv -f "${work}/npm-pack/${file}" "${cached}"
  echo "${cached}"
}
