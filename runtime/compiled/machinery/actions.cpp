// Steps that change the world, and the before rules' changes to the event
// in hand: each reads its operands in the order the IR lays them out
// (compiler/ir/lower_steps.cpp). A step's action is a constant of its body,
// so the switch below folds to the one case each compiled step is.
#include "world.h"

namespace ledger::cw {

using pack::ActionOp;
using pack::BuiltinEvent;
using pack::BuiltinTag;
using namespace pack::flags;
using rt::add;
using rt::mul;
using rt::sub;

// An action's targets onto targetScratch_, from where it stood.
void World::targetsOf(Frame &f, const pack::Action &a, const int64_t *args) {
  if (a.query == kNoId)
    return;
  // One actor named: no list to find.
  if (lp_queries[a.query].kind == pack::QueryKind::Actor) {
    if (actor(args[0]))
      targetScratch_.push(args[0]);
    return;
  }
  uint32_t at = scratchHandles_.size();
  query(f, lp_queries[a.query], args, scratchHandles_);
  for (uint32_t k = at; k < scratchHandles_.size(); ++k)
    targetScratch_.push(scratchHandles_[k]);
  scratchHandles_.truncate(at);
}

// What an event raised in a chain takes from it: the grant its activation
// used and the targets it named.
void World::inheritChain(Event &e, const Frame &f) {
  if (f.propsEvent < 0)
    return;
  const Event &pe = ev(uint32_t(f.propsEvent));
  e.grant = pe.grant;
  e.targetedAt = pe.targetedAt;
  e.targetedCount = pe.targetedCount;
}

Refusal World::changePool(Frame *f, Id tag, Id pool, Handle to, Handle source, Handle credit,
                          const Portion *portions, uint32_t count, int64_t upTo, uint32_t chain,
                          bool priced) {
  uint32_t ei = newEvent(Id(BuiltinEvent::Change), to, source, credit, chain);
  Event &e = ev(ei);
  e.pool = pool;
  addTags(e.tags, lp_tags[tag].closure);
  NumberFault fault = NumberFault::None;
  bool typed = false;
  for (uint32_t p = 0; p < count; ++p) {
    for (uint32_t w = 0; w < tagWords(); ++w) {
      e.tags.w[w] |= portions[p].tags.w[w];
      typed |= portions[p].tags.w[w] != 0;
    }
    e.amount = add(e.amount, portions[p].amount, fault);
  }
  // A change with one portion and no type is in no portions.
  if (typed) {
    e.portionsAt = portions_.size();
    e.portionCount = count;
    for (uint32_t p = 0; p < count; ++p)
      portions_.push(portions[p]);
  }
  e.upTo = upTo;
  e.beforeHeard = priced;
  if (f)
    inheritChain(ev(ei), *f);
  return raiseOf<Id(BuiltinEvent::Change)>(ei);
}

Refusal World::applyTo(Frame *f, Id effect, int64_t stacks, Handle to, Handle source,
                       Handle credit, const Lifetime &given, Given vars, uint32_t chain,
                       uint32_t *made, uint32_t *merged) {
  if (!alive(to))
    return Refusal::Gone;
  const pack::Effect &ef = lp_effects[effect];
  Lifetime life = given;
  // The newcomer's vars are worked out whenever it has any: an init's fault
  // is journaled here as well as as it goes on, as the kernel's is.
  if (ef.varCount || (life.time < 0 && ef.lasts.timeBody != kNoId) ||
      (life.turns < 0 && life.count < 0 && ef.lasts.countBody != kNoId)) {
    Frame g{};
    g.event = -1;
    g.roots[LEDGER_SLOT_HOLDER] = to;
    g.roots[LEDGER_SLOT_SOURCE] = source;
    g.roots[LEDGER_SLOT_CREDIT] = credit;
    g.propsEvent = -1;
    if (f) {
      g.event = f->event;
      g.propsEvent = f->propsEvent;
      g.roots[LEDGER_SLOT_TARGET] = (f->c.locals ? f->c.locals : f->roots)[LEDGER_SLOT_TARGET];
      g.targets = f->targets;
      g.targetCount = f->targetCount;
    }
    // self reads the newcomer: its vars, as it goes on with them, and its stacks.
    uint32_t givenFrom = givenVars_.size();
    for (uint32_t k = 0; k < vars.count; ++k)
      givenVars_.push(vars.values[k]);
    newcomerVars(effect, g, givenFrom, vars.count);
    givenVars_.truncate(givenFrom);
    int64_t savedNewcomer = newcomerStacks_;
    newcomerStacks_ = stacks;
    if (life.time < 0 && ef.lasts.timeBody != kNoId)
      life.time = runBody(ef.lasts.timeBody, g);
    bool counted = life.turns >= 0 || life.count >= 0;
    if (!counted && ef.lasts.kind == pack::LastsKind::Turns)
      life.turns = runBody(ef.lasts.countBody, g);
    if (!counted && ef.lasts.kind == pack::LastsKind::Count)
      life.count = runBody(ef.lasts.countBody, g);
    newcomerStacks_ = savedNewcomer;
  }
  uint32_t ei = newEvent(Id(BuiltinEvent::Apply), to, source, credit, chain);
  Event &e = ev(ei);
  e.effect = effect;
  e.stacks = stacks;
  e.amount = stacks;
  e.life = life;
  addTags(e.tags, ef.tags);
  if (f)
    inheritChain(e, *f);
  if (life.time >= 0)
    addTags(ev(ei).tags, lp_tags[Id(BuiltinTag::Timed)].closure);
  ev(ei).varsFrom = givenVars_.size();
  for (uint32_t k = 0; k < vars.count; ++k)
    givenVars_.push(vars.values[k]);
  ev(ei).varCount = vars.count;
  Refusal r = raiseOf<Id(BuiltinEvent::Apply)>(ei);
  if (r == Refusal::None && made && merged) {
    if (ev(ei).made)
      ++*made;
    else
      ++*merged;
  }
  return r;
}

// How many instances it took from; keptBy[refusal] counts those kept on.
int64_t World::removeEffect(Id effect, Handle from, int64_t stacks, Id endTag, uint32_t chain,
                            pack::TagSet tags, pack::TagSet unless, uint32_t *keptBy) {
  if (!alive(from) || (stacks != INT64_MIN && stacks <= 0))
    return 0;
  int64_t taken = 0;
  // A copy, oldest first: taking one may change what it holds.
  uint32_t at = scratchIds_.size();
  for (uint32_t h = row(indexOf(from)).firstHeld; h; h = inst(h - 1).nextHeld)
    scratchIds_.push(h - 1);
  uint32_t n = scratchIds_.size() - at;
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t i = scratchIds_[at + k];
    if (!inst(i).live)
      continue;
    if (effect != kNoId && inst(i).effect != effect)
      continue;
    if (tags) {
      Tags tb;
      clearTags(tb);
      addTags(tb, lp_effects[inst(i).effect].tags);
      if (!carriesAll(tb, tags) || (unless && carriesAny(tb, unless)))
        continue;
    }
    Taken t = stacks != INT64_MIN ? takeStacks(i, stacks, endTag, chain, Taking::Stoppable)
                                  : endInstance(i, endTag, chain, Taking::Stoppable);
    if (t.kept != Refusal::None) {
      if (keptBy)
        ++keptBy[uint32_t(t.kept)];
      continue;
    }
    ++taken;
    if (stacks != INT64_MIN && (stacks -= t.stacks) <= 0)
      break;
  }
  scratchIds_.truncate(at);
  return taken;
}

