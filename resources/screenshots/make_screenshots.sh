#!/usr/bin/env bash
# Remakes the README's pictures: the app after a run (its scripted mode, under Xvfb), the app
# after the stand-in cascade ran as a generator (its default 4 GiB of weights, a child process),
# the app as the guard stops that cascade (its forecast, the guard's levels, the stop's mark),
# and the memory chart of a staged vs an eager run (`stageload plot` of the stand-in cascade's traces
# committed in tests/bench/cascade-scale6/).
#
#   resources/screenshots/make_screenshots.sh [BUILD_DIR]      # default: build
#
# The app runs with a fresh settings folder and history (a temporary XDG home), the default
# settings and the installed weights (packaging/install-weights.sh), as a new user would see it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
studio=$build/ui/app/stageload-studio
cli=$build/ui/cli/stageload
[[ -x $studio && -x $cli ]] || { echo "build the project first: $studio, $cli" >&2; exit 1; }
command -v xvfb-run >/dev/null || { echo "xvfb-run is missing: run packaging/install-deps.sh" >&2; exit 1; }

# The weights stay where they are installed; only settings and history go to the temporary home.
export STAGELOAD_WEIGHTS_DIR=${STAGELOAD_WEIGHTS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/stageload/weights}
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT

XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data \
  xvfb-run -a -s "-screen 0 1400x900x24" \
  "$studio" "$repo/resources/samples/knight_white.png" --generate --quit-when-done \
  --screenshot "$here/studio.png"

XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data \
  xvfb-run -a -s "-screen 0 1400x900x24" \
  "$studio" "$repo/resources/samples/knight_white.png" \
  --generator "$repo/resources/generators/stageload-cascade.json" --generate --quit-when-done \
  --screenshot "$here/generator.png"

# A guard stop as the artist sees it live: the cascade again, with the forecast of the run above,
# the guard's start and stop levels drawn, and the stop level set 8 points under what is free
# now, so the run's peak crosses it and the stop is marked where and why.
free=$(awk '/^MemTotal:/ {t = $2} /^MemAvailable:/ {a = $2} END {printf "%.0f", a * 100 / t}' /proc/meminfo)
mkdir -p "$home/config-stop/Stageload"  # its own settings: the first layout, on a larger screen
python3 - "$home/config-stop/Stageload/Stageload Studio.conf" "$((free - 8))" <<'PY'
import configparser, sys
ini = configparser.RawConfigParser()
ini.optionxform = str  # QSettings keys are case-sensitive
ini.read(sys.argv[1])
if not ini.has_section("guard"):
    ini.add_section("guard")
ini.set("guard", "killFree", sys.argv[2])
with open(sys.argv[1], "w") as f:
    ini.write(f, space_around_delimiters=False)
PY
XDG_CONFIG_HOME=$home/config-stop XDG_DATA_HOME=$home/data \
  xvfb-run -a -s "-screen 0 1920x1080x24" \
  "$studio" "$repo/resources/samples/knight_white.png" \
  --generator "$repo/resources/generators/stageload-cascade.json" --generate --quit-when-done \
  --screenshot "$here/guard-stop.png" || [[ $? == 3 ]]  # 3: stopped by the guard, as meant

"$cli" plot "$repo/tests/bench/cascade-scale6/staged-2.trace.jsonl" \
  "$repo/tests/bench/cascade-scale6/eager-2.trace.jsonl" \
  --title "Stand-in cascade at --scale 6: staged vs eager" \
  -o "$here/staged-vs-eager.png"
