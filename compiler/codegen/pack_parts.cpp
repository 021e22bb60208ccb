// The split: each body to a hot or cold part, what a part uses of another's
// made a hidden symbol, the bodies written once as bitcode, and each part
// read back alone with the copies of part 0's it is given.
#include "codegen/pack_parts.h"

#include <fmt/format.h>
#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <algorithm>

namespace ledger::codegen::detail {

using namespace llvm;

namespace {

// A function's fixed cost in instructions' worth: most of a small body's
// time goes to running every pass over it at all.
constexpr uint64_t kFunctionCost = 30;

uint64_t costOf(const Function &fn) { return fn.getInstructionCount() + kFunctionCost; }

// A part for about this many instructions' worth of bodies of one kind, and
// at most so many of a kind: enough to keep a few cores busy, each costing a
// bitcode read and a pipeline's setting up. The count depends on the pack
// alone, never on the machine's cores, so a pack's bytes don't either.
constexpr uint64_t kPartCost = 25'000;
constexpr uint64_t kMostPartsOfAKind = 4;
static_assert(1 + 2 * kMostPartsOfAKind <= 32, "a global's copies are a bit a part");

// Each body to the lightest part of its kind, largest first, ties in module
// order: the same plan every build.
Plan planParts(Module &module, const DenseMap<const Function *, Heat> &heat,
               function_ref<uint64_t(const Function &)> weigh) {
  struct Entry {
    uint64_t cost;
    size_t order;
    Function *fn;
    Heat heat;
  };
  std::vector<Entry> bodies;
  uint64_t costOfKind[2] = {0, 0};
  for (Function &fn : module)
    if (auto it = heat.find(&fn); it != heat.end() && !fn.isDeclaration()) {
      uint64_t cost = weigh(fn);
      bodies.push_back({cost, bodies.size(), &fn, it->second});
      costOfKind[size_t(it->second)] += cost;
    }
  Plan plan; // part 0 first
  for (Heat kind : {Heat::Hot, Heat::Cold}) {
    uint64_t cost = costOfKind[size_t(kind)];
    uint64_t count = std::clamp<uint64_t>((cost + kPartCost - 1) / kPartCost, 0, kMostPartsOfAKind);
    plan.heat.insert(plan.heat.end(), count, kind);
  }
  std::sort(bodies.begin(), bodies.end(), [](const Entry &a, const Entry &b) {
    return a.cost != b.cost ? a.cost > b.cost : a.order < b.order;
  });
  std::vector<uint64_t> load(plan.heat.size(), 0);
  for (const Entry &body : bodies) {
    unsigned best = 0;
    for (unsigned p = 1; p < plan.heat.size(); ++p)
      if (plan.heat[p] == body.heat && (best == 0 || load[p] < load[best]))
        best = p;
    load[best] += body.cost;
    plan.owner[body.fn->getName()] = best;
  }
  return plan;
}

// Calls `visit` with every global a definition names: a function's
// operands, a variable's initialiser, through constant expressions.
template <typename Visit> void forEachNamed(const GlobalValue &value, Visit visit) {
  SmallPtrSet<const Constant *, 32> seen;
  auto walk = [&](auto &self, const Value *operand) -> void {
    if (const auto *global = dyn_cast<GlobalValue>(operand))
      return visit(*global);
    const auto *constant = dyn_cast<Constant>(operand);
    if (!constant || !seen.insert(constant).second)
      return;
    for (const Use &inner : constant->operands())
      self(self, inner.get());
  };
  if (const auto *fn = dyn_cast<Function>(&value)) {
    for (const Instruction &inst : instructions(*fn))
      for (const Use &operand : inst.operands())
        walk(walk, operand.get());
  } else if (const auto *var = dyn_cast<GlobalVariable>(&value); var && var->hasInitializer()) {
    walk(walk, var->getInitializer());
  }
}

// What of part 0 a hot part's optimiser must see to fold the machinery into
// its bodies as it folds in an unsplit pack: the functions made to be
// inlined (lm_read, lm_step and theirs) and constant data (the catalog's
// tables). What else the machinery has a body never inlines.
bool copyable(const GlobalValue &value) {
  if (value.isDeclaration() || value.getName().starts_with("llvm."))
    return false;
  if (const auto *fn = dyn_cast<Function>(&value))
    return fn->hasFnAttribute(Attribute::AlwaysInline);
  const auto *var = dyn_cast<GlobalVariable>(&value);
  return var && var->isConstant();
}

// The instructions of what a function inlines of part 0's, all it is given
// copies of.
uint64_t inlinedCost(const Function &fn) {
  SmallPtrSet<const GlobalValue *, 32> seen;
  std::vector<const GlobalValue *> work = {&fn};
  uint64_t cost = 0;
  while (!work.empty()) {
    const GlobalValue *at = work.back();
    work.pop_back();
    forEachNamed(*at, [&](const GlobalValue &named) {
      if (isa<Function>(named) && copyable(named) && seen.insert(&named).second) {
        cost += cast<Function>(named).getInstructionCount();
        work.push_back(&named);
      }
    });
  }
  return cost;
}

// Each hot part's copies: what its landings (and with the machinery inlined,
// all its bodies) name of part 0's that is copyable, and what those name, on
// and on. Cold parts are given none: their bodies run once an order,
// compiled for the build's speed.
void planCopies(Module &module, Plan &plan, const SmallPtrSetImpl<const Function *> &landing,
                bool inlineMachinery) {
  for (unsigned part = kDataPart + 1; part < plan.heat.size(); ++part) {
    if (plan.heat[part] != Heat::Hot)
      continue;
    std::vector<const GlobalValue *> work;
    for (Function &fn : module)
      if (!fn.isDeclaration() && plan.partOf(fn) == part &&
          (inlineMachinery || landing.count(&fn)))
        work.push_back(&fn);
    while (!work.empty()) {
      const GlobalValue *at = work.back();
      work.pop_back();
      forEachNamed(*at, [&](const GlobalValue &named) {
        if (plan.partOf(named) != kDataPart || !copyable(named) || plan.copiedTo(named, part))
          return;
        plan.copies[named.getName()] |= 1u << part;
        work.push_back(&named);
      });
    }
  }
}

// The parts a use is compiled in: those of the definition it is in, through
// the constants that hold it.
uint32_t partsUsing(const User *user, const Plan &plan) {
  if (const auto *inst = dyn_cast<Instruction>(user))
    return plan.partsOf(*inst->getFunction());
  if (const auto *global = dyn_cast<GlobalValue>(user))
    return plan.partsOf(*global);
  uint32_t parts = 0;
  for (const User *outer : user->users())
    parts |= partsUsing(outer, plan);
  return parts;
}

// A local used from another part becomes a hidden global: the parts link to
// each other and the pack still exports nothing but its descriptor. A part
// given a copy of a function uses its own; a copy of a variable is only
// available externally, to fold, and refers to the definition.
void externaliseShared(Module &module, const Plan &plan) {
  auto shared = [&](GlobalValue &value) {
    if (isa<GlobalVariable>(value) && plan.copiesOf(value))
      return true;
    for (const User *user : value.users())
      if (partsUsing(user, plan) & ~plan.partsOf(value))
        return true;
    return false;
  };
  for (GlobalValue &value : module.global_values())
    if (value.hasLocalLinkage() && shared(value)) {
      value.setLinkage(GlobalValue::ExternalLinkage);
      value.setVisibility(GlobalValue::HiddenVisibility);
    }
}

// An alias is only another name for its aliasee, and must stand in the
// part its aliasee is defined in: uses of a local one (the machinery's
// constructors') are pointed at the aliasee itself.
void dropLocalAliases(Module &module) {
  for (GlobalAlias &alias : make_early_inc_range(module.aliases()))
    if (alias.hasLocalLinkage()) {
      alias.replaceAllUsesWith(alias.getAliasee());
      alias.eraseFromParent();
    }
}

// Parts find each other's globals by name: those without one are given one.
void nameEverything(Module &module) {
  unsigned unnamed = 0;
  for (GlobalValue &value : module.global_values())
    if (!value.hasName())
      value.setName(fmt::format("ledger.unnamed.{}", unnamed++));
}

// Declarations nothing uses any more: each dropped may free others.
void dropUnusedDeclarations(Module &module) {
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (GlobalValue &value : make_early_inc_range(module.global_values()))
      if (value.isDeclaration() && value.use_empty()) {
        value.eraseFromParent();
        dropped = true;
      }
  }
}

// What belongs to the parts `kept` refuses becomes declarations, their
// functions' bodies and their data's values dropped, but for what `copied`
// keeps. LLVM's own globals (llvm.used and the like) stay with part 0 alone.
template <typename Kept, typename Copied>
void keepOnly(Module &module, const Plan &plan, Kept kept, Copied copied) {
  for (Function &fn : module)
    if (!fn.isDeclaration() && !kept(plan.partOf(fn)) && !copied(fn))
      fn.deleteBody();
  for (GlobalVariable &global : make_early_inc_range(module.globals())) {
    if (!global.hasInitializer() || kept(plan.partOf(global)) || copied(global))
      continue;
    if (global.getName().starts_with("llvm.")) {
      global.eraseFromParent();
      continue;
    }
    global.setInitializer(nullptr);
    global.setLinkage(GlobalValue::ExternalLinkage);
  }
  dropUnusedDeclarations(module);
}

// A hot part's copies of part 0's: its functions the part's own, to inline
// and drop; its data available externally, to fold and then refer to.
void giveCopies(Module &module, const Plan &plan, unsigned part) {
  for (GlobalValue &value : module.global_values()) {
    if (value.isDeclaration() || !plan.copiedTo(value, part))
      continue;
    value.setLinkage(isa<Function>(value) ? GlobalValue::InternalLinkage
                                          : GlobalValue::AvailableExternallyLinkage);
  }
}

} // namespace

