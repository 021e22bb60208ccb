// Bodies that say the same thing compiled once: alike reads are one read,
// identical bodies one function (docs/build.md).
#pragma once

#include "codegen/body_heat.h"

namespace ledger::codegen::detail {

// In a pack carrying the machinery a read is known by its id alone, and two
// reads alike (holder.Level said in a hundred terms) are one: each body reads
// the first of its kind, so bodies that say the same thing are the same code
// and fold. The ids never leave the pack, whose own lm_read looks them up; a
// pack for the generic kernel passes the tables' ids on unchanged.
void shareAlikeReads(llvm::Module &module, const pack::Tables &tables);

// Bodies (those `heat` knows) that lowered to the same code are compiled
// once; the one kept runs hot if any folded into it did.
void foldIdenticalBodies(llvm::Module &module, llvm::DenseMap<const llvm::Function *, Heat> &heat);

} // namespace ledger::codegen::detail
