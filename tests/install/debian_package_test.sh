#!/usr/bin/env bash
# The Debian package CPack makes from a build: its control fields (Depends computed from the Debian libraries the
# binaries link, no Vulkan driver), its contents (the tool, its private libraries, the C++ API, man pages, completion,
# no path of the build machine), apt's verdict that this Debian can install it, and a real dpkg install into a scratch
# root: modelkit runs from there without LD_LIBRARY_PATH, and removing the package leaves no file behind.
# Usage: debian_package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build_dir="$(cd "$1" && pwd)"
source_dir="$(cd "$2" && pwd)"

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cpack -G DEB --config "${build_dir}/CPackConfig.cmake" -B "${work}/out" > "${work}/cpack.log" 2>&1 ||
  { cat "${work}/cpack.log" >&2; fail "cpack -G DEB failed"; }
debs=("${work}"/out/modelkit_*_amd64.deb)
[[ ${#debs[@]} -eq 1 && -f "${debs[0]}" ]] || fail "expected one modelkit_VERSION_amd64.deb, got: ${debs[*]}"
deb="${debs[0]}"

# Control fields.
dpkg-deb -f "${deb}" Package | grep -qx modelkit || fail "the package is not named modelkit"
version="$("${build_dir}/bin/modelkit" --version | head -1 | cut -d' ' -f2)"
dpkg-deb -f "${deb}" Version | grep -qx "${version}" || fail "the package version is not ${version}"
depends="$(dpkg-deb -f "${deb}" Depends)"
names="$(echo ",${depends}," | tr -d ' ' | tr '|' ',')"  # ",libc6(>=2.34),libstdc++6(>=12),...,"
# Every Debian library the binary links (its NEEDED entries, resolved as ldd resolves them here) must be named, by
# the package that holds it.
readelf -d "${build_dir}/bin/modelkit" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' > "${work}/needed"
ldd "${build_dir}/bin/modelkit" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' > "${work}/resolved"
awk 'NR == FNR {needed[$1] = 1; next} $1 in needed {print $2}' "${work}/needed" "${work}/resolved" \
  > "${work}/libraries"
while read -r library; do
  [[ "${library}" == "${build_dir}"/* || "${library}" == */_deps/* ]] && continue  # modelkit's own, shipped inside
  real="$(readlink -f "${library}")"
  package="$(dpkg -S "${real}" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null || dpkg -S "${library}" 2>/dev/null)" ||
    fail "no Debian package holds ${library}"
  package="${package%%:*}"
  [[ "${names}" == *",${package},"* || "${names}" == *",${package}("* ]] || fail "Depends lacks ${package} (for ${library}): ${depends}"
done < "${work}/libraries"
[[ -s "${work}/libraries" ]] || fail "ldd listed no library of ${build_dir}/bin/modelkit"
if [[ "${depends}" =~ vulkan|mesa|onnxruntime ]]; then fail "Depends names a test-lab or private library: ${depends}"; fi

# Contents.
dpkg-deb -c "${deb}" | awk '{print $NF}' | sed 's|^\./|/|' > "${work}/contents"
for file in /usr/bin/modelkit /usr/lib/modelkit/libonnxruntime.so.1 /usr/lib/modelkit/libsim_npu.so \
  /usr/lib/modelkit/ep_catalog.json /usr/lib/modelkit/cmake/modelkitConfig.cmake /usr/include/modelkit/modelkit.h \
  /usr/share/man/man1/modelkit.1 /usr/share/man/man1/modelkit-perf.1 /usr/share/bash-completion/completions/modelkit \
  /usr/share/doc/modelkit/README.md; do
  grep -qxF "${file}" "${work}/contents" || fail "the package lacks ${file}"
done
dpkg-deb -x "${deb}" "${work}/extracted"
if grep -rlF -e "${source_dir}/" -e "${build_dir}/" "${work}/extracted"; then
  fail "packaged files name the source or build tree"
fi

# apt resolves every dependency on this Debian (a simulated install).
apt-get install -s -q "${deb}" > "${work}/apt.log" 2>&1 || { cat "${work}/apt.log" >&2; fail "apt cannot install it"; }

# A real install into a scratch root: its own dpkg database, which holds none of the dependencies (they are checked
# above), and no maintainer scripts to run.
root="${work}/root"
mkdir -p "${root}/var/lib/dpkg/info" "${root}/var/lib/dpkg/updates"
touch "${root}/var/lib/dpkg/status"
dpkg_root() { fakeroot dpkg --root="${root}" --log=/dev/null --force-depends --force-script-chrootless "$@"; }
dpkg_root -i "${deb}" > "${work}/install.log" 2>&1 || { cat "${work}/install.log" >&2; fail "dpkg -i failed"; }
dpkg_root -s modelkit | grep -q '^Status: install ok installed' || fail "dpkg does not record modelkit as installed"
env -u LD_LIBRARY_PATH -u MODELKIT_EP_CATALOG -u MODELKIT_EP_LIBRARIES "${root}/usr/bin/modelkit" --version \
  > "${work}/version.out" || fail "the installed modelkit --version failed"
grep -q "^ONNX Runtime .*(${root}/usr/lib/modelkit/libonnxruntime.so.1)" "${work}/version.out" ||
  { cat "${work}/version.out" >&2; fail "the installed modelkit did not load its own ONNX Runtime"; }
env -u LD_LIBRARY_PATH -u MODELKIT_EP_CATALOG -u MODELKIT_EP_LIBRARIES "${root}/usr/bin/modelkit" sys \
  > "${work}/sys.out" || fail "the installed modelkit sys failed"
grep -q SimNpuExecutionProvider "${work}/sys.out" || fail "the installed modelkit lists no simulated NPU"

dpkg_root -r modelkit > "${work}/remove.log" 2>&1 || { cat "${work}/remove.log" >&2; fail "dpkg -r failed"; }
left="$(find "${root}" -path "${root}/var/lib/dpkg" -prune -o \( -type f -o -type l \) -print | head -5)"
[[ -z "${left}" ]] || fail "removing the package left files: ${left}"
echo "ok: ${deb##*/} (Depends: ${depends}) installs, runs and is removed cleanly"
