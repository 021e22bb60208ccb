// A catalog's two packs: checked and lowered once, the reference engine's
// evaluating its tables in process, the compiled one built through LLVM into
// a shared object and loaded, as `ledger play` builds them.
#pragma once

#include "codegen/codegen.h"
#include "pack.h"

#include <memory>
#include <string>

namespace ledger::fuzz {

struct Packs {
  std::unique_ptr<rt::Pack> reference, compiled;
  std::string refused;   // the first error, where the front end refuses the catalog
  std::string refusedAs; // its kind
  std::string broken;    // where an accepted catalog's compiled pack can't be built or loaded
};

// How compiled packs are built: the optimisation level, which the run sets
// catalog by catalog.
extern codegen::Options buildOptions;
// --plant: the compiled pack built from the catalog with every deal a
// millionth more, a difference the fuzzer must find and shrink (a check of
// the fuzzer itself, never of the engines).
extern bool planting;
// Where a child's phase is written (SharedLog::engine) as it checks, builds
// and loads, for its parent to read after a crash.
extern volatile int *phase;

// Checks and lowers the catalog; builds its compiled pack at `so`, unless
// `built` says one of this text stands there already, and loads it.
Packs packsOf(const std::string &text, const std::string &so, bool built);

} // namespace ledger::fuzz