Refusal World::raiseOn(Frame *f, Id event, Handle of, Handle by, pack::TagSet tagged,
                       uint32_t chain) {
  Handle credit = f ? f->roots[LEDGER_SLOT_CREDIT] : by;
  uint32_t ei = newEvent(event, of, by, credit ? credit : by, chain);
  addTags(ev(ei).tags, tagged);
  if (f)
    inheritChain(ev(ei), *f);
  return raiseEvent(ei);
}

Handle World::makeActor(Id archetype, Handle creator, const LedgerLink *links, uint32_t linkCount,
                        uint32_t chain) {
  // The lowest slot a destroyed actor left, else a new one (reading 157):
  // its row starts as a new one's would.
  uint32_t i = takeFreeSlot();
  uint32_t gen = 1;
  if (i != kNone) {
    forgetSlot(i);
    gen = nextGen(row(i).gen);
    std::memset(actors_.at(i, actorWidth()), 0, actorWidth());
  } else {
    i = actors_.size();
    actors_.add(actorWidth());
    if (countingRefs_)
      actorRefs_.push(0);
  }
  ActorHead &a = row(i);
  a.gen = gen;
  a.archetype = archetype;
  a.live = 1;
  a.madeAt = now_;
  a.epoch = 1;
  a.tagsEpoch = 1;
  Handle h = handle(i, gen);
  shapeMoved(h);
  if (covering_)
    ++coverage_[LEDGER_COVER_MADE][archetype];
  for (Id p = 0; p < shape().valueCount; ++p)
    if (lp_values[p].kind == pack::ValueKind::Pool)
      poolSlot(i, p).due = -1;
  // The creator's links as it reads them, unless set.
  if (creator && actor(creator))
    for (Id l = 0; l < shape().linkCount; ++l)
      if (!lp_links[l].global)
        linkSlot(i, l) = linkOf(creator, l);
  for (uint32_t k = 0; k < linkCount; ++k)
    linkSlot(i, links[k].link) = links[k].to;
  const pack::Archetype &arch = lp_archetypes[archetype];
  Frame f{};
  f.event = f.propsEvent = -1;
  f.roots[LEDGER_SLOT_HOLDER] = h;
  f.roots[LEDGER_SLOT_CREDIT] = h;
  for (uint32_t w = 0; w < arch.withCount; ++w) {
    const pack::ArchetypeValue &v = lp_archetypeValues[arch.withBegin + w];
    if (v.link != kNoId)
      linkSlot(i, v.link) = runBody(v.body, f);
  }
  for (Id l = 0; l < shape().linkCount; ++l)
    refer(linkSlot(i, l));
  for (uint32_t p = 0; p < arch.poolCount; ++p)
    poolSlot(i, lp_idLists[arch.poolsBegin + p]).has = 1;
  ++epoch_;
  shapeMoved(h);
  for (uint32_t p = 0; p < arch.poolCount; ++p) {
    Id pool = lp_idLists[arch.poolsBegin + p];
    int64_t start = lp_values[pool].defaultValue ? lp_values[pool].defaultValue : poolLeast(h, pool);
    poolSlot(i, pool).amount = start;
    poolSlot(i, pool).max = poolMost(h, pool);
  }
  // Each full pool's maximum as it filled, on the scratch list.
  uint32_t filledAt = scratchHandles_.size();
  for (uint32_t p = 0; p < arch.fullCount; ++p) {
    Id pool = lp_idLists[arch.fullBegin + p];
    int64_t most = poolMost(h, pool);
    scratchHandles_.push(most);
    poolSlot(i, pool).amount = most;
  }
  for (uint32_t w = 0; w < arch.withCount; ++w) {
    const pack::ArchetypeValue &v = lp_archetypeValues[arch.withBegin + w];
    if (v.value != kNoId) {
      int64_t amount = runBody(v.body, f);
      poolSlot(i, v.value).amount = amount;
    }
  }
  for (Id p = 0; p < shape().valueCount; ++p)
    if (lp_values[p].kind == pack::ValueKind::Pool && poolSlot(i, p).has) {
      int64_t amount = clampPool(h, p, poolSlot(i, p).amount);
      poolSlot(i, p).amount = amount;
      int64_t most = poolMost(h, p);
      poolSlot(i, p).max = most;
    }
  // Innate effects, each applied as content's apply is.
  for (uint32_t k = 0; k < arch.hasCount; ++k) {
    const pack::ArchetypeValue &v = lp_archetypeValues[arch.hasBegin + k];
    int64_t stacks = runBody(v.body, f);
    applyTo(nullptr, v.value, stacks, h, h, h, Lifetime{}, {}, chain, nullptr, nullptr);
  }
  // A full pool starts at the maximum its innate effects make, unless a with
  // gives its amount (docs/readings.md).
  auto given = [&](Id pool) {
    for (uint32_t w = 0; w < arch.withCount; ++w)
      if (lp_archetypeValues[arch.withBegin + w].value == pool)
        return true;
    return false;
  };
  for (uint32_t p = 0; p < arch.fullCount && alive(h); ++p) {
    Id pool = lp_idLists[arch.fullBegin + p];
    int64_t rise = poolMost(h, pool) - scratchHandles_[filledAt + p];
    if (rise <= 0 || given(pool) || lp_values[pool].rise == pack::Rise::Heal)
      continue;
    settlePool(h, pool);
    int64_t amount = clampPool(h, pool, poolSlot(i, pool).amount + rise);
    poolSlot(i, pool).amount = amount;
  }
  scratchHandles_.truncate(filledAt);
  if (arch.autoCount)
    addAutoActor(h);
  markTouched(i);
  uint32_t ce = newEvent(Id(BuiltinEvent::Create), h, creator, creator ? creator : h, chain);
  addTags(ev(ce).tags, arch.tags);
  raiseOf<Id(BuiltinEvent::Create)>(ce);
  return h;
}

