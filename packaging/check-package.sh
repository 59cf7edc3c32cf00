#!/usr/bin/env bash
# Builds the packages from a configured, built tree and checks the .deb the way a user meets it:
# installed with apt-get, validated where it landed, used by another user of the machine (the
# command line, the app started from its desktop entry, the learned remover installed once for
# everyone), then purged with nothing left behind. CI runs it after the tests; needs root.
#
#   packaging/check-package.sh [BUILD]     # default: build
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
log() { printf '[check-package] %s\n' "$*"; }
die() { printf '[check-package] FAIL: %s\n' "$*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "needs root (apt-get install, a second user)"
[[ -f $build/CPackConfig.cmake ]] || die "$build is not a configured build tree"

id=$(sed -n 's/^set(STAGELOAD_APP_ID \(.*\))$/\1/p' CMakeLists.txt)
[[ -n $id ]] || die "no STAGELOAD_APP_ID in CMakeLists.txt"
user=stageload-check
work=$(mktemp -d)
cleanup() {
  rm -rf "$work"
  id -u "$user" >/dev/null 2>&1 && userdel -r "$user" >/dev/null 2>&1 || true
}
trap cleanup EXIT

log "cpack (.deb and .tar.gz)"
rm -f "$build"/stageload-studio_*.deb "$build"/stageload-studio-*.tar.gz
(cd "$build" && cpack --config CPackConfig.cmake) > "$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; die "cpack"; }
debs=("$build"/stageload-studio_*.deb)
[[ -f ${debs[0]} ]] || die "no .deb in $build"
deb=$(realpath "${debs[0]}")
log "$(basename "$deb"): $(du -h "$deb" | cut -f1)"
dpkg-deb --field "$deb" Depends | grep -q 'libtorch' || die "Depends has no LibTorch library: dpkg-shlibdeps did not run"
dpkg-deb --field "$deb" Depends | grep -q 'qt6-qpa-plugins' || die "Depends lacks qt6-qpa-plugins"

log "the .tar.gz unpacked anywhere runs"
tar -xzf "$build"/stageload-studio-*-Linux.tar.gz -C "$work"
"$work"/stageload-studio-*-Linux/bin/stageload --version | grep -q '^stageload ' || die "the tarball's stageload does not run"

log "apt-get install $deb"
dpkg-query -W stageload-studio >/dev/null 2>&1 && apt-get purge -y -q stageload-studio > /dev/null
apt-get install -y -q "$deb" > "$work/apt.log" 2>&1 || { cat "$work/apt.log"; die "apt-get install"; }
dpkg -L stageload-studio > "$work/files"
desktop-file-validate "/usr/share/applications/$id.desktop" || die "the installed desktop entry does not validate"
appstreamcli validate --no-net "/usr/share/metainfo/$id.metainfo.xml" > /dev/null || die "the installed metainfo does not validate"
grep -q "image/png=.*$id.desktop" /usr/share/applications/mimeinfo.cache ||
  die "the desktop database does not offer the app for pictures"
grep -q 'application/x-stageload-trace' /usr/share/mime/types || die "the trace's MIME type is not registered"
[[ $(stageload --version) == "stageload $(dpkg-query -W -f='${Version}' stageload-studio)" ]] ||
  die "stageload --version differs from the package's version"
[[ -x /usr/libexec/stageload/stageload-keeper ]] || die "no keeper at /usr/libexec/stageload/stageload-keeper"
[[ -x /usr/libexec/stageload/stageload-engine ]] || die "no engine at /usr/libexec/stageload/stageload-engine"
stageload guard --wait-free 0 -- true > "$work/guard.log" 2>&1 || { cat "$work/guard.log"; die "stageload guard -- true"; }
grep -q keeper "$work/guard.log" && { cat "$work/guard.log"; die "the installed stageload does not find its keeper"; }

log "another user: stageload run and the app from its desktop entry"
id -u "$user" >/dev/null 2>&1 || useradd -m "$user"
as_user() { runuser -u "$user" -- env -i HOME="/home/$user" PATH=/usr/bin:/bin LANG=C.UTF-8 "$@"; }
as_user cp /usr/share/stageload/samples/knight_tiny_white.png "/home/$user/hero.png"
as_user bash -c 'cd ~ && stageload run hero.png -o hero.glb' > "$work/run.log" 2>&1 || { cat "$work/run.log"; die "stageload run as $user"; }
grep -q 'closed, manifold, outward' "$work/run.log" || { cat "$work/run.log"; die "the mesh is not closed"; }
exec_line=$(sed -n 's/^Exec=//p' "/usr/share/applications/$id.desktop")
app_command=${exec_line//%f/"/home/$user/hero.png"}
as_user xvfb-run -a -s "-screen 0 1600x1000x24" $app_command --generate --quit-when-done \
  --screenshot "/home/$user/shot.png" > "$work/app.log" 2>&1 || { tail -20 "$work/app.log"; die "the app ($app_command) as $user"; }
[[ -s /home/$user/shot.png ]] || die "the app wrote no screenshot"

log "the learned remover, installed once for every user"
stageload install-weights --system > "$work/weights.log" 2>&1 || { cat "$work/weights.log"; die "stageload install-weights --system"; }
[[ -f /usr/share/stageload/weights/u2netp.safetensors ]] || die "no /usr/share/stageload/weights/u2netp.safetensors"
as_user bash -c 'cd ~ && stageload run hero.png -o learned.glb --remover u2netp' > "$work/learned.log" 2>&1 ||
  { cat "$work/learned.log"; die "stageload run --remover u2netp as $user"; }
grep -q 'subject from u2netp' "$work/learned.log" || die "the run as $user did not use U²-Netp"

log "apt-get purge"
apt-get purge -y -q stageload-studio > "$work/purge.log" 2>&1 || { cat "$work/purge.log"; die "apt-get purge"; }
left=()
while read -r f; do
  [[ -f $f || -L $f ]] && left+=("$f")
done < "$work/files"
[[ -e /usr/share/stageload ]] && left+=(/usr/share/stageload)
[[ ${#left[@]} -eq 0 ]] || die "left behind after purge: ${left[*]}"
grep -q "$id.desktop" /usr/share/applications/mimeinfo.cache 2>/dev/null && die "the desktop database still lists the app"
log "passed: $(basename "$deb") installs, works for another user, and purges cleanly"
