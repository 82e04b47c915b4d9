#!/bin/sh
# Builds program.cc against Debian's libtorch-dev 1.13 (CMake find_package(Torch)) in a temp dir, runs it
# and keeps everything it printed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cat > "$build/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(formats_case CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(Torch REQUIRED PATHS /usr/lib/x86_64-linux-gnu/cmake/Torch)
add_executable(program "$here/program.cc")
target_link_libraries(program PRIVATE \${TORCH_LIBRARIES})
CMAKE
cmake -S "$build" -B "$build/out" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$build/cmake.log" 2>&1 || { cat "$build/cmake.log"; exit 1; }
cmake --build "$build/out" -j1 > "$build/build.log" 2>&1 || { cat "$build/build.log"; exit 1; }
cd "$build/out"
./program > "$here/log.txt" 2>&1 || true
