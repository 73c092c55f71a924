#!/usr/bin/env bash
# Fetches ONNX Runtime into the build tree: the prebuilt runtime library from the npm package
# onnxruntime-node (pinned, checked against its recorded SHA-256 and size) and the C/C++/plugin-EP headers from
# Debian's libonnxruntime-dev (newest version in [1.24, 1.30] found through a PRIVATE apt state; the system's
# apt sources are never changed).
#
# Result: $MODELKIT_DEPS_DIR/onnxruntime/{lib/libonnxruntime.so.1,include/onnxruntime/*.h,VERSIONS}
# (default MODELKIT_DEPS_DIR = <repo>/build/_deps). Every artefact is built in a temporary sibling and renamed into
# place only when complete, so an interrupted run never leaves something the next run trusts. A second run with
# the result present does nothing and needs no network.
set -euo pipefail

readonly ORT_NPM_VERSION="1.30.0"
readonly ORT_NPM_SHA256="6e3390d6b783e7be946fad629292799da28d0b42f84856e50d2c1b0383291e75"
readonly ORT_NPM_SIZE=113507888
readonly ORT_LIB_IN_TARBALL="package/bin/napi-v6/linux/x64/libonnxruntime.so.1"
# Header versions accepted: at least 1.24 (OrtEpApi::CreateHardwareDevice), at most the runtime's version.
readonly HEADER_MIN="1.24"
readonly HEADER_MAX="${ORT_NPM_VERSION}"
# Suites searched for libonnxruntime-dev; bookworm itself does not package ONNX Runtime.
readonly HEADER_SUITES="experimental sid"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/private_apt.sh
source "${repo_root}/scripts/lib/private_apt.sh"
# shellcheck source=lib/npm_fetch.sh
source "${repo_root}/scripts/lib/npm_fetch.sh"
deps_dir="${MODELKIT_DEPS_DIR:-${repo_root}/build/_deps}"
downloads="${deps_dir}/downloads"
ort_dir="${deps_dir}/onnxruntime"

log() { echo "fetch_onnxruntime: $*" >&2; }
die() { echo "error: fetch_onnxruntime: $*" >&2; exit 1; }

if [[ -f "${ort_dir}/VERSIONS" && -f "${ort_dir}/lib/libonnxruntime.so.1" && -f "${ort_dir}/include/onnxruntime/onnxruntime_c_api.h" ]]; then
  log "present: ${ort_dir} ($(tr '\n' ' ' <"${ort_dir}/VERSIONS"))"
  exit 0
fi

case "$(uname -m)" in
  x86_64) ;;
  *) die "only x86_64 Linux is supported (this machine is $(uname -m))" ;;
esac

mkdir -p "${downloads}"
work="$(mktemp -d "${deps_dir}/.fetch.XXXXXX")"
trap 'rm -rf "${work}"' EXIT

# 1. The npm tarball (cached in downloads/, trusted only after verification).
tarball="$(npm_fetch_tarball "onnxruntime-node@${ORT_NPM_VERSION}" "${ORT_NPM_SHA256}" "${ORT_NPM_SIZE}" "${downloads}" \
  "${work}" 2>"${work}/npm.err")" || die "$(tail -n 1 "${work}/npm.err")"

# 2. The headers .deb through a private apt state (cached in downloads/).
deb="$(ls "${downloads}"/libonnxruntime-dev_*.deb 2>/dev/null | sort -V | tail -n 1 || true)"
if [[ -z "${deb}" ]] || ! dpkg-deb --info "${deb}" >/dev/null 2>&1; then
  [[ -n "${deb}" ]] && rm -f "${deb}"
  log "looking up libonnxruntime-dev in ${HEADER_SUITES}"
  # shellcheck disable=SC2086
  private_apt_init "${work}/apt" ${HEADER_SUITES} 2>"${work}/apt.err" || die "$(cat "${work}/apt.err")"
  chosen=""
  newer=""
  while read -r version; do
    upstream="${version%%+*}"; upstream="${upstream%%-*}"
    if dpkg --compare-versions "${upstream}" ge "${HEADER_MIN}" && dpkg --compare-versions "${upstream}" le "${HEADER_MAX}"; then
      if [[ -z "${chosen}" ]] || dpkg --compare-versions "${version}" gt "${chosen}"; then chosen="${version}"; fi
    elif dpkg --compare-versions "${upstream}" gt "${HEADER_MAX}"; then
      if [[ -z "${newer}" ]] || dpkg --compare-versions "${version}" lt "${newer}"; then newer="${version}"; fi
    fi
  done < <(private_apt_versions libonnxruntime-dev)
  if [[ -z "${chosen}" ]]; then
    # Newer headers still work against the older runtime through manual API initialisation (see cmake/OnnxRuntime.cmake).
    [[ -n "${newer}" ]] || die "no libonnxruntime-dev version >= ${HEADER_MIN} is available in ${HEADER_SUITES}"
    log "no header version in [${HEADER_MIN}, ${HEADER_MAX}]; using the oldest newer one, ${newer}"
    chosen="${newer}"
  fi
  log "downloading libonnxruntime-dev ${chosen}"
  private_apt_download "${work}" "libonnxruntime-dev=${chosen}" 2>"${work}/apt.err" || die "$(cat "${work}/apt.err")"
  fetched="$(ls "${work}"/libonnxruntime-dev_*.deb)"
  dpkg-deb --info "${fetched}" >/dev/null || die "downloaded ${fetched##*/} is not a valid .deb"
  deb="${downloads}/${fetched##*/}"
  mv -f "${fetched}" "${deb}"
fi

# 3. Assemble the tree in a temporary sibling and rename it into place.
stage="${work}/onnxruntime"
mkdir -p "${stage}/lib" "${stage}/include"
tar -xzf "${tarball}" -C "${work}" "${ORT_LIB_IN_TARBALL}" || die "cannot extract ${ORT_LIB_IN_TARBALL} from ${tarball##*/}"
mv "${work}/${ORT_LIB_IN_TARBALL}" "${stage}/lib/libonnxruntime.so.1"
ln -s libonnxruntime.so.1 "${stage}/lib/libonnxruntime.so"
dpkg-deb -x "${deb}" "${work}/deb" || die "cannot unpack ${deb##*/}"
[[ -f "${work}/deb/usr/include/onnxruntime/onnxruntime_c_api.h" ]] || die "${deb##*/} has no onnxruntime_c_api.h"
cp -r "${work}/deb/usr/include/onnxruntime" "${stage}/include/onnxruntime"
header_version="$(dpkg-deb -f "${deb}" Version)"
printf 'runtime onnxruntime-node@%s\nheaders libonnxruntime-dev=%s\n' "${ORT_NPM_VERSION}" "${header_version}" >"${stage}/VERSIONS"
rm -rf "${ort_dir}"
mv "${stage}" "${ort_dir}"
log "installed ${ort_dir} (runtime ${ORT_NPM_VERSION}, headers ${header_version})"
