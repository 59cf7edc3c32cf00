#!/usr/bin/env bash
# Fuzzes one parser with libFuzzer for a while, in a clang ASan+UBSan tree of its own.
#
#   tests/fuzz/run_fuzzer.sh fuzz_image 10        # 10 minutes (default 5)
#
# Targets: fuzz_image fuzz_weights_header fuzz_trace_line fuzz_trace fuzz_generator_def.
# New inputs that reach new code go to build-fuzz/corpus/TARGET (kept between runs); a crash
# writes build-fuzz/crash-* and stops. Fix it, then commit the input under
# tests/fuzz/crashers/TARGET/ (a name that says what it is) so CTest replays it forever.
set -euo pipefail
cd "$(dirname "$0")/../.."

target=${1:?usage: tests/fuzz/run_fuzzer.sh TARGET [MINUTES]}
minutes=${2:-5}
[[ -d tests/fuzz/crashers/$target ]] || { echo "run_fuzzer: no fuzz target '$target'" >&2; exit 2; }
[[ $minutes =~ ^[0-9]+$ && $minutes -gt 0 ]] || { echo "run_fuzzer: minutes must be a whole number above 0" >&2; exit 2; }
command -v clang++ >/dev/null || { echo "run_fuzzer: clang++ not found; run packaging/install-deps.sh" >&2; exit 1; }

build=build-fuzz
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DSTAGELOAD_FUZZ=ON \
    -DSTAGELOAD_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build" --target "$target" fuzz_corpus
seeds=$build/seeds
"$build/tests/fuzz/fuzz_corpus" "$seeds" resources/generators >/dev/null
mkdir -p "$build/corpus/$target"
cd "$build"
# The first folder is where libFuzzer adds what it finds; the others are read only.
exec "tests/fuzz/$target" -max_total_time=$((minutes * 60)) -timeout=10 -rss_limit_mb=4096 \
  "corpus/$target" "seeds/$target" "../tests/fuzz/crashers/$target"
