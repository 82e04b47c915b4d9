# `cmake --install build --prefix P`: the libraries, public headers, the commands, the bundled rules,
# the docs, triageConfig.cmake (targets triage::engine, triage::c, triage::probes) and triage.pc.
# Layout under P follows GNUInstallDirs; the bundled rules go to P/share/triage/rules, where an
# installed command or shared library looks for them at run time (engine/src/rules/install_paths.cc).
include(CMakePackageConfigHelpers)
set(TRIAGE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/triage")

# Two export sets: the probes' (which needs Torch) is read only when a consumer asks for the
# `probes` component, so an engine-only consumer never looks for LibTorch.
install(TARGETS triage_engine triage_c EXPORT triageTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET triage_probes)
  install(TARGETS triage_probes EXPORT triageProbesTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/engine/include/triage DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/bindings/c/triage_c.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET triage_probes)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/probes/include/triage DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()

# With shared libraries (BUILD_SHARED_LIBS), the commands find libtriage next to them (../lib)
# wherever the prefix is moved. Static commands link none of ours and get no RPATH: an install RPATH
# also makes CMake pad the build tree's RUNPATH with ':' (empty entries, the current directory), so a
# build-tree `triage` looked for each system library in the working directory first, ~70 failed
# opens per start and a way to load a planted libstdc++ (issue 15 item 4).
file(RELATIVE_PATH _triage_bin_to_lib "/p/${CMAKE_INSTALL_BINDIR}" "/p/${CMAKE_INSTALL_LIBDIR}")
foreach(_cmd triage triage-probe)
  if(TARGET ${_cmd})
    if(BUILD_SHARED_LIBS)
      set_target_properties(${_cmd} PROPERTIES INSTALL_RPATH "$ORIGIN/${_triage_bin_to_lib}")
    endif()
    install(TARGETS ${_cmd} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
# triage-probe runs triage-probe-torch from libexec/triage (Note: [Probe front] in bindings/probe/front.cc).
if(TARGET triage-probe-torch)
  file(RELATIVE_PATH _triage_libexec_to_lib "/p/${CMAKE_INSTALL_LIBEXECDIR}/triage" "/p/${CMAKE_INSTALL_LIBDIR}")
  set_target_properties(triage-probe-torch PROPERTIES INSTALL_RPATH "$ORIGIN/${_triage_libexec_to_lib}")
  install(TARGETS triage-probe-torch RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/triage)
endif()
# The shared libraries that need libtriage find it beside them (a consumer's own RPATH does not reach
# the dependencies of the libraries it links).
set_target_properties(triage_c PROPERTIES INSTALL_RPATH "$ORIGIN")
if(TARGET triage_probes)
  set_target_properties(triage_probes PROPERTIES INSTALL_RPATH "$ORIGIN")
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/rules/ DESTINATION ${TRIAGE_INSTALL_RULESDIR}
  PATTERN "*.md" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/README.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/bindings/cli/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME cli.md)
install(FILES ${PROJECT_SOURCE_DIR}/engine/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME engine.md)
install(FILES ${PROJECT_SOURCE_DIR}/probes/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME probes.md)
install(FILES ${PROJECT_SOURCE_DIR}/rules/GUIDE.md ${PROJECT_SOURCE_DIR}/rules/README.md
  ${PROJECT_SOURCE_DIR}/rules/LUA_API.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/rules)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/man/triage.1 ${PROJECT_SOURCE_DIR}/cmake/man/triage-probe.1
  DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# The Python module (when bindings/python is built): the package `triage` in TRIAGE_INSTALL_PYTHONDIR,
# by default lib/pythonX.Y/site-packages (a virtual environment's layout: with --prefix set to a venv,
# `import triage` works there; with any other prefix, put P/lib/pythonX.Y/site-packages on PYTHONPATH).
# Its installed _paths.py locates triage-probe and the bundled rules relative to the package, so a
# moved prefix still works.
if(TARGET triage_python)
  execute_process(COMMAND ${TRIAGE_PYTHON} -c "import sys; print('python%d.%d' % sys.version_info[:2])"
                  OUTPUT_VARIABLE _triage_pyver OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(TRIAGE_INSTALL_PYTHONDIR "lib/${_triage_pyver}/site-packages" CACHE STRING
      "Where cmake --install puts the Python package triage, relative to the prefix")
  set(_triage_pkgdir "${TRIAGE_INSTALL_PYTHONDIR}/triage")
  file(RELATIVE_PATH _triage_pkg_to_lib "/p/${_triage_pkgdir}" "/p/${CMAKE_INSTALL_LIBDIR}")
  file(RELATIVE_PATH _triage_pkg_to_prefix "/p/${_triage_pkgdir}" "/p")
  set_target_properties(triage_python PROPERTIES INSTALL_RPATH "$ORIGIN/${_triage_pkg_to_lib}")
  install(TARGETS triage_python LIBRARY DESTINATION ${_triage_pkgdir})
  file(GLOB _triage_py_sources ${PROJECT_SOURCE_DIR}/bindings/python/triage/*.py)
  install(FILES ${_triage_py_sources} DESTINATION ${_triage_pkgdir})
  set(_triage_probe_path "None")
  if(TARGET triage-probe)
    set(_triage_probe_path "os.path.join(_PREFIX, \"${CMAKE_INSTALL_BINDIR}\", \"triage-probe\")")
  endif()
  file(WRITE ${PROJECT_BINARY_DIR}/cmake/installed_paths.py
    "# Written by CMake (cmake/install.cmake): the installed prefix, found from this file's place in it.\n"
    "import os\n"
    "_PREFIX = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), \"${_triage_pkg_to_prefix}\"))\n"
    "PROBE = ${_triage_probe_path}\n"
    "RULES = os.path.join(_PREFIX, \"${TRIAGE_INSTALL_RULESDIR}\")\n")
  install(FILES ${PROJECT_BINARY_DIR}/cmake/installed_paths.py DESTINATION ${_triage_pkgdir} RENAME _paths.py)
endif()

# find_package(triage): the exported targets plus the dependencies they need found again.
if(BUILD_SHARED_LIBS)
  set(TRIAGE_STATIC_LIBS OFF)
else()
  set(TRIAGE_STATIC_LIBS ON)
endif()
if(TARGET triage_probes)
  set(TRIAGE_HAS_PROBES ON)
else()
  set(TRIAGE_HAS_PROBES OFF)
endif()
install(EXPORT triageTargets NAMESPACE triage:: DESTINATION ${TRIAGE_INSTALL_CMAKEDIR})
if(TARGET triage_probes)
  install(EXPORT triageProbesTargets NAMESPACE triage:: DESTINATION ${TRIAGE_INSTALL_CMAKEDIR})
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/triageConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/triageConfig.cmake INSTALL_DESTINATION ${TRIAGE_INSTALL_CMAKEDIR}
  PATH_VARS TRIAGE_INSTALL_RULESDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/triageConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/triageConfig.cmake ${PROJECT_BINARY_DIR}/cmake/triageConfigVersion.cmake
  DESTINATION ${TRIAGE_INSTALL_CMAKEDIR})

# pkg-config, for the engine (C++) and the C API; prefix relative to the .pc file, so it moves too.
set(_triage_pcdir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
file(RELATIVE_PATH TRIAGE_PC_TO_PREFIX "/p/${_triage_pcdir}" "/p")
string(REGEX REPLACE "/$" "" TRIAGE_PC_TO_PREFIX "${TRIAGE_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/triage.pc.in ${PROJECT_BINARY_DIR}/cmake/triage.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/triage.pc DESTINATION ${_triage_pcdir})

# The shipped rule cache (Note: [Shipped rule cache] in engine/src/rules/rule_cache.h): last, once the
# command and the bundled rules are installed. A cross-compiled command cannot run here.
if(TARGET triage AND NOT CMAKE_CROSSCOMPILING)
  install(CODE "set(TRIAGE_SHIP_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
set(TRIAGE_SHIP_CACHEDIR \"${CMAKE_INSTALL_DATADIR}/triage/rule-cache\")
include(\"${PROJECT_SOURCE_DIR}/cmake/ship_rule_cache.cmake\")")
endif()
