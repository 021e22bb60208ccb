// Autos: after each moment, every actor holding an auto grant uses it by
// itself where it would be done, at the first target it accepts, at most
// once a tick (docs/readings.md 35). One refused by what reads only its
// holder sleeps until its holder changes; one whose clause took no actor in
// play until who is in play moves so that it may take one; one refused by
// a requirement or a price reading only its holder, the actors its clause
// takes and those its holder's links name, until one of those changes,
// looking then at the actors that changed alone (reading 139); one refused
// for what time alone changes is tried again when it can have (reading
// 138). One refused for anything else stays awake: trying it again as each
// moment ends answers the same.
#include "world.h"

#include <algorithm>

namespace ledger::cw {

void World::runAutos() {
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
  auto later = [&](uint32_t x, uint32_t y) { return row(x).autoRank > row(y).autoRank; };
  for (bool fired = true; fired;) {
    fired = false;
    autoPass_.swap(autoAwake_);
    autoAwake_.clear();
    std::make_heap(autoPass_.begin(), autoPass_.end(), later);
    while (!autoPass_.empty()) {
      std::pop_heap(autoPass_.begin(), autoPass_.end(), later);
      uint32_t ai = autoPass_.back();
      autoPass_.pop();
      passRank_ = row(ai).autoRank;
      if (!row(ai).live) {
        row(ai).autoState = kNotAuto;
        continue;
      }
      Handle a = actorHandle(ai);
      // Asleep until its holder changes: every auto it holds refused by
      // what reads it alone (its grant, its cooldown), or by what reads the
      // actors its clause takes too, one of whom changing wakes it as well.
      bool sleeps = true, waits = false, onValues = false;
      auto tried = [&](AutoTry result) {
        fired |= result == AutoTry::Fired;
        sleeps &= result == AutoTry::RefusedByHolder || result == AutoTry::RefusedByClause ||
                  result == AutoTry::RefusedWaiting;
        waits |= result == AutoTry::RefusedByClause || result == AutoTry::RefusedWaiting;
        onValues |= result == AutoTry::RefusedWaiting;
      };
      if (!row(ai).fallen) {
        const pack::Archetype &arch = lp_archetypes[row(ai).archetype];
        for (uint32_t g = 0; g < arch.autoCount && alive(a); ++g)
          tried(tryAuto(a, lp_autos[arch.autosBegin + g], 0));
        // A copy: an auto going off may change what it holds.
        uint32_t at = scratchIds_.size();
        for (uint32_t h = row(ai).firstHeld; h; h = inst(h - 1).nextHeld)
          scratchIds_.push(h - 1);
        uint32_t n = scratchIds_.size() - at;
        for (uint32_t k = 0; k < n; ++k) {
          uint32_t i = scratchIds_[at + k];
          if (!inst(i).live || !working(i))
            continue;
          const pack::Effect &ef = lp_effects[inst(i).effect];
          for (uint32_t g = 0; g < ef.autoCount && alive(a); ++g)
            tried(tryAuto(a, lp_autos[ef.autosBegin + g], instanceHandle(i)));
        }
        scratchIds_.truncate(at);
      }
      // Waiting, it looks at the actors that move from here; else it looks
      // at every actor when next tried.
      clearHints(ai);
      autoScanAll_[ai] = !(alive(a) && sleeps && waits);
      if (!alive(a)) {
        row(ai).autoState = kNotAuto;
      } else if (sleeps) {
        row(ai).autoState = kAutoAsleep;
        uint8_t list = onValues ? 2 : 1;
        if (waits && !(autoListed_[ai] & list)) {
          (onValues ? valueWaiters_ : clauseWaiters_).push(ai);
          autoListed_[ai] |= list;
        }
      } else {
        autoAwake_.push(ai);
      }
      wakeWaiters();
    }
    passRank_ = kNone;
  }
  inAutos_ = false;
  scheduleAutoWake();
}

// An actor coming to hold autos: tried as the moment ends.
void World::addAutoActor(Handle a) {
  uint32_t ai = indexOf(a);
  if (row(ai).autoState != kNotAuto)
    return;
  if (ai >= autoScanAll_.size()) {
    autoScanAll_.resize(actors_.size(), 1);
    autoListed_.resize(actors_.size(), 0);
    autoHintFirst_.resize(actors_.size(), 0);
  }
  row(ai).autoRank = autoActors_.size();
  autoActors_.push(a);
  row(ai).autoState = kAutoAsleep;
  wakeHolder(ai);
}

// An actor changing (touched): its own autos wake, what refused them may
// have moved; an auto waiting on the values of the actors its clause takes,
// or of those its holder's links name, looks at it as the moment ends.
void World::wakeAutos(Handle a) {
  uint32_t ai = indexOf(a);
  if (ai < actors_.size())
    wakeHolder(ai);
  if (!valueWaiters_.empty() && (valueMovedAt_.empty() || valueMovedAt_.back() != a))
    valueMovedAt_.push(a);
}

// An auto actor's holder changed: it looks at every actor when next tried.
void World::wakeHolder(uint32_t ai) {
  if (row(ai).autoState == kNotAuto)
    return;
  autoScanAll_[ai] = 1;
  if (row(ai).autoState == kAutoAsleep)
    wakeAsleep(ai);
}

// Tried in the pass under way if it comes later in it, else as the next
// pass or moment ends.
void World::wakeAsleep(uint32_t ai) {
  row(ai).autoState = kAutoAwake;
  if (passRank_ != kNone && row(ai).autoRank > passRank_) {
    autoPass_.push(ai);
    std::push_heap(autoPass_.begin(), autoPass_.end(),
                   [&](uint32_t x, uint32_t y) { return row(x).autoRank > row(y).autoRank; });
  } else {
    autoAwake_.push(ai);
  }
}

// Who is in play, their sides or tags moved at `a` (0: anyone's): a count
// reads afresh, an auto waiting on a target looks at it, the side files
// file it again.
void World::shapeMoved(Handle a) {
  ++shapeEpoch_;
  if ((!clauseWaiters_.empty() || !valueWaiters_.empty()) &&
      (shapeMovedAt_.empty() || shapeMovedAt_.back() != a))
    shapeMovedAt_.push(a);
  if (sidesKept_) {
    if (a == 0)
      sidesAllStale_ = true;
    else
      fileAgain(indexOf(a));
  }
}

// Actors moved: the autos waiting on one their clause takes wake, those
// waiting for one to come on who is in play moving, those waiting on their
// values on any change to them.
void World::wakeWaiters() {
  if (!shapeMovedAt_.empty())
    wakeWaitersOf(clauseWaiters_, 1);
  if (!shapeMovedAt_.empty() || !valueMovedAt_.empty())
    wakeWaitersOf(valueWaiters_, 2);
  shapeMovedAt_.clear();
  valueMovedAt_.clear();
}

// Each waiter still asleep looks at the actors that moved: its holder, or
// (waiting on values) an actor its holder's links name, or anyone's moving
// wakes it to look at every actor; one its clauses take wakes it to look at
// those alone; none leaves it waiting.
void World::wakeWaitersOf(Vec<uint32_t> &waiters, uint8_t listed) {
  bool anyone = false;
  for (Handle m : shapeMovedAt_)
    anyone |= m == 0;
  uint32_t kept = 0;
  for (uint32_t w = 0; w < waiters.size(); ++w) {
    uint32_t ai = waiters[w];
    autoListed_[ai] &= uint8_t(~listed);
    if (row(ai).autoState != kAutoAsleep || !row(ai).live || autoScanAll_[ai])
      continue; // woken otherwise, or gone, or no longer waiting
    Handle sleeper = actorHandle(ai);
    bool all = anyone, hinted = false;
    for (const Vec<Handle> *moved : {&shapeMovedAt_, &valueMovedAt_}) {
      if (moved == &valueMovedAt_ && listed != 2)
        break;
      for (uint32_t m = 0; m < moved->size() && !all; ++m) {
        Handle h = (*moved)[m];
        all = h == sleeper || (listed == 2 && readsThroughLink(sleeper, h));
        if (!all && mayTake(sleeper, h)) {
          addHint(ai, h);
          hinted = true;
        }
      }
    }
    if (all)
      autoScanAll_[ai] = 1;
    if (all || hinted) {
      wakeAsleep(ai);
    } else {
      waiters[kept++] = ai;
      autoListed_[ai] |= listed;
    }
  }
  waiters.truncate(kept);
}

// Whether any auto grant the sleeper holds, its archetype's or an effect's,
// answers yes.
template <typename Ask> bool World::anyAuto(Handle sleeper, Ask ask) {
  uint32_t ai = indexOf(sleeper);
  const pack::Archetype &arch = lp_archetypes[row(ai).archetype];
  for (uint32_t g = 0; g < arch.autoCount; ++g)
    if (ask(lp_autos[arch.autosBegin + g]))
      return true;
  for (uint32_t h = row(ai).firstHeld; h; h = inst(h - 1).nextHeld) {
    const pack::Effect &ef = lp_effects[inst(h - 1).effect];
    for (uint32_t g = 0; g < ef.autoCount; ++g)
      if (ask(lp_autos[ef.autosBegin + g]))
        return true;
  }
  return false;
}

// Whether a target clause of one of the sleeper's autos takes the actor
// that moved: only then can the sleeper find a target it didn't.
bool World::mayTake(Handle sleeper, Handle moved) {
  if (!alive(moved) || actor(moved)->fallen)
    return false;
  return anyAuto(sleeper, [&](const pack::AutoGrant &grant) {
    const pack::Ability &ab = lp_abilities[grant.ability];
    return ab.target == pack::TargetKind::One && clauseMiss(sleeper, ab, moved) == ClauseMiss::None;
  });
}

// Whether a requirement or a price of one of the sleeper's autos reads the
// actor that moved through a link of the sleeper's or a global link: every
// actor it refused may be taken now.
bool World::readsThroughLink(Handle sleeper, Handle moved) {
  return anyAuto(sleeper, [&](const pack::AutoGrant &grant) {
    for (uint32_t k = lp_waitLinksBegin[grant.ability]; k < lp_waitLinksBegin[grant.ability + 1];
         ++k)
      if (linkOf(sleeper, lp_waitLinks[k]) == moved)
        return true;
    return false;
  });
}

// A hint for a waiter: an actor it may take moved. Its order is no matter:
// the try takes them by actor number.
void World::addHint(uint32_t ai, Handle moved) {
  uint32_t k = freeHints_;
  if (k) {
    freeHints_ = autoHints_[k - 1].next;
  } else {
    autoHints_.push({0, 0});
    k = autoHints_.size();
  }
  autoHints_[k - 1] = {moved, autoHintFirst_[ai]};
  autoHintFirst_[ai] = k;
}

void World::clearHints(uint32_t ai) {
  uint32_t k = autoHintFirst_[ai];
  if (!k)
    return;
  uint32_t last = k;
  while (autoHints_[last - 1].next)
    last = autoHints_[last - 1].next;
  autoHints_[last - 1].next = freeHints_;
  freeHints_ = k;
  autoHintFirst_[ai] = 0;
}

// A slot taken by another actor: what its last actor's autos waited on is
// let go.
void World::forgetAutoWaits(uint32_t ai) {
  if (ai >= autoScanAll_.size())
    return;
  clauseWaiters_.eraseEvery(ai);
  valueWaiters_.eraseEvery(ai);
  clearHints(ai);
  autoScanAll_[ai] = 1;
  autoListed_[ai] = 0;
}

// A restored world's auto actors, all awake, each looking at every actor:
// those that would be refused sleep again as the next moment ends.
void World::listAutosFromSave() {
  for (uint32_t ai = 0; ai < actors_.size(); ++ai)
    row(ai).autoState = kNotAuto;
  autoScanAll_.clear();
  autoScanAll_.resize(actors_.size(), 1);
  autoListed_.clear();
  autoListed_.resize(actors_.size(), 0);
  autoHintFirst_.clear();
  autoHintFirst_.resize(actors_.size(), 0);
  autoHints_.clear();
  freeHints_ = 0;
  clauseWaiters_.clear();
  valueWaiters_.clear();
  shapeMovedAt_.clear();
  valueMovedAt_.clear();
  autoAwake_.clear();
  for (uint32_t k = 0; k < autoActors_.size(); ++k) {
    Handle a = autoActors_[k];
    if (!alive(a))
      continue;
    row(indexOf(a)).autoRank = k;
    row(indexOf(a)).autoState = kAutoAwake;
    autoAwake_.push(indexOf(a));
  }
}

World::AutoTry World::tryAuto(Handle a, const pack::AutoGrant &grant, Handle grantedBy) {
  const pack::Ability &ab = lp_abilities[grant.ability];
  if (ab.target == pack::TargetKind::Many)
    return AutoTry::RefusedByHolder; // an auto takes one target it accepts
  Id usingEffect = grantedBy ? inst(indexOf(grantedBy)).effect : kNoId;
  Handle granting = 0;
  if (Outcome o = checkCaster(a, grant.ability, false, false, usingEffect, granting); !o.ok())
    return AutoTry::RefusedByHolder;
  bool targeted = ab.target == pack::TargetKind::One;
  pack::Subject whom = ab.side == pack::Side::Enemy  ? pack::Subject::Enemies
                       : ab.side == pack::Side::Ally ? pack::Subject::Allies
                                                     : pack::Subject::Actors;
  // Every try refused by what only its holder or the actor tried moves: it
  // waits for one of them to (or, its clause taking none, for who is in
  // play to).
  bool waits = true, onValues = false, onLinks = false;
  Handle target = 0;
  auto accepts = [&](Handle t) {
    if (targeted && clauseMiss(a, ab, t) != ClauseMiss::None)
      return false;
    Outcome checked = checkOrder(a, grant.ability, targeted ? &t : nullptr, targeted ? 1 : 0,
                                 false, nullptr, true, granting, {});
    if (checked.ok()) {
      target = t;
      return true;
    }
    waits &= waitsOnCasterAndTarget(grant.ability, checked);
    onValues = true;
    onLinks |= (checked.refusal == Refusal::Requirement ||
                checked.refusal == Refusal::CannotAfford) &&
               lp_waitLinksBegin[grant.ability] < lp_waitLinksBegin[grant.ability + 1];
    wakeAutosBy(grant, checked);
    return false;
  };
  bool accepted = false;
  uint32_t ai = indexOf(a);
  if (targeted && !autoScanAll_[ai]) {
    // Woken only by actors its clause takes moving, it tries those alone, by
    // actor number: every other was refused and hasn't moved since.
    uint32_t at = scratchHandles_.size();
    for (uint32_t k = autoHintFirst_[ai]; k; k = autoHints_[k - 1].next) {
      Handle h = autoHints_[k - 1].actor;
      if (alive(h) && !actor(h)->fallen)
        scratchHandles_.push(h);
    }
    std::sort(scratchHandles_.begin() + at, scratchHandles_.end(),
              [](Handle x, Handle y) { return indexOf(x) < indexOf(y); });
    uint32_t n = uint32_t(std::unique(scratchHandles_.begin() + at, scratchHandles_.end()) -
                          (scratchHandles_.begin() + at));
    for (uint32_t k = 0; k < n && !accepted; ++k)
      accepted = accepts(scratchHandles_[at + k]);
    scratchHandles_.truncate(at);
  } else if (targeted) {
    SideWalk walk(*this, whom, a);
    for (uint32_t i = walk.next(); i != kNone && !accepted; i = walk.next())
      accepted = accepts(actorHandle(i));
  } else {
    accepted = accepts(0);
  }
  if (accepted) {
    // Once a tick: one that went off this tick goes off again on the next.
    uint64_t key = (uint64_t(indexOf(a)) << 32) | grant.ability;
    uint64_t *at = std::lower_bound(autoFired_.begin(), autoFired_.end(), key);
    uint32_t k = uint32_t(at - autoFired_.begin());
    bool known = k < autoFired_.size() && autoFired_[k] == key;
    if (known && autoFiredAt_[k] == now_) {
      wakeAutosAt((now_ + 1) * tickTime_);
      return AutoTry::Refused;
    }
    if (known) {
      autoFiredAt_[k] = now_;
    } else {
      autoFired_.insertAt(k, key);
      autoFiredAt_.insertAt(k, now_);
    }
    beginMoment();
    Handle targets[1] = {target};
    castAbility(nullptr, a, grant.ability, targets, targeted ? 1 : 0, false, false, 0, ++chains_,
                grantedBy);
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
bool World::waitsOnCasterAndTarget(Id ability, const Outcome &refusal) const {
  switch (refusal.refusal) {
  case Refusal::Requirement:
    return lp_requirementsWait[ability];
  case Refusal::CannotAfford:
    return lp_costsWait[ability] && !lp_values[refusal.pool].drifts() && !shape().costHeard;
  default:
    return false;
  }
}

// What time alone may change of an auto's refusal: a price its payer's
// pool drifts up to, on the tick it gets there; a requirement or a price
// reading what moves with time, on the next tick.
void World::wakeAutosBy(const pack::AutoGrant &grant, const Outcome &refusal) {
  int64_t wake = -1;
  bool readsTime = lp_checkReadsTime[grant.ability];
  if (refusal.refusal == Refusal::Requirement && readsTime) {
    wake = (now_ + 1) * tickTime_;
  } else if (refusal.refusal == Refusal::CannotAfford) {
    if (readsTime) {
      wake = (now_ + 1) * tickTime_;
    } else if (lp_values[refusal.pool].drifts()) {
      Handle payer = refusal.payer;
      Id p = refusal.pool;
      PoolBounds bounds = poolBounds(payer, p);
      int64_t amount = poolNowWithin(payer, p, bounds);
      int64_t to = amount + (refusal.need - refusal.have);
      int64_t rate = lp_values[p].regenStat != kNoId ? computeStat(payer, lp_values[p].regenStat) : 0;
      if (to <= bounds.most && rate >= 0)
        wake = driftReaches(payer, p, rate, poolDrifted(payer, p, bounds), to);
    }
  }
  if (wake < 0)
    return;
  // Never the tick it is: a drift's rounding can't hold a pass here.
  int64_t next = (now_ + 1) * tickTime_;
  wakeAutosAt(wake > next ? wake : next);
}

void World::wakeAutosAt(int64_t at) {
  autoWakeNext_ = autoWakeNext_ < 0 ? at : (autoWakeNext_ < at ? autoWakeNext_ : at);
}

// One timer for the soonest wake; a later one already due stands until it
// fires, and the pass it runs finds the next.
void World::scheduleAutoWake() {
  int64_t wake = autoWakeNext_;
  autoWakeNext_ = -1;
  // A wake held at the last time (a stopped clock's) never comes
  // (docs/readings.md 170).
  if (wake < 0 || wake == INT64_MAX || (autoWakeAt_ > worldTime() && autoWakeAt_ <= wake))
    return;
  autoWakeAt_ = wake;
  pushTimer({wake, 0, ++seq_, 0, 0, 0, 2, TimerKind::AutoWake});
}

} // namespace ledger::cw
