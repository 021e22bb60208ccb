// A large pack split into parts compiled side by side, each in its own
// LLVMContext and thread (docs/build.md): the plan, the split, and a part
// read back from the bodies' bitcode.
#pragma once

#include "codegen/body_heat.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/Support/MemoryBufferRef.h>

#include <memory>
#include <string>
#include <vector>

namespace ledger::codegen::detail {

// Part 0 holds what is no body (the tables, the machinery, the descriptor
// and its accessor, shared routines) and is compiled where the pack was lowered; the
// bodies go to hot and cold parts, compiled from bitcode, each in its own
// context.
constexpr unsigned kDataPart = 0;

struct Plan {
  std::vector<Heat> heat = {Heat::Hot}; // each part's; unsplit, part 0 alone
  llvm::StringMap<unsigned> owner;
  // The hot parts given a copy of each of part 0's globals so copied, a bit a
  // part (planCopies).
  llvm::StringMap<uint32_t> copies;
  unsigned partOf(const llvm::GlobalValue &value) const { return owner.lookup(value.getName()); }
  uint32_t copiesOf(const llvm::GlobalValue &value) const { return copies.lookup(value.getName()); }
  bool copiedTo(const llvm::GlobalValue &value, unsigned part) const {
    return (copiesOf(value) >> part) & 1;
  }
  // The parts a definition is compiled in: its own and those given a copy.
  uint32_t partsOf(const llvm::GlobalValue &value) const {
    return 1u << partOf(value) | copiesOf(value);
  }
};

// Instructions' worth of the bodies `heat` knows, as the split counts them.
uint64_t bodiesCost(const llvm::DenseMap<const llvm::Function *, Heat> &heat);

// Splits a lowered pack: its bodies, and the copies of part 0's its hot
// parts are given where the machinery is inlined, stay in `module` and are
// written to `bitcode`, which the body parts are read from; part 0 moves to
// a module of its own, returned. The tables blob is in part 0 alone: no part
// writes or reads it again.
std::unique_ptr<llvm::Module> splitPack(llvm::Module &module,
                                        const llvm::DenseMap<const llvm::Function *, Heat> &heat,
                                        bool inlineMachinery, Plan &plan,
                                        llvm::SmallVectorImpl<char> &bitcode);

// A body part: its own definitions out of the bodies' bitcode and the
// copies of part 0's it is given, the other parts' bodies never read; null,
// with why, if the bitcode can't be read.
std::unique_ptr<llvm::Module> readPart(llvm::MemoryBufferRef bitcode, const Plan &plan,
                                       unsigned part, llvm::LLVMContext &ctx, std::string &error);

} // namespace ledger::codegen::detail
