// Which bodies of a pack run hot: what the kernel runs per event or per
// tick takes the build's full pipeline, what runs seldom a short one
// (docs/build.md).
#pragma once

#include "pack_format.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <vector>

namespace ledger::codegen::detail {

enum class Heat : uint8_t { Hot, Cold };

// Each body function's heat: hot if any body it stands for is, cold if it is
// a number. A function that is no body (the descriptor's accessor, the udiv128 routine)
// has none.
llvm::DenseMap<const llvm::Function *, Heat> functionHeat(llvm::Module &module,
                                                          const pack::Tables &tables);

// Each pool's landing (lp_landChange), the code generator's function for it.
std::vector<llvm::Function *> landings(llvm::Module &module);

// The machinery's own functions a split moves out of part 0: the pools'
// landings, hot, and what its sources mark cold ([[gnu::cold]]).
void addMachineryHeat(llvm::Module &module,
                      llvm::DenseMap<const llvm::Function *, Heat> &heat);

} // namespace ledger::codegen::detail
