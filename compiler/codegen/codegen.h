// The code generator: a pack's bodies compiled to native code and linked,
// with the tables blob and a descriptor, into a shared object the runtime
// dlopens (runtime/pack_abi.h). LLVM and lld run in process; no C compiler
// is involved and the generated code calls nothing but the kernel's API.
#pragma once

#include "pack_format.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace ledger::codegen {

enum class OptLevel : uint8_t { O0, O1, O2, O3 };

struct Options {
  OptLevel optLevel = OptLevel::O2;
  // The compiled engine's machinery specialised to the catalog wherever it
  // runs it; false: the bodies alone, for the generic kernel, whatever the
  // catalog (the code generator's own tests of bodies, and comparing the two
  // paths with `ledger ir --llvm --generic`).
  bool specialise = true;
  // Keep the object file (outPath + ".o") after linking, for inspection.
  bool keepObject = false;
};

// Compiles every body of the tables to native code and links a shared object
// at outPath that exports LEDGER_PACK_SYMBOL returning a LedgerPackDescriptor:
// abiVersion, bodyCount = tables.bodies.size(), catalogHash = hash,
// tables/tablesSize = the blob bytes (a constant global in the .so), bodies =
// one function pointer per body id. False, with why in error, on failure.
bool buildPack(const pack::Tables &tables, std::string_view blob, uint64_t hash,
               const std::string &outPath, std::string &error, const Options &options = {});

// The optimised LLVM IR of the pack as text (`ledger ir --llvm`, FileCheck
// tests); on failure, a line starting "; error: ".
std::string packIR(const pack::Tables &tables, std::string_view blob, uint64_t hash,
                   const Options &options = {});

} // namespace ledger::codegen