Refusal World::destroyActor(Handle h, uint32_t chain) {
  ActorHead *a = actor(h);
  if (!a || !a->live)
    return Refusal::Gone;
  uint32_t ei = newEvent(Id(BuiltinEvent::Destroy), h, 0, 0, chain);
  if (Refusal r = raiseOf<Id(BuiltinEvent::Destroy)>(ei); r != Refusal::None)
    return r;
  touch(h);
  // Destroyed from then: what it held is removed, and hears it. Its links
  // hold no one from here; its slot is free once nothing refers to it
  // (reading 157).
  actor(h)->live = 0;
  if (countingRefs_)
    for (Id l = 0; l < shape().linkCount; ++l)
      unrefer(linkSlot(indexOf(h), l));
  else
    countRefs();
  if (actorRefs_[indexOf(h)] == 0)
    releasing_.push(indexOf(h));
  ++epoch_;
  shapeMoved(h);
  uint32_t at = scratchIds_.size();
  for (uint32_t k = row(indexOf(h)).firstHeld; k; k = inst(k - 1).nextHeld)
    scratchIds_.push(k - 1);
  uint32_t n = scratchIds_.size() - at;
  for (uint32_t k = 0; k < n; ++k)
    endInstance(scratchIds_[at + k], Id(BuiltinTag::EndGone), chain);
  scratchIds_.truncate(at);
  return Refusal::None;
}

// ---- actor slots ---------------------------------------------------------------------

// From the first destroy on, what refers to each actor is counted: the
// world as it stands, counted whole once.
void World::countRefs() {
  countingRefs_ = true;
  actorRefs_.clear();
  actorRefs_.resize(actors_.size(), 0);
  for (uint32_t i = 0; i < insts_.size(); ++i)
    if (inst(i).live)
      referInstance(i);
  for (uint32_t ai = 0; ai < actors_.size(); ++ai)
    if (row(ai).live)
      for (Id l = 0; l < shape().linkCount; ++l)
        refer(linkSlot(ai, l));
  for (Handle g : globals_)
    refer(g);
}

