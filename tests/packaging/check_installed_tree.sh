#!/usr/bin/env bash
# check_installed_tree.sh BUILD SOURCE VERSION APP_ID: installs BUILD into a temporary, unusual
# prefix and checks that the installed copy stands on its own: every file of the layout is
# there, nothing links back into SOURCE or BUILD, both programs say VERSION, and `stageload run`
# makes a mesh from a shipped sample outside the source tree, with weights found only in the
# prefix's folder for every user.
set -euo pipefail
build=$1 source=$2 version=$3 id=$4
fail() { printf 'installed_tree: FAIL: %s\n' "$*" >&2; exit 1; }
step() { printf 'installed_tree: %s\n' "$*"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/opt/stageload-studio
step "cmake --install into $prefix"
cmake --install "$build" --prefix "$prefix" --strip > "$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }

for f in bin/stageload bin/stageload-studio libexec/stageload/stageload-engine libexec/stageload/stageload-keeper \
         share/applications/$id.desktop share/metainfo/$id.metainfo.xml share/mime/packages/$id.xml \
         share/icons/hicolor/scalable/apps/$id.svg share/icons/hicolor/16x16/apps/$id.png \
         share/icons/hicolor/48x48/apps/$id.png share/icons/hicolor/256x256/apps/$id.png \
         share/man/man1/stageload.1.gz share/man/man1/stageload-studio.1.gz \
         share/stageload/generators/stageload-cascade.json share/stageload/generators/trellis-cpp.json share/stageload/generators/wrappers/trellis2_generate.py \
         share/stageload/samples/knight_white.png share/stageload/onnx_to_safetensors.py; do
  [[ -f $prefix/$f ]] || fail "$f is not installed"
done
[[ -x $prefix/share/stageload/install-weights.sh ]] || fail "share/stageload/install-weights.sh is not executable"
[[ -x $prefix/bin/stageload && -x $prefix/bin/stageload-studio ]] || fail "the programs are not executable"
links=$(find "$prefix" -type l)
[[ -z $links ]] || fail "symbolic links installed: $links"
grep -rlF -- "$source" "$prefix/share" && fail "installed data names the source tree $source"
grep -rlF -- "$build" "$prefix/share" && fail "installed data names the build tree $build"
[[ $(file -b "$prefix/bin/stageload") == *stripped* && $(file -b "$prefix/bin/stageload") != *"not stripped"* ]] ||
  fail "bin/stageload is not stripped"

# Nothing of the environment points the programs at their data: they find it themselves.
unset STAGELOAD_DATA_DIR STAGELOAD_WEIGHTS_DIR STAGELOAD_KEEPER STAGELOAD_ENGINE
export HOME=$tmp/home XDG_DATA_HOME=$tmp/home/.local/share XDG_DATA_DIRS=$tmp/no-such-share
mkdir -p "$HOME"
step "versions"
[[ $("$prefix/bin/stageload" --version) == "stageload $version" ]] || fail "stageload --version: $("$prefix/bin/stageload" --version)"
studio=$("$prefix/bin/stageload-studio" --version)
[[ $studio == "Stageload Studio $version" ]] || fail "stageload-studio --version: $studio"
"$prefix/bin/stageload-studio" --help | grep -q '\[FILE\]' || fail "stageload-studio --help shows no FILE argument"
man -l "$prefix/share/man/man1/stageload.1.gz" 2>/dev/null | grep -q 'install-weights --system' ||
  fail "the stageload man page does not show install-weights --system"
grep -q "<release version=\"$version\"" "$prefix/share/metainfo/$id.metainfo.xml" ||
  fail "the metainfo's release list does not start with $version"

work=$tmp/work
mkdir -p "$work"
cd "$work"
cp "$prefix/share/stageload/samples/knight_tiny_white.png" hero.png

step "the learned remover, before it is installed"
if "$prefix/bin/stageload" run hero.png -o none.glb --remover u2netp > no-weights.log 2>&1; then
  fail "a run with --remover u2netp succeeded with no weights installed"
fi
grep -q "not installed" no-weights.log && grep -q "stageload install-weights" no-weights.log ||
  { cat no-weights.log; fail "no 'not installed ... stageload install-weights' message"; }
"$prefix/bin/stageload" install-weights --system --dir x > both.log 2>&1 && fail "--system with --dir accepted"
grep -q "excludes" both.log || { cat both.log; fail "--system with --dir: no usage message"; }

step "stageload run, the weights in the prefix's folder for every user"
mkdir -p "$prefix/share/stageload/weights"
cp "$build/weights/u2netp.safetensors" "$prefix/share/stageload/weights/"
"$prefix/bin/stageload" run hero.png -o hero.glb --remover u2netp > run.log 2>&1 || { cat run.log; fail "stageload run"; }
[[ -s hero.glb ]] || fail "no hero.glb"
grep -q "closed, manifold, outward" run.log || { cat run.log; fail "the mesh is not closed, manifold and outward"; }
grep -q "subject from u2netp" run.log || { cat run.log; fail "the run did not use U²-Netp"; }
# Guarded, the built-in run is the engine's child under the engine's guard: it finds the keeper.
"$prefix/bin/stageload" run hero.png -o guarded.glb --wait-free 0 > guarded.log 2>&1 || { cat guarded.log; fail "stageload run --wait-free 0"; }
grep -qi keeper guarded.log && { cat guarded.log; fail "the engine does not find its keeper"; }
[[ -s guarded.glb ]] || fail "no guarded.glb"

step "the generator definitions shipped beside the program"
"$prefix/bin/stageload" forecast --generator "$prefix/share/stageload/generators/stageload-cascade.json" \
  --no-app-history > forecast.log 2>&1 || { cat forecast.log; fail "stageload forecast --generator (shipped cascade)"; }
step "passed"
