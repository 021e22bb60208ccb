# Runs a libFuzzer target for a bounded time over a corpus holding its seeds.
# SEEDS is folders of seeds joined by |, or FRONTEND: the repository's (ROOT's) catalogs
# and plays, and each play joined to its catalog. FRESH empties the corpus
# first, else what earlier runs found stays in it. A crash, a hang or a
# sanitizer's report fails the run, the input that made it left under
# ARTIFACTS. An input runs in milliseconds: one taking a minute hangs,
# however loaded the machine.
#   cmake -DFUZZER=... -DSEEDS=DIR[|DIR...]|FRONTEND -DROOT=DIR -DCORPUS=DIR -DARTIFACTS=DIR
#         -DSECONDS=N -DMAX_LEN=N -DFRESH=ON|OFF -P run_fuzz.cmake
if(FRESH)
  file(REMOVE_RECURSE ${CORPUS})
endif()
file(MAKE_DIRECTORY ${CORPUS} ${ARTIFACTS})
if(SEEDS STREQUAL "FRONTEND")
  file(GLOB_RECURSE seeds ${ROOT}/test/*.ledger ${ROOT}/test/*.play
       ${ROOT}/stdlib-ledger/*.ledger ${ROOT}/stdlib-ledger/*.play)
else()
  string(REPLACE "|" ";" folders "${SEEDS}")
  set(seeds)
  foreach(folder ${folders})
    file(GLOB_RECURSE found ${folder}/*)
    list(APPEND seeds ${found})
  endforeach()
endif()
foreach(seed ${seeds})
  file(COPY ${seed} DESTINATION ${CORPUS})
endforeach()
# Each play whose catalog is one file beside it, joined to it as the front
# end's fuzzer reads a catalog and its play: the catalog, `%%% play`, the play.
if(SEEDS STREQUAL "FRONTEND")
  file(GLOB_RECURSE plays ${ROOT}/test/plays/*.play ${ROOT}/stdlib-ledger/*.play)
  set(joined 0)
  foreach(play ${plays})
    file(READ ${play} text)
    string(REGEX MATCH "catalog ([^ \n]+\\.ledger)\n" line "${text}")
    get_filename_component(dir ${play} DIRECTORY)
    if(line AND EXISTS ${dir}/${CMAKE_MATCH_1})
      file(READ ${dir}/${CMAKE_MATCH_1} catalog)
      string(REPLACE "${line}" "catalog fuzz.ledger\n" text "${text}")
      math(EXPR joined "${joined} + 1")
      file(WRITE ${CORPUS}/joined-${joined}.txt "${catalog}\n%%% play\n${text}")
    endif()
  endforeach()
endif()
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=60 -max_len=${MAX_LEN} -rss_limit_mb=2048
          -print_final_stats=1 -artifact_prefix=${ARTIFACTS}/ ${CORPUS}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${FUZZER} found a crash, a hang or a sanitizer's report (exit ${result})")
endif()