// A live instance refers to its source and credit, and to whom its actor
// vars name. Its holder needs no count: destroying the holder ends what it
// holds in the same moment, before its slot is let go.
void World::referInstance(uint32_t i) {
  const InstHead &in = inst(i);
  if (in.source != in.holder)
    refer(in.source);
  if (in.credit != in.holder && in.credit != in.source)
    refer(in.credit);
  if (!anyActorVars_)
    return;
  varRefs_.resize(insts_.size() * shape().instanceSlots, 0);
  const pack::Effect &ef = lp_effects[in.effect];
  for (uint32_t v = 0; v < ef.varCount; ++v)
    if (lp_vars[ef.varsBegin + v].kind == pack::VarKind::Actor) {
      varRef(i, v) = varsOf(i)[v];
      refer(varRef(i, v));
    }
}

void World::unreferInstance(uint32_t i) {
  const InstHead &in = inst(i);
  if (in.source != in.holder)
    unrefer(in.source);
  if (in.credit != in.holder && in.credit != in.source)
    unrefer(in.credit);
  if (!anyActorVars_)
    return;
  const pack::Effect &ef = lp_effects[in.effect];
  for (uint32_t v = 0; v < ef.varCount; ++v)
    if (lp_vars[ef.varsBegin + v].kind == pack::VarKind::Actor)
      unrefer(varRef(i, v));
}

// Steps set an instance's actor var: it refers to whom it names now.
void World::recountVars(uint32_t i) {
  const pack::Effect &ef = lp_effects[inst(i).effect];
  for (uint32_t v = 0; v < ef.varCount; ++v) {
    Handle now = varsOf(i)[v];
    if (lp_vars[ef.varsBegin + v].kind == pack::VarKind::Actor && varRef(i, v) != now) {
      refer(now);
      unrefer(varRef(i, v));
      varRef(i, v) = now;
    }
  }
}

// As the moment ends: the slots it left destroyed with nothing referring to
// them are free for a make.
void World::releaseSlots() {
  slotListed_.resize(actors_.size(), 0);
  for (uint32_t ai : releasing_)
    if (!row(ai).live && actorRefs_[ai] == 0 && !slotListed_[ai]) {
      slotListed_[ai] = 1;
      freeSlots_.push(ai);
      std::push_heap(freeSlots_.begin(), freeSlots_.end(), [](uint32_t x, uint32_t y) { return x > y; });
    }
  releasing_.clear();
}

// The lowest free slot, kNone where there is none; one referred to again
// since it was freed waits until nothing does.
uint32_t World::takeFreeSlot() {
  while (!freeSlots_.empty()) {
    std::pop_heap(freeSlots_.begin(), freeSlots_.end(), [](uint32_t x, uint32_t y) { return x > y; });
    uint32_t ai = freeSlots_.back();
    freeSlots_.pop();
    slotListed_[ai] = 0;
    if (!row(ai).live && actorRefs_[ai] == 0)
      return ai;
  }
  return kNone;
}

// What named a slot's last actor by its index, let go as another takes the
// slot: its place among the autos, its autos' ticks.
void World::forgetSlot(uint32_t ai) {
  autoAwake_.eraseEvery(ai);
  forgetAutoWaits(ai);
  autoPass_.eraseEvery(ai);
  std::make_heap(autoPass_.begin(), autoPass_.end(),
                 [&](uint32_t x, uint32_t y) { return row(x).autoRank > row(y).autoRank; });
  // Those after it in the order they came to hold autos move up one: the
  // order among them stands.
  Handle was = actorHandle(ai);
  for (uint32_t rank = 0; rank < autoActors_.size(); ++rank) {
    if (autoActors_[rank] != was)
      continue;
    autoActors_.eraseAt(rank);
    for (uint32_t p = rank; p < autoActors_.size(); ++p)
      if (actor(autoActors_[p]))
        row(indexOf(autoActors_[p])).autoRank = p;
    if (passRank_ != kNone && passRank_ > rank)
      --passRank_;
    break;
  }
  uint64_t *from = std::lower_bound(autoFired_.begin(), autoFired_.end(), uint64_t(ai) << 32);
  uint64_t *to = std::lower_bound(from, autoFired_.end(), uint64_t(ai + 1) << 32);
  uint32_t at = uint32_t(from - autoFired_.begin()), n = uint32_t(to - from);
  for (uint32_t k = at; k + n < autoFired_.size(); ++k) {
    autoFired_[k] = autoFired_[k + n];
    autoFiredAt_[k] = autoFiredAt_[k + n];
  }
  autoFired_.truncate(autoFired_.size() - n);
  autoFiredAt_.truncate(autoFiredAt_.size() - n);
}

// A save holds no counts: they are counted again, and the slots free then
// are free again, where any actor was destroyed.
void World::listSlotsFromSave() {
  bool anyDestroyed = false;
  for (uint32_t ai = 0; ai < actors_.size(); ++ai)
    anyDestroyed |= !row(ai).live;
  if (!anyDestroyed)
    return;
  countRefs();
  for (uint32_t ai = 0; ai < actors_.size(); ++ai)
    if (!row(ai).live && actorRefs_[ai] == 0)
      releasing_.push(ai);
  releaseSlots();
}

