# What `cmake --install` puts in place: the tool, the runtime (shared and
# static) and its public headers under include/ledger, the CMake package
# (find_package(Ledger)) with ledger_add_pack, and a pkg-config file; and
# CPack's Debian package of them all.
include(CMakePackageConfigHelpers)

install(TARGETS ledger ledger-host-check EXPORT LedgerTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set(LEDGER_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Ledger)
install(EXPORT LedgerTargets NAMESPACE Ledger:: DESTINATION ${LEDGER_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/LedgerConfig.cmake.in
  ${CMAKE_BINARY_DIR}/LedgerConfig.cmake INSTALL_DESTINATION ${LEDGER_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/LedgerConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/LedgerConfig.cmake ${CMAKE_BINARY_DIR}/LedgerConfigVersion.cmake
  DESTINATION ${LEDGER_CMAKE_DIR})
# Where the prefix is from the .pc file, so that the install may be moved
# (cmake --install --prefix, a package).
file(RELATIVE_PATH LEDGER_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_CURRENT_LIST_DIR}/ledger.pc.in ${CMAKE_BINARY_DIR}/ledger.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/ledger.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ledger)
set(CPACK_PACKAGE_CONTACT "Ledger's maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Compiler for game rules, and the runtime a game links")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# What the tool loads (LLVM 19 through llvm-19-dev's link to it, fmt,
# jemalloc) and links into every pack it builds (compiler-rt's builtins).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "llvm-19-dev, libfmt9, libjemalloc2, libclang-rt-19-dev")
include(CPack)
