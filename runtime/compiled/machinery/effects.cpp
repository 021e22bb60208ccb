// Effects: instances put on by an Apply as their stack policy says, their
// lifetimes and every rules on the timer queue, and how they come off.
#include "world.h"

namespace ledger::cw {

using pack::FullMode;
using pack::StackMode;

Frame World::frameFor(uint32_t i, int64_t event, uint32_t chain) {
  Frame f{};
  const InstHead &in = inst(i);
  f.instance = handle(i, in.gen);
  f.event = f.propsEvent = event;
  f.chain = chain;
  f.roots[LEDGER_SLOT_HOLDER] = in.holder;
  f.roots[LEDGER_SLOT_SOURCE] = in.source;
  f.roots[LEDGER_SLOT_CREDIT] = in.credit;
  f.roots[LEDGER_SLOT_TARGET] = event >= 0 ? events_[uint32_t(event)].subject : 0;
  f.roots[LEDGER_SLOT_SELF] = f.instance;
  f.c.vars = varsOf(i);
  return f;
}

void World::pushTimer(Timer t) {
  t.at = tickAtOrAfter(t.due);
  timers_.push(t);
}

void World::schedule(uint32_t i) {
  InstHead &in = inst(i);
  ++in.timerVersion;
  Handle h = handle(i, in.gen);
  if (in.expiresAt >= 0)
    pushTimer({in.expiresAt, 0, in.seq, h, 0, in.timerVersion, 1, TimerKind::Expire});
  const pack::Effect &e = lp_effects[in.effect];
  uint32_t every = 0;
  for (uint32_t r = 0; r < e.ruleCount; ++r) {
    if (lp_rules[e.rulesBegin + r].kind != pack::RuleKind::Every)
      continue;
    int64_t due = everyDueOf(i)[every++];
    if (due < 0)
      continue;
    pushTimer({due, 0, inst(i).seq, h, e.rulesBegin + r, inst(i).timerVersion, 0, TimerKind::Every});
  }
}

// Its holder's lists: all it holds, and what it holds of the effect, each
// oldest first; an instance put on comes last in both.
void World::hold(uint32_t ai, uint32_t i) {
  InstHead &in = inst(i);
  ActorHead &a = row(ai);
  in.nextHeld = 0;
  in.prevHeld = a.lastHeld;
  if (a.lastHeld)
    inst(a.lastHeld - 1).nextHeld = i + 1;
  else
    a.firstHeld = i + 1;
  a.lastHeld = i + 1;
  in.nextSame = 0;
  uint32_t &first = firstOf(ai, in.effect);
  if (!first) {
    first = i + 1;
  } else {
    uint32_t k = first;
    while (inst(k - 1).nextSame)
      k = inst(k - 1).nextSame;
    inst(k - 1).nextSame = i + 1;
  }
}

void World::letGo(uint32_t ai, uint32_t i) {
  InstHead &in = inst(i);
  ActorHead &a = row(ai);
  if (in.prevHeld)
    inst(in.prevHeld - 1).nextHeld = in.nextHeld;
  else
    a.firstHeld = in.nextHeld;
  if (in.nextHeld)
    inst(in.nextHeld - 1).prevHeld = in.prevHeld;
  else
    a.lastHeld = in.prevHeld;
  uint32_t *link = &firstOf(ai, in.effect);
  while (*link && *link != i + 1)
    link = &inst(*link - 1).nextSame;
  if (*link)
    *link = in.nextSame;
}

uint32_t World::newInstance(Event &e, uint32_t eventIndex) {
  uint32_t i;
  if (!freeInsts_.empty()) {
    i = freeInsts_.back();
    freeInsts_.pop();
    uint32_t gen = nextGen(inst(i).gen);
    std::memset(insts_.at(i, instWidth()), 0, instWidth());
    inst(i).gen = gen;
  } else {
    i = insts_.size();
    insts_.add(instWidth());
    inst(i).gen = 1;
  }
  Id effect = e.effect;
  const pack::Effect &ef = lp_effects[effect];
  {
    InstHead &in = inst(i);
    in.live = 1;
    in.effect = effect;
    in.holder = e.subject;
    in.source = e.source;
    in.credit = e.credit;
    in.stacks = e.stacks;
    in.seq = ++seq_;
    in.appliedAt = worldTime();
    // A time below zero is none, as a count or turns below zero are
    // (docs/readings.md 167).
    in.lifetime = e.life.time >= 0 ? e.life.time : -1;
    in.expiresAt = in.lifetime >= 0 ? rt::timeAfter(in.appliedAt, in.lifetime) : -1;
    in.turnsLeft = e.life.turns >= 0 ? e.life.turns / kOne : -1;
    in.countLeft = -1;
    countFor(in, e.life.count >= 0 ? e.life.count / kOne : -1);
    in.countEvent = e.life.countEvent;
    in.countTag = e.life.countTag;
  }
  hold(indexOf(e.subject), i);
  if (lp_shapesCounts[effect])
    shapeMoved(e.subject);
  // Its tags count from here, as the kernel's do.
  if (ef.tags)
    if (ActorHead *ac = actor(e.subject))
      ++ac->tagsEpoch;
  if (ef.autoCount)
    addAutoActor(e.subject);
  // Vars: given, else their formula, read as the instance goes on, its Apply
  // in hand.
  Frame f = frameFor(i, int64_t(eventIndex), e.chain);
  for (uint32_t v = 0; v < ef.varCount; ++v) {
    const pack::Var &var = lp_vars[ef.varsBegin + v];
    int64_t value = var.initBody != kNoId ? runBody(var.initBody, f) : 0;
    const Event &apply = ev(eventIndex);
    for (uint32_t g = 0; g < apply.varCount; ++g)
      if (givenVars_[apply.varsFrom + g].name == v)
        value = givenVars_[apply.varsFrom + g].value;
    varsOf(i)[v] = value;
  }
  Frame g = frameFor(i, int64_t(eventIndex), ev(eventIndex).chain);
  uint32_t every = 0;
  for (uint32_t r = 0; r < ef.ruleCount; ++r) {
    const pack::Rule &rule = lp_rules[ef.rulesBegin + r];
    if (rule.kind != pack::RuleKind::Every)
      continue;
    int64_t interval = runBody(rule.intervalBody, g);
    everyDueOf(i)[every++] = interval > 0 ? rt::timeAfter(inst(i).appliedAt, interval) : -1;
  }
  if (countingRefs_)
    referInstance(i);
  schedule(i);
  return i;
}

// A newcomer's vars, as it would go on with them (its inits, then what the
// apply gives), where a body reads self with no instance yet: scratchVars_.
void World::newcomerVars(Id effect, Frame &f, uint32_t givenFrom, uint32_t givenCount) {
  const pack::Effect &ef = lp_effects[effect];
  int64_t *vars = scratchVars_.data();
  for (uint32_t v = 0; v < shape().instanceSlots; ++v)
    vars[v] = 0;
  f.c.vars = vars;
  for (uint32_t v = 0; v < ef.varCount; ++v) {
    const pack::Var &var = lp_vars[ef.varsBegin + v];
    vars[v] = var.initBody != kNoId ? runBody(var.initBody, f) : 0;
    for (uint32_t g = 0; g < givenCount; ++g)
      if (givenVars_[givenFrom + g].name == v)
        vars[v] = givenVars_[givenFrom + g].value;
  }
}

int64_t World::stackCap(uint32_t i, const Event &e) {
  const pack::Effect &ef = lp_effects[e.effect];
  if (ef.stack.maxBody == kNoId)
    return INT64_MAX;
  Frame f{};
  if (i != kNone)
    f = frameFor(i, -1, e.chain);
  else
    f.event = f.propsEvent = -1;
  // "a cap may be read from whoever applies it": the newcomer's applier, on
  // the one held too.
  f.roots[LEDGER_SLOT_HOLDER] = e.subject;
  f.roots[LEDGER_SLOT_SOURCE] = e.source;
  f.roots[LEDGER_SLOT_CREDIT] = e.credit;
  // A cap below zero holds as little as one of 0 (docs/readings.md 169).
  int64_t cap = runBody(ef.stack.maxBody, f);
  return cap > 0 ? cap : 0;
}

void World::putOn(Event &e, uint32_t eventIndex) {
  // What came off to make room ran its end rules, which may have destroyed
  // the holder: nothing goes on then (docs/readings.md 169).
  if (!alive(e.subject)) {
    e.refusal = Refusal::Gone;
    return;
  }
  uint32_t i = newInstance(e, eventIndex);
  Event &after = ev(eventIndex);
  after.instance = instanceHandle(i);
  after.made = 1;
  after.after = inst(i).stacks;
}

// The start rules of the instance an Apply put on, after the Apply is
// journaled and its after rules queued: the cause comes first.
void World::runStart(uint32_t eventIndex) {
  const Event &e = ev(eventIndex);
  if (e.kind != Id(pack::BuiltinEvent::Apply) || !e.made || !instance(e.instance))
    return;
  uint32_t i = indexOf(e.instance);
  const pack::Effect &ef = lp_effects[inst(i).effect];
  if (!ef.ruleCount)
    return;
  Frame f = frameFor(i, int64_t(eventIndex), e.chain);
  for (uint32_t r = 0; r < ef.ruleCount; ++r)
    if (lp_rules[ef.rulesBegin + r].kind == pack::RuleKind::Start && inst(i).live)
      runRule(ef.rulesBegin + r, f);
}

// The Apply lands: a new instance, or what the stack policy does with the
// one held. With no stack line, an effect with values replaces and one
// without piles.
void World::install(Event &e0, uint32_t ei) {
  Id effect = e0.effect;
  const pack::Effect &ef = lp_effects[effect];
  Handle holder = e0.subject;
  uint32_t ai = indexOf(holder);
  touchFor(holder, effect);
  StackMode mode = ef.stack.mode;
  if (mode == StackMode::Unsaid)
    mode = ef.varCount ? StackMode::Replace : StackMode::Add;
  // What the newcomer stacks with: the newest not coming off.
  auto held = [&]() -> uint32_t {
    uint32_t found = kNone;
    for (uint32_t k = firstOf(ai, effect); k; k = inst(k - 1).nextSame)
      if (!inst(k - 1).ending)
        found = k - 1;
    return found;
  };
  auto oldest = [&]() -> uint32_t {
    for (uint32_t k = firstOf(ai, effect); k; k = inst(k - 1).nextSame)
      if (!inst(k - 1).ending)
        return k - 1;
    return kNone;
  };
  uint32_t same = held();
  int64_t capStacks = stackCap(same == kNone ? kNone : oldest(), ev(ei));
  bool full = false;
  if (capStacks != INT64_MAX && mode == StackMode::Add && same != kNone) {
    if (!ef.stack.isSigned)
      full = inst(same).stacks >= capStacks;
    else
      full = (inst(same).stacks >= capStacks && ev(ei).stacks > 0) ||
             (inst(same).stacks <= -capStacks && ev(ei).stacks < 0);
  }
  if (full && ef.stack.full == FullMode::Refuse) {
    ev(ei).refusal = Refusal::Refused;
    return;
  }
  if (same != kNone && ef.stack.strongerBody != kNoId) {
    Frame heldFrame = frameFor(same, -1, ev(ei).chain);
    int64_t mine = runBody(ef.stack.strongerBody, heldFrame);
    Frame f{};
    f.event = f.propsEvent = -1;
    f.roots[LEDGER_SLOT_HOLDER] = holder;
    f.roots[LEDGER_SLOT_SOURCE] = ev(ei).source;
    f.roots[LEDGER_SLOT_CREDIT] = ev(ei).credit;
    newcomerVars(effect, f, ev(ei).varsFrom, ev(ei).varCount);
    int64_t savedNewcomer = newcomerStacks_;
    newcomerStacks_ = ev(ei).stacks;
    int64_t theirs = runBody(ef.stack.strongerBody, f);
    newcomerStacks_ = savedNewcomer;
    if (theirs > mine) {
      mode = StackMode::Replace;
    } else if (theirs < mine) {
      ev(ei).refusal = Refusal::Refused;
      return;
    }
  }
  if (same != kNone && mode == StackMode::Ignore) {
    ev(ei).refusal = Refusal::AlreadyHas;
    return;
  }
  // A cap of 0 leaves a new instance no stacks to hold (docs/readings.md 169).
  if (capStacks <= 0 && (same == kNone || mode == StackMode::Replace)) {
    ev(ei).refusal = Refusal::Refused;
    return;
  }
  auto capNewcomer = [&] {
    Event &e = ev(ei);
    if (capStacks != INT64_MAX) {
      if (ef.stack.isSigned)
        e.stacks = e.stacks < -capStacks ? -capStacks : e.stacks > capStacks ? capStacks : e.stacks;
      else
        e.stacks = e.stacks < capStacks ? e.stacks : capStacks;
    }
  };
  if (same == kNone) {
    capNewcomer();
    putOn(ev(ei), ei);
    return;
  }
  Event &e = ev(ei);
  e.instance = instanceHandle(same);
  int64_t newLife = e.life.time;
  int64_t nowOnClock = worldTime();
  auto refresh = [&] {
    if (newLife >= 0) {
      InstHead &in = inst(same);
      int64_t left = in.expiresAt >= 0 ? in.expiresAt - nowOnClock : 0;
      left = left > 0 ? left : 0;
      NumberFault fault = NumberFault::None;
      int64_t kept = 0;
      if (ef.stack.keepSaid) {
        int64_t most = rt::mul(newLife, ef.stack.keepUpTo, fault);
        kept = left < most ? left : most;
      }
      in.lifetime = rt::timeAfter(newLife, kept);
      in.expiresAt = rt::timeAfter(nowOnClock, in.lifetime);
      schedule(same);
    }
    const Event &given = ev(ei);
    if (given.life.turns >= 0 || given.life.count >= 0) {
      InstHead &in = inst(same);
      in.turnsLeft = given.life.turns >= 0 ? given.life.turns / kOne : -1;
      countFor(in, given.life.count >= 0 ? given.life.count / kOne : -1);
      in.countEvent = given.life.countEvent;
      in.countTag = given.life.countTag;
    }
  };
  switch (mode) {
  case StackMode::Replace:
    endInstance(same, Id(pack::BuiltinTag::EndReplaced), e.chain);
    capNewcomer();
    putOn(ev(ei), ei);
    return;
  case StackMode::Refresh:
    refresh();
    ev(ei).after = inst(same).stacks;
    return;
  case StackMode::Extend: {
    InstHead &in = inst(same);
    if (newLife >= 0 && in.expiresAt >= 0) {
      in.expiresAt = rt::timeAfter(in.expiresAt, newLife);
      in.lifetime = rt::timeAfter(in.lifetime, newLife);
      schedule(same);
    }
    InstHead &extended = inst(same);
    const Event &given = ev(ei);
    if (extended.turnsLeft >= 0 && given.life.turns >= 0)
      extended.turnsLeft += given.life.turns / kOne;
    if (extended.countLeft >= 0 && given.life.count >= 0)
      extended.countLeft += given.life.count / kOne;
    ev(ei).after = inst(same).stacks;
    return;
  }
  default: {
    // Held at what a number holds, which only a cap catches unfaulted, as a
    // pool's move is (docs/readings.md 160).
    InstHead &in = inst(same);
    bool passed = false;
    int64_t summed = rt::addHeld(in.stacks, e.stacks, passed);
    int64_t stacks = summed;
    if (ef.stack.isSigned) {
      if (capStacks != INT64_MAX)
        stacks = stacks < -capStacks ? -capStacks : stacks > capStacks ? capStacks : stacks;
    } else {
      stacks = stacks < capStacks ? stacks : capStacks;
    }
    in.stacks = stacks;
    if (passed && stacks == summed)
      apiFault(uint32_t(NumberFault::Overflow));
    if (full && ef.stack.full == FullMode::Refresh)
      refresh();
    ev(ei).after = inst(same).stacks;
    touchFor(holder, effect);
    if (ef.stack.isSigned && inst(same).stacks == 0)
      endInstance(same, Id(pack::BuiltinTag::EndSpent), ev(ei).chain);
    return;
  }
  }
}

// Its Remove, made before anything comes off and raised once it has.
uint32_t World::removeEventFor(uint32_t i, int64_t stacks, Id endTag, uint32_t chain) {
  const InstHead in = inst(i);
  uint32_t r = newEvent(Id(pack::BuiltinEvent::Remove), in.holder, in.source, in.credit, chain);
  Event &remove = ev(r);
  remove.effect = in.effect;
  remove.instance = handle(i, in.gen);
  bool whole = endTag != kNoId;
  remove.stacks = whole ? in.stacks : stacks;
  remove.amount = remove.stacks;
  remove.after = whole ? 0 : in.stacks < 0 ? in.stacks + stacks : in.stacks - stacks;
  if (whole)
    addTags(remove.tags, lp_tags[endTag].closure);
  addTags(remove.tags, lp_effects[in.effect].tags);
  return r;
}

// A Remove something did, refused or heard before its instance comes off
// (docs/readings.md 142).
Refusal World::keptOn(uint32_t r, int64_t asked) {
  if (!withinBudget(r))
    return Refusal::ChainBudget;
  if (inPreventedChain(ev(r)))
    return Refusal::Prevented;
  Handle taken = ev(r).instance;
  hearingTakings_.push(taken);
  runBefore(r);
  hearingTakings_.pop();
  if (!instance(taken))
    return Refusal::None;
  Event &heard = ev(r);
  heard.beforeHeard = 1;
  if (heard.stacks == 0 || (heard.stacks < 0) != (asked < 0))
    heard.prevented = 1;
  if (!heard.prevented)
    return Refusal::None;
  raiseOf<Id(pack::BuiltinEvent::Remove)>(r);
  return Refusal::Prevented;
}

World::Taken World::settleTaking(uint32_t i, uint32_t r, Id endTag, int64_t asked) {
  Handle taken = ev(r).instance;
  if (Refusal kept = keptOn(r, asked); kept != Refusal::None)
    return {0, kept};
  if (!instance(taken) || inst(i).ending)
    return {};
  int64_t held = inst(i).stacks < 0 ? -inst(i).stacks : inst(i).stacks;
  int64_t wanted = ev(r).stacks < 0 ? -ev(r).stacks : ev(r).stacks;
  Event &remove = ev(r);
  if (endTag != kNoId) {
    const uint64_t *endBits = tagSet(lp_tags[endTag].closure);
    for (uint32_t w = 0; w < tagWords(); ++w)
      remove.tags.w[w] &= ~endBits[w];
  }
  if (wanted >= held) {
    remove.stacks = remove.amount = inst(i).stacks;
    remove.after = 0;
    addTags(remove.tags, lp_tags[endTag].closure);
    comeOff(i, r, endTag);
    return {held};
  }
  takeSome(i, r, wanted);
  return {wanted};
}

bool World::beingHeard(uint32_t i) const {
  Handle h = instanceHandle(i);
  for (Handle t : hearingTakings_)
    if (t == h)
      return true;
  return false;
}

World::Taken World::endInstance(uint32_t i, Id endTag, uint32_t chain, Taking taking) {
  if (!inst(i).live || inst(i).ending || (taking == Taking::Stoppable && beingHeard(i)))
    return {};
  int64_t stacks = inst(i).stacks;
  uint32_t r = removeEventFor(i, stacks, endTag, chain);
  if (taking == Taking::Stoppable)
    return settleTaking(i, r, endTag, stacks);
  comeOff(i, r, endTag);
  return {stacks < 0 ? -stacks : stacks};
}

void World::comeOff(uint32_t i, uint32_t r, Id endTag) {
  inst(i).ending = 1;
  Handle holder = inst(i).holder;
  Id effect = inst(i).effect;
  touchFor(holder, effect);
  const pack::Effect &ef = lp_effects[effect];
  // Its end steps are "held against its Remove".
  Tags endTags = ev(r).tags;
  Frame f = frameFor(i, int64_t(r), ev(r).chain);
  if (endTag == Id(pack::BuiltinTag::EndExpired))
    for (uint32_t k = 0; k < ef.ruleCount; ++k)
      if (lp_rules[ef.rulesBegin + k].kind == pack::RuleKind::Expire)
        runRule(ef.rulesBegin + k, f);
  for (uint32_t k = 0; k < ef.ruleCount; ++k) {
    const pack::Rule &rule = lp_rules[ef.rulesBegin + k];
    if (rule.kind != pack::RuleKind::End)
      continue;
    if (rule.having && !carriesAll(endTags, rule.having))
      continue;
    if (rule.unless && carriesAny(endTags, rule.unless))
      continue;
    runRule(ef.rulesBegin + k, f);
  }
  if (!inst(i).live)
    return;
  inst(i).live = 0;
  if (countingRefs_)
    unreferInstance(i);
  countFor(inst(i), -1);
  letGo(indexOf(holder), i);
  ++inst(i).timerVersion;
  freeInsts_.push(i);
  ++epoch_;
  if (lp_shapesCounts[effect])
    shapeMoved(holder);
  if (ActorHead *ac = actor(holder)) {
    if (!lp_inert[effect])
      ++ac->epoch;
    ++ac->tagsEpoch;
  }
  raiseOf<Id(pack::BuiltinEvent::Remove)>(r);
}

World::Taken World::takeStacks(uint32_t i, int64_t stacks, Id endTag, uint32_t chain,
                               Taking taking) {
  int64_t held = inst(i).stacks < 0 ? -inst(i).stacks : inst(i).stacks;
  int64_t take = stacks < held ? stacks : held;
  if (take >= held)
    return endInstance(i, endTag, chain, taking);
  if (taking == Taking::Stoppable && beingHeard(i))
    return {};
  uint32_t r = removeEventFor(i, take, kNoId, chain);
  if (taking == Taking::Stoppable)
    return settleTaking(i, r, endTag, take);
  takeSome(i, r, take);
  return {take};
}

void World::takeSome(uint32_t i, uint32_t r, int64_t take) {
  touchFor(inst(i).holder, inst(i).effect);
  InstHead &in = inst(i);
  in.stacks += in.stacks < 0 ? take : -take;
  Event &remove = ev(r);
  remove.stacks = remove.amount = take;
  remove.after = inst(i).stacks;
  raiseOf<Id(pack::BuiltinEvent::Remove)>(r);
}

// An instance's count of events left (-1: it counts none), the tally of the
// instances counting kept with it.
void World::countFor(InstHead &in, int64_t left) {
  if ((in.countLeft >= 0) != (left >= 0))
    left >= 0 ? ++counting_ : --counting_;
  in.countLeft = left;
}

// Every timer due by the tick it is, in order.
void World::runTimers() {
  Timer tm;
  while (timers_.pop(now_, tm))
    fireTimer(tm);
}

void World::fireTimer(const Timer &tm) {
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
  InstHead *in = instance(tm.instance);
  if (!in || in->timerVersion != tm.version)
    return;
  uint32_t i = indexOf(tm.instance);
  beginMoment();
  uint32_t chain = ++chains_;
  if (tm.kind == TimerKind::Expire) {
    const pack::Effect &ef = lp_effects[in->effect];
    if (ef.lasts.oneAtATime && (in->stacks > kOne || in->stacks < -kOne)) {
      in->expiresAt = rt::timeAfter(in->expiresAt, in->lifetime);
      schedule(i);
      takeStacks(i, kOne, Id(pack::BuiltinTag::EndExpired), chain);
    } else {
      endInstance(i, Id(pack::BuiltinTag::EndExpired), chain);
    }
  } else {
    const pack::Rule &rule = lp_rules[tm.rule];
    Frame f = frameFor(i, -1, chain);
    int64_t interval = runBody(rule.intervalBody, f);
    // The next run is due a whole interval on, its phase kept.
    const pack::Effect &ef = lp_effects[inst(i).effect];
    uint32_t every = 0;
    for (uint32_t r = ef.rulesBegin; r < tm.rule; ++r)
      every += lp_rules[r].kind == pack::RuleKind::Every;
    int64_t &due = everyDueOf(i)[every];
    if (interval > 0) {
      due = rt::timeAfter(due, interval);
      if (due <= worldTime() && pastEveryBudget(i, every, inst(i).effect)) [[unlikely]]
        due = dueAfter(due, interval, worldTime());
      pushTimer({due, 0, inst(i).seq, tm.instance, tm.rule, tm.version, 0, TimerKind::Every});
    }
    Handle holder = inst(i).holder;
    if (working(i) && alive(holder) && !actor(holder)->fallen) {
      if (rule.creditHolder)
        f.roots[LEDGER_SLOT_CREDIT] = holder;
      runRule(tm.rule, f);
    }
  }
  endMoment();
}

// An every rule due again within the tick it ran in, counted against its
// budget for the tick: past it, the world journals a fault once and its
// runs left in the tick are skipped (docs/readings.md 168).
bool World::pastEveryBudget(uint32_t i, uint32_t every, Id effect) {
  if (everyRunsTick_ != now_) {
    everyRuns_.clear();
    everyRunsTick_ = now_;
  }
  EveryRuns *at = nullptr;
  for (EveryRuns &r : everyRuns_)
    if (r.inst == i && r.every == every)
      at = &r;
  if (!at) {
    at = &everyRuns_.pushDefault();
    *at = {i, every, 0};
  }
  if (++at->runs <= kEveryBudget)
    return false;
  if (at->runs == kEveryBudget + 1) {
    static const char words[] = "an every rule came due more than 10000 times in one tick, and "
                                "the world skipped its runs left in the tick";
    static_assert(kEveryBudget == 10000);
    fault(Refusal::ChainBudget, words, sizeof words - 1, lp_effects[effect].name);
  }
  return true;
}

// The first of `due`'s runs every `interval` past `now`: past what a time
// holds, the last time, never reached.
int64_t World::dueAfter(int64_t due, int64_t interval, int64_t now) {
  __int128 next = __int128(due) + (__int128(now - due) / interval + 1) * interval;
  return next > INT64_MAX ? INT64_MAX : int64_t(next);
}

// Time moves from one due timer to the next: a tick with nothing due costs
// nothing.
void World::advance(int64_t ticks) {
  int64_t end = now_ + ticks;
  for (int64_t tick; timers_.soonest(end, tick);) {
    if (tick > now_) {
      now_ = tick;
      ++epoch_;
    }
    runTimers();
  }
  if (end != now_)
    ++epoch_;
  now_ = end;
  timers_.settle(now_);
}

} // namespace ledger::cw
