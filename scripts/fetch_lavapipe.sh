#!/usr/bin/env bash
# Fetches a software Vulkan driver into the build tree so the WebGPU EP has a GPU-class adapter on machines without
# a GPU: Mesa's lavapipe (libvulkan_lvp.so) from bookworm-backports (bookworm's 22.3 is too old for Dawn) and the
# Vulkan loader (libvulkan.so.1) from bookworm, both via a PRIVATE apt state and unpacked with dpkg -x. Nothing is
# installed system-wide except lavapipe's shared-library dependencies (Debian packages, by scripts/setup.sh).
#
# Result: $MODELKIT_DEPS_DIR/vulkan/{lib/,lvp_icd.json,env.sh,VERSIONS}. `. build/_deps/vulkan/env.sh` sets
# LD_LIBRARY_PATH and VK_ICD_FILENAMES for a process that should see the software GPU. Built in a temporary sibling
# and renamed into place when complete; a second run with the result present does nothing and needs no network.
set -euo pipefail

readonly LAVAPIPE_SUITE="bookworm-backports"
readonly LOADER_SUITE="bookworm"
readonly LAVAPIPE_MIN="25.0"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/private_apt.sh
source "${repo_root}/scripts/lib/private_apt.sh"
deps_dir="${MODELKIT_DEPS_DIR:-${repo_root}/build/_deps}"
vulkan_dir="${deps_dir}/vulkan"

log() { echo "fetch_lavapipe: $*" >&2; }
die() { echo "error: fetch_lavapipe: $*" >&2; exit 1; }

if [[ -f "${vulkan_dir}/VERSIONS" && -f "${vulkan_dir}/lib/libvulkan_lvp.so" && -f "${vulkan_dir}/env.sh" ]]; then
  log "present: ${vulkan_dir} ($(tr '\n' ' ' <"${vulkan_dir}/VERSIONS"))"
  exit 0
fi

mkdir -p "${deps_dir}"
work="$(mktemp -d "${deps_dir}/.fetch-vulkan.XXXXXX")"
trap 'rm -rf "${work}"' EXIT

log "looking up mesa-vulkan-drivers (${LAVAPIPE_SUITE}) and libvulkan1 (${LOADER_SUITE})"
private_apt_init "${work}/apt" "${LAVAPIPE_SUITE}" "${LOADER_SUITE}" 2>"${work}/apt.err" || die "$(cat "${work}/apt.err")"
newest() {  # newest available version of $1 that is >= $2
  local best="" version
  while read -r version; do
    dpkg --compare-versions "${version}" ge "$2" || continue
    if [[ -z "${best}" ]] || dpkg --compare-versions "${version}" gt "${best}"; then best="${version}"; fi
  done < <(private_apt_versions "$1")
  echo "${best}"
}
mesa_version="$(newest mesa-vulkan-drivers "${LAVAPIPE_MIN}")"
[[ -n "${mesa_version}" ]] || die "no mesa-vulkan-drivers >= ${LAVAPIPE_MIN} in ${LAVAPIPE_SUITE}"
loader_version="$(newest libvulkan1 0)"
[[ -n "${loader_version}" ]] || die "no libvulkan1 in ${LOADER_SUITE}"

mkdir -p "${work}/debs"
for spec in "mesa-vulkan-drivers=${mesa_version}" "libvulkan1=${loader_version}"; do
  log "downloading ${spec}"
  private_apt_download "${work}/debs" "${spec}" 2>"${work}/apt.err" || die "$(cat "${work}/apt.err")"
done
for deb in "${work}"/debs/*.deb; do dpkg-deb -x "${deb}" "${work}/root" || die "cannot unpack ${deb##*/}"; done

stage="${work}/vulkan"
mkdir -p "${stage}/lib"
multiarch="${work}/root/usr/lib/x86_64-linux-gnu"
[[ -f "${multiarch}/libvulkan_lvp.so" ]] || die "mesa-vulkan-drivers ${mesa_version} has no libvulkan_lvp.so"
cp -P "${multiarch}"/libvulkan.so.1* "${multiarch}/libvulkan_lvp.so" "${stage}/lib/"
# The ICD manifest must name the driver by absolute path: the loader resolves bare names through the system.
sed "s|\"library_path\": *\"[^\"]*\"|\"library_path\": \"${vulkan_dir}/lib/libvulkan_lvp.so\"|" \
  "${work}/root/usr/share/vulkan/icd.d/lvp_icd.json" >"${stage}/lvp_icd.json"
grep -q "${vulkan_dir}/lib/libvulkan_lvp.so" "${stage}/lvp_icd.json" || die "cannot rewrite lvp_icd.json"
cat >"${stage}/env.sh" <<ENV
# Source this to let a process use the software Vulkan adapter (lavapipe) fetched by scripts/fetch_lavapipe.sh.
export LD_LIBRARY_PATH="${vulkan_dir}/lib\${LD_LIBRARY_PATH:+:\${LD_LIBRARY_PATH}}"
export VK_ICD_FILENAMES="${vulkan_dir}/lvp_icd.json"
ENV
printf 'mesa-vulkan-drivers=%s\nlibvulkan1=%s\n' "${mesa_version}" "${loader_version}" >"${stage}/VERSIONS"
rm -rf "${vulkan_dir}"
mv "${stage}" "${vulkan_dir}"
log "installed ${vulkan_dir} (mesa ${mesa_version}, loader ${loader_version})"
