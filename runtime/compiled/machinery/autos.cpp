// Autos: after each moment, every actor holding an auto grant uses it by
// itself where it would be done, at the first target it accepts, at most
// once a tick (docs/readings.md 35). One refused by what reads only its
// holder sleeps until its holder changes; one whose clause took no actor in
// play until who is in play moves; one refused for what time alone changes
// is tried again when it can have (reading 138). One refused for anything
// else stays awake: trying it again as each moment ends answers the same.
#include "world.h"

#include <algorithm>

namespace ledger::cw {

void World::runAutos() {
  if (inAutos_)
    return;
  wakeClauseWaiters();
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
      bool sleeps = true, waits = false;
      auto tried = [&](AutoTry result) {
        fired |= result == AutoTry::Fired;
        sleeps &= result == AutoTry::RefusedByHolder || result == AutoTry::RefusedByClause;
        waits |= result == AutoTry::RefusedByClause;
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
      if (!alive(a)) {
        row(ai).autoState = kNotAuto;
      } else if (sleeps) {
        row(ai).autoState = kAutoAsleep;
        if (waits)
          clauseWaiters_.push(ai);
      } else {
        autoAwake_.push(ai);
      }
      wakeClauseWaiters();
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
  row(ai).autoRank = autoActors_.size();
  autoActors_.push(a);
  row(ai).autoState = kAutoAsleep;
  wakeAutos(a);
}

// An auto actor changing wakes its autos: what refused them may have moved.
void World::wakeAutos(Handle a) {
  uint32_t ai = indexOf(a);
  if (ai < actors_.size() && row(ai).autoState == kAutoAsleep)
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
// reads afresh, an auto waiting for a target looks again, the side files
// file it again.
void World::shapeMoved(Handle a) {
  ++shapeEpoch_;
  if (!clauseWaiters_.empty())
    shapeMovedSince_ = true;
  if (sidesKept_) {
    if (a == 0)
      sidesAllStale_ = true;
    else
      fileAgain(indexOf(a));
  }
}

void World::wakeClauseWaiters() {
  if (!shapeMovedSince_)
    return;
  shapeMovedSince_ = false;
  for (uint32_t ai : clauseWaiters_)
    if (row(ai).autoState == kAutoAsleep && row(ai).live)
      wakeAsleep(ai);
  clauseWaiters_.clear();
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
  // Every try refused by what only its clause reads: it waits for who is in
  // play to move.
  bool waits = true;
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
    waits = false;
    wakeAutosBy(grant, checked);
    return false;
  };
  bool accepted = false;
  if (targeted) {
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
  return targeted ? AutoTry::RefusedByClause : AutoTry::RefusedByHolder;
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
  if (wake < 0 || (autoWakeAt_ > worldTime() && autoWakeAt_ <= wake))
    return;
  autoWakeAt_ = wake;
  pushTimer({wake, 0, ++seq_, 0, 0, 0, 2, TimerKind::AutoWake});
}

} // namespace ledger::cw