bool World::granted(Handle a, Id ability, Handle *grant, Id usingEffect) {
  const ActorHead *ac = actor(a);
  if (!ac)
    return false;
  // The newest working instance granting it: of the effects that grant it
  // (the compiler's list), what the holder holds, each list oldest first.
  uint32_t ai = indexOf(a), newest = kNone;
  for (uint32_t g = lp_grantersBegin[ability]; g < lp_grantersBegin[ability + 1]; ++g) {
    Id effect = lp_granters[g];
    if (usingEffect != kNoId && effect != usingEffect)
      continue;
    for (uint32_t k = firstOf(ai, effect); k; k = inst(k - 1).nextSame)
      if (working(k - 1) && (newest == kNone || inst(k - 1).seq > inst(newest).seq))
        newest = k - 1;
  }
  if (newest != kNone) {
    if (grant)
      *grant = instanceHandle(newest);
    return true;
  }
  if (usingEffect != kNoId)
    return false;
  const pack::Archetype &arch = lp_archetypes[ac->archetype];
  for (uint32_t g = 0; g < arch.grantCount; ++g)
    if (lp_idLists[arch.grantsBegin + g] == ability)
      return true;
  return false;
}

// The one tag a line names where it names a change by its tag (`for 2
// Damage`), kNoId where it names none.
Id World::namedTag(pack::TagSet set) {
  if (!set)
    return kNoId;
  const uint64_t *bits = tagSet(set);
  for (uint32_t w = 0; w < tagWords(); ++w)
    if (bits[w])
      return Id(w * 64 + uint32_t(__builtin_ctzll(bits[w])));
  return kNoId;
}

// An Apply's or a Remove's amount is its stacks: a change to the one is to
// the other.
void World::stacksFollowAmount(Event *e) {
  if (e && (e->kind == Id(BuiltinEvent::Apply) || e->kind == Id(BuiltinEvent::Remove)))
    e->stacks = e->amount;
}

void World::takePortion(Event &e, uint32_t p) {
  Portion &gone = portions_[e.portionsAt + p];
  gone.amount = 0;
  gone.gone = 1;
  // Its types leave the change's tags, but for those a portion still held
  // or the change itself carries.
  Tags keep;
  clearTags(keep);
  for (BuiltinTag change : {BuiltinTag::Damage, BuiltinTag::Heal, BuiltinTag::Cost,
                            BuiltinTag::Gain, BuiltinTag::Loss, BuiltinTag::Set})
    addTags(keep, lp_tags[Id(change)].closure);
  for (uint32_t q = 0; q < e.portionCount; ++q)
    if (!portions_[e.portionsAt + q].gone)
      for (uint32_t w = 0; w < tagWords(); ++w)
        keep.w[w] |= portions_[e.portionsAt + q].tags.w[w];
  for (uint32_t w = 0; w < tagWords(); ++w)
    e.tags.w[w] &= ~(gone.tags.w[w] & ~keep.w[w]);
}

