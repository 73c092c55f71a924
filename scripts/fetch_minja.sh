#!/usr/bin/env bash
# Fetches minja (Google's header-only Jinja2 engine for chat templates, Debian package libminja-dev) into the build
# tree. Bookworm does not package it: the newest version in sid is downloaded through a PRIVATE apt state (the
# system's apt sources are never changed) and unpacked with dpkg-deb.
#
# Result: $MODELKIT_DEPS_DIR/minja/include/minja/{minja.hpp,chat-template.hpp} and VERSION (default
# MODELKIT_DEPS_DIR = <repo>/build/_deps). Built in a temporary sibling and renamed into place when complete; a second
# run with the result present does nothing and needs no network.
set -euo pipefail

readonly SUITES="sid"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps_dir="${MODELKIT_DEPS_DIR:-${repo_root}/build/_deps}"
downloads="${deps_dir}/downloads"
minja_dir="${deps_dir}/minja"

log() { echo "fetch_minja: $*" >&2; }
die() { echo "error: fetch_minja: $*" >&2; exit 1; }

if [[ -f "${minja_dir}/VERSION" && -f "${minja_dir}/include/minja/minja.hpp" ]]; then
  log "present: ${minja_dir} ($(cat "${minja_dir}/VERSION"))"
  exit 0
fi

mkdir -p "${downloads}"
work="$(mktemp -d "${deps_dir}/.fetch-minja.XXXXXX")"
trap 'rm -rf "${work}"' EXIT

deb="$(ls "${downloads}"/libminja-dev_*.deb 2>/dev/null | sort -V | tail -n 1 || true)"
if [[ -z "${deb}" ]] || ! dpkg-deb --info "${deb}" >/dev/null 2>&1; then
  [[ -n "${deb}" ]] && rm -f "${deb}"
  archive_uri="$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | grep -v security | head -n 1)"
  [[ -n "${archive_uri}" ]] || archive_uri="$(awk '$1=="deb" && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)"
  [[ -n "${archive_uri}" ]] || die "cannot find the Debian archive URI in the system's apt configuration"
  apt_state="${work}/apt"
  mkdir -p "${apt_state}/lists/partial" "${apt_state}/cache/archives/partial"
  for suite in ${SUITES}; do echo "deb ${archive_uri} ${suite} main"; done >"${apt_state}/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=${apt_state}/sources.list" -o Dir::Etc::SourceParts=/nonexistent
    -o "Dir::State::Lists=${apt_state}/lists" -o "Dir::Cache=${apt_state}/cache" -o Dir::State::status=/dev/null
    -o Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false -o APT::Sandbox::User=root -q)
  log "looking up libminja-dev in ${SUITES} (${archive_uri})"
  apt-get "${apt_opts[@]}" update >"${work}/apt-update.log" 2>&1 ||
    die "private apt-get update failed: $(tail -n 1 "${work}/apt-update.log")"
  version="$(apt-cache "${apt_opts[@]}" madison libminja-dev | awk -F'|' '{gsub(/ /,"",$2); print $2}' | sort -V | tail -n 1)"
  [[ -n "${version}" ]] || die "libminja-dev is not available in ${SUITES}"
  log "downloading libminja-dev ${version}"
  (cd "${work}" && apt-get "${apt_opts[@]}" download "libminja-dev=${version}" >"${work}/apt-download.log" 2>&1) ||
    die "apt-get download libminja-dev=${version} failed: $(tail -n 1 "${work}/apt-download.log")"
  fetched="$(ls "${work}"/libminja-dev_*.deb)"
  dpkg-deb --info "${fetched}" >/dev/null || die "downloaded ${fetched##*/} is not a valid .deb"
  deb="${downloads}/${fetched##*/}"
  mv -f "${fetched}" "${deb}"
fi

stage="${work}/minja"
dpkg-deb -x "${deb}" "${work}/deb" || die "cannot unpack ${deb##*/}"
header="$(find "${work}/deb" -name minja.hpp | head -n 1)"
[[ -n "${header}" ]] || die "${deb##*/} has no minja.hpp"
mkdir -p "${stage}/include/minja"
cp "$(dirname "${header}")"/*.hpp "${stage}/include/minja/"
dpkg-deb -f "${deb}" Version >"${stage}/VERSION"
rm -rf "${minja_dir}"
mv "${stage}" "${minja_dir}"
log "installed ${minja_dir} (libminja-dev $(cat "${minja_dir}/VERSION"))"
