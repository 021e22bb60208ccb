// Orders: an ability checked as the reference orders its checks, then paid,
// raised and run; and the host's other orders, each refused by name before
// anything moves.
#include "kernel.h"

#include "number.h"

#include <algorithm>

namespace ledger::rt {

using pack::BuiltinEvent;
using pack::BuiltinTag;
using pack::kNoId;

namespace {
Outcome refused(Refusal r, std::string text = {}) {
  Outcome o;
  o.refusal = r;
  o.text = std::move(text);
  return o;
}
} // namespace

// Which part of an ability's target clause refuses an actor, if any: an
// order's check words the refusal from it, an auto looking through the
// actors in play only asks whether one is taken.
Kernel::ClauseMiss Kernel::clauseMiss(Handle caster, const pack::Ability &ab, Handle t) {
  if (!alive(t))
    return ClauseMiss::Gone;
  if ((ab.side == pack::Side::Enemy && !enemies(t, caster)) ||
      (ab.side == pack::Side::Ally && !allies(t, caster)))
    return ClauseMiss::Side;
  if (!ab.targetHaving && !ab.targetUnless)
    return ClauseMiss::None;
  TagBits tb = tagsOf(t);
  if (ab.targetHaving && !carriesAll(tb, ab.targetHaving))
    return ClauseMiss::Having;
  if (ab.targetUnless && carriesAny(tb, ab.targetUnless))
    return ClauseMiss::Unless;
  return ClauseMiss::None;
}

// The checks of an order that read no target: the actor, its grant (the
// instance granting it, into `grant`), what blocks it, its cooldown.
Outcome Kernel::checkCaster(Handle a, Id ability, bool forCast, bool noCooldown, Id usingEffect,
                           Handle &grant) {
  Actor *ac = actor(a);
  if (!ac || !ac->live || ac->fallen)
    return refused(Refusal::Gone);
  const pack::Ability &ab = t_->abilities[ability];
  if (!forCast && !granted(a, ability, &grant, usingEffect))
    return refused(Refusal::NotGranted);
  // What it makes: an Activate carrying the ability's tags.
  {
    Event probe;
    probe.kind = Id(BuiltinEvent::Activate);
    probe.subject = a;
    probe.source = a;
    addTags(probe.tags, ab.tags);
    if (blocks(probe))
      return refused(Refusal::Blocked);
  }
  if (!noCooldown && ab.cooldownEffect != kNoId && holds(a, ab.cooldownEffect))
    return refused(Refusal::OnCooldown);
  return {};
}

// The checks of an order, in the order the reference gives them: the actor,
// its grant, what blocks it, its cooldown, its targets, its requirements,
// then its costs, none of them moving anything.
Outcome Kernel::check(Handle a, Id ability, const std::vector<Handle> &targets, bool forCast,
                     bool free, bool noCooldown, const Given &given, const Frame *parent,
                     bool targetsNamed, Id usingEffect) {
  Handle grant = 0;
  if (Outcome o = checkCaster(a, ability, forCast, noCooldown, usingEffect, grant); !o.ok())
    return o;
  return checkOrder(a, ability, targets, free, given, parent, targetsNamed, grant);
}

// The checks of an order past its caster's: its targets, its requirements,
// its costs; `grant` the instance granting it, as checkCaster found.
Outcome Kernel::checkOrder(Handle a, Id ability, const std::vector<Handle> &targets, bool free,
                          const Given &given, const Frame *parent, bool targetsNamed,
                          Handle grant) {
  const pack::Ability &ab = t_->abilities[ability];
  // Its target clause.
  auto clauseWords = [&](const char *word, pack::TagSet set) {
    std::string s = word;
    const uint64_t *bits = t_->tagSet(set);
    for (Id g = 0; g < t_->tags.size(); ++g)
      if (bits[g / 64] >> (g % 64) & 1)
        s += " " + std::string(t_->name(t_->tags[g].name));
    return s;
  };
  auto fits = [&](Handle t, uint32_t element) -> Outcome {
    ClauseMiss miss = clauseMiss(a, ab, t);
    if (miss == ClauseMiss::None)
      return {};
    if (miss == ClauseMiss::Gone)
      return refused(Refusal::Gone);
    std::string words = ab.side == pack::Side::Enemy ? "enemy" : "ally";
    if (miss == ClauseMiss::Having)
      words = clauseWords("having", ab.targetHaving);
    else if (miss == ClauseMiss::Unless)
      words = clauseWords("unless", ab.targetUnless);
    Outcome o = refused(Refusal::BadTarget, words);
    o.element = element;
    return o;
  };
  switch (targetsNamed ? ab.target : pack::TargetKind::None) {
  case pack::TargetKind::None:
  case pack::TargetKind::Self:
    if (targetsNamed && !targets.empty() && !(targets.size() == 1 && targets[0] == a))
      return refused(Refusal::BadTarget, "self");
    break;
  case pack::TargetKind::One:
    if (targets.empty())
      return refused(Refusal::NoTarget);
    if (targets.size() > 1)
      return refused(Refusal::BadTarget, "one");
    if (Outcome o = fits(targets[0], 0); !o.ok())
      return o;
    break;
  case pack::TargetKind::Many: {
    if (ab.upTo ? targets.size() > ab.targetCount : targets.size() != ab.targetCount)
      return refused(Refusal::BadTarget, (ab.upTo ? "up to " : "") + std::to_string(ab.targetCount));
    for (uint32_t i = 0; i < targets.size(); ++i) {
      if (ab.distinct && std::find(targets.begin(), targets.begin() + i, targets[i]) !=
                             targets.begin() + i) {
        Outcome o = refused(Refusal::BadTarget, "distinct");
        o.element = i + 1;
        return o;
      }
      if (Outcome o = fits(targets[i], i + 1); !o.ok())
        return o;
    }
    break;
  }
  default:
    break;
  }
  // Requirements and costs read the order as its Activate will carry it (its
  // X, its properties, its target); the probe is gone as the check ends.
  struct Probe {
    StableList<Event> &events;
    size_t mark;
    ~Probe() { events.truncate(mark); }
  } probe{events_, events_.size()};
  Frame f{};
  f.roots[LEDGER_SLOT_HOLDER] = a;
  f.roots[LEDGER_SLOT_SOURCE] = a;
  f.roots[LEDGER_SLOT_CREDIT] = a;
  f.roots[LEDGER_SLOT_TARGET] =
      targets.empty() ? (ab.target == pack::TargetKind::Self ? a : 0) : targets[0];
  f.targets = &targets;
  f.grant = grant;
  f.event = f.propsEvent =
      activateEvent(parent, a, ability, targets, given, 0, parent ? parent->chain : 0, grant);
  for (uint32_t r = 0; r < ab.requireCount; ++r) {
    const pack::Requirement &req = t_->requirements[ab.requiresBegin + r];
    if (runBody(req.body, f) != 0)
      continue;
    Outcome o = refused(Refusal::Requirement, req.text == kNoId ? "" : std::string(t_->name(req.text)));
    if (req.leftBody != kNoId) {
      o.hasNumbers = true;
      o.have = runBody(req.leftBody, f);
      o.need = runBody(req.rightBody, f);
    }
    return o;
  }
  if (!free) {
    // Each cost against its pool at its turn: what the costs before it bill
    // on that pool is spoken for (docs/readings.md).
    Scratch<int64_t> billed(scratchHandles_); // payer, pool, amount
    for (uint32_t c = 0; c < ab.costCount; ++c) {
      const pack::Cost &cost = t_->costs[ab.costsBegin + c];
      Handle payer = cost.link != kNoId ? linkOf(a, cost.link) : a;
      if (!alive(payer) || !hasPool(payer, cost.pool))
        return refused(Refusal::NoPool);
      // A cost its payer blocks can't be paid: the order is refused before
      // anything moves (docs/readings.md 123).
      if (costBlocked(payer, cost.pool, a, ability, f.propsEvent))
        return refused(Refusal::Blocked);
      int64_t amount = std::max<int64_t>(
          0, price(payer, cost.pool, runBody(cost.amountBody, f), a, ability, f.propsEvent));
      int64_t have = poolNow(payer, cost.pool) - poolLeast(payer, cost.pool);
      for (size_t k = 0; k < billed->size(); k += 3)
        if ((*billed)[k] == payer && (*billed)[k + 1] == cost.pool)
          have -= std::max<int64_t>((*billed)[k + 2], 0);
      if (amount > have) {
        Outcome o = refused(Refusal::CannotAfford);
        o.hasNumbers = true;
        o.need = amount;
        o.have = have;
        o.payer = payer;
        o.pool = cost.pool;
        return o;
      }
      billed->insert(billed->end(), {payer, int64_t(cost.pool), amount});
    }
  }
  return {};
}

// The Activate an order makes, not yet raised: its ability's tags, its
// chain's properties with the order's own over them, its target and grant.
uint32_t Kernel::activateEvent(const Frame *parent, Handle caster, Id ability,
                              const std::vector<Handle> &targets, const Given &given,
                              pack::TagSet tagged, uint32_t chain, Handle grant) {
  uint32_t ei = newEvent(Id(BuiltinEvent::Activate), caster, caster, caster, chain);
  Event &e = events_[ei];
  e.ability = ability;
  e.target = targets.empty() ? 0 : targets[0];
  e.targetsAt = e.targetedAt = uint32_t(eventTargets_.size());
  e.targetCount = e.targetedCount = uint32_t(targets.size());
  eventTargets_.insert(eventTargets_.end(), targets.begin(), targets.end());
  addTags(e.tags, t_->abilities[ability].tags);
  addTags(e.tags, tagged);
  fromChain(e, parent);
  if (grant)
    e.grant = grant;
  for (const Given::Value &g : given.values)
    setProp(e, g.name, g.value);
  return ei;
}

// An ability goes off: its costs paid as changes tagged Cost, its Activate
// raised, its steps run once, its cooldown put on its caster.
Refusal Kernel::castAbility(Frame *parent, Handle caster, Id ability,
                           const std::vector<Handle> &targets, const Given &given, bool free,
                           bool noCooldown, pack::TagSet tagged, uint32_t chain, Handle grant) {
  const pack::Ability &ab = t_->abilities[ability];
  Frame cf{};
  cf.roots[LEDGER_SLOT_HOLDER] = caster;
  cf.roots[LEDGER_SLOT_SOURCE] = caster;
  cf.roots[LEDGER_SLOT_CREDIT] = caster;
  cf.roots[LEDGER_SLOT_TARGET] = targets.empty() ? (ab.target == pack::TargetKind::Self ? caster : 0)
                                                 : targets[0];
  // Its costs read its targets, and its grant before its Activate carries
  // it: the one that will, its own or its chain's.
  cf.targets = &targets;
  cf.grant = grant;
  if (!grant && parent && parent->propsEvent >= 0)
    cf.grant = events_[size_t(parent->propsEvent)].grant;
  // The Activate it will raise: its costs read the order (its X, its
  // properties) as the check did.
  uint32_t ei = activateEvent(parent, caster, ability, targets, given, tagged, chain, grant);
  if (!free) {
    // Every cost priced before any is paid: the bill, payer and amount by turns.
    cf.event = cf.propsEvent = ei;
    Scratch<int64_t> bill(scratchHandles_);
    billing_ = true;
    for (uint32_t c = 0; c < ab.costCount; ++c) {
      const pack::Cost &cost = t_->costs[ab.costsBegin + c];
      Handle payer = cost.link != kNoId ? linkOf(caster, cost.link) : caster;
      bill->push_back(payer);
      // A cost below nothing pays nothing (docs/readings.md 123).
      bill->push_back(std::max<int64_t>(
          0, price(payer, cost.pool, runBody(cost.amountBody, cf), caster, ability, ei)));
    }
    billing_ = false;
    cf.event = cf.propsEvent = -1;
    // The payments go down the order's chain: its carried tags, and the
    // properties its Activate carries.
    Frame pay = parent ? *parent : Frame{};
    pay.propsEvent = ei;
    size_t reachedFrom = reachedLater_.size();
    ++deferReached_;
    for (uint32_t c = 0; c < ab.costCount; ++c) {
      Portion p;
      p.amount = (*bill)[2 * c + 1];
      changePool(&pay, Id(BuiltinTag::Cost), t_->costs[ab.costsBegin + c].pool, (*bill)[2 * c],
                 caster, caster, &p, 1, INT64_MAX, chain, {}, true);
    }
    --deferReached_;
    // What the costs' landings set off runs once the last has landed.
    for (size_t k = reachedFrom; k < reachedLater_.size(); ++k)
      raiseReached(reachedLater_[k]);
    reachedLater_.resize(reachedFrom);
    // A caster its own bill destroyed goes off at nothing: "from then it
    // does nothing" (docs/readings.md 119).
    if (!alive(caster))
      return Refusal::None;
  }
  Refusal r = raiseEvent(ei);
  if (covering_)
    ++(r == Refusal::None ? coverage_.used : coverage_.refused)[ability];
  if (r != Refusal::None)
    return r;
  cf.event = ei;
  cf.propsEvent = ei;
  cf.chain = chain;
  cf.targets = &targets;
  // Its tags declared carried go down its chain, with those of the chain it
  // is cast in.
  if (parent)
    cf.carried = parent->carried;
  addTags(cf.carried, ab.tags);
  for (uint32_t w = 0; w < ix_->tagWords; ++w)
    cf.carried.w[w] &= ix_->carriedTags[w];
  runSteps(ab.steps, cf);
  if (!noCooldown && ab.cooldownEffect != kNoId && alive(caster)) {
    // Its length reads the activation: the order's X and properties.
    Frame cooled{};
    cooled.world = this;
    cooled.chain = chain;
    cooled.event = cooled.propsEvent = ei;
    // and its target and targets, as its costs do (docs/readings.md 77).
    cooled.roots[LEDGER_SLOT_TARGET] = cf.roots[LEDGER_SLOT_TARGET];
    cooled.targets = &targets;
    applyTo(&cooled, ab.cooldownEffect, kOne, caster, caster, caster, Lifetime{}, {}, chain,
            nullptr, nullptr);
  }
  return Refusal::None;
}

// A cost as the change it will be, raised by no one: it carries the order's
// properties and tags, as its payment will.
uint32_t Kernel::costEvent(Handle payer, Id pool, Handle caster, Id ability, int64_t order) {
  uint32_t ei = newEvent(Id(BuiltinEvent::Change), payer, caster, caster, 0);
  Event &e = events_[ei];
  if (order >= 0) {
    Frame f{};
    f.propsEvent = order;
    inheritChain(e, f);
  }
  e.pool = pool;
  e.ability = ability;
  addTags(e.tags, t_->tags[Id(BuiltinTag::Cost)].closure);
  addTags(e.tags, t_->abilities[ability].tags);
  return ei;
}

// Whether what a payer holds blocks a cost.
bool Kernel::costBlocked(Handle payer, Id pool, Handle caster, Id ability, int64_t order) {
  if (blockers_[indexOf(payer)] == 0 && blockers_[indexOf(caster)] == 0)
    return false;
  return blocks(events_[costEvent(payer, pool, caster, ability, order)]);
}

// A cost as the change it will be: its formula, then the before rules on
// it, changing its amount alone; nothing lands.
int64_t Kernel::price(Handle payer, Id pool, int64_t amount, Handle caster, Id ability,
                     int64_t order) {
  if (!ix_->costHeard)
    return amount;
  uint32_t ei = costEvent(payer, pool, caster, ability, order);
  Event &e = events_[ei];
  e.amount = amount;
  e.sent = amount;
  bool was = pricing_;
  pricing_ = true;
  runBefore(ei);
  pricing_ = was;
  const Event &priced = events_[ei];
  return priced.prevented ? 0 : priced.amount;
}

// Autos: after each moment, every actor holding an auto grant uses it by
// itself where it would be done, at the first target its keys rank that it
// accepts, at most once a tick (docs/readings.md 35). One refused sleeps
// until a moment ends, or until time alone can have changed what refused it
// (reading 138).
void Kernel::runAutos() {
  if (inAutos_)
    return;
  wakeWaiters();
  if (autoAwake_.empty())
    return;
  inAutos_ = true;
  autoWakeNext_ = -1;
  // Each pass tries the awake in the order they came to hold autos; one an
  // auto going off wakes is tried in this pass if it comes later, else in
  // the next, as a pass over them all would.
  auto later = [&](uint32_t x, uint32_t y) { return autoRank_[x] > autoRank_[y]; };
  for (bool fired = true; fired;) {
    fired = false;
    autoPass_.swap(autoAwake_);
    autoAwake_.clear();
    std::make_heap(autoPass_.begin(), autoPass_.end(), later);
    while (!autoPass_.empty()) {
      std::pop_heap(autoPass_.begin(), autoPass_.end(), later);
      uint32_t ai = autoPass_.back();
      autoPass_.pop_back();
      passRank_ = autoRank_[ai];
      if (!actors_[ai].live) {
        autoState_[ai] = kNotAuto;
        continue;
      }
      Handle a = handle(ai, actors_[ai].gen);
      // Asleep until its holder changes: every auto it holds refused by
      // what reads it alone (its grant, blocks, cooldown, its fall), or by
      // what reads the actors its clause takes too, one of whom changing
      // wakes it as well.
      bool sleeps = true, waits = false, onValues = false;
      if (!actors_[ai].fallen) {
        const pack::Archetype &arch = t_->archetypes[actors_[ai].archetype];
        bool suspended = false;
        for (uint32_t k : held_[ai])
          suspended |= t_->effects[insts_[k].effect].suspendsAll;
        auto tried = [&](AutoTry result) {
          fired |= result == AutoTry::Fired;
          sleeps &= result == AutoTry::RefusedByHolder || result == AutoTry::RefusedByClause ||
                    result == AutoTry::RefusedWaiting;
          waits |= result == AutoTry::RefusedByClause || result == AutoTry::RefusedWaiting;
          onValues |= result == AutoTry::RefusedWaiting;
        };
        if (!suspended)
          for (uint32_t g = 0; g < arch.autoCount && alive(a); ++g)
            tried(tryAuto(a, t_->autos[arch.autosBegin + g]));
        // A copy: an auto going off may change what it holds.
        Scratch<uint32_t> list(scratchIds_);
        list->assign(held_[ai].begin(), held_[ai].end());
        for (uint32_t k : *list)
          if (insts_[k].live && working(k)) {
            const pack::Effect &ef = t_->effects[insts_[k].effect];
            for (uint32_t g = 0; g < ef.autoCount && alive(a); ++g)
              tried(tryAuto(a, t_->autos[ef.autosBegin + g], instanceHandle(k)));
          }
      }
      // Waiting, it looks at the actors that move from here; else it looks
      // at every actor when next tried.
      autoHints_[ai].clear();
      autoScanAll_[ai] = !(alive(a) && sleeps && waits);
      if (!alive(a)) {
        autoState_[ai] = kNotAuto;
      } else if (sleeps) {
        autoState_[ai] = kAutoAsleep;
        uint8_t list = onValues ? 2 : 1;
        if (waits && !(autoListed_[ai] & list)) {
          (onValues ? valueWaiters_ : clauseWaiters_).push_back(ai);
          autoListed_[ai] |= list;
        }
      } else {
        autoAwake_.push_back(ai);
      }
      wakeWaiters();
    }
    passRank_ = kNoPass;
  }
  inAutos_ = false;
  scheduleAutoWake();
}

// An actor coming to hold autos: tried as the moment ends.
void Kernel::addAutoActor(Handle a) {
  uint32_t ai = indexOf(a);
  if (ai >= autoState_.size()) {
    autoState_.resize(actors_.size(), kNotAuto);
    autoRank_.resize(actors_.size(), 0);
    autoScanAll_.resize(actors_.size(), 1);
    autoHints_.resize(actors_.size());
    autoListed_.resize(actors_.size(), 0);
  }
  if (autoState_[ai] != kNotAuto)
    return;
  autoRank_[ai] = uint32_t(autoActors_.size());
  autoActors_.push_back(a);
  autoState_[ai] = kAutoAsleep;
  wakeAutos(a);
}

// An auto actor asleep woken: tried in the pass under way if it comes later
// in it, else as the next pass or moment ends.
void Kernel::wakeAsleep(uint32_t ai) {
  autoState_[ai] = kAutoAwake;
  if (passRank_ != kNoPass && autoRank_[ai] > passRank_) {
    autoPass_.push_back(ai);
    std::push_heap(autoPass_.begin(), autoPass_.end(),
                   [&](uint32_t x, uint32_t y) { return autoRank_[x] > autoRank_[y]; });
  } else {
    autoAwake_.push_back(ai);
  }
}

// Actors moved: the autos waiting on one their clause takes wake, those
// waiting for one to come on who is in play moving, those waiting on their
// values on any change to them.
void Kernel::wakeWaiters() {
  if (!shapeMovedAt_.empty())
    wakeWaitersOf(clauseWaiters_, 1);
  if (!shapeMovedAt_.empty() || !valueMovedAt_.empty())
    wakeWaitersOf(valueWaiters_, 2);
  shapeMovedAt_.clear();
  valueMovedAt_.clear();
}

void Kernel::listMoved(Handle a) {
  if (valueMovedAt_.empty() || valueMovedAt_.back() != a)
    valueMovedAt_.push_back(a);
}

void Kernel::wakeWaitersOf(std::vector<uint32_t> &waiters, uint8_t listed) {
  bool anyone = std::find(shapeMovedAt_.begin(), shapeMovedAt_.end(), 0) != shapeMovedAt_.end();
  size_t kept = 0;
  for (uint32_t ai : waiters) {
    autoListed_[ai] &= uint8_t(~listed);
    if (autoState_[ai] != kAutoAsleep || !actors_[ai].live || autoScanAll_[ai])
      continue; // woken otherwise, or gone, or no longer waiting
    Handle sleeper = handle(ai, actors_[ai].gen);
    bool all = anyone;
    size_t hinted = autoHints_[ai].size();
    for (const std::vector<Handle> *moved : {&shapeMovedAt_, &valueMovedAt_}) {
      if (moved == &valueMovedAt_ && listed != 2)
        break;
      for (size_t m = 0; m < moved->size() && !all; ++m) {
        all = (*moved)[m] == sleeper || (listed == 2 && readsThroughLink(sleeper, (*moved)[m]));
        if (!all && mayTake(sleeper, (*moved)[m]))
          autoHints_[ai].push_back((*moved)[m]);
      }
    }
    if (all)
      autoScanAll_[ai] = 1;
    if (all || autoHints_[ai].size() > hinted) {
      wakeAsleep(ai);
    } else {
      waiters[kept++] = ai;
      autoListed_[ai] |= listed;
    }
  }
  waiters.resize(kept);
}

// Whether any auto grant the sleeper holds, its archetype's or an effect's,
// answers yes.
template <typename Ask> bool Kernel::anyAuto(Handle sleeper, Ask ask) {
  const pack::Archetype &arch = t_->archetypes[actor(sleeper)->archetype];
  for (uint32_t g = 0; g < arch.autoCount; ++g)
    if (ask(t_->autos[arch.autosBegin + g]))
      return true;
  for (uint32_t k : held_[indexOf(sleeper)]) {
    const pack::Effect &ef = t_->effects[insts_[k].effect];
    for (uint32_t g = 0; g < ef.autoCount; ++g)
      if (ask(t_->autos[ef.autosBegin + g]))
        return true;
  }
  return false;
}

// Whether a target clause of one of the sleeper's autos takes the actor
// that moved: only then can the sleeper find a target it didn't.
bool Kernel::mayTake(Handle sleeper, Handle moved) {
  if (!alive(moved) || actor(moved)->fallen)
    return false;
  return anyAuto(sleeper, [&](const pack::AutoGrant &grant) {
    const pack::Ability &ab = t_->abilities[grant.ability];
    return ab.target == pack::TargetKind::One && clauseMiss(sleeper, ab, moved) == ClauseMiss::None;
  });
}

// Whether a requirement of one of the sleeper's autos reads the actor that
// moved through a link of the sleeper's or a global link: every actor it
// refused may be taken now.
bool Kernel::readsThroughLink(Handle sleeper, Handle moved) {
  return anyAuto(sleeper, [&](const pack::AutoGrant &grant) {
    for (uint32_t k = ix_->waitLinksBegin[grant.ability];
         k < ix_->waitLinksBegin[grant.ability + 1]; ++k)
      if (linkOf(sleeper, ix_->waitLinks[k]) == moved)
        return true;
    return false;
  });
}

// A restored world's auto actors, all awake: those that would be refused
// sleep again as the next moment ends.
void Kernel::listAutosFromSave() {
  std::sort(autoFired_.begin(), autoFired_.end());
  autoState_.assign(actors_.size(), kNotAuto);
  autoRank_.assign(actors_.size(), 0);
  autoScanAll_.assign(actors_.size(), 1);
  autoHints_.assign(actors_.size(), {});
  autoListed_.assign(actors_.size(), 0);
  autoAwake_.clear();
  for (size_t p = 0; p < autoActors_.size(); ++p) {
    Handle a = autoActors_[p];
    if (!alive(a))
      continue;
    autoRank_[indexOf(a)] = uint32_t(p);
    autoState_[indexOf(a)] = kAutoAwake;
    autoAwake_.push_back(indexOf(a));
  }
}

Kernel::AutoTry Kernel::tryAuto(Handle a, const pack::AutoGrant &grant, Handle grantedBy) {
  uint64_t key = (uint64_t(indexOf(a)) << 32) | grant.ability;
  const pack::Ability &ab = t_->abilities[grant.ability];
  if (ab.target == pack::TargetKind::Many)
    return AutoTry::RefusedByHolder; // an auto takes one target it accepts
  // An effect's auto is checked against that effect's grant.
  Id usingEffect = grantedBy ? insts_[indexOf(grantedBy)].effect : kNoId;
  // What reads no target refuses it once, not once for each candidate.
  Handle granting = 0;
  if (Outcome o = checkCaster(a, grant.ability, false, false, usingEffect, granting); !o.ok())
    return AutoTry::RefusedByHolder;
  // Candidates in actor order, then by the grant's keys, ties to the lower
  // number; one taking no target tries once. With no keys, actor order is
  // the ranking: the actors of the sides its clause takes are tried as they
  // come, none listed. Woken only by actors its clause takes moving, it
  // tries those alone: every other was refused and hasn't moved since.
  bool targeted = ab.target == pack::TargetKind::One;
  pack::Subject whom = ab.side == pack::Side::Enemy  ? pack::Subject::Enemies
                       : ab.side == pack::Side::Ally ? pack::Subject::Allies
                                                     : pack::Subject::Actors;
  const std::vector<Handle> &hints = autoHints_[indexOf(a)];
  bool hinted = targeted && !autoScanAll_[indexOf(a)];
  bool ranked = targeted && (grant.keyCount > 0 || hinted);
  Scratch<int64_t> candidates(scratchHandles_);
  if (hinted) {
    for (Handle h : hints)
      if (alive(h) && !actor(h)->fallen)
        candidates->push_back(h);
    std::sort(candidates->begin(), candidates->end(),
              [](Handle x, Handle y) { return indexOf(x) < indexOf(y); });
    candidates->erase(std::unique(candidates->begin(), candidates->end()), candidates->end());
  } else if (ranked) {
    SideWalk walk(*this, whom, a);
    for (uint32_t i = walk.next(); i != SideWalk::kEnd; i = walk.next())
      candidates->push_back(handle(i, actors_[i].gen));
  }
  if (ranked) {
    Frame f{};
    f.roots[LEDGER_SLOT_HOLDER] = a;
    f.roots[LEDGER_SLOT_CREDIT] = a;
    rank(f, grant.keysBegin, grant.keyCount, *candidates);
  }
  // Every try refused by what only its holder or the actor tried moves: it
  // waits for one of them to (or, its clause taking none, for who is in
  // play to).
  bool waits = true, onValues = false, onLinks = false;
  Scratch<int64_t> targets(scratchHandles_);
  auto accepts = [&](Handle t) {
    targets->clear();
    if (targeted) {
      if (clauseMiss(a, ab, t) != ClauseMiss::None)
        return false;
      targets->push_back(t);
    }
    Outcome checked = checkOrder(a, grant.ability, *targets, false, {}, nullptr, true, granting);
    if (checked.ok())
      return true;
    waits &= waitsOnCasterAndTarget(grant.ability, checked);
    onValues = true;
    onLinks |= (checked.refusal == Refusal::Requirement || checked.refusal == Refusal::CannotAfford) &&
               ix_->waitLinksBegin[grant.ability] < ix_->waitLinksBegin[grant.ability + 1];
    wakeAutosBy(grant, checked);
    return false;
  };
  bool accepted = false;
  if (ranked) {
    for (size_t i = 0; i < candidates->size() && !accepted; ++i)
      accepted = accepts((*candidates)[i]);
  } else if (targeted) {
    SideWalk walk(*this, whom, a);
    for (uint32_t i = walk.next(); i != SideWalk::kEnd && !accepted; i = walk.next())
      accepted = accepts(handle(i, actors_[i].gen));
  } else {
    accepted = accepts(0);
  }
  if (accepted) {
    // Once a tick: one that went off this tick goes off again on the next.
    auto fired = std::lower_bound(autoFired_.begin(), autoFired_.end(), std::pair{key, INT64_MIN});
    bool known = fired != autoFired_.end() && fired->first == key;
    if (known && fired->second == now_) {
      wakeAutosAt((now_ + 1) * tickTime_);
      return AutoTry::Refused;
    }
    if (known)
      fired->second = now_;
    else
      autoFired_.insert(fired, {key, now_});
    beginMoment();
    castAbility(nullptr, a, grant.ability, *targets, {}, false, false, 0, ++chains_, grantedBy);
    endMoment();
    return AutoTry::Fired;
  }
  if (!waits)
    return AutoTry::Refused;
  if (!targeted) // what refused it reads its holder alone, or an actor its links name
    return onLinks ? AutoTry::RefusedWaiting : AutoTry::RefusedByHolder;
  return onValues ? AutoTry::RefusedWaiting : AutoTry::RefusedByClause;
}

// Whether a refusal past the target clause reads only the caster, the
// actor tried and the actors the caster's links name: a requirement reading
// their own values, effects and tags; a price so read, on the caster's pool
// or the one its link names, not drifting, no rule pricing it.
bool Kernel::waitsOnCasterAndTarget(Id ability, const Outcome &refusal) const {
  switch (refusal.refusal) {
  case Refusal::Requirement:
    return ix_->requirementsWait[ability];
  case Refusal::CannotAfford:
    return ix_->costsWait[ability] && !t_->values[refusal.pool].drifts() && !ix_->costHeard;
  default:
    return false;
  }
}

// What time alone may change of an auto's refusal: a price its payer's
// pool drifts up to, on the tick it gets there; a requirement or a price
// reading what moves with time, on the next tick. Anything else changes
// only in a moment, which tries the autos as it ends.
void Kernel::wakeAutosBy(const pack::AutoGrant &grant, const Outcome &refusal) {
  int64_t wake = -1;
  bool readsTime = ix_->checkReadsTime[grant.ability];
  if (refusal.refusal == Refusal::Requirement && readsTime) {
    wake = (now_ + 1) * tickTime_;
  } else if (refusal.refusal == Refusal::CannotAfford) {
    if (readsTime) {
      wake = (now_ + 1) * tickTime_;
    } else if (t_->values[refusal.pool].drifts()) {
      Handle payer = refusal.payer;
      Id p = refusal.pool;
      size_t slot = size_t(indexOf(payer)) * valueCount_ + p;
      PoolBounds bounds = poolBounds(payer, p);
      int64_t amount = poolNowWithin(payer, p, slot, bounds);
      // The amount the price needs: what it lacks on top of what is there.
      int64_t to = amount + (refusal.need - refusal.have);
      int64_t rate = t_->values[p].regenStat != kNoId ? driftRate(payer, p, slot) : 0;
      if (to <= bounds.most && rate >= 0)
        wake = driftReaches(payer, p, slot, rate, poolDrifted(payer, p, slot, bounds), to);
    }
  }
  if (wake < 0)
    return;
  // Never the tick it is: a drift's rounding can't hold a pass here.
  wakeAutosAt(std::max(wake, (now_ + 1) * tickTime_));
}

// The pass under way has found an auto to try again at `at`, world time.
void Kernel::wakeAutosAt(int64_t at) {
  autoWakeNext_ = autoWakeNext_ < 0 ? at : std::min(autoWakeNext_, at);
}

// One timer for the soonest wake; a later one already due stands until it
// fires, and the pass it runs finds the next.
void Kernel::scheduleAutoWake() {
  int64_t wake = autoWakeNext_;
  autoWakeNext_ = -1;
  // A wake held at the last time (a stopped clock's) never comes
  // (docs/readings.md 170).
  if (wake < 0 || wake == INT64_MAX || (autoWakeAt_ > worldTime() && autoWakeAt_ <= wake))
    return;
  autoWakeAt_ = wake;
  pushTimer({wake, 2, ++seq_, TimerKind::AutoWake, 0, 0, 0});
}

Outcome Kernel::canAct(Handle a, Id ability, const std::vector<Handle> &targets,
                      bool targetsNamed) {
  if (ability >= t_->abilities.size())
    return refused(Refusal::NotGranted);
  return check(a, ability, targets, false, false, false, {}, nullptr, targetsNamed);
}

// The properties an order or a cast's with carries: each one the ability
// takes and within what its declaration allows, and a tag property with no
// default given by an order (a cast's come down its chain); else BadProperty
// before anything moves. An order says each value's kind: a tag for a
// number property (X too) or a number for a tag property is refused.
Outcome Kernel::checkProps(Id ability, const Given &given, bool order, const Frame *castIn) const {
  const pack::Ability &ab = t_->abilities[ability];
  for (const Given::Value &value : given.values) {
    Id prop = value.name;
    int64_t v = value.value;
    if (prop != kNoId && prop >= t_->props.size())
      return refused(Refusal::BadProperty, "a property its pack lacks");
    bool tagProp = prop != kNoId && t_->props[prop].kind == pack::PropKind::Tag;
    if (order && value.tag != tagProp)
      return refused(Refusal::BadProperty,
                     prop == kNoId ? "X" : std::string(t_->name(t_->props[prop].name)));
    if (prop == kNoId)
      continue;
    bool takes = false;
    for (uint32_t i = 0; i < ab.takeCount; ++i)
      takes |= t_->idLists[ab.takesBegin + i] == prop;
    const pack::Prop &p = t_->props[prop];
    bool fits = true;
    if (p.kind == pack::PropKind::Tag) {
      Id g = v > 0 && size_t(v) <= t_->tags.size() ? Id(v - 1) : kNoId;
      if (g == kNoId)
        fits = false;
      else if (p.among)
        fits = (t_->tagSet(p.among)[g / 64] >> (g % 64)) & 1;
      else if (p.under != kNoId)
        fits = g != p.under && ((t_->tagSet(t_->tags[g].closure)[p.under / 64] >> (p.under % 64)) & 1);
    } else {
      fits = !(p.hasMin && v < p.min) && !(p.hasMax && v > p.max) && !(p.whole && v % kOne != 0);
    }
    if (!takes || !fits)
      return refused(Refusal::BadProperty, std::string(t_->name(p.name)));
  }
  // A tag property with no default "must be given": by the order, or by the
  // cast's with or the chain it is cast in, whose properties its Activate takes.
  for (uint32_t i = 0; (order || castIn) && i < ab.takeCount; ++i) {
    Id prop = t_->idLists[ab.takesBegin + i];
    const pack::Prop &p = t_->props[prop];
    bool given_ = castIn && chainCarries(*castIn, prop);
    for (const Given::Value &g : given.values)
      given_ |= g.name == prop;
    if (p.kind == pack::PropKind::Tag && p.defaultValue == 0 && !given_)
      return refused(Refusal::BadProperty, std::string(t_->name(p.name)));
  }
  return {};
}

// Whether the chain a step runs in carries a property, where inheritChain
// takes its properties from.
bool Kernel::chainCarries(const Frame &f, Id prop) const {
  const Prop *props = nullptr;
  uint32_t count = 0;
  if (f.propsEvent >= 0) {
    const Event &e = events_[size_t(f.propsEvent)];
    props = e.props.items;
    count = e.propCount;
  } else if (f.instance != 0 && instance(f.instance)) {
    const Instance &in = insts_[indexOf(f.instance)];
    props = instProps_.data() + in.storage.propsAt;
    count = in.propCount;
  }
  for (uint32_t k = 0; k < count; ++k)
    if (props[k].first == prop)
      return true;
  return false;
}

Outcome Kernel::act(Handle a, Id ability, const std::vector<Handle> &targets, const Given &given,
                   Id usingEffect) {
  // An ability its pack lacks is granted to no one (docs/readings.md 134).
  if (ability >= t_->abilities.size())
    return refused(Refusal::NotGranted);
  Outcome o = checkProps(ability, given, true);
  if (o.ok())
    o = check(a, ability, targets, false, false, false, given, nullptr, true, usingEffect);
  if (!o.ok()) {
    if (covering_)
      ++coverage_.refused[ability];
    return o;
  }
  Handle grant = 0;
  granted(a, ability, &grant, usingEffect);
  beginMoment();
  Refusal r = castAbility(nullptr, a, ability, targets, given, false, false, 0, ++chains_, grant);
  endMoment();
  if (r != Refusal::None && r != Refusal::Prevented)
    return refused(r);
  return {};
}

Outcome Kernel::apply(Id effect, int64_t stacks, Handle to, Handle from, const Lifetime &given,
                     const Given &vars) {
  // An effect its pack lacks, a var its effect doesn't declare, or a tag
  // given a var that holds none (or none given one that does) is no apply
  // (docs/readings.md 134).
  if (effect >= t_->effects.size())
    return refused(Refusal::Refused);
  const pack::Effect &ef = t_->effects[effect];
  for (const Given::Value &v : vars.values)
    if (v.name >= ef.varCount || v.tag != (t_->vars[ef.varsBegin + v.name].kind == pack::VarKind::Tag))
      return refused(Refusal::Refused);
  // "An order naming it is refused": a destroyed actor as its source too.
  if (!alive(to) || (from && !alive(from)))
    return refused(Refusal::Gone);
  beginMoment();
  Refusal r = applyTo(nullptr, effect, stacks, to, from, from, given, vars, ++chains_, nullptr,
                      nullptr);
  endMoment();
  return r == Refusal::None ? Outcome{} : refused(r);
}

Outcome Kernel::remove(Id effect, Handle from, int64_t stacks) {
  if (!alive(from))
    return refused(Refusal::Gone);
  if (!holds(from, effect))
    return refused(Refusal::NotHeld);
  beginMoment();
  // A Remove a before rule keeps on is told prevented, and the order is
  // done, as one whose Activate is prevented is (docs/readings.md 99, 142);
  // one a block keeps on is refused Blocked, as a blocked Activate is.
  uint32_t keptBy[uint32_t(Refusal::Count)] = {};
  int64_t taken = removeEffect(effect, from, stacks, Id(BuiltinTag::EndRemoved), ++chains_, 0, 0,
                               keptBy);
  endMoment();
  return taken == 0 && keptBy[uint32_t(Refusal::Blocked)] > 0 ? refused(Refusal::Blocked)
                                                               : Outcome{};
}

Outcome Kernel::raise(Id event, Handle of, Handle by) {
  // One of the content's events: the world's own carry what happened, which
  // an order has none of.
  if (event < Id(pack::BuiltinEvent::Count) || event >= t_->events.size())
    return refused(Refusal::Refused);
  if (!alive(of) || (by && !alive(by)))
    return refused(Refusal::Gone);
  beginMoment();
  Refusal r = raiseOn(nullptr, event, of, by ? by : of, 0, ++chains_);
  endMoment();
  return r == Refusal::None || r == Refusal::Prevented ? Outcome{} : refused(r);
}

Outcome Kernel::deal(int64_t amount, Handle to, Handle from, const std::vector<pack::TagSet> &types) {
  if (!alive(to) || (from && !alive(from)))
    return refused(Refusal::Gone);
  if (t_->damagePool == kNoId || !hasPool(to, t_->damagePool))
    return refused(Refusal::NoPool);
  for (pack::TagSet set : types)
    if (set >= t_->tagBits.size() / std::max<uint32_t>(t_->tagWords, 1))
      return refused(Refusal::Refused);
  Portion p;
  p.amount = amount;
  for (pack::TagSet set : types)
    addTags(p.tags, set);
  beginMoment();
  Refusal r = changePool(nullptr, Id(BuiltinTag::Damage), t_->damagePool, to, from, from, &p, 1,
                         INT64_MAX, ++chains_, {});
  endMoment();
  return r == Refusal::None || r == Refusal::Prevented ? Outcome{} : refused(r);
}

Outcome Kernel::setPool(Handle a, Id pool, int64_t amount) {
  if (!alive(a))
    return refused(Refusal::Gone);
  if (!hasPool(a, pool))
    return refused(Refusal::NoPool);
  Portion p;
  p.amount = amount;
  beginMoment();
  Refusal r = changePool(nullptr, Id(BuiltinTag::Set), pool, a, 0, 0, &p, 1, INT64_MAX,
                         ++chains_, {});
  endMoment();
  return r == Refusal::None || r == Refusal::Prevented ? Outcome{} : refused(r);
}

Outcome Kernel::destroy(Handle a) {
  if (!alive(a))
    return refused(Refusal::Gone);
  beginMoment();
  Refusal r = destroyActor(a, ++chains_);
  endMoment();
  return r == Refusal::None || r == Refusal::Prevented ? Outcome{} : refused(r);
}

// A link set by an order is no event, and ends no moment: what reads the
// world through it settles here.
// A moment of its own: what reads the link settles and retimes as it ends,
// and an auto sleeping on it wakes.
Outcome Kernel::link(Handle a, Id l, Handle to) {
  if (l >= t_->links.size())
    return refused(Refusal::Refused);
  if ((!t_->links[l].global && !alive(a)) || (to && !alive(to)))
    return refused(Refusal::Gone);
  beginMoment();
  if (t_->links[l].global) {
    if (!ix_->linkBounds.empty())
      watchReadersOf(0);
    setLink(globals_[l], to, true);
    ++epoch_;
    ++globalsEpoch_;
  } else {
    touch(a);
    setLink(links_[size_t(indexOf(a)) * t_->links.size() + l], to, true);
  }
  shapeMoved(t_->links[l].global ? 0 : a);
  endMoment();
  return {};
}

} // namespace ledger::rt
