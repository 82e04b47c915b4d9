# Sourced by the C++ cases' make.sh: builds "$here/program.cc" against Debian's libtorch-dev 1.13
# (CMake find_package(Torch)) in a temp dir removed on exit. Sets $build; the program is $build/out/program.
# The caller sets `here` (its own folder) and `set -eu` first.
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
