# Gathers the seeds, then fuzzes for a bounded time; any crash, hang or
# sanitizer report fails the test. SEED_DIR names a folder of seeds (the save
# fuzzer's); without it the repository's .ledger and .play files are the
# seeds, and each play joined to its catalog.
file(REMOVE_RECURSE ${CORPUS})
file(MAKE_DIRECTORY ${CORPUS})
if(SEED_DIR)
  file(GLOB seeds ${SEED_DIR}/*)
else()
  file(GLOB_RECURSE seeds ${SEEDS}/test/*.ledger ${SEEDS}/test/*.play
       ${SEEDS}/stdlib-ledger/*.ledger ${SEEDS}/stdlib-ledger/*.play)
endif()
foreach(seed ${seeds})
  file(COPY ${seed} DESTINATION ${CORPUS})
endforeach()
# Each play whose catalog is one file beside it, joined to it as the fuzzer
# reads a catalog and its play: the catalog, a line `%%% play`, the play.
set(plays)
if(NOT SEED_DIR)
  file(GLOB_RECURSE plays ${SEEDS}/test/plays/*.play ${SEEDS}/stdlib-ledger/*.play)
endif()
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
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -max_len=16384 -rss_limit_mb=2048
          -print_final_stats=1 ${CORPUS}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "the fuzzer found a crash (exit ${result})")
endif()
