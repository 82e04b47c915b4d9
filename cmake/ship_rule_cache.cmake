# Run by `cmake --install` after the command and the bundled rules are in place (cmake/install.cmake):
# builds the shipped rule cache, P/share/triage/rule-cache (Note: [Shipped rule cache] in
# engine/src/rules/rule_cache.h), by running the installed `triage` once as a user without rules of
# their own would: an empty HOME and working directory, no TRIAGE_* variables. Its entry's key names
# the installed program and files, so it is made from the final prefix only: under DESTDIR (a
# package being staged) the paths would name the staging directory, and a packager runs
#   TRIAGE_CACHE_DIR=P/share/triage/rule-cache HOME=<empty dir> P/bin/triage rules list
# (and the same with a log of an error no rule knows, for the similar-case index's image) once installed, at least 2 s after the files were (then makes it readable: chmod -R go=rX). Best effort: a failure only leaves the
# first run cold. Expects TRIAGE_SHIP_BINDIR and TRIAGE_SHIP_CACHEDIR (relative to the prefix).
if(NOT "$ENV{DESTDIR}" STREQUAL "")
  message(STATUS "Shipped rule cache: not made under DESTDIR (see cmake/ship_rule_cache.cmake)")
  return()
endif()
set(_triage_ship_dir "${CMAKE_INSTALL_PREFIX}/${TRIAGE_SHIP_CACHEDIR}")
set(_triage_ship_bin "${CMAKE_INSTALL_PREFIX}/${TRIAGE_SHIP_BINDIR}/triage")
set(_triage_ship_home "${_triage_ship_dir}.home")
file(REMOVE_RECURSE "${_triage_ship_dir}" "${_triage_ship_home}")
file(MAKE_DIRECTORY "${_triage_ship_home}")
# The rule files were installed just now: past the loader's settle time (Note: [Rule file stamps],
# kSettleNs, 2 s) the run also leaves a stamp index, with which a user's first run reads no rule file
# and starts as a warm one does; within it, the first run reads and hashes every file.
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 3)
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=TRIAGE_RULES_PATH --unset=TRIAGE_DISABLE --unset=TRIAGE_NO_CACHE
          --unset=TRIAGE_BUNDLED_RULES --unset=XDG_CONFIG_HOME --unset=XDG_CACHE_HOME
          "HOME=${_triage_ship_home}" "TRIAGE_CACHE_DIR=${_triage_ship_dir}" "${_triage_ship_bin}" rules list
  WORKING_DIRECTORY "${_triage_ship_home}" RESULT_VARIABLE _triage_ship_rc OUTPUT_QUIET ERROR_QUIET)
# The similar-case index's image (Note: [Similar index image] in engine/src/diagnose/similar_case.cc):
# made by a diagnosis whose error no rule, nor its frames, names, so that the vote reads the index;
# a user's first run on such a log then reads the shipped image instead of parsing
# rules/similar/cases.tsv. The run's exit status does not matter: what it left is checked below.
file(WRITE "${_triage_ship_home}/unknown.log"
     "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    main()\nValueError: the widget frobnicator refused the quux\n")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=TRIAGE_RULES_PATH --unset=TRIAGE_DISABLE --unset=TRIAGE_NO_CACHE
          --unset=TRIAGE_BUNDLED_RULES --unset=XDG_CONFIG_HOME --unset=XDG_CACHE_HOME
          "HOME=${_triage_ship_home}" "TRIAGE_CACHE_DIR=${_triage_ship_dir}" "${_triage_ship_bin}" unknown.log
  WORKING_DIRECTORY "${_triage_ship_home}" OUTPUT_QUIET ERROR_QUIET)
file(REMOVE_RECURSE "${_triage_ship_home}")
# The command exits non-zero when a rule has errors; the entry it wrote holds them too (files are
# written whole and renamed), so what it left is kept either way.
file(GLOB _triage_ship_entries "${_triage_ship_dir}/rules-*.bin")
if(_triage_ship_entries)
  # Readable by every user of the install; writable by its owner only (the loader refuses otherwise).
  execute_process(COMMAND chmod -R u=rwX,go=rX "${_triage_ship_dir}")
  file(GLOB _triage_ship_similar "${_triage_ship_dir}/similar-*.bin")
  if(NOT _triage_ship_similar)
    message(STATUS "Shipped rule cache: no similar-case index image (a first run on an unknown error parses it)")
  endif()
  message(STATUS "Shipped rule cache: ${_triage_ship_dir}")
else()
  file(REMOVE_RECURSE "${_triage_ship_dir}")
  message(STATUS "Shipped rule cache: not made (triage rules list exited ${_triage_ship_rc})")
endif()
