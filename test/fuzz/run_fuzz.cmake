# Gathers the repository's .ledger and .play files as seeds, then fuzzes for
# a bounded time; any crash or sanitizer report fails the test.
file(GLOB_RECURSE seeds ${SEEDS}/test/*.ledger ${SEEDS}/test/*.play
     ${SEEDS}/stdlib-ledger/*.ledger ${SEEDS}/stdlib-ledger/*.play)
file(REMOVE_RECURSE ${CORPUS})
file(MAKE_DIRECTORY ${CORPUS})
foreach(seed ${seeds})
  file(COPY ${seed} DESTINATION ${CORPUS})
endforeach()
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -max_len=4096 -rss_limit_mb=2048
          -print_final_stats=1 ${CORPUS}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "the front-end fuzzer found a crash (exit ${result})")
endif()
