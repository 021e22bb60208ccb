// The catalog as constants: each table of the pack format an array of its
// records laid out as the machinery's C++ reads them (field by field, the
// padding zero, so a catalog's pack is the same on every build), and what
// the compiler decided about them (runtime/compiled/decided.h).
#include "codegen/machinery/machinery.h"

#include "bytes.h"
#include "compiled/decided.h"
#include "kernel/pack_index.h"
#include "pack_abi.h"
#include "pack_fields.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <type_traits>

namespace ledger::codegen::detail {

using namespace llvm;
using pack::Id;
using pack::kNoId;

namespace {

// A record's bytes as it lies in memory, each field at its offset and the
// padding zero.
template <typename T> void image(const T &record, uint8_t *out) {
  if constexpr (bytes::Record<T>) {
    T &r = const_cast<T &>(record);
    std::apply(
        [&](auto &...field) {
          (image(field, out + (reinterpret_cast<const uint8_t *>(&field) -
                               reinterpret_cast<const uint8_t *>(&r))),
           ...);
        },
        fields(r));
  } else {
    static_assert(std::is_trivially_copyable_v<T>);
    std::memcpy(out, &record, sizeof(T));
  }
}

class Constants {
public:
  explicit Constants(Module &m) : m_(m) {}

  // An array the machinery declares `extern const T name[]`; an empty one
  // holds one zero record, never read.
  template <typename T> void array(const char *name, const std::vector<T> &items) {
    size_t n = std::max<size_t>(items.size(), 1);
    std::vector<uint8_t> bytes(n * sizeof(T), 0);
    for (size_t i = 0; i < items.size(); ++i)
      image(items[i], bytes.data() + i * sizeof(T));
    define(name, bytes, alignof(T));
  }
  template <typename T> void one(const char *name, const T &item) {
    std::vector<uint8_t> bytes(sizeof(T), 0);
    image(item, bytes.data());
    define(name, bytes, alignof(T));
  }

private:
  void define(const char *name, const std::vector<uint8_t> &bytes, size_t align) {
    Constant *init = ConstantDataArray::get(
        m_.getContext(), ArrayRef<uint8_t>(bytes.data(), bytes.size()));
    auto *g = new GlobalVariable(m_, init->getType(), true, GlobalValue::ExternalLinkage, init, name);
    g->setAlignment(Align(std::max<size_t>(align, 8)));
  }
  Module &m_;
};

decided::Shape shapeOf(const pack::Tables &t, const rt::PackIndex &ix) {
  decided::Shape s;
  s.tagWords = t.tagWords;
  s.tagCount = uint32_t(t.tags.size());
  s.tagSetCount = t.tagWords ? uint32_t(t.tagBits.size() / t.tagWords) : 0;
  s.eventCount = uint32_t(t.events.size());
  s.valueCount = uint32_t(t.values.size());
  s.linkCount = uint32_t(t.links.size());
  s.effectCount = uint32_t(t.effects.size());
  s.ruleCount = uint32_t(t.rules.size());
  s.abilityCount = uint32_t(t.abilities.size());
  s.archetypeCount = uint32_t(t.archetypes.size());
  s.bodyCount = uint32_t(t.bodies.size());
  for (const pack::Value &v : t.values)
    (v.kind == pack::ValueKind::Pool ? s.poolCount : s.statCount) += 1;
  s.instanceSlots = 1;
  for (const pack::Effect &e : t.effects) {
    uint32_t everies = 0;
    for (uint32_t r = 0; r < e.ruleCount; ++r)
      everies += t.rules[e.rulesBegin + r].kind == pack::RuleKind::Every;
    s.instanceSlots = std::max(s.instanceSlots, e.varCount + everies);
  }
  s.unitsPerTick = t.unitsPerTick;
  s.unitsPerSecond = t.unitsPerSecond;
  s.allegiance = t.allegiance;
  s.damagePool = t.damagePool;
  s.turnEvent = t.turnEvent;
  s.costHeard = ix.costHeard;
  s.poolsReadWorld = ix.poolsReadWorld;
  return s;
}

// Each value's index among the pools, or among the stats.
std::vector<uint32_t> valueSlots(const pack::Tables &t) {
  std::vector<uint32_t> slots(t.values.size());
  uint32_t pools = 0, stats = 0;
  for (Id v = 0; v < t.values.size(); ++v)
    slots[v] = t.values[v].kind == pack::ValueKind::Pool ? pools++ : stats++;
  return slots;
}

// For each phase and kind of event, the effects whose rules may hear it
// and where their holder must stand: what a dispatch walks.
void hearers(const pack::Tables &t, const rt::PackIndex &ix, std::vector<uint32_t> &begin,
             std::vector<decided::Hearer> &list) {
  uint32_t kinds = uint32_t(t.events.size());
  begin.assign(2 * kinds + 1, 0);
  for (uint32_t phase = 0; phase < 2; ++phase)
    for (uint32_t kind = 0; kind < kinds; ++kind) {
      begin[phase * kinds + kind] = uint32_t(list.size());
      for (Id e = 0; e < t.effects.size(); ++e) {
        size_t at = size_t(e) * 2 + phase;
        uint8_t kindRoles = ix.heardKinds[at * kinds + kind];
        uint8_t tagRoles = ix.heardTagRoles[at];
        if (kindRoles || tagRoles)
          list.push_back({e, kindRoles, tagRoles});
      }
    }
  begin[2 * kinds] = uint32_t(list.size());
}

// For each phase and kind of event whose only hearer is one effect heard in
// one role, with one rule of that phase that may hear the kind and no order
// key: that rule, which a dispatch runs for each instance its holder holds,
// in order, with nothing to sort. Else none.
std::vector<Id> soleRules(const pack::Tables &t, const std::vector<uint32_t> &begin,
                          const std::vector<decided::Hearer> &list) {
  uint32_t kinds = uint32_t(t.events.size());
  std::vector<Id> sole(2 * kinds, kNoId);
  for (uint32_t phase = 0; phase < 2; ++phase)
    for (uint32_t kind = 0; kind < kinds; ++kind) {
      uint32_t b = begin[phase * kinds + kind], e = begin[phase * kinds + kind + 1];
      if (e - b != 1)
        continue;
      const decided::Hearer &h = list[b];
      uint8_t roles = h.kindRoles | h.tagRoles;
      if (roles != decided::kSubject && roles != decided::kSource && roles != decided::kCredit)
        continue;
      const pack::Effect &ef = t.effects[h.effect];
      if (ef.orderBody != kNoId)
        continue;
      Id found = kNoId;
      uint32_t count = 0;
      for (uint32_t r = 0; r < ef.ruleCount; ++r) {
        const pack::Rule &rule = t.rules[ef.rulesBegin + r];
        bool before = rule.kind == pack::RuleKind::Before;
        bool after = rule.kind == pack::RuleKind::After || rule.kind == pack::RuleKind::EndsOn ||
                     rule.kind == pack::RuleKind::Each;
        if (phase == 0 ? !before : !after)
          continue;
        const pack::Filter &f = rule.filter;
        if (f.any || f.event == kind || f.event == kNoId) {
          found = ef.rulesBegin + r;
          ++count;
        }
      }
      if (count == 1)
        sole[phase * kinds + kind] = found;
    }
  return sole;
}

// For each stat, the modifiers on it.
void terms(const pack::Tables &t, std::vector<uint32_t> &begin, std::vector<decided::Term> &list) {
  begin.assign(t.values.size() + 1, 0);
  for (Id v = 0; v < t.values.size(); ++v) {
    begin[v] = uint32_t(list.size());
    for (Id e = 0; e < t.effects.size(); ++e) {
      const pack::Effect &ef = t.effects[e];
      for (uint32_t m = 0; m < ef.modifierCount; ++m)
        if (t.modifiers[ef.modifiersBegin + m].stat == v)
          list.push_back({e, ef.modifiersBegin + m});
    }
  }
  begin[t.values.size()] = uint32_t(list.size());
}

// A table of functions, one a definition: each calls the machinery's
// `implementation` with that definition's id as its last operand, a
// constant the call inlined folds through (null where `made` says none).
template <typename Made>
void thunks(Module &m, const char *table, const char *implementation, FunctionType *type,
            uint32_t count, Made made) {
  LLVMContext &ctx = m.getContext();
  auto *ptr = PointerType::get(ctx, 0);
  std::vector<Type *> withId(type->param_begin(), type->param_end());
  withId.push_back(Type::getInt32Ty(ctx));
  FunctionCallee impl =
      m.getOrInsertFunction(implementation, FunctionType::get(type->getReturnType(), withId, false));
  std::vector<Constant *> entries;
  for (uint32_t id = 0; id < count; ++id) {
    if (!made(id)) {
      entries.push_back(ConstantPointerNull::get(ptr));
      continue;
    }
    Function *fn = Function::Create(type, GlobalValue::InternalLinkage,
                                    std::string(table) + "." + std::to_string(id), m);
    fn->addFnAttr(Attribute::NoUnwind);
    IRBuilder<> b(BasicBlock::Create(ctx, "entry", fn));
    std::vector<Value *> args;
    for (Argument &a : fn->args())
      args.push_back(&a);
    args.push_back(b.getInt32(id));
    CallInst *call = b.CreateCall(impl, args);
    if (type->getReturnType()->isVoidTy())
      b.CreateRetVoid();
    else
      b.CreateRet(call);
    entries.push_back(fn);
  }
  if (entries.empty())
    entries.push_back(ConstantPointerNull::get(ptr));
  auto *array = ArrayType::get(ptr, entries.size());
  auto *g = new GlobalVariable(m, array, true, GlobalValue::ExternalLinkage,
                               ConstantArray::get(array, entries), table);
  g->setAlignment(Align(8));
}

} // namespace

void emitCatalogConstants(Module &m, const pack::Tables &t, const std::vector<Function *> &bodies) {
  rt::PackIndex ix = rt::indexPack(t);
  Constants c(m);
  c.one("lp_shape", shapeOf(t, ix));
  c.array("lp_values", t.values);
  c.array("lp_tags", t.tags);
  c.array("lp_tagBits", t.tagBits);
  c.array("lp_links", t.links);
  c.array("lp_curves", t.curves);
  c.array("lp_curvePoints", t.curvePoints);
  c.array("lp_effects", t.effects);
  c.array("lp_vars", t.vars);
  c.array("lp_modifiers", t.modifiers);
  c.array("lp_rules", t.rules);
  c.array("lp_abilities", t.abilities);
  c.array("lp_costs", t.costs);
  c.array("lp_requirements", t.requirements);
  c.array("lp_archetypes", t.archetypes);
  c.array("lp_archetypeValues", t.archetypeValues);
  c.array("lp_idLists", t.idLists);
  c.array("lp_autos", t.autos);
  c.array("lp_sortKeys", t.sortKeys);
  c.array("lp_reads", t.reads);
  c.array("lp_queries", t.queries);
  c.array("lp_actions", t.actions);
  c.array("lp_bodyInfo", t.bodies);

  // Names, one after another, each where lp_nameAt says.
  std::vector<uint32_t> nameAt;
  std::vector<char> nameChars;
  for (const std::string &n : t.names) {
    nameAt.push_back(uint32_t(nameChars.size()));
    nameChars.insert(nameChars.end(), n.begin(), n.end());
  }
  nameAt.push_back(uint32_t(nameChars.size()));
  c.array("lp_nameAt", nameAt);
  c.array("lp_nameChars", nameChars);

  c.array("lp_valueSlot", valueSlots(t));
  std::vector<uint32_t> hearBegin;
  std::vector<decided::Hearer> hear;
  hearers(t, ix, hearBegin, hear);
  c.array("lp_hearBegin", hearBegin);
  c.array("lp_hear", hear);
  c.array("lp_soleRule", soleRules(t, hearBegin, hear));
  c.array("lp_heardTags", ix.heardTags);
  c.array("lp_kindHeard", ix.kindHeard);
  c.array("lp_tagsHeard", ix.tagsHeard);
  std::vector<uint32_t> termsBegin;
  std::vector<decided::Term> termList;
  terms(t, termsBegin, termList);
  c.array("lp_termsBegin", termsBegin);
  c.array("lp_terms", termList);
  std::vector<uint8_t> statCache;
  for (rt::PackIndex::StatCache k : ix.statCache)
    statCache.push_back(uint8_t(k));
  c.array("lp_statCache", statCache);
  std::vector<decided::Plain> plain;
  for (const rt::PackIndex::Plain &p : ix.plain)
    plain.push_back({uint8_t(p.kind), p.stat, p.number});
  c.array("lp_plain", plain);
  c.array("lp_archetypeBase", ix.archetypeBase);
  c.array("lp_inert", ix.inert);
  c.array("lp_shapesCounts", ix.shapesCounts);
  std::vector<uint32_t> everies;
  for (const pack::Effect &e : t.effects) {
    uint32_t n = 0;
    for (uint32_t r = 0; r < e.ruleCount; ++r)
      n += t.rules[e.rulesBegin + r].kind == pack::RuleKind::Every;
    everies.push_back(n);
  }
  c.array("lp_everyCount", everies);
  // Each ability's granters, by effect id, each once.
  std::vector<std::vector<Id>> grantersOf(t.abilities.size());
  for (Id effect = 0; effect < t.effects.size(); ++effect) {
    const pack::Effect &e = t.effects[effect];
    for (uint32_t g = 0; g < e.grantCount; ++g) {
      std::vector<Id> &list = grantersOf[t.idLists[e.grantsBegin + g]];
      if (list.empty() || list.back() != effect)
        list.push_back(effect);
    }
  }
  std::vector<uint32_t> grantersBegin, granters;
  for (const std::vector<Id> &list : grantersOf) {
    grantersBegin.push_back(uint32_t(granters.size()));
    granters.insert(granters.end(), list.begin(), list.end());
  }
  grantersBegin.push_back(uint32_t(granters.size()));
  c.array("lp_grantersBegin", grantersBegin);
  c.array("lp_granters", granters);
  c.array("lp_driftingPools", ix.driftingPools);
  c.one("lp_driftingPoolCount", uint32_t(ix.driftingPools.size()));
  c.array("lp_checkReadsTime", ix.checkReadsTime);
  // What an auto refused by a requirement or a price waits on (reading
  // 139), as the reference engine's index works it out.
  c.array("lp_requirementsWait", ix.requirementsWait);
  c.array("lp_costsWait", ix.costsWait);
  c.array("lp_waitLinksBegin", ix.waitLinksBegin);
  c.array("lp_waitLinks", ix.waitLinks);

  // The landing of a change on each pool.
  LLVMContext &ctx = m.getContext();
  Type *voidTy = Type::getVoidTy(ctx);
  Type *ptrTy = PointerType::get(ctx, 0), *i32 = Type::getInt32Ty(ctx);
  thunks(m, "lp_landChange", "lm_landChange", FunctionType::get(voidTy, {ptrTy, i32}, false),
         uint32_t(t.values.size()),
         [&](uint32_t v) { return t.values[v].kind == pack::ValueKind::Pool; });

  // The bodies, each a function of the pack's.
  std::vector<Constant *> pointers(bodies.begin(), bodies.end());
  auto *ptr = PointerType::get(m.getContext(), 0);
  if (pointers.empty())
    pointers.push_back(ConstantPointerNull::get(ptr));
  auto *table = new GlobalVariable(m, ArrayType::get(ptr, pointers.size()), true,
                                   GlobalValue::ExternalLinkage,
                                   ConstantArray::get(ArrayType::get(ptr, pointers.size()), pointers),
                                   "lp_bodies");
  table->setAlignment(Align(8));
}

} // namespace ledger::codegen::detail
