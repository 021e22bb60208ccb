// Steps that change the world, and the before rules' changes to the event
// in hand: each reads its operands in the order the IR lays them out
// (compiler/ir/lower_steps.cpp).
#include "kernel.h"

#include "number.h"

#include <algorithm>
#include <new>

namespace ledger::rt {

using pack::ActionOp;
using pack::BuiltinEvent;
using pack::BuiltinTag;
using pack::kNoId;
using namespace pack::flags;

void Kernel::targetsOf(Frame &f, const pack::Action &a, const int64_t *args,
                      std::vector<Handle> &out) {
  out.clear();
  if (a.query != kNoId)
    query(f, t_->queries[a.query], args, out);
}

pack::Id Kernel::tagOf(const Frame &f, const pack::Action &a, Id named) const {
  if (!(a.flags & kTagInVar))
    return named;
  if (named == kNoId || !f.c.vars)
    return kNoId;
  return tagOfValue(f.c.vars[named]);
}

// A property an event carries, set over any it had.
void Kernel::setProp(Event &e, Id prop, int64_t v) {
  for (uint32_t p = 0; p < e.propCount; ++p)
    if (e.props[p].first == prop) {
      e.props[p].second = v;
      return;
    }
  if (e.propCount < kMaxProps)
    e.props[e.propCount++] = {prop, v};
}

// What an event takes from the chain it is raised in: its properties and the
// grant its activation used.
void Kernel::inheritChain(Event &e, const Frame &f) const {
  if (f.propsEvent < 0) {
    // A rule of an instance with no event in hand (its every, its end):
    // the properties of the chain that put it on.
    if (f.instance == 0 || !instance(f.instance))
      return;
    const Instance &in = insts_[indexOf(f.instance)];
    e.propCount = in.propCount;
    std::copy(instProps_.begin() + in.storage.propsAt,
              instProps_.begin() + in.storage.propsAt + in.propCount, e.props.items);
    return;
  }
  const Event &pe = events_[size_t(f.propsEvent)];
  e.propsFrom = f.propsEvent;
  e.propCount = pe.propCount;
  std::copy(pe.props.items, pe.props.items + pe.propCount, e.props.items);
  e.grant = pe.grant;
  e.targetedAt = pe.targetedAt;
  e.targetedCount = pe.targetedCount;
}

Refusal Kernel::changePool(Frame *f, Id tag, Id pool, Handle to, Handle source, Handle credit,
                          const Portion *portions, uint32_t count, int64_t upTo, uint32_t chain,
                          const Given &props, bool priced) {
  uint32_t ei = newEvent(Id(BuiltinEvent::Change), to, source, credit, chain);
  Event &e = events_[ei];
  e.pool = pool;
  addTags(e.tags, t_->tags[tag].closure);
  NumberFault fault = NumberFault::None;
  for (uint32_t p = 0; p < count && p < kMaxPortions; ++p) {
    e.portions[p] = portions[p];
    for (uint32_t w = 0; w < t_->tagWords; ++w)
      e.tags.w[w] |= portions[p].tags.w[w];
    e.amount = add(e.amount, portions[p].amount, fault);
  }
  // A change with one portion and no type is in no portions.
  bool typed = false;
  for (uint32_t p = 0; p < count; ++p)
    for (uint32_t w = 0; w < t_->tagWords; ++w)
      typed |= portions[p].tags.w[w] != 0;
  e.portionCount = typed ? std::min(count, kMaxPortions) : 0;
  e.upTo = upTo;
  e.beforeHeard = priced;
  fromChain(e, f);
  // A step's with over what the chain carries.
  for (const Given::Value &g : props.values)
    setProp(e, g.name, g.value);
  return raiseEvent(ei);
}

Refusal Kernel::applyTo(Frame *f, Id effect, int64_t stacks, Handle to, Handle source,
                       Handle credit, const Lifetime &given, const Given &vars, uint32_t chain,
                       uint32_t *made, uint32_t *merged) {
  if (!alive(to))
    return Refusal::Gone;
  const pack::Effect &ef = t_->effects[effect];
  // What the apply gives of its lifetime, the effect's lasts the rest.
  Lifetime life = given;
  {
    Frame g{};
    g.roots[LEDGER_SLOT_HOLDER] = to;
    g.roots[LEDGER_SLOT_SOURCE] = source;
    g.roots[LEDGER_SLOT_CREDIT] = credit;
    // It reads the event in hand: an order's X and properties.
    if (f) {
      g.event = f->event;
      g.propsEvent = f->propsEvent;
      // A cooldown's length reads its order's target and targets.
      g.roots[LEDGER_SLOT_TARGET] = (f->c.locals ? f->c.locals : f->roots)[LEDGER_SLOT_TARGET];
      g.targets = f->targets;
    }
    // self reads the newcomer: its vars, as it goes on with them, and its stacks.
    size_t givenFrom = givenVars_.size();
    for (const Given::Value &v : vars.values)
      givenVars_.push_back({v.name, v.value});
    newcomerVars(effect, g, uint32_t(givenFrom), uint32_t(vars.values.size()));
    givenVars_.resize(givenFrom);
    Newcomer reading(newcomerStacks_, stacks);
    if (life.time < 0 && ef.lasts.timeBody != kNoId)
      life.time = runBody(ef.lasts.timeBody, g);
    // Turns and events are one measure: the apply's count replaces the effect's.
    bool counted = life.turns >= 0 || life.count >= 0;
    if (!counted && ef.lasts.kind == pack::LastsKind::Turns)
      life.turns = runBody(ef.lasts.countBody, g);
    if (!counted && ef.lasts.kind == pack::LastsKind::Count)
      life.count = runBody(ef.lasts.countBody, g);
  }
  uint32_t ei = newEvent(Id(BuiltinEvent::Apply), to, source, credit, chain);
  Event &e = events_[ei];
  e.effect = effect;
  e.stacks = stacks;
  e.amount = stacks;
  e.life = life;
  addTags(e.tags, ef.tags);
  fromChain(e, f);
  if (life.time >= 0)
    addTags(e.tags, t_->tags[Id(BuiltinTag::Timed)].closure);
  e.varsFrom = uint32_t(givenVars_.size());
  for (const Given::Value &v : vars.values)
    givenVars_.push_back({v.name, v.value});
  e.varCount = uint32_t(vars.values.size());
  // The Apply carries its stacks as its amount: a before rule may change it.
  Refusal r = raiseEvent(ei);
  const Event &done = events_[ei];
  if (r == Refusal::None && made && merged) {
    if (done.made)
      ++*made;
    else
      ++*merged;
  }
  return r;
}

// Returns how many instances it took from; keptBy[refusal] counts those
// kept on, by what kept them (docs/readings.md 142). By stacks, what is kept
// on isn't taken, and the rest of the count goes on to the next.
int64_t Kernel::removeEffect(Id effect, Handle from, int64_t stacks, Id endTag, uint32_t chain,
                            pack::TagSet tags, pack::TagSet unless, uint32_t *keptBy,
                            const Frame *by) {
  if (!alive(from) || (stacks != kWhole && stacks <= 0))
    return 0;
  int64_t taken = 0;
  Scratch<uint32_t> list(scratchIds_);
  list->assign(held_[indexOf(from)].begin(), held_[indexOf(from)].end()); // oldest first
  for (uint32_t i : *list) {
    Instance &in = insts_[i];
    if (!in.live)
      continue;
    if (effect != kNoId && in.effect != effect)
      continue;
    if (tags) {
      TagBits tb;
      addTags(tb, t_->effects[in.effect].tags);
      if (!carriesAll(tb, tags) || (unless && carriesAny(tb, unless)))
        continue;
    }
    Taken t = stacks != kWhole ? takeStacks(i, stacks, endTag, chain, Taking::Stoppable, by)
                               : endInstance(i, endTag, chain, Taking::Stoppable, by);
    if (t.kept != Refusal::None) {
      if (keptBy)
        ++keptBy[uint32_t(t.kept)];
      continue;
    }
    ++taken;
    if (stacks != kWhole && (stacks -= t.stacks) <= 0)
      break;
  }
  return taken;
}

Refusal Kernel::raiseOn(Frame *f, Id event, Handle of, Handle by, pack::TagSet tagged,
                       uint32_t chain) {
  Handle credit = f ? f->roots[LEDGER_SLOT_CREDIT] : by;
  uint32_t ei = newEvent(event, of, by, credit ? credit : by, chain);
  Event &e = events_[ei];
  addTags(e.tags, tagged);
  fromChain(e, f);
  return raiseEvent(ei);
}

Handle Kernel::makeActor(Id archetype, Handle creator, const Given &withs, uint32_t chain,
                        const Frame *by) {
  // The lowest slot a destroyed actor left, else a new one (reading 157):
  // its row in each column starts as a new one's would.
  uint32_t i = takeFreeSlot();
  bool reused = i != kNoSlot;
  if (reused) {
    forgetSlot(i);
    uint32_t gen = nextGen(actors_[i].gen);
    actors_[i] = {};
    actors_[i].gen = gen;
  } else {
    i = uint32_t(actors_.size());
    actors_.push_back({});
    if (countingRefs_)
      actorRefs_.push_back(0);
  }
  auto fresh = [&](auto &column, size_t width, const auto &start) {
    if (reused)
      std::fill_n(column.begin() + size_t(i) * width, width, start);
    else
      column.resize(column.size() + width, start);
  };
  Actor &a = actors_[i];
  a.archetype = archetype;
  a.live = true;
  a.madeAt = now_;
  shapeMoved(handle(i, a.gen)); // in play from here; again once its links are set
  if (covering_ && archetype != kNoId)
    ++coverage_.made[archetype];
  Handle h = handle(i, a.gen);
  size_t links = t_->links.size();
  fresh(pools_, valueCount_, 0);
  fresh(poolAt_, valueCount_, 0); // pools' clocks count from the make
  fresh(poolMax_, valueCount_, 0);
  // What settles as moments end, kept only where the catalog has it.
  if (!ix_->worldDrifts.empty()) {
    fresh(poolRate_, valueCount_, 0);
    fresh(regenPeriod_, valueCount_, 0);
    fresh(refillPeriod_, valueCount_, 0);
  }
  if (!ix_->countBounds.empty()) {
    fresh(poolMin_, valueCount_, 0);
    fresh(boundsSettled_, valueCount_, 0);
  }
  if (!ix_->readerLinks.empty()) {
    fresh(readerLinkSeen_, ix_->readerLinks.size(), 0);
    fresh(linkReaders_, 1, std::vector<uint32_t>{});
  }
  if (followsSources())
    fresh(sourcedBy_, 1, std::vector<uint32_t>{});
  fresh(hasPool_, valueCount_, 0);
  fresh(poolVersion_, valueCount_, 0);
  fresh(poolDue_, valueCount_, -1);
  fresh(statCache_, valueCount_, 0);
  fresh(statEpoch_, valueCount_, 0);
  fresh(suspenders_, 1, 0);
  fresh(tagCache_, 1, TagBits{});
  fresh(tagEpoch_, 1, 0);
  fresh(clocks_, ix_->clockStats.size(), Clock{worldTime(), 0, kOne});
  fresh(links_, links, 0);
  fresh(overridden_, links, 0);
  fresh(held_, 1, std::vector<uint32_t>{});
  fresh(hearers_, 1, std::vector<Hearer>{});
  fresh(blockers_, 1, 0);
  // The creator's links as it reads them, its overrides too, unless set.
  if (creator && actor(creator))
    for (size_t l = 0; l < links; ++l)
      if (!t_->links[l].global)
        links_[size_t(i) * links + l] = linkOf(creator, Id(l));
  for (const Given::Value &w : withs.values)
    if (w.name & pack::kWithLink)
      links_[size_t(i) * links + (w.name & ~pack::kWithLink)] = w.value;
  const pack::Archetype &arch = t_->archetypes[archetype];
  Frame f{};
  f.roots[LEDGER_SLOT_HOLDER] = h;
  f.roots[LEDGER_SLOT_CREDIT] = h;
  for (uint32_t w = 0; w < arch.withCount; ++w) {
    const pack::ArchetypeValue &v = t_->archetypeValues[arch.withBegin + w];
    if (v.link != kNoId)
      links_[size_t(i) * links + v.link] = runBody(v.body, f);
  }
  for (size_t l = 0; l < links; ++l)
    refer(links_[size_t(i) * links + l]);
  // Pools start at their least, full ones at their maximum, a with's at its
  // amount, a create's past that.
  for (uint32_t p = 0; p < arch.poolCount; ++p)
    hasPool_[size_t(i) * valueCount_ + t_->idLists[arch.poolsBegin + p]] = 1;
  // Readers in slot order, as each settles (reading 157).
  if (std::any_of(ix_->readerPools.begin(), ix_->readerPools.end(),
                  [&](Id p) { return hasPool_[size_t(i) * valueCount_ + p]; })) {
    worldReaders_.insert(std::lower_bound(worldReaders_.begin(), worldReaders_.end(), i), i);
    listReader(i);
  }
  ++epoch_;
  shapeMoved(h);
  for (uint32_t p = 0; p < arch.poolCount; ++p) {
    Id pool = t_->idLists[arch.poolsBegin + p];
    size_t slot = size_t(i) * valueCount_ + pool;
    pools_[slot] = t_->values[pool].defaultValue ? t_->values[pool].defaultValue : poolLeast(h, pool);
    poolMax_[slot] = poolMost(h, pool);
  }
  Scratch<int64_t> filledTo(scratchHandles_); // each full pool's maximum as it filled
  for (uint32_t p = 0; p < arch.fullCount; ++p) {
    Id pool = t_->idLists[arch.fullBegin + p];
    filledTo->push_back(poolMost(h, pool));
    pools_[size_t(i) * valueCount_ + pool] = filledTo->back();
  }
  for (uint32_t w = 0; w < arch.withCount; ++w) {
    const pack::ArchetypeValue &v = t_->archetypeValues[arch.withBegin + w];
    if (v.value != kNoId)
      pools_[size_t(i) * valueCount_ + v.value] = runBody(v.body, f);
  }
  for (const Given::Value &w : withs.values)
    if (!(w.name & pack::kWithLink) && w.name < valueCount_ && hasPool_[size_t(i) * valueCount_ + w.name])
      pools_[size_t(i) * valueCount_ + w.name] = w.value;
  // Each pool starts within its bounds as its withs leave them: its maximum
  // then is the one it rises from.
  for (uint32_t p = 0; p < valueCount_; ++p)
    if (hasPool_[size_t(i) * valueCount_ + p]) {
      pools_[size_t(i) * valueCount_ + p] = clampPool(h, p, pools_[size_t(i) * valueCount_ + p]);
      poolMax_[size_t(i) * valueCount_ + p] = poolMost(h, p);
    }
  // Innate effects, each applied as content's apply is.
  for (uint32_t k = 0; k < arch.hasCount; ++k) {
    const pack::ArchetypeValue &v = t_->archetypeValues[arch.hasBegin + k];
    int64_t stacks = runBody(v.body, f);
    applyTo(nullptr, v.value, stacks, h, h, h, Lifetime{}, {}, chain, nullptr, nullptr);
  }
  // A full pool starts at the maximum its innate effects make: it rises with
  // its maximum as they go on (one that heals as its maximum rises has), unless
  // a with gives its amount (docs/readings.md).
  auto given = [&](Id pool) {
    for (uint32_t w = 0; w < arch.withCount; ++w)
      if (t_->archetypeValues[arch.withBegin + w].value == pool)
        return true;
    for (const Given::Value &w : withs.values)
      if (w.name == pool)
        return true;
    return false;
  };
  for (uint32_t p = 0; p < arch.fullCount && alive(h); ++p) {
    Id pool = t_->idLists[arch.fullBegin + p];
    int64_t rise = poolMost(h, pool) - (*filledTo)[p];
    if (rise <= 0 || given(pool) || t_->values[pool].rise == pack::Rise::Heal)
      continue;
    settlePool(h, pool);
    size_t slot = size_t(i) * valueCount_ + pool;
    pools_[slot] = clampPool(h, pool, pools_[slot] + rise);
  }
  if (arch.autoCount)
    addAutoActor(h);
  markTouched(h);
  uint32_t ce = newEvent(Id(BuiltinEvent::Create), h, creator, creator ? creator : h, chain);
  fromChain(events_[ce], by);
  addTags(events_[ce].tags, arch.tags);
  raiseEvent(ce);
  return h;
}

Refusal Kernel::destroyActor(Handle h, uint32_t chain, const Frame *by) {
  Actor *a = actor(h);
  if (!a || !a->live)
    return Refusal::Gone;
  uint32_t ei = newEvent(Id(BuiltinEvent::Destroy), h, 0, 0, chain);
  fromChain(events_[ei], by);
  if (Refusal r = raiseEvent(ei); r != Refusal::None)
    return r;
  touch(h);
  // Destroyed from then: what its effects' end steps do reads it so (no
  // query finds it, nothing lands on it). What it held is removed, and
  // hears it. Its links hold no one from here; its slot is free once
  // nothing refers to it (reading 157).
  actor(h)->live = false;
  if (countingRefs_)
    for (size_t l = 0; l < t_->links.size(); ++l)
      unrefer(links_[size_t(indexOf(h)) * t_->links.size() + l]);
  else
    countRefs();
  if (actorRefs_[indexOf(h)] == 0)
    releasing_.push_back(indexOf(h));
  ++epoch_;
  shapeMoved(h);
  Scratch<uint32_t> list(scratchIds_);
  list->assign(held_[indexOf(h)].begin(), held_[indexOf(h)].end());
  for (uint32_t i : *list)
    endInstance(i, Id(BuiltinTag::EndGone), chain);
  return Refusal::None;
}

bool Kernel::granted(Handle a, Id ability, Handle *grant, Id usingEffect) {
  const Actor *ac = actor(a);
  if (!ac)
    return false;
  // The newest working instance granting it, by name or by a var it holds.
  const auto &list = held_[indexOf(a)];
  for (auto it = list.rbegin(); it != list.rend(); ++it) {
    uint32_t i = *it;
    if (!working(i) || (usingEffect != kNoId && insts_[i].effect != usingEffect))
      continue;
    const pack::Effect &ef = t_->effects[insts_[i].effect];
    bool grants = false;
    for (uint32_t g = 0; g < ef.grantCount && !grants; ++g)
      grants = t_->idLists[ef.grantsBegin + g] == ability;
    for (uint32_t g = 0; g < ef.grantVarCount && !grants; ++g)
      grants = vars_[insts_[i].varsAt + t_->idLists[ef.grantVarsBegin + g]] == int64_t(ability) + 1;
    if (grants) {
      if (grant)
        *grant = instanceHandle(i);
      return true;
    }
  }
  if (usingEffect != kNoId || suspenders_[indexOf(a)] != 0)
    return false;
  const pack::Archetype &arch = t_->archetypes[ac->archetype];
  for (uint32_t g = 0; g < arch.grantCount; ++g)
    if (t_->idLists[arch.grantsBegin + g] == ability)
      return true;
  return false;
}

// An Apply's or a Remove's amount is its stacks: a change to the one is to
// the other.
void Kernel::stacksFollowAmount(Event *e) {
  if (e && (e->kind == Id(BuiltinEvent::Apply) || e->kind == Id(BuiltinEvent::Remove)))
    e->stacks = e->amount;
}

void Kernel::takePortion(Event &e, uint32_t p) {
  Portion &gone = e.portions[p];
  gone.amount = 0;
  gone.gone = true;
  // Its types leave the change's tags, but for those a portion still held
  // or the change itself (Damage, Heal …) carries.
  TagBits keep;
  for (BuiltinTag change : {BuiltinTag::Damage, BuiltinTag::Heal, BuiltinTag::Cost, BuiltinTag::Gain,
                    BuiltinTag::Loss, BuiltinTag::Set})
    addTags(keep, t_->tags[Id(change)].closure);
  for (uint32_t q = 0; q < e.portionCount; ++q)
    if (!e.portions[q].gone)
      for (uint32_t w = 0; w < t_->tagWords; ++w)
        keep.w[w] |= e.portions[q].tags.w[w];
  for (uint32_t w = 0; w < t_->tagWords; ++w)
    e.tags.w[w] &= ~(gone.tags.w[w] & ~keep.w[w]);
}

// A duration change naming a count of an event, and a lifetime counting
// that event: its own (an apply's for N EVENT) or its effect's lasts.
bool Kernel::countsAlike(const pack::Action &a, Id countEvent, Id countTag, Id effect) const {
  return countsNamed(countEvent, countTag, effect, a.b, a.b == kNoId ? namedTag(a.tags) : kNoId);
}

// Whether a count (an apply's event or tag, else its effect's filter) counts
// the event a line names: by its kind, or a pool's change by its tag.
bool Kernel::countsNamed(Id countEvent, Id countTag, Id effect, Id event, Id tag) const {
  if (countEvent == kNoId && countTag == kNoId) {
    const pack::Filter &counted = t_->effects[effect].lasts.countFilter;
    countEvent = counted.event;
    countTag = counted.tag;
  }
  return countEvent != kNoId ? event == countEvent : countTag != kNoId && tag == countTag;
}

// The one tag a line names where it names a change by its tag (`for 2
// Damage`), kNoId where it names none.
pack::Id Kernel::namedTag(pack::TagSet set) const {
  if (!set)
    return kNoId;
  const uint64_t *bits = t_->tagSet(set);
  for (uint32_t w = 0; w < t_->tagWords; ++w)
    if (bits[w])
      return Id(w * 64 + uint32_t(__builtin_ctzll(bits[w])));
  return kNoId;
}

// A number a step works out past what a number holds is journaled as the
// step ends, whichever of its ways it ends by.
int32_t Kernel::action(Frame &f, const pack::Action &a, const int64_t *args) {
  NumberFault fault = NumberFault::None;
  int32_t status = runAction(f, a, args, fault);
  if (fault != NumberFault::None)
    journalFault(fault);
  return status;
}

int32_t Kernel::runAction(Frame &f, const pack::Action &a, const int64_t *args, NumberFault &fault) {
  Scratch<int64_t> scratchTargets(scratchHandles_);
  std::vector<Handle> &targets = *scratchTargets;
  uint32_t k = a.queryArgCount;
  Handle holder = f.c.locals[LEDGER_SLOT_HOLDER];
  Handle credit = f.c.locals[LEDGER_SLOT_CREDIT];
  auto withs = [&](uint32_t from) {
    Given g;
    for (uint32_t w = 0; w < a.withCount; ++w)
      g.values.push_back({t_->idLists[a.withBegin + w], args[from + w]});
    return g;
  };
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
  Event *hand = f.event >= 0 ? &events_[size_t(f.event)] : nullptr;
  // A before rule's change to the amount acts on the portions it names.
  auto eachPortion = [&](auto fn) {
    if (!hand)
      return;
    if (hand->portionCount == 0) {
      hand->amount = fn(hand->amount);
      return;
    }
    // A portion an earlier rule took is no longer held: nothing acts on it
    // (reading 103).
    for (uint32_t p = 0; p < hand->portionCount; ++p)
      if ((f.portions >> p & 1) && !hand->portions[p].gone)
        hand->portions[p].amount = fn(hand->portions[p].amount);
  };
  auto handAmount = [&]() {
    if (!hand)
      return int64_t(0);
    if (hand->portionCount == 0)
      return hand->amount;
    int64_t s = 0;
    for (uint32_t p = 0; p < hand->portionCount; ++p)
      if ((f.portions >> p & 1) && !hand->portions[p].gone)
        s = add(s, hand->portions[p].amount, fault);
    return s;
  };
  // Pricing a cost runs only the changes to the amount.
  if (pricing_ && a.op != ActionOp::Scale && a.op != ActionOp::Reduce &&
      a.op != ActionOp::AddAmount && a.op != ActionOp::AtMost && a.op != ActionOp::AtLeast &&
      a.op != ActionOp::Prevent && a.op != ActionOp::Convert)
    return LEDGER_GO;
  switch (a.op) {
  case ActionOp::Deal:
  case ActionOp::Heal: {
    targetsOf(f, a, args, targets);
    Room<Portion, kMaxPortions> portions; // the n it holds, each made as it is filled
    uint32_t n = std::min(a.listCount, kMaxPortions);
    for (uint32_t p = 0; p < n; ++p) {
      new (&portions[p]) Portion{};
      portions[p].amount = args[k++];
      addTags(portions[p].tags, t_->idLists[a.listBegin + p]);
    }
    int64_t upTo = (a.flags & kHasUpTo) ? args[k++] : INT64_MAX;
    Handle source = f.c.locals[LEDGER_SLOT_HOLDER];
    if (a.flags & kHasFrom) {
      source = args[k++];
      credit = source;
    } else if (a.flags & kSourceless) {
      source = 0;
    }
    Given props = withs(k);
    Id tag = a.op == ActionOp::Deal ? Id(BuiltinTag::Damage) : Id(BuiltinTag::Heal);
    for (Handle t : targets)
      changePool(&f, tag, t_->damagePool, t, source, credit, &portions[0], n, upTo, f.chain, props);
    return LEDGER_GO;
  }
  case ActionOp::Gain:
  case ActionOp::Lose:
  case ActionOp::SetPool: {
    targetsOf(f, a, args, targets);
    Portion portion;
    portion.amount = args[k++];
    addTags(portion.tags, a.tags);
    int64_t upTo = (a.flags & kHasUpTo) ? args[k++] : INT64_MAX;
    Given props = withs(k);
    Id tag = a.op == ActionOp::Gain   ? Id(BuiltinTag::Gain)
             : a.op == ActionOp::Lose ? Id(BuiltinTag::Loss)
                                      : Id(BuiltinTag::Set);
    for (Handle t : targets)
      changePool(&f, tag, a.a, t, holder, credit, &portion, 1, upTo, f.chain, props);
    return LEDGER_GO;
  }
  case ActionOp::Apply: {
    targetsOf(f, a, args, targets);
    int64_t stacks = (a.flags & kHasStacks) ? args[k++] : kOne;
    Lifetime life;
    if (a.flags & kForTime)
      life.time = args[k++];
    else if (a.flags & kForTurns)
      life.turns = args[k++];
    else if (a.flags & kForCount) {
      life.count = args[k++];
      life.countEvent = a.b;
      life.countTag = a.b == kNoId ? namedTag(a.tags) : kNoId;
    }
    Handle source = holder;
    if (a.flags & kHasFrom) {
      source = args[k++];
      credit = source;
    }
    Given vars = withs(k);
    uint32_t made = 0, merged = 0, refused = 0;
    for (Handle t : targets) {
      Refusal r = applyTo(&f, a.a, stacks, t, source, credit, life, vars, f.chain, &made, &merged);
      refused += r != Refusal::None;
      ++byReason[uint32_t(r)];
    }
    results(made + merged, made, merged, refused);
    return LEDGER_GO;
  }
  case ActionOp::RemoveEffect:
  case ActionOp::RemoveTag:
  case ActionOp::RemoveCooldown:
  case ActionOp::RemoveHandle: {
    targetsOf(f, a, args, targets);
    Handle which = a.op == ActionOp::RemoveHandle ? args[k++] : 0;
    // A cooldown's effect: its ability's, named or held in an operand.
    Id effect = a.op == ActionOp::RemoveEffect ? a.a : kNoId;
    if (a.op == ActionOp::RemoveCooldown) {
      int64_t ability = a.a != kNoId ? int64_t(a.a) + 1 : args[k++];
      if (ability > 0 && size_t(ability) <= t_->abilities.size())
        effect = t_->abilities[size_t(ability - 1)].cooldownEffect;
    }
    int64_t stacks = (a.flags & kHasCount) ? args[k++] : kWhole;
    uint32_t done = 0, refused = 0;
    bool self = false;
    Id endTag = Id(BuiltinTag::EndRemoved);
    if (a.op == ActionOp::RemoveHandle) {
      Instance *in = instance(which);
      if (!in) {
        refused = 1;
        ++byReason[uint32_t(Refusal::Gone)]; // its instance has ended
      } else {
        self = which == f.instance;
        if (self)
          endTag = Id(BuiltinTag::EndBroken);
        if (stacks == kWhole || stacks > 0) {
          Taken t = stacks == kWhole
                        ? endInstance(indexOf(which), endTag, f.chain, Taking::Stoppable, &f)
                        : takeStacks(indexOf(which), stacks, endTag, f.chain, Taking::Stoppable, &f);
          (t.kept != Refusal::None ? refused : done) = 1;
          if (t.kept != Refusal::None)
            ++byReason[uint32_t(t.kept)];
        }
        self = self && !insts_[indexOf(which)].live;
      }
    } else {
      pack::TagSet carrying = a.op == ActionOp::RemoveTag ? a.tags : 0;
      if (a.op == ActionOp::RemoveTag && (a.flags & kTagInVar)) {
        // The tag a var holds; one holding none takes nothing off.
        Id tag = tagOf(f, a, a.a);
        carrying = tag == kNoId ? 0 : t_->tags[tag].closure;
        if (tag == kNoId)
          targets.clear();
      }
      for (Handle t : targets) {
        if (a.op == ActionOp::RemoveCooldown && effect == kNoId)
          continue;
        uint32_t keptBy[uint32_t(Refusal::Count)] = {};
        done += uint32_t(removeEffect(effect, t, stacks, endTag, f.chain, carrying,
                                      a.op == ActionOp::RemoveTag ? a.c : 0, keptBy, &f));
        for (uint32_t r = 0; r < uint32_t(Refusal::Count); ++r) {
          refused += keptBy[r];
          byReason[r] += keptBy[r];
        }
      }
    }
    results(done, 0, 0, refused);
    return self ? LEDGER_STOP : LEDGER_GO;
  }
  case ActionOp::SetInstanceVar: {
    // By name: each effect declares its vars in its own order.
    Instance *in = instance(args[0]);
    if (!in)
      return LEDGER_GO;
    const pack::Effect &ef = t_->effects[in->effect];
    // A var may be what blocks an auto of its holder's.
    if (ix_->blocksByVar[in->effect])
      wakeAutos(in->holder);
    for (uint32_t v = 0; v < ef.varCount; ++v)
      if (t_->vars[ef.varsBegin + v].name == a.a) {
        int64_t &var = vars_[in->varsAt + v];
        var = a.b == 0 ? args[1] : a.b == 1 ? add(var, args[1], fault) : sub(var, args[1], fault);
      }
    if (countingRefs_ && anyActorVars_)
      recountVars(indexOf(args[0]));
    return LEDGER_GO;
  }
  case ActionOp::Raise: {
    targetsOf(f, a, args, targets);
    Handle by = (a.flags & kHasBy) ? args[k++] : holder;
    for (Handle t : targets)
      raiseOn(&f, a.a, t, by, a.tags, f.chain);
    return LEDGER_GO;
  }
  case ActionOp::Create: {
    int64_t count = (a.flags & kHasCount) ? args[k++] / kOne : 1;
    Given g = withs(k);
    // First a Make by the creator, its amount the count, which a before rule may change.
    uint32_t me = newEvent(Id(BuiltinEvent::Make), holder, holder, credit, f.chain);
    events_[me].amount = count * kOne;
    addTags(events_[me].tags, t_->archetypes[a.a].tags);
    fromChain(events_[me], &f);
    if (raiseEvent(me) != Refusal::None)
      return LEDGER_GO;
    count = events_[me].amount / kOne;
    Handle last = 0;
    for (int64_t i = 0; i < count && i < 1000; ++i)
      last = makeActor(a.a, holder, g, f.chain, &f);
    if (a.flags & kHasAs)
      f.c.locals[a.resultSlot] = last;
    return LEDGER_GO;
  }
  case ActionOp::Destroy:
    targetsOf(f, a, args, targets);
    for (Handle t : targets)
      destroyActor(t, f.chain, &f);
    return LEDGER_GO;
  case ActionOp::Revive: {
    targetsOf(f, a, args, targets);
    bool hasAt = a.flags & kHasAmount;
    int64_t at = hasAt ? args[k++] : 0;
    for (Handle t : targets) {
      Actor *ac = actor(t);
      if (!ac || !ac->live || !ac->fallen)
        continue;
      touch(t);
      ac->fallen = false;
      ++epoch_;
      shapeMoved(t);
      Id pool = kNoId;
      for (uint32_t i : held_[indexOf(t)])
        if (t_->effects[insts_[i].effect].fallsPool != kNoId)
          pool = t_->effects[insts_[i].effect].fallsPool;
      if (pool == kNoId)
        continue;
      Portion p;
      p.amount = std::max(hasAt ? at : poolMost(t, pool), add(poolLeast(t, pool), kOne, fault));
      changePool(&f, Id(BuiltinTag::Set), pool, t, holder, credit, &p, 1, INT64_MAX, f.chain, {});
    }
    return LEDGER_GO;
  }
  case ActionOp::Cast: {
    // What it casts: an ability named, the rule's effect's grants, or the
    // activation in hand again.
    Scratch<int64_t> abilities(scratchHandles_);
    Given g;
    if (a.flags & kAgain) {
      if (hand && hand->ability != kNoId) {
        abilities->push_back(int64_t(hand->ability) + 1);
        // At the targets it named, a list whole, each as often as named.
        targets.assign(eventTargets_.begin() + hand->targetsAt,
                       eventTargets_.begin() + hand->targetsAt + hand->targetCount);
        for (uint32_t p = 0; p < hand->propCount; ++p)
          if (hand->props[p].first == kNoId)
            g.values.push_back({hand->props[p].first, hand->props[p].second});
      }
    } else if (a.flags & kGranted) {
      targetsOf(f, a, args, targets);
      const pack::Effect &ef = t_->effects[a.a];
      for (uint32_t i = 0; i < ef.grantCount; ++i) {
        Id ab = t_->idLists[ef.grantsBegin + i];
        TagBits tb;
        addTags(tb, t_->abilities[ab].tags);
        if (!a.c || carriesAll(tb, a.c))
          abilities->push_back(int64_t(ab) + 1);
      }
      g = withs(k);
    } else {
      targetsOf(f, a, args, targets);
      abilities->push_back(args[k++]);
      g = withs(k);
    }
    uint32_t done = 0, refused = 0;
    for (int64_t ability : *abilities) {
      if (ability <= 0 || size_t(ability) > t_->abilities.size())
        continue;
      Id ab = Id(ability - 1);
      // Once at each target for an ability taking one; once, whatever at
      // names, for one taking none or a list.
      const pack::TargetKind kind = t_->abilities[ab].target;
      // A query finding no one casts it at no one: none at all.
      bool foundNone = targets.empty() && a.query != kNoId &&
                       t_->queries[a.query].kind != pack::QueryKind::Actor;
      if (kind == pack::TargetKind::One && foundNone)
        continue;
      bool eachTarget = kind == pack::TargetKind::One && !targets.empty();
      Scratch<int64_t> at(scratchHandles_);
      for (size_t c = 0; c < (eachTarget ? targets.size() : 1); ++c) {
        at->clear();
        if (eachTarget)
          at->push_back(targets[c]);
        else if (kind == pack::TargetKind::Many)
          at->assign(targets.begin(), targets.end());
        Outcome o = (a.flags & kAgain) ? Outcome{} : checkProps(ab, g, false, &f);
        if (o.ok())
          o = check(holder, ab, *at, true, a.flags & kFree, a.flags & kNoCooldown, g, &f);
        Refusal r = o.ok() ? castAbility(&f, holder, ab, *at, g, a.flags & kFree,
                                         a.flags & kNoCooldown, a.tags, f.chain)
                           : o.refusal;
        if (covering_ && !o.ok())
          ++coverage_.refused[ab];
        if (r == Refusal::None)
          ++done;
        else
          ++refused;
        ++byReason[uint32_t(r)];
      }
    }
    results(done, 0, 0, refused);
    return LEDGER_GO;
  }
  case ActionOp::SetLink: {
    targetsOf(f, a, args, targets);
    Handle to = (a.flags & kToNone) ? 0 : args[k++];
    if (t_->links[a.a].global) {
      if (!ix_->linkBounds.empty())
        watchReadersOf(0);
      setLink(globals_[a.a], to, true);
      ++epoch_;
      shapeMoved(0);
      ++globalsEpoch_;
      return LEDGER_GO;
    }
    for (Handle t : targets)
      if (actor(t)) {
        touch(t);
        setLink(links_[size_t(indexOf(t)) * t_->links.size() + a.a], to, alive(t));
        shapeMoved(t);
      }
    return LEDGER_GO;
  }
  case ActionOp::ScaleDuration:
  case ActionOp::AddDuration:
  case ActionOp::AtMostDuration: {
    int64_t amount = args[k++];
    Handle on = (a.flags & kHasOn) ? args[k++] : 0;
    if (on) {
      Instance *in = instance(on);
      if (!in)
        return LEDGER_GO;
      // What one held instance has left, in the unit the change names.
      auto change = [&](int64_t left) {
        return a.op == ActionOp::ScaleDuration ? mul(left, amount, fault)
               : a.op == ActionOp::AddDuration ? add(left, amount, fault)
                                               : std::min(left, amount);
      };
      // A scale, whatever it counts; else only the unit it names, and a
      // count only of the event it names.
      bool scale = a.op == ActionOp::ScaleDuration;
      // A count scaled is made whole as the change says, up if it says nothing.
      auto whole = [&](int64_t left) {
        int64_t v = change(left * kOne);
        if (scale)
          v = (a.flags & kRoundFloor)   ? floorWhole(v, fault)
              : (a.flags & kRoundRound) ? roundWhole(v, fault)
                                        : ceilWhole(v, fault);
        return std::max<int64_t>(0, v / kOne);
      };
      if ((scale || (a.flags & kForTurns)) && in->turnsLeft >= 0)
        in->turnsLeft = whole(in->turnsLeft);
      if ((scale || ((a.flags & kForCount) && countsAlike(a, in->countEvent, in->countTag, in->effect))) &&
          in->countLeft >= 0)
        in->countLeft = whole(in->countLeft);
      if ((scale || !(a.flags & (kForTurns | kForCount))) && in->expiresAt >= 0) {
        int64_t nowOnClock = clockNow(in->holder, in->clock);
        in->expiresAt =
            timeAfter(nowOnClock, std::max<int64_t>(0, change(in->expiresAt - nowOnClock)));
        schedule(indexOf(on));
      }
      return LEDGER_GO;
    }
    if (!hand || hand->kind != Id(BuiltinEvent::Apply))
      return LEDGER_GO;
    Lifetime &life = hand->life;
    if (a.op == ActionOp::ScaleDuration) {
      // Whatever it counts, each made whole as it says, up if it says nothing.
      for (int64_t *d : {&life.time, &life.turns, &life.count}) {
        if (*d < 0)
          continue;
        int64_t v = mul(*d, amount, fault);
        v = (a.flags & kRoundFloor)   ? floorWhole(v, fault)
            : (a.flags & kRoundRound) ? roundWhole(v, fault)
                                      : ceilWhole(v, fault);
        *d = std::max<int64_t>(0, v);
      }
      return LEDGER_GO;
    }
    // In the unit it names; an Apply counting nothing in that unit is left alone.
    int64_t *d = (a.flags & kForTurns)   ? &life.turns
                 : (a.flags & kForCount) ? &life.count
                                         : &life.time;
    if (*d < 0 || (d == &life.count && !countsAlike(a, life.countEvent, life.countTag, hand->effect)))
      return LEDGER_GO;
    if (a.op == ActionOp::AddDuration)
      *d = std::max<int64_t>(0, add(*d, d == &life.time ? amount : truncWhole(amount), fault));
    else
      *d = std::max<int64_t>(0, std::min(*d, amount));
    return LEDGER_GO;
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
          any |= hand->portions[p].amount != 0;
        if (!any)
          hand->prevented = true;
      } else {
        hand->prevented = true;
      }
      // What it leaves: nothing; event.sent keeps what was sent.
      if (hand->prevented)
        hand->amount = 0;
      if (a.resultSlot != kNoId)
        f.c.locals[a.resultSlot] = took;
      // chain: its later events on the rule's holder, whatever the filter
      // stands it as (of, by, credited).
      if (a.flags & kChain)
        preventedChains_.push_back({holder, hand->chain});
    }
    return LEDGER_GO;
  case ActionOp::Convert: {
    Id to = tagOf(f, a, a.b);
    if (!hand || to == kNoId)
      return LEDGER_GO;
    uint32_t into = kMaxPortions;
    for (uint32_t p = 0; p < hand->portionCount; ++p)
      if ((hand->portions[p].tags.w[to / 64] >> (to % 64)) & 1)
        into = p;
    for (uint32_t p = 0; p < hand->portionCount; ++p) {
      Portion &from = hand->portions[p];
      if (!((from.tags.w[a.a / 64] >> (a.a % 64)) & 1) || p == into)
        continue;
      f.portion = int32_t(p);
      int64_t share = runBody(a.c, f);
      f.portion = -1;
      int64_t moved = mul(from.amount, share, fault);
      from.amount = sub(from.amount, moved, fault);
      if (into == kMaxPortions && hand->portionCount < kMaxPortions) {
        into = hand->portionCount++;
        hand->portions[into] = Portion{};
        addTags(hand->portions[into].tags, t_->tags[to].closure);
      }
      if (into < kMaxPortions) {
        hand->portions[into].amount = add(hand->portions[into].amount, moved, fault);
        hand->portions[into].gone = false;
      }
    }
    for (uint32_t p = 0; p < hand->portionCount; ++p)
      if (!hand->portions[p].gone)
        for (uint32_t w = 0; w < t_->tagWords; ++w)
          hand->tags.w[w] |= hand->portions[p].tags.w[w];
    // What it wholly moved is no longer of its old type: the defences after
    // it read the new types.
    for (uint32_t p = 0; p < hand->portionCount; ++p)
      if (hand->portions[p].amount == 0 && !hand->portions[p].gone &&
          ((hand->portions[p].tags.w[a.a / 64] >> (a.a % 64)) & 1) && p != into)
        takePortion(*hand, p);
    return LEDGER_GO;
  }
  case ActionOp::Scale: {
    if (hand && hand->portionCount > 0) {
      for (uint32_t p = 0; p < hand->portionCount; ++p)
        if (f.portions >> p & 1) {
          f.portion = int32_t(p);
          int64_t factor = runBody(a.c, f);
          f.portion = -1;
          hand->portions[p].amount = mul(hand->portions[p].amount, factor, fault);
        }
    } else if (hand) {
      hand->amount = mul(hand->amount, runBody(a.c, f), fault);
    }
    stacksFollowAmount(hand);
    return LEDGER_GO;
  }
  case ActionOp::AddAmount: {
    int64_t more = args[k++];
    if (!hand)
      return LEDGER_GO;
    // A tag var holding no tag adds as a plain add does.
    Id as = tagOf(f, a, a.a);
    if (as != kNoId && hand->portionCount > 0) {
      uint32_t into = kMaxPortions;
      for (uint32_t p = 0; p < hand->portionCount; ++p)
        if ((hand->portions[p].tags.w[as / 64] >> (as % 64)) & 1)
          into = p;
      if (into == kMaxPortions && hand->portionCount < kMaxPortions) {
        into = hand->portionCount++;
        hand->portions[into] = Portion{};
        addTags(hand->portions[into].tags, t_->tags[as].closure);
        addTags(hand->tags, t_->tags[as].closure);
      }
      if (into < kMaxPortions) {
        hand->portions[into].amount = add(hand->portions[into].amount, more, fault);
        if (hand->portions[into].gone) {
          hand->portions[into].gone = false;
          for (uint32_t w = 0; w < t_->tagWords; ++w)
            hand->tags.w[w] |= hand->portions[into].tags.w[w];
        }
      }
      return LEDGER_GO;
    }
    bool first = true;
    eachPortion([&](int64_t v) {
      if (!first)
        return v;
      first = false;
      return add(v, more, fault);
    });
    stacksFollowAmount(hand);
    return LEDGER_GO;
  }
  case ActionOp::Reduce: {
    int64_t by = args[k++];
    // Taken from the portions it acts on, in order, not below 0.
    if (hand && hand->portionCount > 0) {
      for (uint32_t p = 0; p < hand->portionCount && by > 0; ++p)
        if (f.portions >> p & 1) {
          int64_t take = std::min(by, hand->portions[p].amount);
          hand->portions[p].amount -= take;
          by -= take;
        }
    } else if (hand) {
      hand->amount = std::max<int64_t>(0, sub(hand->amount, by, fault));
    }
    stacksFollowAmount(hand);
    return LEDGER_GO;
  }
  case ActionOp::AtMost: {
    int64_t cap = args[k++];
    int64_t total = handAmount();
    if (total > cap) {
      int64_t over = sub(total, cap, fault);
      if (hand && hand->portionCount > 0) {
        for (int p = int(hand->portionCount) - 1; p >= 0 && over > 0; --p)
          if (f.portions >> p & 1) {
            int64_t take = std::min(over, hand->portions[p].amount);
            hand->portions[p].amount -= take;
            over -= take;
          }
      } else if (hand) {
        hand->amount = cap;
      }
    }
    stacksFollowAmount(hand);
    return LEDGER_GO;
  }
  case ActionOp::AtLeast: {
    int64_t floor = args[k++];
    int64_t total = handAmount();
    if (total < floor && hand) {
      if (hand->portionCount > 0) {
        for (uint32_t p = 0; p < hand->portionCount; ++p)
          if ((f.portions >> p & 1) && !hand->portions[p].gone) {
            hand->portions[p].amount = add(hand->portions[p].amount, sub(floor, total, fault), fault);
            break;
          }
      } else {
        hand->amount = floor;
      }
    }
    stacksFollowAmount(hand);
    return LEDGER_GO;
  }
  case ActionOp::SetProp: {
    int64_t v = args[k++];
    if (!hand)
      return LEDGER_GO;
    setProp(*hand, a.a, v);
    // Everything in its chain reads it: the events it took its properties
    // from, which what the chain raises later takes them from.
    for (int64_t from = hand->propsFrom; from >= 0;) {
      Event &up = events_[size_t(from)];
      if (up.chain != hand->chain)
        break;
      setProp(up, a.a, v);
      from = up.propsFrom < from ? up.propsFrom : -1;
    }
    return LEDGER_GO;
  }
  case ActionOp::Absorb: {
    if (!hand)
      return LEDGER_GO;
    int64_t limit = (a.flags & kHasUpTo) ? args[k++] : INT64_MAX;
    int64_t can = limit;
    if (a.flags & kIntoVar)
      can = std::min(can, std::max<int64_t>(0, f.c.vars[a.a]));
    else if (a.flags & kIntoPool)
      can = std::min(can, std::max<int64_t>(0, poolNow(holder, a.a) - poolLeast(holder, a.a)));
    int64_t total = handAmount();
    int64_t took = std::min(can, total);
    int64_t left = took;
    eachPortion([&](int64_t v) {
      int64_t t = std::min(left, v);
      left -= t;
      return v - t;
    });
    if (a.flags & kIntoVar) {
      f.c.vars[a.a] = sub(f.c.vars[a.a], took, fault);
    } else if (a.flags & kIntoPool && took > 0) {
      Portion p;
      p.amount = took;
      changePool(&f, Id(BuiltinTag::Loss), a.a, holder, holder, credit, &p, 1, INT64_MAX,
                 f.chain, {});
    }
    if (a.resultSlot != kNoId)
      f.c.locals[a.resultSlot] = took;
    stacksFollowAmount(hand);
    return LEDGER_GO;
  }
  case ActionOp::Redirect: {
    // A Remove takes an instance off its own holder: there is nowhere to
    // send it on, so it goes on as it came (docs/readings.md 143).
    if (!hand || hand->kind == Id(BuiltinEvent::Remove))
      return LEDGER_GO;
    Handle to = (a.flags & kHasOn) ? args[k++] : 0;
    // A rule naming some of a change's portions sends those alone on, once
    // the rest, which the rules after it meet, has landed here.
    bool part = false;
    if (hand->portionCount > 0 && f.portions != ~0u)
      for (uint32_t p = 0; p < hand->portionCount; ++p)
        part |= !(f.portions >> p & 1) && !hand->portions[p].gone;
    if (part && !((a.flags & kHasOn) && to == 0)) {
      uint32_t ei = uint32_t(f.event);
      uint32_t r = newEvent(hand->kind, hand->subject, hand->source, hand->credit, hand->chain);
      Event &sent = events_[r];
      sent = events_[ei];
      Event &left = events_[ei];
      for (uint32_t p = 0; p < left.portionCount; ++p) {
        if (f.portions >> p & 1)
          takePortion(left, p);
        else
          takePortion(sent, p);
      }
      if (to)
        sent.subject = to;
      else
        sent.pool = a.a;
      if (f.creditHolder)
        sent.credit = f.c.locals[LEDGER_SLOT_CREDIT];
      sentOn_.push_back({ei, r});
      return LEDGER_GO;
    }
    if (a.flags & kHasOn)
      hand->redirectTo = to;
    else
      hand->redirectPool = a.a;
    if (f.creditHolder)
      hand->credit = f.c.locals[LEDGER_SLOT_CREDIT];
    return LEDGER_GO;
  }
  }
  return LEDGER_GO;
}

} // namespace ledger::rt
