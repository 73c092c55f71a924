# Sourced by the fetch scripts: look up and download .deb files from other Debian suites through a PRIVATE apt
# state (own sources.list, lists and cache), never by changing the system's apt sources.
#
#   private_apt_init <state dir> <suite>...   sets PRIVATE_APT_OPTS and runs apt-get update for those suites
#   private_apt_versions <package>            prints the package's available versions, one per line
#   private_apt_download <dir> <pkg=version>  downloads the .deb into <dir>
# Each function returns non-zero with a one-line message on stderr when apt fails.

# The Debian archive URI of the system's own apt configuration (the mirror this machine may reach).
private_apt_archive_uri() {
  local uri
  uri="$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | grep -v security | head -n 1)"
  [[ -n "${uri}" ]] || uri="$(awk '$1=="deb" && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)"
  [[ -n "${uri}" ]] || { echo "cannot find the Debian archive URI in the system's apt configuration" >&2; return 1; }
  echo "${uri}"
}

private_apt_init() {
  local state="$1"; shift
  local uri suite
  uri="$(private_apt_archive_uri)" || return 1
  mkdir -p "${state}/lists/partial" "${state}/cache/archives/partial"
  for suite in "$@"; do echo "deb ${uri} ${suite} main"; done >"${state}/sources.list"
  PRIVATE_APT_OPTS=(-o "Dir::Etc::SourceList=${state}/sources.list" -o Dir::Etc::SourceParts=/nonexistent
    -o "Dir::State::Lists=${state}/lists" -o "Dir::Cache=${state}/cache" -o Dir::State::status=/dev/null
    -o Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false -o APT::Sandbox::User=root -q)
  if ! apt-get "${PRIVATE_APT_OPTS[@]}" update >"${state}/update.log" 2>&1; then
    echo "private apt-get update (${*}) failed: $(tail -n 1 "${state}/update.log")" >&2
    return 1
  fi
}

private_apt_versions() {
  apt-cache "${PRIVATE_APT_OPTS[@]}" madison "$1" | awk -F'|' '{gsub(/ /,"",$2); print $2}'
}

private_apt_download() {
  local dir="$1" spec="$2"
  if ! (cd "${dir}" && apt-get "${PRIVATE_APT_OPTS[@]}" download "${spec}" >"${dir}/download.log" 2>&1); then
    echo "apt-get download ${spec} failed: $(tail -n 1 "${dir}/download.log")" >&2
    return 1
  fi
  rm -f "${dir}/download.log"
}
