// Alike reads given one id and identical bodies folded into one, before
// anything is optimised: most of a build's time is spent per function.
#include "codegen/fold_bodies.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/StructuralHash.h>
#include <llvm/Transforms/Utils/FunctionComparator.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

namespace ledger::codegen::detail {

using namespace llvm;

namespace {

// A function only pointed at (the table of bodies), never called: nothing
// can tell it from an identical one, so one copy serves both.
bool onlyPointedAt(const Function &fn) {
  if (!fn.hasLocalLinkage() || fn.isDeclaration())
    return false;
  for (const User *user : fn.users())
    if (!isa<Constant>(user))
      return false;
  return true;
}

// Points every constant array at the functions kept in place of the folded
// ones, each array rebuilt once: replacing one element at a time would build
// the descriptor's array again for each.
void repointArrays(Module &module, const DenseMap<Function *, Function *> &keptFor) {
  for (GlobalVariable &global : module.globals()) {
    auto *array =
        global.hasInitializer() ? dyn_cast<ConstantArray>(global.getInitializer()) : nullptr;
    if (!array)
      continue;
    std::vector<Constant *> elements;
    bool changed = false;
    for (const Use &element : array->operands()) {
      auto *fn = dyn_cast<Function>(element.get());
      Function *kept = fn ? keptFor.lookup(fn) : nullptr;
      elements.push_back(kept ? kept : cast<Constant>(element.get()));
      changed |= kept != nullptr;
    }
    if (!changed)
      continue;
    global.setInitializer(ConstantArray::get(array->getType(), elements));
    // The old array would still hold the folded functions, and be walked at
    // each of their replacements.
    if (array->use_empty())
      array->destroyConstant();
  }
}

// The first read of the tables with the same op and operands as each.
std::vector<uint32_t> firstOfEachRead(const pack::Tables &tables) {
  std::map<std::tuple<pack::ReadOp, pack::Id, pack::Id, pack::TagSet>, uint32_t> first;
  std::vector<uint32_t> canonical(tables.reads.size());
  for (uint32_t id = 0; id < tables.reads.size(); ++id) {
    const pack::Read &r = tables.reads[id];
    canonical[id] = first.try_emplace({r.op, r.a, r.b, r.tags}, id).first->second;
  }
  return canonical;
}

} // namespace

void shareAlikeReads(Module &module, const pack::Tables &tables) {
  Function *read = module.getFunction("lm_read");
  if (!read)
    return;
  std::vector<uint32_t> canonical = firstOfEachRead(tables);
  for (User *user : read->users()) {
    auto *call = dyn_cast<CallInst>(user);
    auto *id = call && call->getCalledFunction() == read
                   ? dyn_cast<ConstantInt>(call->getArgOperand(1))
                   : nullptr;
    if (id && id->getZExtValue() < canonical.size())
      call->setArgOperand(1, ConstantInt::get(id->getType(), canonical[id->getZExtValue()]));
  }
}

void foldIdenticalBodies(Module &module, DenseMap<const Function *, Heat> &heat) {
  GlobalNumberState numbers;
  DenseMap<uint64_t, SmallVector<Function *, 2>> kept;
  DenseMap<Function *, Function *> keptFor;
  for (Function &fn : module) {
    if (!heat.count(&fn) || !onlyPointedAt(fn))
      continue;
    SmallVector<Function *, 2> &alike = kept[StructuralHash(fn, /*DetailedHash=*/true)];
    auto same = std::find_if(alike.begin(), alike.end(), [&](Function *other) {
      return FunctionComparator(other, &fn, &numbers).compare() == 0;
    });
    if (same == alike.end()) {
      alike.push_back(&fn);
      continue;
    }
    if (heat.lookup(&fn) == Heat::Hot)
      heat[*same] = Heat::Hot;
    keptFor[&fn] = *same;
  }
  repointArrays(module, keptFor);
  for (auto [fn, same] : keptFor) {
    if (!fn->use_empty())
      fn->replaceAllUsesWith(same); // what no array held
    heat.erase(fn);
    fn->eraseFromParent();
  }
}

} // namespace ledger::codegen::detail
