// The code generator: a pack's bodies compiled to native code and linked,
// with the tables blob and a descriptor, into a shared object the runtime
// dlopens (runtime/pack_abi.h). LLVM and lld run in process; no C compiler
// is involved and the generated code calls nothing but the kernel's API.
#pragma once

#include "pack_format.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ledger::codegen {

enum class OptLevel : uint8_t { O0, O1, O2, O3 };

// Where a build's time went (`ledger build --time`), in seconds of CPU
// summed over the threads that ran each stage, and of wall for the whole.
struct PartTimes {
  bool cold = false; // its bodies run once an order or less
  double read = 0, optimise = 0, codegen = 0;
};
struct BuildTimes {
  double lower = 0;              // the tables lowered to LLVM IR and verified
  double optimise = 0;           // LLVM's IR pipelines
  double codegen = 0;            // machine code and the object files
  double link = 0;               // lld and the seal
  double wall = 0;               // from the first lowering to the seal
  unsigned parts = 0;            // modules compiled: 1 where the pack isn't split
  unsigned threads = 0;          // threads that compiled them
  std::vector<PartTimes> byPart; // part 0 (the tables, and where unsplit every body) first
};

struct Options {
  OptLevel optLevel = OptLevel::O2;
  // The compiled engine's machinery specialised to the catalog wherever it
  // runs it; false: the bodies alone, for the generic kernel, whatever the
  // catalog (the code generator's own tests of bodies, and comparing the two
  // paths with `ledger ir --llvm --generic`).
  bool specialise = true;
  // Write the object files the pack is linked from beside it (outPath +
  // ".o", and a split pack's other parts' outPath + ".1.o" and on), for
  // inspection: else they are linked from memory, and never written.
  bool keepObject = false;
  // A pack whose bodies are worth more than this many instructions is split
  // into parts compiled side by side: a part costs its setting up and a
  // bitcode round trip, tens of milliseconds, which a small catalog's bodies
  // don't repay.
  uint64_t splitAbove = 20'000;
  // A split pack's hot parts are given copies of the machinery's inlined
  // functions and constant tables, so their bodies inline it as an unsplit
  // pack's do: hot code as fast, at several times the hot parts' build time.
  bool inlineMachinery = false;
  // Threads compiling a large pack's parts side by side; 0: one a core.
  unsigned jobs = 0;
  // Filled in as the build goes, when not null.
  BuildTimes *times = nullptr;
  // LLVM's own report of its passes' times, printed to stderr (one thread).
  bool timePasses = false;
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
