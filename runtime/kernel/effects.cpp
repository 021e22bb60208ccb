// Effects: instances put on by an Apply as its stack policy says, their
// lifetimes and every rules on the timer queue, and how they come off.
#include "kernel.h"

#include "number.h"

#include <algorithm>

namespace ledger::rt {

using pack::kNoId;
using pack::StackMode;
using pack::FullMode;

// A rule hearing an event: what it raises carries the chain's carried tags
// where its holder raised the event ("to what the same source raises in it
// … never to another actor's answer"), not those its instance's Apply
// carried, which its every, start and end carry (reading 79).
Kernel::Frame Kernel::hearingFrame(uint32_t inst, uint32_t ei) {
  const Event &e = events_[ei];
  Frame f = frameFor(inst, int64_t(ei), e.chain);
  if (!ix_->anyCarried)
    return f; // nothing is carried: its instance's carry nothing either
  f.carried = TagBits{};
  if (e.source != 0 && e.source == insts_[inst].holder)
    for (uint32_t w = 0; w < ix_->tagWords; ++w)
      f.carried.w[w] = e.tags.w[w] & ix_->carriedTags[w];
  return f;
}

Kernel::Frame Kernel::frameFor(uint32_t inst, int64_t event, uint32_t chain) {
  Frame f{};
  f.world = this;
  f.instance = instanceHandle(inst);
  f.event = event;
  f.chain = chain;
  const Instance &in = insts_[inst];
  f.carried = in.carried;
  f.roots[LEDGER_SLOT_HOLDER] = in.holder;
  f.roots[LEDGER_SLOT_SOURCE] = in.source;
  f.roots[LEDGER_SLOT_CREDIT] = in.credit;
  f.roots[LEDGER_SLOT_TARGET] = event >= 0 ? events_[size_t(event)].subject : 0;
  f.roots[LEDGER_SLOT_IT] = 0;
  f.roots[LEDGER_SLOT_SELF] = f.instance;
  f.c.vars = vars_.data() + in.varsAt;
  f.propsEvent = event;
  return f;
}

int32_t Kernel::clockOfStat(Id stat) const {
  for (size_t c = 0; c < ix_->clockStats.size(); ++c)
    if (ix_->clockStats[c] == stat)
      return int32_t(c);
  return -1;
}

// A clock's time now: its anchor, and the world's time since at its rate.
int64_t Kernel::clockNow(Handle a, int32_t clock) const {
  if (clock < 0 || !actor(a))
    return worldTime();
  const Clock &c = clocks_[size_t(indexOf(a)) * ix_->clockStats.size() + clock];
  // A clock run past what a time holds stands at the last time, which it
  // never reaches (docs/readings.md 135).
  __int128 run = __int128(worldTime() - c.anchorWorld) * c.rate / kOne;
  __int128 at = c.anchorClock + run;
  return at > INT64_MAX ? INT64_MAX : int64_t(at);
}

// The world time a clock reaches a time, rounded up: a timer fires on the
// first tick at or after it.
int64_t Kernel::worldDue(Handle a, int32_t clock, int64_t due) const {
  // A due held at the last time a clock counts is never reached, even on a
  // clock run there itself (docs/readings.md 170).
  if (clock < 0 || !actor(a) || due == INT64_MAX)
    return due;
  const Clock &c = clocks_[size_t(indexOf(a)) * ix_->clockStats.size() + clock];
  __int128 left = __int128(due - c.anchorClock) * kOne;
  // Reached already, it is due now, even on a clock that has just stopped.
  if (left > 0 && c.rate <= 0)
    return INT64_MAX;
  __int128 world = left <= 0 ? 0 : (left + c.rate - 1) / c.rate;
  __int128 at = c.anchorWorld + world;
  return at > INT64_MAX ? INT64_MAX : int64_t(at);
}

// After a moment: a clock whose stat moved keeps what it had run at its old
// rate and runs at the new one from now, its timers moved to match.
void Kernel::retime(Handle a) {
  if (!alive(a))
    return;
  schedulePoolBounds(a);
  if (ix_->clockStats.empty())
    return;
  size_t base = size_t(indexOf(a)) * ix_->clockStats.size();
  bool moved = false;
  for (size_t c = 0; c < ix_->clockStats.size(); ++c) {
    int64_t rate = std::max<int64_t>(0, computeStat(a, ix_->clockStats[c], nullptr));
    Clock &clock = clocks_[base + c];
    if (rate == clock.rate)
      continue;
    clock.anchorClock = clockNow(a, int32_t(c));
    clock.anchorWorld = worldTime();
    clock.rate = rate;
    moved = true;
  }
  if (moved) {
    for (uint32_t i : held_[indexOf(a)])
      if (insts_[i].clock >= 0)
        schedule(i);
    schedulePoolBounds(a);
  }
}

void Kernel::schedule(uint32_t inst) {
  Instance &in = insts_[inst];
  ++in.timerVersion;
  Handle h = instanceHandle(inst);
  if (in.expiresAt >= 0) {
    pushTimer({worldDue(in.holder, in.clock, in.expiresAt), 1, in.seq, TimerKind::Expire,
                       h, 0, in.timerVersion});
  }
  const pack::Effect &e = t_->effects[in.effect];
  uint32_t every = 0;
  for (uint32_t r = 0; r < e.ruleCount; ++r) {
    const pack::Rule &rule = t_->rules[e.rulesBegin + r];
    if (rule.kind != pack::RuleKind::Every)
      continue;
    int64_t due = everyDue_[in.everyAt + every++];
    if (due < 0)
      continue;
    pushTimer({worldDue(in.holder, in.clock, due), 0, in.seq, TimerKind::Every, h,
                       e.rulesBegin + r, insts_[inst].timerVersion});
  }
}

uint32_t Kernel::newInstance(Event &e, uint32_t eventIndex) {
  uint32_t i;
  // A freed slot keeps its storage for vars, captured amounts and every
  // rules' times, so instances coming and going don't grow the world.
  Storage kept;
  if (!freeInsts_.empty()) {
    i = freeInsts_.back();
    freeInsts_.pop_back();
    uint32_t gen = nextGen(insts_[i].gen);
    kept = insts_[i].storage;
    insts_[i] = Instance{};
    insts_[i].gen = gen;
  } else {
    i = uint32_t(insts_.size());
    insts_.push_back({});
  }
  Instance &in = insts_[i];
  const pack::Effect &ef = t_->effects[e.effect];
  in.live = true;
  in.effect = e.effect;
  in.holder = e.subject;
  in.source = e.source;
  in.credit = e.credit;
  in.stacks = e.stacks;
  in.seq = ++seq_;
  in.clock = ef.clock == pack::ClockKind::World ? -1
             : ef.clock == pack::ClockKind::Stat ? clockOfStat(ef.clockStat)
                                                 : clockOfStat(t_->timeStat);
  in.appliedAt = clockNow(e.subject, in.clock);
  // Only the tags declared carried go down a chain.
  for (uint32_t w = 0; w < ix_->tagWords; ++w)
    in.carried.w[w] = e.tags.w[w] & ix_->carriedTags[w];
  // A time below zero is none, as a count or turns below zero are
  // (docs/readings.md 167).
  in.lifetime = e.life.time >= 0 ? e.life.time : -1;
  in.expiresAt = in.lifetime >= 0 ? timeAfter(in.appliedAt, in.lifetime) : -1;
  in.turnsLeft = e.life.turns >= 0 ? e.life.turns / kOne : -1;
  countFor(in, e.life.count >= 0 ? e.life.count / kOne : -1);
  in.countEvent = e.life.countEvent;
  in.countTag = e.life.countTag;
  uint32_t everies = 0;
  for (uint32_t r = 0; r < ef.ruleCount; ++r)
    everies += t_->rules[ef.rulesBegin + r].kind == pack::RuleKind::Every;
  auto place = [](std::vector<int64_t> &array, uint32_t &at, uint32_t &cap, uint32_t need) {
    if (need > cap) {
      at = uint32_t(array.size());
      cap = need;
      array.resize(array.size() + need, 0);
    }
    std::fill(array.begin() + at, array.begin() + at + need, 0);
    return at;
  };
  in.storage = kept;
  in.varsAt = place(vars_, in.storage.varsAt, in.storage.varsCap, ef.varCount);
  in.capturedAt = place(captured_, in.storage.capturedAt, in.storage.capturedCap,
                        ef.modifierCount + ef.overrideCount);
  // Each every rule's first run one interval in, on its clock.
  in.everyAt = place(everyDue_, in.storage.everyAt, in.storage.everyCap, everies);
  // The properties its chain carries reach its rules' chains, as carried tags do.
  if (e.propCount > in.storage.propsCap) {
    in.storage.propsAt = uint32_t(instProps_.size());
    in.storage.propsCap = e.propCount;
    instProps_.resize(instProps_.size() + e.propCount);
  }
  in.propCount = e.propCount;
  std::copy(e.props.items, e.props.items + e.propCount, instProps_.begin() + in.storage.propsAt);
  held_[indexOf(e.subject)].push_back(i);
  if (ix_->termsReadSource[e.effect] && followsSources() && insts_[i].source &&
      indexOf(insts_[i].source) < sourcedBy_.size())
    sourcedBy_[indexOf(insts_[i].source)].push_back(i);
  if (ix_->hears[e.effect] || in.countLeft >= 0) // its lifetime hears what it counts
    hearers_[indexOf(e.subject)].push_back({i, e.effect, in.seq});
  if (ef.blockCount)
    ++blockers_[indexOf(e.subject)];
  if (ef.suspendsAll)
    ++suspenders_[indexOf(e.subject)];
  if (ix_->shapesCounts[e.effect])
    shapeMoved(e.subject); // its tags and its suspension count from here
  // Its tags count from here: read since the touch before it (by a rule
  // hearing the Remove of the one it replaces), they are read again.
  if (ef.tags)
    if (Actor *ac = actor(e.subject))
      ++ac->tagsEpoch;
  if (ix_->wideEffect[e.effect])
    wide_.push_back(i);
  if (ef.autoCount)
    addAutoActor(e.subject);
  // Vars: given, else their formula, read as the instance goes on, its
  // Apply in hand.
  Frame f = frameFor(i, int64_t(eventIndex), e.chain);
  for (uint32_t v = 0; v < ef.varCount; ++v) {
    const pack::Var &var = t_->vars[ef.varsBegin + v];
    int64_t value = var.initBody != kNoId ? runBody(var.initBody, f) : 0;
    for (uint32_t g = 0; g < e.varCount; ++g)
      if (givenVars_[e.varsFrom + g].first == v)
        value = givenVars_[e.varsFrom + g].second;
    vars_[insts_[i].varsAt + v] = value;
  }
  // Its captured amounts are worked out as it goes on, its own terms not yet
  // counted; what was read meanwhile is read again with them.
  Frame g = frameFor(i, int64_t(eventIndex), e.chain);
  insts_[i].capturing = true;
  bool captured = false;
  for (uint32_t m = 0; m < ef.modifierCount; ++m) {
    const pack::Modifier &mod = t_->modifiers[ef.modifiersBegin + m];
    if (mod.captured) {
      captured_[insts_[i].capturedAt + m] = runBody(mod.amountBody, g);
      captured = true;
    }
  }
  insts_[i].capturing = false;
  if (captured) {
    ++epoch_;
    if (Actor *ac = actor(e.subject))
      ++ac->epoch;
  }
  for (uint32_t o = 0; o < ef.overrideCount; ++o) {
    const pack::LinkOverride &lo = t_->linkOverrides[ef.overridesBegin + o];
    captured_[insts_[i].capturedAt + ef.modifierCount + o] = runBody(lo.actorBody, g);
    overridden_[size_t(indexOf(e.subject)) * t_->links.size() + lo.link] = instanceHandle(i);
  }
  if (ef.overrideCount)
    shapeMoved(e.subject); // and the links it overrides
  uint32_t every = 0;
  for (uint32_t r = 0; r < ef.ruleCount; ++r) {
    const pack::Rule &rule = t_->rules[ef.rulesBegin + r];
    if (rule.kind != pack::RuleKind::Every)
      continue;
    int64_t interval = runBody(rule.intervalBody, g);
    everyDue_[insts_[i].everyAt + every++] =
        interval > 0 ? timeAfter(insts_[i].appliedAt, interval) : -1;
  }
  if (countingRefs_)
    referInstance(i);
  schedule(i);
  return i;
}

// A newcomer's vars, as it would go on with them (its inits, then what the
// apply gives), where a body reads self with no instance yet: scratchVars_.
void Kernel::newcomerVars(Id effect, Frame &f, uint32_t givenFrom, uint32_t givenCount) {
  const pack::Effect &ef = t_->effects[effect];
  std::fill(scratchVars_.begin(), scratchVars_.end(), 0);
  for (uint32_t v = 0; v < ef.varCount; ++v) {
    const pack::Var &var = t_->vars[ef.varsBegin + v];
    scratchVars_[v] = var.initBody != kNoId ? runBody(var.initBody, f) : 0;
    for (uint32_t g = 0; g < givenCount; ++g)
      if (givenVars_[givenFrom + g].first == v)
        scratchVars_[v] = givenVars_[givenFrom + g].second;
  }
}

int64_t Kernel::stackCap(uint32_t inst, const Event &e) {
  const pack::Effect &ef = t_->effects[e.effect];
  if (ef.stack.maxBody == kNoId)
    return INT64_MAX;
  Frame f = inst != UINT32_MAX ? frameFor(inst, -1, e.chain) : Frame{};
  f.world = this;
  // "a cap may be read from whoever applies it": the newcomer's applier, on
  // the one held too.
  f.roots[LEDGER_SLOT_HOLDER] = e.subject;
  f.roots[LEDGER_SLOT_SOURCE] = e.source;
  f.roots[LEDGER_SLOT_CREDIT] = e.credit;
  // A cap below zero holds as little as one of 0 (docs/readings.md 169).
  return std::max<int64_t>(0, runBody(ef.stack.maxBody, f));
}

// A new instance goes on, its Apply made by it; its start rules run once
// the Apply is journaled (runStart).
void Kernel::putOn(Event &e, uint32_t eventIndex) {
  // What came off to make room ran its end rules, which may have destroyed
  // the holder: nothing goes on then (docs/readings.md 169).
  if (!alive(e.subject)) {
    e.refusal = Refusal::Gone;
    return;
  }
  uint32_t i = newInstance(e, eventIndex);
  e.instance = instanceHandle(i);
  e.made = true;
  e.after = insts_[i].stacks;
}

// The start rules of the instance an Apply put on, after the Apply is
// journaled and its after rules queued: the cause comes first.
void Kernel::runStart(uint32_t eventIndex) {
  const Event &e = events_[eventIndex];
  if (e.kind != Id(pack::BuiltinEvent::Apply) || !e.made || !instance(e.instance))
    return;
  uint32_t i = indexOf(e.instance);
  const pack::Effect &ef = t_->effects[insts_[i].effect];
  if (!ef.ruleCount)
    return;
  Frame f = frameFor(i, int64_t(eventIndex), e.chain);
  for (uint32_t r = 0; r < ef.ruleCount; ++r)
    if (t_->rules[ef.rulesBegin + r].kind == pack::RuleKind::Start && insts_[i].live)
      runRule(ef.rulesBegin + r, f);
}

// The Apply lands: a new instance, or what the stack policy does with the
// ones held. With no stack line, an effect with values replaces and one
// without piles.
void Kernel::install(Event &e, uint32_t eventIndex) {
  const pack::Effect &ef = t_->effects[e.effect];
  Handle holder = e.subject;
  touchFor(holder, e.effect);
  StackMode mode = ef.stack.mode;
  if (mode == StackMode::Unsaid)
    mode = (ef.varCount || ef.overrideCount || (ef.modifierCount && std::any_of(
                t_->modifiers.begin() + ef.modifiersBegin,
                t_->modifiers.begin() + ef.modifiersBegin + ef.modifierCount,
                [](const pack::Modifier &m) { return m.captured; })))
               ? StackMode::Replace
               : StackMode::Add;
  Scratch<uint32_t> sameList(scratchIds_);
  std::vector<uint32_t> &same = *sameList;
  int64_t capStacks = INT64_MAX;
  bool full = false;
  // What the newcomer stacks with, its cap, and whether it is full: as many
  // separate instances as the cap, or added stacks at it.
  auto gather = [&] {
    same.clear();
    for (uint32_t i : held_[indexOf(holder)])
      if (insts_[i].effect == e.effect && !insts_[i].ending &&
          (!ef.stack.perSource || insts_[i].source == e.source))
        same.push_back(i);
    capStacks = stackCap(same.empty() ? UINT32_MAX : same.front(), e);
    full = false;
    if (capStacks != INT64_MAX) {
      if (mode == StackMode::Separate)
        full = int64_t(same.size()) * kOne >= capStacks;
      else if (mode == StackMode::Add && !ef.stack.isSigned && !same.empty())
        full = insts_[same.back()].stacks >= capStacks;
      // A signed count is full toward the side it is at the cap of.
      else if (mode == StackMode::Add && !same.empty())
        full = (insts_[same.back()].stacks >= capStacks && e.stacks > 0) ||
               (insts_[same.back()].stacks <= -capStacks && e.stacks < 0);
    }
  };
  gather();
  // A full stack that refuses newcomers refuses first, before stronger by
  // compares; separate instances refuse unless their then says otherwise,
  // or where a cap of 0 or less leaves no room to make (reading 156).
  if (full && (ef.stack.full == FullMode::Refuse ||
               (mode == StackMode::Separate &&
                (ef.stack.full == FullMode::Unsaid || capStacks <= 0)))) {
    e.refusal = Refusal::Refused;
    return;
  }
  // stronger by: a newcomer compared with the one held.
  if (!same.empty() && ef.stack.strongerBody != kNoId) {
    Frame held = frameFor(same.back(), -1, e.chain);
    int64_t mine = runBody(ef.stack.strongerBody, held);
    Frame f{};
    f.roots[LEDGER_SLOT_HOLDER] = holder;
    f.roots[LEDGER_SLOT_SOURCE] = e.source;
    f.roots[LEDGER_SLOT_CREDIT] = e.credit;
    newcomerVars(e.effect, f, e.varsFrom, e.varCount);
    Newcomer reading(newcomerStacks_, e.stacks);
    int64_t theirs = runBody(ef.stack.strongerBody, f);
    if (theirs > mine) {
      mode = StackMode::Replace;
    } else if (theirs < mine) {
      e.refusal = Refusal::Refused;
      return;
    }
  }
  // ignore: the one held stands, and the newcomer is refused.
  if (!same.empty() && mode == StackMode::Ignore) {
    e.refusal = Refusal::AlreadyHas;
    return;
  }
  // A cap of 0 leaves a new instance no stacks to hold (docs/readings.md
  // 169); separate instances were refused above (reading 156).
  auto noRoom = [&] {
    return capStacks <= 0 && mode != StackMode::Separate &&
           (same.empty() || mode == StackMode::Replace);
  };
  if (noRoom()) {
    e.refusal = Refusal::Refused;
    return;
  }
  // Exclusive: installing it takes off the holder's other effects carrying
  // one of its tags, so only once nothing has refused it; what comes off
  // runs its end rules, which may touch what it stacks with: gathered again.
  if (ef.exclusive) {
    Scratch<uint32_t> off(scratchIds_);
    for (uint32_t i : held_[indexOf(holder)]) {
      TagBits tb;
      addTags(tb, t_->effects[insts_[i].effect].tags);
      if (insts_[i].effect != e.effect && carriesAny(tb, ef.exclusive))
        off->push_back(i);
    }
    for (uint32_t i : *off)
      endInstance(i, Id(pack::BuiltinTag::EndReplaced), e.chain);
    if (!off->empty())
      gather();
    if (noRoom()) {
      e.refusal = Refusal::Refused;
      return;
    }
  }
  // A newcomer put on whole holds at most the cap, a signed one within
  // plus or minus it.
  auto capNewcomer = [&] {
    if (capStacks != INT64_MAX)
      e.stacks = ef.stack.isSigned ? std::clamp(e.stacks, -capStacks, capStacks)
                                   : std::min(e.stacks, capStacks);
  };
  if (same.empty() || mode == StackMode::Separate) {
    if (mode == StackMode::Separate && full) {
      // The cap, read again after the exclusive, may leave no room.
      if (capStacks <= 0) {
        e.refusal = Refusal::Refused;
        return;
      }
      uint32_t victim = same.front();
      if (ef.stack.full == FullMode::Shortest)
        for (uint32_t i : same)
          if (insts_[i].expiresAt >= 0 &&
              (insts_[victim].expiresAt < 0 || insts_[i].expiresAt < insts_[victim].expiresAt))
            victim = i;
      endInstance(victim, Id(pack::BuiltinTag::EndReplaced), e.chain);
    }
    if (mode != StackMode::Separate)
      capNewcomer();
    putOn(e, eventIndex);
    return;
  }
  uint32_t held = same.back();
  Instance &in = insts_[held];
  e.instance = instanceHandle(held);
  int64_t newLife = e.life.time;
  int64_t nowOnClock = clockNow(holder, in.clock);
  // A refresh restarts the lifetime with the newcomer's: its time, plus what
  // was left, at most keep up to's share of the newcomer's; its count, of
  // turns or of events, whichever the newcomer gives (one measure, as an
  // apply's count is). A full add's then refresh is one too (reading 146).
  auto refresh = [&] {
    if (newLife >= 0) {
      int64_t left = in.expiresAt >= 0 ? std::max<int64_t>(0, in.expiresAt - nowOnClock) : 0;
      NumberFault fault = NumberFault::None;
      int64_t kept = ef.stack.keepSaid ? std::min(left, mul(newLife, ef.stack.keepUpTo, fault)) : 0;
      in.lifetime = timeAfter(newLife, kept);
      in.expiresAt = timeAfter(nowOnClock, in.lifetime);
      schedule(held);
    }
    if (e.life.turns >= 0 || e.life.count >= 0) {
      // A count the held instance didn't keep hears what it counts from now.
      auto &hearing = hearers_[indexOf(holder)];
      if (e.life.count >= 0 && std::none_of(hearing.begin(), hearing.end(),
                                            [&](const Hearer &h) { return h.inst == held; }))
        hearing.insert(std::upper_bound(hearing.begin(), hearing.end(), in.seq,
                                        [](uint64_t seq, const Hearer &h) { return seq < h.seq; }),
                       Hearer{held, in.effect, in.seq});
      in.turnsLeft = e.life.turns >= 0 ? e.life.turns / kOne : -1;
      countFor(in, e.life.count >= 0 ? e.life.count / kOne : -1);
      in.countEvent = e.life.countEvent;
      in.countTag = e.life.countTag;
    }
  };
  switch (mode) {
  case StackMode::Replace: {
    endInstance(held, Id(pack::BuiltinTag::EndReplaced), e.chain);
    capNewcomer();
    putOn(e, eventIndex);
    return;
  }
  case StackMode::Refresh: {
    refresh();
    e.after = in.stacks;
    return;
  }
  case StackMode::Extend:
    if (newLife >= 0 && in.expiresAt >= 0) {
      in.expiresAt = timeAfter(in.expiresAt, newLife);
      in.lifetime = timeAfter(in.lifetime, newLife);
      schedule(held);
    }
    if (in.turnsLeft >= 0 && e.life.turns >= 0)
      in.turnsLeft += e.life.turns / kOne;
    if (in.countLeft >= 0 && e.life.count >= 0)
      in.countLeft += e.life.count / kOne;
    e.after = in.stacks;
    return;
  default: { // add
    // Held at what a number holds, which only a cap catches unfaulted, as a
    // pool's move is (docs/readings.md 160).
    bool passed = false;
    int64_t summed = addHeld(in.stacks, e.stacks, passed);
    int64_t stacks = summed;
    if (ef.stack.isSigned) {
      if (capStacks != INT64_MAX)
        stacks = std::clamp(stacks, -capStacks, capStacks);
    } else {
      stacks = std::min(stacks, capStacks);
    }
    in.stacks = stacks;
    if (passed && stacks == summed)
      journalFault(NumberFault::Overflow);
    if (full && ef.stack.full == FullMode::Refresh)
      refresh();
    e.after = in.stacks;
    touchFor(holder, in.effect);
    if (ef.stack.isSigned && in.stacks == 0)
      endInstance(held, Id(pack::BuiltinTag::EndSpent), e.chain);
    return;
  }
  }
}

// An instance's count of events left (-1: it counts none), the tally of the
// instances counting kept with it.
void Kernel::countFor(Instance &in, int64_t left) {
  if ((in.countLeft >= 0) != (left >= 0))
    left >= 0 ? ++counting_ : --counting_;
  in.countLeft = left;
}

// Its Remove, made before anything comes off and raised once it has: its
// end and expire steps hold it in hand ("held against its Remove"). Whole
// where it carries an End tag (event.amount its stacks, signed as they
// are), else the stacks it takes and, as event.after, what it leaves.
uint32_t Kernel::removeEventFor(uint32_t inst, int64_t stacks, Id endTag, uint32_t chain,
                               const Frame *by) {
  const Instance &in = insts_[inst];
  uint32_t ev = newEvent(Id(pack::BuiltinEvent::Remove), in.holder, in.source, in.credit, chain);
  Event &remove = events_[ev];
  remove.effect = in.effect;
  remove.instance = instanceHandle(inst);
  bool whole = endTag != kNoId;
  remove.stacks = whole ? in.stacks : stacks;
  remove.amount = remove.stacks; // what event.amount reads: the stacks it takes
  remove.after = whole ? 0 : in.stacks < 0 ? in.stacks + stacks : in.stacks - stacks;
  if (whole)
    addTags(remove.tags, t_->tags[endTag].closure);
  addTags(remove.tags, t_->effects[in.effect].tags);
  fromChain(remove, by);
  return ev;
}

// A Remove something did, refused or heard before its instance comes off
// (docs/readings.md 142): a block or a chain's prevent refuses it, no one
// hearing it; a prevent among its before rules, or an amount they leave at
// 0 or turn round, keeps it on, and it is told prevented. The instance's own
// block doesn't meet its own Remove: once off, it blocks nothing.
Refusal Kernel::keptOn(uint32_t ev, int64_t asked) {
  if (!withinBudget(ev))
    return Refusal::ChainBudget;
  const Event &e = events_[ev];
  if (inPreventedChain(e))
    return Refusal::Prevented;
  if (blocks(e, indexOf(e.instance)))
    return Refusal::Blocked;
  Handle taken = e.instance;
  hearingTakings_.push_back(taken);
  runBefore(ev);
  hearingTakings_.pop_back();
  if (!instance(taken))
    return Refusal::None; // off meanwhile, its holder destroyed: nothing left to keep
  Event &heard = events_[ev];
  heard.beforeHeard = true;
  if (heard.stacks == 0 || (heard.stacks < 0) != (asked < 0))
    heard.prevented = true;
  if (!heard.prevented)
    return Refusal::None;
  raiseEvent(ev);
  return Refusal::Prevented;
}

// What its before rules left a Remove to take: none where it was kept on,
// the whole instance where they left it all (or more), else that many stacks.
Kernel::Taken Kernel::settleTaking(uint32_t inst, uint32_t ev, Id endTag, int64_t asked) {
  Handle taken = events_[ev].instance;
  if (Refusal kept = keptOn(ev, asked); kept != Refusal::None)
    return {0, kept};
  if (!instance(taken) || insts_[inst].ending)
    return {}; // taken off while its before rules heard it
  const Instance &in = insts_[inst];
  int64_t held = in.stacks < 0 ? -in.stacks : in.stacks;
  int64_t wanted = events_[ev].stacks < 0 ? -events_[ev].stacks : events_[ev].stacks;
  // What it takes now says whether it ends the instance: its End tag goes
  // with that alone; its effect's tags and the chain's carried ones stay.
  Event &remove = events_[ev];
  if (endTag != kNoId) {
    const uint64_t *endBits = t_->tagSet(t_->tags[endTag].closure);
    for (uint32_t w = 0; w < t_->tagWords; ++w)
      remove.tags.w[w] &= ~endBits[w];
  }
  if (wanted >= held) {
    remove.stacks = remove.amount = in.stacks;
    remove.after = 0;
    addTags(remove.tags, t_->tags[endTag].closure);
    comeOff(inst, ev, endTag);
    return {held};
  }
  takeSome(inst, ev, wanted);
  return {wanted};
}

// An instance comes off: its expire and end rules as its end says, its
// Remove raised carrying how it ended, its place freed.
bool Kernel::beingHeard(uint32_t inst) const {
  return std::find(hearingTakings_.begin(), hearingTakings_.end(), instanceHandle(inst)) !=
         hearingTakings_.end();
}

Kernel::Taken Kernel::endInstance(uint32_t inst, Id endTag, uint32_t chain, Taking taking,
                                const Frame *by) {
  // Once: its own expire and end steps may reach it again (a remove, an
  // exclusive, a blow its prevents death would hear); it is already going.
  // So is one whose Remove its before rules are hearing, to what they do.
  if (!insts_[inst].live || insts_[inst].ending ||
      (taking == Taking::Stoppable && beingHeard(inst)))
    return {};
  int64_t stacks = insts_[inst].stacks;
  uint32_t ev = removeEventFor(inst, stacks, endTag, chain, by);
  if (taking == Taking::Stoppable)
    return settleTaking(inst, ev, endTag, stacks);
  comeOff(inst, ev, endTag);
  return {stacks < 0 ? -stacks : stacks};
}

void Kernel::comeOff(uint32_t inst, uint32_t ev, Id endTag) {
  Instance &in = insts_[inst];
  in.ending = true;
  Handle holder = in.holder;
  auto &hearing = hearers_[indexOf(holder)];
  hearing.erase(std::remove_if(hearing.begin(), hearing.end(),
                               [&](const Hearer &h) { return h.inst == inst; }),
                hearing.end());
  touchFor(holder, in.effect);
  const pack::Effect &ef = t_->effects[in.effect];
  // Its end steps are "held against its Remove": its End tag, its effect's
  // tags and what the chain carried.
  const TagBits endTags = events_[ev].tags;
  Frame f = frameFor(inst, int64_t(ev), events_[ev].chain);
  if (endTag == Id(pack::BuiltinTag::EndExpired))
    for (uint32_t r = 0; r < ef.ruleCount; ++r)
      if (t_->rules[ef.rulesBegin + r].kind == pack::RuleKind::Expire)
        runRule(ef.rulesBegin + r, f);
  for (uint32_t r = 0; r < ef.ruleCount; ++r) {
    const pack::Rule &rule = t_->rules[ef.rulesBegin + r];
    if (rule.kind != pack::RuleKind::End)
      continue;
    if (rule.having && !carriesAll(endTags, rule.having))
      continue;
    if (rule.unless && carriesAny(endTags, rule.unless))
      continue;
    runRule(ef.rulesBegin + r, f);
  }
  Instance &still = insts_[inst];
  if (!still.live)
    return;
  still.live = false;
  if (countingRefs_)
    unreferInstance(inst);
  countFor(still, -1);
  if (ef.suspendsAll)
    --suspenders_[indexOf(holder)];
  auto &list = held_[indexOf(holder)];
  list.erase(std::remove(list.begin(), list.end(), inst), list.end());
  if (ef.blockCount)
    --blockers_[indexOf(holder)];
  for (uint32_t o = 0; o < ef.overrideCount; ++o) {
    size_t slot = size_t(indexOf(holder)) * t_->links.size() + t_->linkOverrides[ef.overridesBegin + o].link;
    if (overridden_[slot] == instanceHandle(inst)) {
      overridden_[slot] = 0;
      // The newest other override of that link stands, if any.
      for (uint32_t other : list) {
        const pack::Effect &oe = t_->effects[insts_[other].effect];
        for (uint32_t k = 0; k < oe.overrideCount; ++k)
          if (t_->linkOverrides[oe.overridesBegin + k].link == t_->linkOverrides[ef.overridesBegin + o].link)
            overridden_[slot] = instanceHandle(other);
      }
    }
  }
  ++still.timerVersion;
  freeInsts_.push_back(inst);
  ++epoch_;
  if (ix_->shapesCounts[still.effect])
    shapeMoved(holder);
  if (Actor *ac = actor(holder)) {
    if (!ix_->inert[still.effect])
      ++ac->epoch;
    ++ac->tagsEpoch;
  }
  raiseEvent(ev);
}

// Stacks taken off an instance, toward zero (a signed count below it too):
// taking the last ends it with the tag given; taking fewer leaves it held,
// its Remove carrying what it took and, as event.after, what it leaves,
// with no End tag, as it hasn't ended.
Kernel::Taken Kernel::takeStacks(uint32_t inst, int64_t stacks, Id endTag, uint32_t chain,
                               Taking taking, const Frame *by) {
  const Instance &in = insts_[inst];
  int64_t held = in.stacks < 0 ? -in.stacks : in.stacks;
  int64_t take = std::min(stacks, held);
  if (take >= held)
    return endInstance(inst, endTag, chain, taking, by);
  if (taking == Taking::Stoppable && beingHeard(inst))
    return {};
  uint32_t ev = removeEventFor(inst, take, kNoId, chain, by);
  if (taking == Taking::Stoppable)
    return settleTaking(inst, ev, endTag, take);
  takeSome(inst, ev, take);
  return {take};
}

void Kernel::takeSome(uint32_t inst, uint32_t ev, int64_t take) {
  Instance &in = insts_[inst];
  touchFor(in.holder, in.effect);
  in.stacks += in.stacks < 0 ? take : -take;
  Event &remove = events_[ev];
  remove.stacks = remove.amount = take;
  remove.after = in.stacks;
  raiseEvent(ev);
}

void Kernel::runTimers(int64_t upTo) {
  while (!timers_.empty() && timers_.front().due <= upTo) {
    std::pop_heap(timers_.begin(), timers_.end(), std::greater<>());
    Timer tm = timers_.back();
    timers_.pop_back();
    fireTimer(tm);
  }
}

void Kernel::fireTimer(const Timer &tm) {
  if (tm.kind == TimerKind::PoolBound) {
    firePoolBound(tm);
    return;
  }
  if (tm.kind == TimerKind::AutoWake) {
    if (tm.due == autoWakeAt_) {
      autoWakeAt_ = -1;
      runAutos();
    }
    return;
  }
  Instance *in = instance(tm.instance);
  if (!in || in->timerVersion != tm.version)
    return;
  uint32_t inst = indexOf(tm.instance);
  beginMoment();
  uint32_t chain = ++chains_;
  if (tm.kind == TimerKind::Expire) {
    const pack::Effect &ef = t_->effects[in->effect];
    if (ef.lasts.oneAtATime && (in->stacks > kOne || in->stacks < -kOne)) {
      in->expiresAt = timeAfter(in->expiresAt, in->lifetime);
      schedule(inst);
      takeStacks(inst, kOne, Id(pack::BuiltinTag::EndExpired), chain);
    } else {
      endInstance(inst, Id(pack::BuiltinTag::EndExpired), chain);
    }
  } else {
    const pack::Rule &rule = t_->rules[tm.rule];
    Frame f = frameFor(inst, -1, chain);
    int64_t interval = runBody(rule.intervalBody, f);
    // The next run is due a whole interval on, its phase kept.
    const pack::Effect &ef = t_->effects[in->effect];
    uint32_t every = 0;
    for (uint32_t r = ef.rulesBegin; r < tm.rule; ++r)
      every += t_->rules[r].kind == pack::RuleKind::Every;
    int64_t &due = everyDue_[in->everyAt + every];
    if (interval > 0) {
      due = timeAfter(due, interval);
      int64_t clockNowAt = clockNow(in->holder, in->clock);
      if (due <= clockNowAt && pastEveryBudget(inst, every, in->effect))
        due = dueAfter(due, interval, clockNowAt);
      pushTimer({worldDue(in->holder, in->clock, due), 0, in->seq, TimerKind::Every,
                         tm.instance, tm.rule, tm.version});
    }
    if (working(inst) && alive(insts_[inst].holder) && !actor(insts_[inst].holder)->fallen) {
      if (rule.creditHolder)
        f.roots[LEDGER_SLOT_CREDIT] = insts_[inst].holder;
      runRule(tm.rule, f);
    }
  }
  endMoment();
}

// An every rule due again within the tick it ran in, counted against its
// budget for the tick: past it, the world journals a fault once and its
// runs left in the tick are skipped (docs/readings.md 168).
bool Kernel::pastEveryBudget(uint32_t inst, uint32_t every, Id effect) {
  if (everyRunsTick_ != now_) {
    everyRuns_.clear();
    everyRunsTick_ = now_;
  }
  auto at = std::find_if(everyRuns_.begin(), everyRuns_.end(), [&](const EveryRuns &r) {
    return r.inst == inst && r.every == every;
  });
  if (at == everyRuns_.end()) {
    everyRuns_.push_back({inst, every, 0});
    at = everyRuns_.end() - 1;
  }
  if (++at->runs <= kEveryBudget)
    return false;
  if (at->runs == kEveryBudget + 1)
    fault(Refusal::ChainBudget, "an every rule came due more than " + std::to_string(kEveryBudget) +
                                    " times in one tick, and the world skipped its runs left in "
                                    "the tick in " +
                                    std::string(t_->name(t_->effects[effect].name)));
  return true;
}

// The first of `due`'s runs every `interval` past `now` (a clock's time):
// past what a time holds, the last time, never reached.
int64_t Kernel::dueAfter(int64_t due, int64_t interval, int64_t now) {
  __int128 next = __int128(due) + (__int128(now - due) / interval + 1) * interval;
  return next > INT64_MAX ? INT64_MAX : int64_t(next);
}

// Time moves from one due timer to the next: a tick with nothing due costs
// nothing.
void Kernel::advance(int64_t ticks) {
  int64_t end = now_ + ticks;
  while (!timers_.empty() && timers_.front().due <= end * tickTime_) {
    int64_t tick = timers_.front().at; // the first tick at or after it is due
    if (tick > now_) {
      now_ = tick;
      ++epoch_; // what drifts has moved
    }
    runTimers(worldTime());
  }
  if (end != now_)
    ++epoch_;
  now_ = end;
}

} // namespace ledger::rt
