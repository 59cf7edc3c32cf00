#!/usr/bin/env bash
# The GPU device check of the meter's "cuda" reader, as one prepared script for the lent GPU machine (it has
# PyTorch's LibTorch and a compiler, no Qt): builds tests/device/gpu_reader_check.cpp with the
# guard's memory readers against that LibTorch and runs it. Output goes to stdout and, when the
# device tool's $OUT is set, to $OUT/gpu_reader_check.txt.
#
#   tests/device/run_gpu_check.sh            # from the repository root
set -euo pipefail
cd "$(dirname "$0")/../.."

# LibTorch: $LIBTORCH, the Python torch package's, or a usual unpacked libtorch folder.
torch_dir=${LIBTORCH:-}
if [[ -z $torch_dir ]]; then
  torch_dir=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null) || true
fi
for d in "$torch_dir" /opt/libtorch /usr/local/libtorch "$HOME/libtorch"; do
  [[ -n $d && -d $d/include && -d $d/lib ]] && { torch_dir=$d; break; }
done
[[ -d ${torch_dir:-/nonexistent}/include ]] || {
  echo "run_gpu_check: no LibTorch found; set LIBTORCH to its folder" >&2; exit 2; }
# Which std::string ABI it was built with: its exported names say.
abi=0
nm -D --defined-only "$torch_dir/lib/libc10.so" 2>/dev/null | grep -q '__cxx11' && abi=1

build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
sources=(tests/device/gpu_reader_check.cpp guard/core/*.cpp guard/memory/*.cpp
         guard/process/process_list.cpp)
echo "run_gpu_check: building against $torch_dir (CXX11 ABI $abi)"
${CXX:-g++} -std=c++20 -O1 -D_GLIBCXX_USE_CXX11_ABI="$abi" -I. \
  -I"$torch_dir/include" -I"$torch_dir/include/torch/csrc/api/include" \
  "${sources[@]}" -o "$build/gpu_reader_check" \
  -L"$torch_dir/lib" -Wl,-rpath,"$torch_dir/lib" \
  -Wl,--no-as-needed -ltorch -ltorch_cuda -ltorch_cpu -lc10_cuda -lc10 -ldl -pthread

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
if [[ -n ${OUT:-} ]]; then
  "$build/gpu_reader_check" | tee "$OUT/gpu_reader_check.txt"
else
  "$build/gpu_reader_check"
fi