uint64_t bodiesCost(const DenseMap<const Function *, Heat> &heat) {
  uint64_t cost = 0;
  for (auto &[fn, h] : heat)
    cost += costOf(*fn);
  return cost;
}

std::unique_ptr<Module> splitPack(Module &module, const DenseMap<const Function *, Heat> &heat,
                                  bool inlineMachinery, Plan &plan,
                                  SmallVectorImpl<char> &bitcode) {
  dropLocalAliases(module);
  nameEverything(module);
  SmallPtrSet<const Function *, 16> landing;
  for (Function *fn : landings(module))
    landing.insert(fn);
  // A landing is mostly the machinery it inlines.
  plan = planParts(module, heat, [&](const Function &fn) {
    return costOf(fn) + (landing.count(&fn) ? inlinedCost(fn) : 0);
  });
  planCopies(module, plan, landing, inlineMachinery);
  externaliseShared(module, plan);
  ValueToValueMapTy map;
  std::unique_ptr<Module> data = CloneModule(
      module, map, [&](const GlobalValue *value) { return plan.partOf(*value) == kDataPart; });
  dropUnusedDeclarations(*data);
  keepOnly(
      module, plan, [](unsigned owner) { return owner != kDataPart; },
      [&](const GlobalValue &value) { return plan.copiesOf(value) != 0; });
  raw_svector_ostream out(bitcode);
  WriteBitcodeToFile(module, out);
  return data;
}

std::unique_ptr<Module> readPart(MemoryBufferRef bitcode, const Plan &plan, unsigned part,
                                 LLVMContext &ctx, std::string &error) {
  Expected<std::unique_ptr<Module>> lazy = getLazyBitcodeModule(bitcode, ctx);
  Error failed = lazy ? Error::success() : lazy.takeError();
  auto copied = [&](const GlobalValue &value) { return plan.copiedTo(value, part); };
  if (lazy) {
    for (Function &fn : **lazy)
      if (!fn.isDeclaration() && plan.partOf(fn) != part && !copied(fn))
        fn.deleteBody();
    failed = (*lazy)->materializeAll();
  }
  if (failed) {
    error = "cannot read a part of the pack back: " + toString(std::move(failed));
    return nullptr;
  }
  std::unique_ptr<Module> module = std::move(*lazy);
  keepOnly(
      *module, plan, [&](unsigned owner) { return owner == part; }, copied);
  giveCopies(*module, plan, part);
  return module;
}

} // namespace ledger::codegen::detail
