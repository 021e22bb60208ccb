# Installs the build at BUILD into a fresh prefix under WORK and builds a
# game against it as a game's build would (test/install/CMakeLists.txt):
# the pack and its header made at build time, remade only when a file of
# the catalog changes; the host runs the pack, native and portable. Then
# the same host built with pkg-config's flags, the sample game built out of
# tree and played, and CPack's Debian package of the install.
#   cmake -DBUILD=... -DSOURCE=... -DWORK=... -DCXX=... -P install_test.cmake
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
function(expect text what)
  string(FIND "${out}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: expected `${text}` in:\n${out}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
set(prefix ${WORK}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
foreach(file bin/ledger bin/ledger-host-check include/ledger/world.h include/ledger/ledger_c.h include/ledger/kernel/pack_index.h
             include/ledger/compiled/engine_abi.h lib/libledger_runtime.a lib/libledger_runtime.so
             lib/cmake/Ledger/LedgerConfig.cmake lib/pkgconfig/ledger.pc)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "the install lacks ${file}")
  endif()
endforeach()

# The catalog a folder of two files, copied, so that the test may touch one:
# the folder's own time doesn't change, only the depfile says the pack
# read it.
file(COPY ${SOURCE}/test/lit/driver/Inputs/typed_header/game.ledger DESTINATION ${WORK}/catalog)
file(WRITE ${WORK}/catalog/luck.ledger "stat Luck default 1\n")
set(catalog ${WORK}/catalog)
set(host ${SOURCE}/test/lit/driver/Inputs/typed_header/host.cpp)
set(game ${WORK}/game)
# Host code looking names up as strings, which ledger_add_pack's
# CHECK_SOURCES has ledger-host-check read.
set(lookups ${WORK}/lookups.cpp)
file(WRITE ${lookups} "#include <ledger/world.h>\n"
  "ledger::pack::Id bolt(const ledger::pack::Tables &t) { return t.find(t.abilities, \"Bolt\"); }\n")
run(${CMAKE_COMMAND} -S ${SOURCE}/test/install -B ${game} -G Ninja -DCMAKE_CXX_COMPILER=${CXX}
    -DCMAKE_PREFIX_PATH=${prefix} -DCATALOG=${catalog} -DHOST_SOURCE=${host}
    -DLOOKUP_SOURCE=${lookups})
run(${CMAKE_COMMAND} --build ${game})
expect("Checking the content names game_pack's host sources use" "the host-code check in the build")
run(${game}/host ${game}/game.so)
expect("ordered: done" "the host's order")
expect("health: 96000000 of 100000000" "the host's read")
run(${game}/host ${game}/catalog.lpk)
expect("health: 96000000 of 100000000" "the host's read of the portable pack")
# Built again with nothing changed: nothing to do. A catalog's file
# changed: the pack is built again.
run(${CMAKE_COMMAND} --build ${game} -- -n -d explain)
expect("no work to do" "a build with nothing changed")
file(TOUCH ${catalog}/luck.ledger)
run(${CMAKE_COMMAND} --build ${game} -- -n)
expect("Building the pack of" "a build after the catalog changed")

# A name misspelled in the host's code fails the build, where it is.
file(WRITE ${lookups} "#include <ledger/world.h>\n"
  "ledger::pack::Id bolt(const ledger::pack::Tables &t) { return t.find(t.abilities, \"Blot\"); }\n")
execute_process(COMMAND ${CMAKE_COMMAND} --build ${game} RESULT_VARIABLE result
  OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(APPEND out "${err}")
if(result EQUAL 0)
  message(FATAL_ERROR "a build whose host code names an ability the catalog lacks passed:\n${out}")
endif()
expect("lookups.cpp:2:83: error: `Blot` is not an ability of the catalog; did you mean `Bolt`?"
  "the host-code check's error")
file(WRITE ${lookups} "#include <ledger/world.h>\n"
  "ledger::pack::Id bolt(const ledger::pack::Tables &t) { return t.find(t.abilities, \"Bolt\"); }\n")

# pkg-config's flags, for a build without CMake.
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run(pkg-config --cflags --libs ledger)
string(STRIP "${out}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CXX} -I${game}/include ${flags} ${host} -Wl,-rpath,${prefix}/lib -ldl -o ${WORK}/pc_host)
run(${WORK}/pc_host ${game}/game.so)
expect("ordered: done" "the pkg-config host's order")

# The sample game (stdlib-ledger/duel/game), built out of tree against the
# install as a game's build would be, and played on a fixed seed.
set(duel ${WORK}/duel-game)
run(${CMAKE_COMMAND} -S ${SOURCE}/stdlib-ledger/duel/game -B ${duel} -G Ninja
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${duel})
run(${duel}/duel_game ${duel}/duel.so 7)
expect("A Knight (120 Health) meets a cave Troll (150 Health)." "the sample game's start")
expect("  8.05s  Troll  takes 68" "the sample game's log of an Execute")
expect("  9.00s  Troll  falls" "the sample game's log of a death")
expect("Knight wins with 71 Health, at 9.05s." "the sample game's end")

# CPack's Debian package holds the same.
run(cpack -G DEB -B ${WORK}/deb --config ${BUILD}/CPackConfig.cmake)
file(GLOB debs ${WORK}/deb/*.deb)
run(dpkg-deb -c ${debs})
expect("/bin/ledger" "the package's tool")
expect("/include/ledger/world.h" "the package's headers")
expect("/lib/libledger_runtime.so" "the package's runtime")
