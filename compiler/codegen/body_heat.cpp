// Which bodies run hot, from what runs them: the tables' rules, stats and
// pools run theirs per event or per tick, abilities, archetypes and effects'
// bounds once an order, an apply or a make.
#include "codegen/body_heat.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>

#include <vector>

namespace ledger::codegen::detail {

using namespace llvm;

namespace {

// A body the kernel runs once an order, an apply or a make is cold: an
// ability's range, requirements, costs and steps, an archetype's values, an
// effect's var inits, stack bounds and lifetime. What runs per event or per
// tick is hot (rules' filters, conditions and steps, stats' terms, pools'
// bounds and drift), and so is any body whose use isn't known here: only what
// is known to run seldom is compiled for the build's speed over its own.
std::vector<Heat> bodyHeat(const pack::Tables &t) {
  std::vector<Heat> heat(t.bodies.size(), Heat::Hot);
  std::vector<bool> hot(t.bodies.size(), false);
  auto mark = [&](pack::Id id, Heat h) {
    if (id >= heat.size())
      return;
    if (h == Heat::Hot)
      hot[id] = true;
    else
      heat[id] = Heat::Cold;
  };
  for (const pack::Ability &a : t.abilities) {
    mark(a.withinBody, Heat::Cold);
    mark(a.steps, Heat::Cold);
    for (uint32_t k = 0; k < a.requireCount && a.requiresBegin + k < t.requirements.size(); ++k) {
      const pack::Requirement &r = t.requirements[a.requiresBegin + k];
      for (pack::Id id : {r.body, r.leftBody, r.rightBody})
        mark(id, Heat::Cold);
    }
    for (uint32_t k = 0; k < a.costCount && a.costsBegin + k < t.costs.size(); ++k)
      mark(t.costs[a.costsBegin + k].amountBody, Heat::Cold);
  }
  for (const pack::ArchetypeValue &v : t.archetypeValues)
    mark(v.body, Heat::Cold);
  for (const pack::Var &v : t.vars)
    mark(v.initBody, Heat::Cold);
  for (const pack::Effect &e : t.effects)
    for (pack::Id id : {e.stack.maxBody, e.stack.strongerBody, e.lasts.timeBody, e.lasts.countBody})
      mark(id, Heat::Cold);
  // What runs per event or per tick stays hot, whatever else reads it.
  for (const pack::Rule &r : t.rules)
    for (pack::Id id :
         {r.whenBody, r.matchBody, r.steps, r.intervalBody, r.countBody, r.filter.of.body,
          r.filter.by.body, r.filter.credited.body, r.filter.targeting.body})
      mark(id, Heat::Hot);
  for (const pack::Modifier &m : t.modifiers)
    mark(m.amountBody, Heat::Hot);
  for (const pack::Value &v : t.values)
    for (pack::Id id : {v.minBody, v.maxBody, v.regenPeriodBody, v.refillPeriodBody})
      mark(id, Heat::Hot);
  for (size_t id = 0; id < heat.size(); ++id)
    if (hot[id])
      heat[id] = Heat::Hot;
  return heat;
}

// The body functions by body id, as the descriptor's array lists them for
// the generic kernel, or the catalog's constants for the machinery.
std::vector<Function *> bodyFunctions(Module &module) {
  std::vector<Function *> bodies;
  GlobalVariable *array = module.getNamedGlobal("ledger.bodies");
  if (!array)
    array = module.getNamedGlobal("lp_bodies");
  if (!array || !array->hasInitializer())
    return bodies;
  for (const Use &element : array->getInitializer()->operands())
    bodies.push_back(dyn_cast<Function>(element.get()));
  return bodies;
}

// A formula that is a number: two instructions whatever the pipeline.
bool isConstantBody(const Function &fn) {
  if (fn.size() != 1)
    return false;
  const auto *ret = dyn_cast<ReturnInst>(&fn.getEntryBlock().front());
  return ret && ret->getReturnValue() && isa<Constant>(ret->getReturnValue());
}

} // namespace

std::vector<Function *> landings(Module &module) {
  std::vector<Function *> found;
  GlobalVariable *table = module.getNamedGlobal("lp_landChange");
  if (table && table->hasInitializer())
    for (const Use &element : table->getInitializer()->operands())
      if (auto *fn = dyn_cast<Function>(element.get()))
        found.push_back(fn);
  return found;
}

void addMachineryHeat(Module &module, DenseMap<const Function *, Heat> &heat) {
  for (Function *fn : landings(module))
    heat.try_emplace(fn, Heat::Hot);
  // Marked cold, and what only those call, on and on: it runs no more often.
  SmallPtrSet<const Function *, 32> cold;
  std::vector<Function *> work;
  for (Function &fn : module)
    if (!fn.isDeclaration() && !heat.count(&fn) && fn.hasFnAttribute(Attribute::Cold)) {
      cold.insert(&fn);
      work.push_back(&fn);
    }
  // Called by cold functions alone, by its name or an alias's (a constructor's).
  auto onlyColdCalls = [&](auto &self, const GlobalValue &callee) -> bool {
    for (const User *user : callee.users()) {
      if (const auto *alias = dyn_cast<GlobalAlias>(user)) {
        if (!alias->hasLocalLinkage() || !self(self, *alias))
          return false;
        continue;
      }
      const auto *call = dyn_cast<CallBase>(user);
      if (!call || call->getCalledOperand() != &callee || !cold.count(call->getFunction()))
        return false;
    }
    return true;
  };
  while (!work.empty()) {
    Function *at = work.back();
    work.pop_back();
    for (Instruction &inst : instructions(*at)) {
      auto *call = dyn_cast<CallBase>(&inst);
      auto *callee =
          call ? dyn_cast<Function>(call->getCalledOperand()->stripPointerCastsAndAliases())
               : nullptr;
      if (callee && !callee->isDeclaration() && callee->hasLocalLinkage() &&
          !heat.count(callee) && !cold.count(callee) && onlyColdCalls(onlyColdCalls, *callee)) {
        cold.insert(callee);
        work.push_back(callee);
      }
    }
  }
  for (const Function *fn : cold)
    heat[fn] = Heat::Cold;
}

DenseMap<const Function *, Heat> functionHeat(Module &module, const pack::Tables &tables) {
  DenseMap<const Function *, Heat> heat;
  std::vector<Heat> byBody = bodyHeat(tables);
  std::vector<Function *> bodies = bodyFunctions(module);
  for (size_t id = 0; id < bodies.size() && id < byBody.size(); ++id) {
    if (!bodies[id])
      continue;
    auto [it, fresh] = heat.try_emplace(bodies[id], byBody[id]);
    if (!fresh && byBody[id] == Heat::Hot)
      it->second = Heat::Hot;
  }
  for (auto &[fn, h] : heat)
    if (isConstantBody(*fn))
      h = Heat::Cold;
  return heat;
}

} // namespace ledger::codegen::detail
