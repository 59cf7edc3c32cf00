#!/usr/bin/env bash
# The stand-in cascade benchmark: two runs per mode, alternated, at --scale GiB.
# Writes traces, fingerprints, each run's report and results.md into OUT.
#
#   tests/bench/cascade_bench.sh                      # scale 6 into tests/bench/cascade-scale6
#   SCALE=1 OUT=/tmp/bench tests/bench/cascade_bench.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

bin=${STAGELOAD:-build/ui/cli/stageload}
scale=${SCALE:-6}
seed=${SEED:-7}
out=${OUT:-tests/bench/cascade-scale$scale}
[[ -x $bin ]] || { echo "cascade_bench: $bin not found; build first (see README)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
for run in 1 2; do
  for mode in staged eager; do
    echo "cascade_bench: $mode run $run"
    "$bin" bench cascade --scale "$scale" --load "$mode" --seed "$seed" --raw-read \
      --trace "$out/$mode-$run.trace.jsonl" --fingerprint "$out/$mode-$run.fingerprints" \
      > "$out/$mode-$run.txt" 2> /dev/null
  done
done

{
  echo "# Stand-in cascade at --scale $scale (seed $seed)"
  echo
  echo "Machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(. /etc/os-release; echo "$PRETTY_NAME"). Made by \`tests/bench/cascade_bench.sh\` on $(date -u +%Y-%m-%d)."
  echo "Runs alternate staged, eager, staged, eager. Peaks are the process's VmHWM per stage."
  echo
  for pair in "staged-1 eager-1" "staged-2 eager-2" "staged-1 staged-2"; do
    set -- $pair
    echo "## \`stageload bench compare $1 $2\`"
    echo
    echo '```'
    "$bin" bench compare "$out/$1.fingerprints" "$out/$2.fingerprints" || true
    echo '```'
    echo
  done
  for run in staged-1 eager-1 staged-2 eager-2; do
    echo "## $run: \`stageload bench cascade --scale $scale --load ${run%-*} --raw-read\`"
    echo
    echo '```'
    cat "$out/$run.txt"
    echo '```'
    echo
    echo "\`stageload summary $run.trace.jsonl\` (sampled every 50 ms):"
    echo
    echo '```'
    "$bin" summary "$out/$run.trace.jsonl"
    echo '```'
    echo
  done
} > "$out/results.md"
echo "cascade_bench: wrote $out/results.md"