int32_t World::action(Frame &f, const pack::Action &a, const int64_t *args) {
  uint32_t targetsAt = targetScratch_.size();
  uint32_t k = a.queryArgCount;
  Handle holder = f.c.locals[LEDGER_SLOT_HOLDER];
  Handle credit = f.c.locals[LEDGER_SLOT_CREDIT];
  uint32_t byReason[uint32_t(Refusal::Count)] = {};
  auto results = [&](uint32_t done, uint32_t made, uint32_t merged, uint32_t refused) {
    if (a.flags & kHasAs) {
      f.c.locals[a.resultSlot] = int64_t(done) * kOne;
      f.c.locals[a.resultSlot + 1] = int64_t(made) * kOne;
      f.c.locals[a.resultSlot + 2] = int64_t(merged) * kOne;
      f.c.locals[a.resultSlot + 3] = int64_t(refused) * kOne;
      for (uint32_t r = 0; r < uint32_t(Refusal::Count); ++r)
        f.c.locals[a.resultSlot + 4 + r] = int64_t(byReason[r]) * kOne;
    }
  };
  auto targets = [&]() { return targetScratch_.data() + targetsAt; };
  auto targetCount = [&]() { return targetScratch_.size() - targetsAt; };
  Event *hand = f.event >= 0 ? &ev(uint32_t(f.event)) : nullptr;
  NumberFault fault = NumberFault::None;
  // A before rule's change to the amount acts on the portions it names.
  auto eachPortion = [&](auto fn) {
    if (!hand)
      return;
    if (hand->portionCount == 0) {
      hand->amount = fn(hand->amount);
      return;
    }
    for (uint32_t p = 0; p < hand->portionCount; ++p) {
      Portion &portion = portions_[hand->portionsAt + p];
      if ((f.portions >> p & 1) && !portion.gone)
        portion.amount = fn(portion.amount);
    }
  };
  auto handAmount = [&]() -> int64_t {
    if (!hand)
      return 0;
    if (hand->portionCount == 0)
      return hand->amount;
    int64_t s = 0;
    for (uint32_t p = 0; p < hand->portionCount; ++p) {
      const Portion &portion = portions_[hand->portionsAt + p];
      if ((f.portions >> p & 1) && !portion.gone)
        s = add(s, portion.amount, fault);
    }
    return s;
  };
  // Pricing a cost runs only the changes to the amount.
  if (pricing_ && a.op != ActionOp::Scale && a.op != ActionOp::Reduce &&
      a.op != ActionOp::AddAmount && a.op != ActionOp::AtMost && a.op != ActionOp::AtLeast &&
      a.op != ActionOp::Prevent)
    return LEDGER_GO;
  int32_t status = LEDGER_GO;
  switch (a.op) {
  case ActionOp::Deal:
  case ActionOp::Heal: {
    targetsOf(f, a, args);
    Portion portions[kMaxPortions];
    uint32_t n = a.listCount < kMaxPortions ? a.listCount : kMaxPortions;
    for (uint32_t p = 0; p < n; ++p) {
      clearTags(portions[p].tags);
      portions[p].gone = 0;
      portions[p].amount = args[k++];
      addTags(portions[p].tags, lp_idLists[a.listBegin + p]);
    }
    int64_t upTo = (a.flags & kHasUpTo) ? args[k++] : INT64_MAX;
    Handle source = f.c.locals[LEDGER_SLOT_HOLDER];
    if (a.flags & kHasFrom) {
      source = args[k++];
      credit = source;
    } else if (a.flags & kSourceless) {
      source = 0;
    }
    Id tag = a.op == ActionOp::Deal ? Id(BuiltinTag::Damage) : Id(BuiltinTag::Heal);
    for (uint32_t t = 0; t < targetCount(); ++t)
      changePool(&f, tag, shape().damagePool, targets()[t], source, credit, portions, n, upTo,
                 f.chain);
    break;
  }
  case ActionOp::Gain:
  case ActionOp::Lose:
  case ActionOp::SetPool: {
    targetsOf(f, a, args);
    Portion portion;
    clearTags(portion.tags);
    portion.gone = 0;
    portion.amount = args[k++];
    addTags(portion.tags, a.tags);
    int64_t upTo = (a.flags & kHasUpTo) ? args[k++] : INT64_MAX;
    Id tag = a.op == ActionOp::Gain   ? Id(BuiltinTag::Gain)
             : a.op == ActionOp::Lose ? Id(BuiltinTag::Loss)
                                      : Id(BuiltinTag::Set);
    for (uint32_t t = 0; t < targetCount(); ++t)
      changePool(&f, tag, a.a, targets()[t], holder, credit, &portion, 1, upTo, f.chain);
    break;
  }
  case ActionOp::Apply: {
    targetsOf(f, a, args);
    int64_t stacks = (a.flags & kHasStacks) ? args[k++] : kOne;
    Lifetime life;
    if (a.flags & kForTime) {
      life.time = args[k++];
    } else if (a.flags & kForTurns) {
      life.turns = args[k++];
    } else if (a.flags & kForCount) {
      life.count = args[k++];
      life.countEvent = a.b;
      life.countTag = a.b == kNoId ? namedTag(a.tags) : kNoId;
    }
    Handle source = holder;
    if (a.flags & kHasFrom) {
      source = args[k++];
      credit = source;
    }
    // A with gives vars, each by its index in the effect.
    LedgerGiven given[16];
    uint32_t givenCount = a.withCount < 16 ? a.withCount : 16;
    for (uint32_t w = 0; w < givenCount; ++w)
      given[w] = {lp_idLists[a.withBegin + w], 0, args[k + w]};
    uint32_t made = 0, merged = 0, refused = 0;
    for (uint32_t t = 0; t < targetCount(); ++t) {
      Refusal r = applyTo(&f, a.a, stacks, targets()[t], source, credit, life,
                          {given, givenCount}, f.chain, &made, &merged);
      refused += r != Refusal::None;
      ++byReason[uint32_t(r)];
    }
    results(made + merged, made, merged, refused);
    break;
  }
  case ActionOp::RemoveEffect:
  case ActionOp::RemoveTag:
  case ActionOp::RemoveCooldown:
  case ActionOp::RemoveHandle: {
    targetsOf(f, a, args);
    Handle which = a.op == ActionOp::RemoveHandle ? args[k++] : 0;
    Id effect = a.op == ActionOp::RemoveEffect ? a.a : kNoId;
    if (a.op == ActionOp::RemoveCooldown) {
      int64_t ability = a.a != kNoId ? int64_t(a.a) + 1 : args[k++];
      if (ability > 0 && uint64_t(ability) <= shape().abilityCount)
        effect = lp_abilities[size_t(ability - 1)].cooldownEffect;
    }
    int64_t stacks = (a.flags & kHasCount) ? args[k++] : INT64_MIN;
    uint32_t done = 0, refused = 0;
    bool self = false;
    Id endTag = Id(BuiltinTag::EndRemoved);
    if (a.op == ActionOp::RemoveHandle) {
      if (!instance(which)) {
        refused = 1;
        ++byReason[uint32_t(Refusal::Gone)];
      } else {
        self = which == f.instance;
        if (self)
          endTag = Id(BuiltinTag::EndBroken);
        if (stacks == INT64_MIN || stacks > 0) {
          Taken t = stacks == INT64_MIN
                        ? endInstance(indexOf(which), endTag, f.chain, Taking::Stoppable)
                        : takeStacks(indexOf(which), stacks, endTag, f.chain, Taking::Stoppable);
          (t.kept != Refusal::None ? refused : done) = 1;
          if (t.kept != Refusal::None)
            ++byReason[uint32_t(t.kept)];
        }
        self = self && !inst(indexOf(which)).live;
      }
    } else {
      pack::TagSet carrying = a.op == ActionOp::RemoveTag ? a.tags : 0;
      for (uint32_t t = 0; t < targetCount(); ++t) {
        if (a.op == ActionOp::RemoveCooldown && effect == kNoId)
          continue;
        uint32_t keptBy[uint32_t(Refusal::Count)] = {};
        done += uint32_t(removeEffect(effect, targets()[t], stacks, endTag, f.chain, carrying,
                                      a.op == ActionOp::RemoveTag ? a.c : 0, keptBy));
        for (uint32_t r = 0; r < uint32_t(Refusal::Count); ++r) {
          refused += keptBy[r];
          byReason[r] += keptBy[r];
        }
      }
    }
    results(done, 0, 0, refused);
    status = self ? LEDGER_STOP : LEDGER_GO;
    break;
  }
  case ActionOp::SetInstanceVar: {
    InstHead *in = instance(args[0]);
    if (!in)
      break;
    uint32_t i = indexOf(args[0]);
    const pack::Effect &ef = lp_effects[in->effect];
    for (uint32_t v = 0; v < ef.varCount; ++v)
      if (lp_vars[ef.varsBegin + v].name == a.a) {
        int64_t &var = varsOf(i)[v];
        var = a.b == 0 ? args[1] : a.b == 1 ? add(var, args[1], fault) : sub(var, args[1], fault);
      }
    if (countingRefs_ && anyActorVars_)
      recountVars(i);
    break;
  }
  case ActionOp::Raise: {
    targetsOf(f, a, args);
    Handle by = (a.flags & kHasBy) ? args[k++] : holder;
    for (uint32_t t = 0; t < targetCount(); ++t)
      raiseOn(&f, a.a, targets()[t], by, a.tags, f.chain);
    break;
  }
  case ActionOp::Destroy:
    targetsOf(f, a, args);
    for (uint32_t t = 0; t < targetCount(); ++t)
      destroyActor(targets()[t], f.chain);
    break;
  case ActionOp::Cast: {
    // An ability named, cast at each target for one taking one.
    targetsOf(f, a, args);
    int64_t ability = args[k++];
    uint32_t done = 0, refused = 0;
    if (ability > 0 && uint64_t(ability) <= shape().abilityCount) {
      Id ab = Id(ability - 1);
      const pack::TargetKind kind = lp_abilities[ab].target;
      bool foundNone = targetCount() == 0 && a.query != kNoId &&
                       lp_queries[a.query].kind != pack::QueryKind::Actor;
      if (!(kind == pack::TargetKind::One && foundNone)) {
        bool eachTarget = kind == pack::TargetKind::One && targetCount() > 0;
        uint32_t casts = eachTarget ? targetCount() : 1;
        for (uint32_t c = 0; c < casts; ++c) {
          const Handle *at = targets() + (eachTarget ? c : 0);
          uint32_t atCount = eachTarget ? 1 : kind == pack::TargetKind::Many ? targetCount() : 0;
          // Its own copy of whom it is cast at: what the cast sets off may
          // push more targets.
          uint32_t copyAt = targetScratch_.size();
          for (uint32_t t = 0; t < atCount; ++t)
            targetScratch_.push(at[t]);
          Outcome o = check(holder, ab, targetScratch_.data() + copyAt, atCount, true,
                            a.flags & kFree, a.flags & kNoCooldown, &f, true, kNoId, {});
          Refusal r = o.ok() ? castAbility(&f, holder, ab, targetScratch_.data() + copyAt, atCount,
                                           a.flags & kFree, a.flags & kNoCooldown, a.tags, f.chain,
                                           0)
                             : o.refusal;
          targetScratch_.truncate(copyAt);
          if (covering_ && !o.ok())
            ++coverage_[LEDGER_COVER_REFUSED][ab];
          if (r == Refusal::None)
            ++done;
          else
            ++refused;
          ++byReason[uint32_t(r)];
        }
      }
    }
    results(done, 0, 0, refused);
    break;
  }
  case ActionOp::Prevent:
    if (hand) {
      int64_t took = handAmount();
      if (hand->portionCount > 0 && f.portions != ~0u) {
        for (uint32_t p = 0; p < hand->portionCount; ++p)
          if (f.portions >> p & 1)
            takePortion(*hand, p);
        bool any = false;
        for (uint32_t p = 0; p < hand->portionCount; ++p)
          any |= portions_[hand->portionsAt + p].amount != 0;
        if (!any)
          hand->prevented = 1;
      } else {
        hand->prevented = 1;
      }
      if (hand->prevented)
        hand->amount = 0;
      if (a.resultSlot != kNoId)
        f.c.locals[a.resultSlot] = took;
      if (a.flags & kChain)
        preventedChains_.push({holder, hand->chain});
    }
    break;
  case ActionOp::Scale: {
    if (hand && hand->portionCount > 0) {
      for (uint32_t p = 0; p < ev(uint32_t(f.event)).portionCount; ++p)
        if (f.portions >> p & 1) {
          f.portion = int32_t(p);
          int64_t factor = runBody(a.c, f);
          f.portion = -1;
          Portion &portion = portions_[ev(uint32_t(f.event)).portionsAt + p];
          portion.amount = mul(portion.amount, factor, fault);
        }
    } else if (hand) {
      int64_t factor = runBody(a.c, f);
      hand = &ev(uint32_t(f.event));
      hand->amount = mul(hand->amount, factor, fault);
    }
    stacksFollowAmount(f.event >= 0 ? &ev(uint32_t(f.event)) : nullptr);
    break;
  }
  case ActionOp::AddAmount: {
    int64_t more = args[k++];
    if (!hand)
      break;
    Id as = a.a;
    if (as != kNoId && hand->portionCount > 0) {
      uint32_t into = kMaxPortions;
      for (uint32_t p = 0; p < hand->portionCount; ++p)
        if (hasTag(portions_[hand->portionsAt + p].tags, as))
          into = p;
      if (into == kMaxPortions && hand->portionCount < kMaxPortions) {
        // One more portion: the change's own move to the list's end first,
        // where they have room to grow, if another event's came after them.
        if (hand->portionsAt + hand->portionCount != portions_.size()) {
          uint32_t moved = portions_.size();
          for (uint32_t p = 0; p < hand->portionCount; ++p)
            portions_.push(portions_[hand->portionsAt + p]);
          hand->portionsAt = moved;
        }
        Portion added;
        clearTags(added.tags);
        added.amount = 0;
        added.gone = 0;
        addTags(added.tags, lp_tags[as].closure);
        portions_.push(added);
        into = hand->portionCount++;
        addTags(hand->tags, lp_tags[as].closure);
      }
      if (into < kMaxPortions) {
        Portion &portion = portions_[hand->portionsAt + into];
        portion.amount = add(portion.amount, more, fault);
        if (portion.gone) {
          portion.gone = 0;
          for (uint32_t w = 0; w < tagWords(); ++w)
            hand->tags.w[w] |= portion.tags.w[w];
        }
      }
      break;
    }
    bool first = true;
    eachPortion([&](int64_t v) {
      if (!first)
        return v;
      first = false;
      return add(v, more, fault);
    });
    stacksFollowAmount(hand);
    break;
  }
  case ActionOp::Reduce: {
    int64_t by = args[k++];
    if (hand && hand->portionCount > 0) {
      for (uint32_t p = 0; p < hand->portionCount && by > 0; ++p)
        if (f.portions >> p & 1) {
          Portion &portion = portions_[hand->portionsAt + p];
          int64_t take = by < portion.amount ? by : portion.amount;
          portion.amount -= take;
          by -= take;
        }
    } else if (hand) {
      int64_t left = sub(hand->amount, by, fault);
      hand->amount = left > 0 ? left : 0;
    }
    stacksFollowAmount(hand);
    break;
  }
  case ActionOp::AtMost: {
    int64_t cap = args[k++];
    int64_t total = handAmount();
    if (total > cap) {
      int64_t over = sub(total, cap, fault);
      if (hand && hand->portionCount > 0) {
        for (int p = int(hand->portionCount) - 1; p >= 0 && over > 0; --p)
          if (f.portions >> p & 1) {
            Portion &portion = portions_[hand->portionsAt + uint32_t(p)];
            int64_t take = over < portion.amount ? over : portion.amount;
            portion.amount -= take;
            over -= take;
          }
      } else if (hand) {
        hand->amount = cap;
      }
    }
    stacksFollowAmount(hand);
    break;
  }
  case ActionOp::AtLeast: {
    int64_t floor = args[k++];
    int64_t total = handAmount();
    if (total < floor && hand) {
      if (hand->portionCount > 0) {
        for (uint32_t p = 0; p < hand->portionCount; ++p) {
          Portion &portion = portions_[hand->portionsAt + p];
          if ((f.portions >> p & 1) && !portion.gone) {
            portion.amount = add(portion.amount, sub(floor, total, fault), fault);
            break;
          }
        }
      } else {
        hand->amount = floor;
      }
    }
    stacksFollowAmount(hand);
    break;
  }
  case ActionOp::Absorb: {
    if (!hand)
      break;
    int64_t limit = (a.flags & kHasUpTo) ? args[k++] : INT64_MAX;
    int64_t can = limit;
    if (a.flags & kIntoVar) {
      int64_t room = f.c.vars[a.a] > 0 ? f.c.vars[a.a] : 0;
      can = can < room ? can : room;
    } else if (a.flags & kIntoPool) {
      int64_t room = poolNow(holder, a.a) - poolLeast(holder, a.a);
      room = room > 0 ? room : 0;
      can = can < room ? can : room;
      hand = &ev(uint32_t(f.event));
    }
    int64_t total = handAmount();
    int64_t took = can < total ? can : total;
    int64_t left = took;
    eachPortion([&](int64_t v) {
      int64_t t = left < v ? left : v;
      left -= t;
      return v - t;
    });
    if (a.flags & kIntoVar) {
      f.c.vars[a.a] = sub(f.c.vars[a.a], took, fault);
    } else if ((a.flags & kIntoPool) && took > 0) {
      Portion p;
      clearTags(p.tags);
      p.gone = 0;
      p.amount = took;
      changePool(&f, Id(BuiltinTag::Loss), a.a, holder, holder, credit, &p, 1, INT64_MAX, f.chain);
    }
    if (a.resultSlot != kNoId)
      f.c.locals[a.resultSlot] = took;
    stacksFollowAmount(f.event >= 0 ? &ev(uint32_t(f.event)) : nullptr);
    break;
  }
  default:
    break;
  }
  // A number a step works out past what a number holds is journaled as the
  // step ends.
  if (fault != NumberFault::None)
    apiFault(uint32_t(fault));
  targetScratch_.truncate(targetsAt);
  return status;
}

} // namespace ledger::cw
