#!/usr/bin/env bash
# The probe tests against the LibTorch of a PyTorch 2.x wheel on a GPU machine (the project's `device`
# tool), where the ProbeStateCuda.* tests run instead of skipping. That machine has a compiler and PyTorch
# but none of the engine's Debian libraries, so they travel in DEPS (built on this machine):
#   DEPS/lib/     libtriage.a (build/engine), libre2.a, liblua5.4.a, libyaml-cpp.a, libgtest.a, libgtest_main.a
#   DEPS/include/ gtest/
# Only the probes and probes_test.cc are compiled there (no CMake: the engine's pkg-config modules are
# missing); the TriageProbe.* tests, which need the triage-probe command, are left out. The test binary is
# not in a build tree, so TRIAGE_BUNDLED_RULES names the rules (engine/src/rules/install_paths.cc).
#
#   tests/probes/device_check.sh DEPS OUTDIR      prints the test log; OUTDIR/probes_device.txt keeps it
set -uo pipefail
deps="$(cd "$1" && pwd)"; out="$2"; mkdir -p "$out"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"; cd "$root"
torch_dir="$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')"
abi="$(python3 -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
# c10/cuda headers include cuda_runtime.h and its crt/ headers: the CUDA toolkit's include folder (under
# /usr/local/cuda-VERSION/targets/ARCH/include on that machine; the wheel's nvidia/cu13/include lacks crt/).
crt_h="$(find /usr/local -name host_config.h -path '*/include/crt/*' 2>/dev/null | head -1)"
[[ -n "$crt_h" ]] || { echo "no CUDA toolkit headers (crt/host_config.h) under /usr/local" | tee "$out/probes_device.txt"; exit 1; }
flags=(-isystem "$(dirname "$(dirname "$crt_h")")" -std=c++17 -O1 -DNDEBUG -w -DTRIAGE_WITH_CUDA=1 "-D_GLIBCXX_USE_CXX11_ABI=$abi" "-DTRIAGE_SOURCE_DIR=\"$root\""
       "-DTRIAGE_PROBE_BINARY=\"/nonexistent/triage-probe\"" -Iprobes/include -Iprobes/src -Iengine/include
       -I"$deps/include" -isystem "$torch_dir/include" -isystem "$torch_dir/include/torch/csrc/api/include")
obj="$(mktemp -d)"
pids=()
for f in probes/src/model.cc probes/src/probes.cc probes/src/guard.cc tests/probes/probes_test.cc; do
  g++ "${flags[@]}" -c "$f" -o "$obj/$(basename "$f").o" 2>"$obj/$(basename "$f").err" & pids+=($!)
done
rc=0; for p in "${pids[@]}"; do wait "$p" || rc=1; done
if [[ $rc -ne 0 ]]; then head -c 20000 "$obj"/*.err | tee "$out/probes_device.txt"; exit 1; fi
g++ -no-pie "$obj"/*.o -o "$obj/probe_tests" "$deps/lib/libgtest_main.a" "$deps/lib/libgtest.a" \
  "$deps/lib/libtriage.a" "$deps/lib/libre2.a" "$deps/lib/liblua5.4.a" "$deps/lib/libyaml-cpp.a" \
  -L"$torch_dir/lib" -Wl,--no-as-needed -ltorch_cuda -lc10_cuda -ltorch -ltorch_cpu -lc10 -Wl,--as-needed \
  -Wl,-rpath,"$torch_dir/lib" -lpthread -ldl 2>&1 | head -c 20000 | tee "$out/probes_device.txt"
[[ -x "$obj/probe_tests" ]] || exit 1
TRIAGE_BUNDLED_RULES="$root/rules" OMP_NUM_THREADS=1 "$obj/probe_tests" --gtest_filter='-TriageProbe.*' 2>&1 | tee "$out/probes_device.txt"
