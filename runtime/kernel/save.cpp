// A save on disk: the world between orders as bytes, field by field, and a
// world read back from them against the same pack. What lives only inside a
// moment (its events, queued rules, steps' locals, scratch lists) is empty
// between orders and isn't written. A save that isn't one, of another pack
// or another save format, or damaged, is refused whole with why.
#include "kernel.h"

#include "bytes.h"
#include "save_envelope.h"

#include <algorithm>

namespace ledger::rt {

using pack::kNoId;

namespace {

// Raised whenever a field is added to what a save holds, or what one means
// (7: a timer's seq is its instance's; 8: the envelope's body hash).
constexpr uint32_t kSaveFormat = 8;

} // namespace

// Both directions walk the world's fields in one order. A field added to the
// world's lasting state is added here too; the plays' saves all go through
// these bytes, so one left out shows as a rewind that plays differently.
template <typename IO> void Kernel::walkSave(IO &io) {
  auto tags = [&](TagBits &t) {
    for (uint64_t &w : t.w)
      io.pod(w);
  };
  io.pods(seed_, now_, epoch_, seq_, chains_, valueCount_);
  io.each(actors_, [&](Actor &a) {
    io.pods(a.gen, a.archetype, a.live, a.fallen, a.madeAt, a.epoch, a.tagsEpoch);
  });
  for (auto *values : {&pools_, &poolAt_, &poolMax_, &poolRate_, &regenPeriod_, &refillPeriod_, &poolMin_})
    io.vec(*values);
  io.vec(boundsSettled_);
  io.pods(settledEpoch_, clocksEpoch_, shapeEpoch_, globalsEpoch_, readersShape_, readersGlobals_,
          clocksShape_, clocksGlobals_);
  io.vec(worldReaders_);
  io.vec(readerLinkSeen_);
  io.vec(hasPool_);
  io.vec(poolVersion_);
  io.vec(poolDue_);
  for (auto *handles : {&links_, &overridden_, &globals_})
    io.vec(*handles);
  io.each(held_, [&](std::vector<uint32_t> &list) { io.vec(list); });
  io.each(hearers_, [&](std::vector<Hearer> &list) {
    io.each(list, [&](Hearer &h) { io.pods(h.inst, h.effect, h.seq); });
  });
  io.vec(blockers_);
  io.each(insts_, [&](Instance &in) {
    Storage &st = in.storage;
    io.pods(in.gen, st.varsAt, st.varsCap, st.capturedAt, st.capturedCap, st.everyAt, st.everyCap,
            st.propsAt, st.propsCap);
    io.pods(in.live, in.ending, in.capturing, in.effect, in.holder, in.source, in.credit,
            in.stacks, in.seq, in.clock, in.appliedAt, in.expiresAt, in.lifetime, in.turnsLeft,
            in.countLeft, in.countEvent, in.countTag, in.everyAt, in.varsAt, in.capturedAt, in.timerVersion);
    tags(in.carried);
    io.pod(in.propCount);
  });
  io.vec(everyDue_);
  io.each(clocks_, [&](Clock &c) { io.pods(c.anchorWorld, c.anchorClock, c.rate); });
  io.vec(autoActors_);
  io.each(autoFired_, [&](std::pair<uint64_t, int64_t> &fired) { io.pods(fired.first, fired.second); });
  io.pod(autoWakeAt_);
  io.vec(freeInsts_);
  io.vec(vars_);
  io.vec(captured_);
  io.each(instProps_, [&](Prop &p) { io.pods(p.first, p.second); });
  io.each(timers_, [&](Timer &t) {
    io.pods(t.due, t.phase, t.seq, t.kind, t.instance, t.rule, t.version, t.at);
  });
  io.vec(statCache_);
  io.vec(statEpoch_);
  io.pod(counting_);
  io.vec(wide_);
  journal_.walk(io);
  io.vec(suspenders_);
  io.each(tagCache_, tags);
  io.vec(tagEpoch_);
}

std::string Kernel::saveBytes() const {
  bytes::Writer w{saves::begin(kSaveFormat, pack_->hash())};
  const_cast<Kernel *>(this)->walkSave(w);
  saves::seal(w.out);
  return std::move(w.out);
}

std::optional<Kernel> Kernel::loadSave(const Pack &pack, std::string_view bytes, std::string &why) {
  std::string_view body;
  if (!saves::open(bytes, kSaveFormat, pack.hash(), body, why))
    return std::nullopt;
  bytes::Reader r{body};
  Kernel world(pack, 0);
  world.walkSave(r);
  if (!r.ok || r.at != r.in.size()) {
    why = r.ok ? "bytes past the save's end" : "the save ends early or a count in it runs past its end";
    return std::nullopt;
  }
  if (!world.saveHolds(why))
    return std::nullopt;
  world.listReadersFromSave();
  world.listAutosFromSave();
  world.listSlotsFromSave();
  return world;
}

// What a save holds is trusted no further than it is checked: every index
// points where the world will read it, every handle names an actor or
// instance its slot holds, every list the world keeps beside another agrees
// with it, and every time stands where the world could have left it, so a
// damaged or hostile save is refused before the world runs on it.
bool Kernel::saveHolds(std::string &why) const {
  return savedSizesHold(why) && savedActorsHold(why) && savedInstancesHold(why) &&
         savedListsHold(why) && savedTimersHold(why) && journal_.holds(*t_, why);
}

namespace {

bool damaged(std::string &why, const std::string &what) {
  why = "the save is damaged: " + what;
  return false;
}

std::string nth(const char *what, size_t i) { return std::string(what) + " " + std::to_string(i); }

// The latest world time a save may stand at (millionths of a unit): far past
// any game's, and short enough of int64's end to leave room for the spans
// the world adds to it.
constexpr int64_t kLatestTime = INT64_MAX / 4;

} // namespace

bool Kernel::savedSizesHold(std::string &why) const {
  size_t actors = actors_.size();
  size_t values = actors * valueCount_;
  size_t links = actors * t_->links.size();
  if (valueCount_ != t_->values.size())
    return damaged(why, "its values aren't its pack's");
  for (size_t n : {pools_.size(), poolAt_.size(), poolMax_.size(), hasPool_.size(),
                   poolVersion_.size(), poolDue_.size(), statCache_.size(), statEpoch_.size()})
    if (n != values)
      return damaged(why, "a list of its actors' values isn't one for each");
  if (poolRate_.size() != (ix_->worldDrifts.empty() ? 0 : values) ||
      regenPeriod_.size() != poolRate_.size() || refillPeriod_.size() != poolRate_.size() ||
      poolMin_.size() != (ix_->countBounds.empty() ? 0 : values) ||
      boundsSettled_.size() != poolMin_.size())
    return damaged(why, "a list of its actors' values isn't one for each");
  if (links_.size() != links || overridden_.size() != links ||
      globals_.size() != t_->links.size() || readerLinkSeen_.size() != actors * ix_->readerLinks.size())
    return damaged(why, "its links aren't its pack's");
  for (size_t n : {held_.size(), hearers_.size(), blockers_.size(), suspenders_.size(),
                   tagCache_.size(), tagEpoch_.size()})
    if (n != actors)
      return damaged(why, "a list of its actors isn't one for each");
  if (clocks_.size() != actors * ix_->clockStats.size())
    return damaged(why, "its clocks aren't one for each actor's");
  if (now_ < 0 || now_ > kLatestTime / tickTime_)
    return damaged(why, "its time, tick " + std::to_string(now_) + ", is none a world reaches");
  return true;
}

// A handle a link or an instance holds names an actor its slot holds, or
// held once: a generation it has had.
bool Kernel::savedHandleFits(Handle h) const {
  return h == 0 || (indexOf(h) < actors_.size() && genOf(h) != 0 && genOf(h) <= actors_[indexOf(h)].gen);
}

// A clock's time at the world's now, worked in 128 bits, standing at the
// last time as clockNow's does (docs/readings.md 170).
__int128 Kernel::savedClockNow(uint32_t ai, int32_t clock) const {
  if (clock < 0)
    return worldTime();
  const Clock &c = clocks_[size_t(ai) * ix_->clockStats.size() + size_t(clock)];
  __int128 at = __int128(c.anchorClock) + (__int128(worldTime()) - c.anchorWorld) * c.rate / kOne;
  return std::min<__int128>(at, INT64_MAX);
}

bool Kernel::savedActorsHold(std::string &why) const {
  size_t links = t_->links.size();
  for (uint32_t ai = 0; ai < actors_.size(); ++ai) {
    const Actor &a = actors_[ai];
    if (a.gen == 0)
      return damaged(why, nth("actor", ai) + "'s generation is 0, which no handle has");
    if (a.archetype >= t_->archetypes.size())
      return damaged(why, nth("actor", ai) + " is of no archetype its pack has");
    if (a.madeAt < 0 || a.madeAt > now_)
      return damaged(why, nth("actor", ai) + " was made at a tick the world hasn't reached");
    for (size_t l = 0; l < links; ++l)
      if (!savedHandleFits(links_[ai * links + l]))
        return damaged(why, nth("actor", ai) + "'s link names no actor the world has had");
    // A clock runs from the make at a rate of none or more, its anchor
    // set at a time since; run past the last time, it stands there
    // (docs/readings.md 170).
    for (int32_t c = 0; c < int32_t(ix_->clockStats.size()); ++c) {
      const Clock &clock = clocks_[size_t(ai) * ix_->clockStats.size() + size_t(c)];
      // Its rate, its stat's as last read, or a whole one before its first.
      int64_t most = 0;
      bool fast = plainNumber(t_->values[ix_->clockStats[c]].maxBody, most) &&
                  clock.rate > std::max(most, kOne);
      if (clock.rate < 0 || fast || clock.anchorClock < 0 || clock.anchorWorld < a.madeAt * tickTime_ ||
          clock.anchorWorld > worldTime())
        return damaged(why, nth("actor", ai) + "'s clock is anchored where no clock runs");
    }
    for (Id p = 0; p < valueCount_; ++p) {
      size_t i = size_t(ai) * valueCount_ + p;
      if (statEpoch_[i] != 0 && t_->values[p].kind == pack::ValueKind::Stat &&
          !savedWithinBounds(p, statCache_[i]))
        return damaged(why, nth("actor", ai) + "'s stat last read past its bounds");
      if (hasPool_[i] > 1 || (hasPool_[i] && t_->values[p].kind != pack::ValueKind::Pool))
        return damaged(why, nth("actor", ai) + " holds a pool of a value that is none");
      // A drift's anchor: a time on its pool's clock since the make.
      if (hasPool_[i] && t_->values[p].drifts() &&
          (poolAt_[i] < 0 || poolAt_[i] > savedPoolClock(ai, p)))
        return damaged(why, nth("actor", ai) + "'s pool is anchored at a time its clock hasn't reached");
      if (poolDue_[i] < -1)
        return damaged(why, nth("actor", ai) + "'s pool is due at no time");
    }
  }
  for (Handle g : globals_)
    if (!savedHandleFits(g))
      return damaged(why, "a global link names no actor the world has had");
  for (Handle h : readerLinkSeen_)
    if (!savedHandleFits(h))
      return damaged(why, "a link a reader saw names no actor the world has had");
  if (std::adjacent_find(worldReaders_.begin(), worldReaders_.end(), std::greater_equal<>()) !=
          worldReaders_.end() ||
      (!worldReaders_.empty() && worldReaders_.back() >= actors_.size()))
    return damaged(why, "its readers aren't actors it has, each once in slot order");
  std::vector<uint8_t> listed(actors_.size(), 0);
  for (Handle a : autoActors_)
    if (!actor(a) || listed[indexOf(a)]++)
      return damaged(why, "an auto actor is no actor the world holds, or is listed twice");
  for (auto [key, tick] : autoFired_)
    if ((key >> 32) >= actors_.size() || (key & 0xffffffffu) >= t_->abilities.size() || tick < 0 ||
        tick > now_)
      return damaged(why, "an auto went off for no actor or ability the world has, or at no tick");
  if (autoWakeAt_ < -1 || autoWakeAt_ > kLatestTime)
    return damaged(why, "its autos wake at no time");
  return true;
}

// A value as it read within its bounds, where they are numbers (a whole
// one's rounding may take it past by less than one).
bool Kernel::savedWithinBounds(Id value, int64_t v) const {
  const pack::Value &val = t_->values[value];
  __int128 slack = val.whole == pack::Rounding::None ? 0 : kOne;
  int64_t least = 0, most = 0;
  bool hasMost = plainNumber(val.maxBody, most);
  if (hasMost && v > most + slack)
    return false;
  return !plainNumber(val.minBody, least) || (hasMost && least > most) || v >= least - slack;
}

// A formula that is a number, and the number.
bool Kernel::plainNumber(Id body, int64_t &n) const {
  if (body == kNoId || ix_->plain[body].kind != PackIndex::Plain::Number)
    return false;
  n = ix_->plain[body].number;
  return true;
}

// A pool's clock now, as poolClock reads it, of an actor by its slot.
__int128 Kernel::savedPoolClock(uint32_t ai, Id pool) const {
  if (t_->values[pool].clockWorld || t_->timeStat == kNoId)
    return __int128(now_ - actors_[ai].madeAt) * tickTime_;
  return savedClockNow(ai, clockOfStat(t_->timeStat));
}

bool Kernel::savedInstancesHold(std::string &why) const {
  auto within = [](uint64_t at, uint64_t count, size_t size) { return at + count <= size; };
  for (uint32_t i = 0; i < insts_.size(); ++i) {
    const Instance &in = insts_[i];
    const Storage &s = in.storage;
    if (in.gen == 0)
      return damaged(why, nth("instance", i) + "'s generation is 0, which no handle has");
    if (!within(s.varsAt, s.varsCap, vars_.size()) ||
        !within(s.capturedAt, s.capturedCap, captured_.size()) ||
        !within(s.everyAt, s.everyCap, everyDue_.size()) ||
        !within(s.propsAt, s.propsCap, instProps_.size()) || in.propCount > s.propsCap)
      return damaged(why, nth("instance", i) + "'s storage runs past its list");
    if (!in.live)
      continue;
    if (in.effect >= t_->effects.size())
      return damaged(why, nth("instance", i) + " is of no effect its pack has");
    // Its holder is the actor in its slot now: destroying an actor ends
    // what it holds.
    if (!alive(in.holder))
      return damaged(why, nth("instance", i) + "'s holder is no actor in play");
    if (!savedHandleFits(in.source) || !savedHandleFits(in.credit))
      return damaged(why, nth("instance", i) + "'s source or credit is no actor the world has had");
    if (in.ending || in.capturing)
      return damaged(why, nth("instance", i) + " is caught inside a moment");
    if (in.seq > seq_)
      return damaged(why, nth("instance", i) + " was put on after the last the world counts");
    const pack::Effect &ef = t_->effects[in.effect];
    int32_t clock = ef.clock == pack::ClockKind::World  ? -1
                    : ef.clock == pack::ClockKind::Stat ? clockOfStat(ef.clockStat)
                                                        : clockOfStat(t_->timeStat);
    if (in.clock != clock)
      return damaged(why, nth("instance", i) + " runs on a clock its effect doesn't");
    if ((in.countEvent != kNoId && in.countEvent >= t_->events.size()) ||
        (in.countTag != kNoId && in.countTag >= t_->tags.size()) || in.turnsLeft < -1 ||
        in.countLeft < -1)
      return damaged(why, nth("instance", i) + " counts what its pack has none of");
    uint32_t every = 0;
    for (uint32_t r = 0; r < ef.ruleCount; ++r)
      every += t_->rules[ef.rulesBegin + r].kind == pack::RuleKind::Every;
    if (in.varsAt != s.varsAt || ef.varCount > s.varsCap || in.capturedAt != s.capturedAt ||
        ef.modifierCount + ef.overrideCount > s.capturedCap || in.everyAt != s.everyAt ||
        every > s.everyCap)
      return damaged(why, nth("instance", i) + "'s storage isn't its effect's");
    if (!savedStacksHold(in))
      return damaged(why, nth("instance", i) + "'s stacks are past its effect's cap");
    if (!savedTimesHold(in))
      return damaged(why, nth("instance", i) + "'s times are none its clock has reached or passed");
  }
  for (const Prop &p : instProps_)
    if (p.first != kNoId && p.first >= t_->props.size())
      return damaged(why, "a property its pack lacks");
  return true;
}

// Stacks held within the cap where it is a number: every apply but a
// separate instance's holds its newcomer to it, and every add its sum.
bool Kernel::savedStacksHold(const Instance &in) const {
  const pack::StackPolicy &stack = t_->effects[in.effect].stack;
  int64_t cap = 0;
  if (stack.mode == pack::StackMode::Separate || !plainNumber(stack.maxBody, cap))
    return true;
  return stack.isSigned ? in.stacks >= -cap && in.stacks <= cap : in.stacks <= cap;
}

// An instance's times on its clock: put on by now; ending, and each every
// rule's next run, not before now, where the world would have run them
// already. An every rule whose interval is a formula stands where it last
// ran once its interval reads none, so its next run may be behind now, but
// never before the instance went on.
bool Kernel::savedTimesHold(const Instance &in) const {
  __int128 now = savedClockNow(indexOf(in.holder), in.clock);
  if (in.appliedAt < 0 || in.appliedAt > now || in.lifetime < -1 ||
      (in.expiresAt != -1 && in.expiresAt < now))
    return false;
  const pack::Effect &ef = t_->effects[in.effect];
  const int64_t *due = everyDue_.data() + in.everyAt;
  for (uint32_t r = 0; r < ef.ruleCount; ++r) {
    const pack::Rule &rule = t_->rules[ef.rulesBegin + r];
    if (rule.kind != pack::RuleKind::Every)
      continue;
    int64_t next = *due++;
    // One held at the last time never comes, however late the instance went
    // on (docs/readings.md 170).
    if (next != -1 && next != INT64_MAX &&
        (next <= in.appliedAt || (fixedInterval(rule) && next < now)))
      return false;
  }
  return true;
}

// The lists kept beside the instances agree with them: each live one held
// by its holder once, heard as it is held, counted where it blocks,
// suspends or counts; a free slot is one no instance stands in.
bool Kernel::savedListsHold(std::string &why) const {
  std::vector<uint8_t> seen(insts_.size(), 0);
  uint32_t counting = 0;
  for (uint32_t ai = 0; ai < actors_.size(); ++ai) {
    uint32_t blockers = 0, suspenders = 0;
    for (uint32_t i : held_[ai]) {
      if (i >= insts_.size() || !insts_[i].live || indexOf(insts_[i].holder) != ai || seen[i]++)
        return damaged(why, nth("actor", ai) + " holds an instance it doesn't, or twice");
      const pack::Effect &ef = t_->effects[insts_[i].effect];
      blockers += ef.blockCount != 0;
      suspenders += ef.suspendsAll;
    }
    if (blockers != blockers_[ai] || suspenders != suspenders_[ai])
      return damaged(why, nth("actor", ai) + "'s blocks or suspensions aren't those it holds");
    uint64_t seq = 0;
    for (const Hearer &h : hearers_[ai]) {
      if (h.inst >= insts_.size() || seen[h.inst] != 1 || indexOf(insts_[h.inst].holder) != ai ||
          h.effect != insts_[h.inst].effect || h.seq != insts_[h.inst].seq || h.seq <= seq)
        return damaged(why, nth("actor", ai) + " hears by an instance it doesn't hold");
      seq = h.seq;
    }
  }
  for (uint32_t i = 0; i < insts_.size(); ++i) {
    if (insts_[i].live && !seen[i])
      return damaged(why, nth("instance", i) + " is held by no actor");
    counting += insts_[i].live && insts_[i].countLeft >= 0;
  }
  if (counting != counting_)
    return damaged(why, "its count of instances counting events isn't theirs");
  // One heard on every event is dropped once it has ended, when next met.
  if (!std::all_of(wide_.begin(), wide_.end(), [&](uint32_t i) { return i < insts_.size(); }))
    return damaged(why, "an instance heard on every event is none it has");
  std::vector<uint8_t> listed(insts_.size(), 0);
  for (uint32_t i : freeInsts_)
    if (i >= insts_.size() || insts_[i].live || listed[i]++)
      return damaged(why, "a free instance slot is one an instance stands in, or twice");
  return true;
}

bool Kernel::savedTimersHold(std::string &why) const {
  for (const Timer &tm : timers_) {
    bool fits = tm.kind == TimerKind::PoolBound ? tm.rule < valueCount_ && savedHandleFits(tm.instance)
                : tm.kind == TimerKind::Every   ? tm.rule < t_->rules.size()
                                                : tm.kind == TimerKind::Expire ||
                                                    tm.kind == TimerKind::AutoWake;
    // An every rule's timer of an instance still held is one of its effect's.
    if (const Instance *in = tm.kind == TimerKind::Every ? instance(tm.instance) : nullptr) {
      const pack::Effect &ef = t_->effects[in->effect];
      fits = fits && tm.rule >= ef.rulesBegin && tm.rule < ef.rulesBegin + ef.ruleCount &&
             t_->rules[tm.rule].kind == pack::RuleKind::Every;
    }
    if (!fits)
      return damaged(why, "a timer of nothing the world has");
    if (tm.due < 0 || tm.at != tickAtOrAfter(tm.due))
      return damaged(why, "a timer due at no time");
  }
  if (!std::is_heap(timers_.begin(), timers_.end(), std::greater<>()))
    return damaged(why, "its timers are out of order");
  return savedWaitsTimed(why);
}

// Each time the world waits for has its timer, set as the world last set
// it (its version) and due then: an instance's end, its every rules' next
// runs (one whose interval read none waits with none), a drifting pool's
// crossing, the autos' wake.
bool Kernel::savedWaitsTimed(std::string &why) const {
  std::vector<uint8_t> ends(insts_.size(), 0), runs(everyDue_.size(), 0), crossings(pools_.size(), 0);
  bool wakes = false;
  for (const Timer &tm : timers_) {
    if (tm.kind == TimerKind::PoolBound) {
      size_t i = size_t(indexOf(tm.instance)) * valueCount_ + tm.rule;
      if (alive(tm.instance) && tm.version == poolVersion_[i])
        crossings[i] |= tm.due == poolDue_[i];
      continue;
    }
    if (tm.kind == TimerKind::AutoWake) {
      wakes |= tm.due == autoWakeAt_;
      continue;
    }
    const Instance *in = instance(tm.instance);
    if (!in || in->timerVersion != tm.version || in->seq != tm.seq)
      continue;
    uint32_t i = indexOf(tm.instance);
    if (tm.kind == TimerKind::Expire) {
      ends[i] |= tm.phase == 1 && tm.due == worldDue(in->holder, in->clock, in->expiresAt);
      continue;
    }
    const pack::Effect &ef = t_->effects[in->effect];
    uint32_t every = 0;
    for (uint32_t r = ef.rulesBegin; r < tm.rule; ++r)
      every += t_->rules[r].kind == pack::RuleKind::Every;
    size_t slot = in->everyAt + every;
    runs[slot] |= tm.phase == 0 && tm.due == worldDue(in->holder, in->clock, everyDue_[slot]);
  }
  for (uint32_t i = 0; i < insts_.size(); ++i) {
    const Instance &in = insts_[i];
    if (!in.live)
      continue;
    if (in.expiresAt >= 0 && !ends[i])
      return damaged(why, nth("instance", i) + "'s end has no timer");
    const pack::Effect &ef = t_->effects[in.effect];
    for (uint32_t r = 0, every = 0; r < ef.ruleCount; ++r) {
      const pack::Rule &rule = t_->rules[ef.rulesBegin + r];
      if (rule.kind != pack::RuleKind::Every)
        continue;
      size_t slot = in.everyAt + every++;
      if (everyDue_[slot] >= 0 && fixedInterval(rule) && !runs[slot])
        return damaged(why, nth("instance", i) + "'s every rule has no timer for its next run");
    }
  }
  for (uint32_t ai = 0; ai < actors_.size(); ++ai)
    for (Id p = 0; p < valueCount_ && actors_[ai].live; ++p) {
      size_t i = size_t(ai) * valueCount_ + p;
      if (poolDue_[i] >= 0 && !crossings[i])
        return damaged(why, nth("actor", ai) + "'s pool's crossing has no timer");
    }
  if (autoWakeAt_ >= 0 && !wakes)
    return damaged(why, "its autos' wake has no timer");
  return true;
}

// An every rule whose interval is a number: it runs on, never waiting.
bool Kernel::fixedInterval(const pack::Rule &rule) const {
  int64_t interval = 0;
  return plainNumber(rule.intervalBody, interval) && interval > 0;
}

} // namespace ledger::rt
