// The world's making and the host's reads, and how bodies run: each body is
// a function of the pack's, called through the table of them, which the
// code generator made for this catalog.
#include "world.h"

namespace ledger::cw {

const LedgerHost *gHost = nullptr;

World::World(uint64_t seed) : seed_(seed) {
  tickTime_ = shape().unitsPerTick * kOne;
  globals_.resize(shape().linkCount, 0);
  scratchVars_.resize(shape().instanceSlots, 0);
  for (Id e = 0; e < shape().effectCount; ++e)
    for (uint32_t v = 0; v < lp_effects[e].varCount; ++v)
      anyActorVars_ |= lp_vars[lp_effects[e].varsBegin + v].kind == pack::VarKind::Actor;
}

Handle World::make(Id archetype, const LedgerLink *links, uint32_t count) {
  // An archetype or a link its pack lacks makes no one (docs/readings.md 134).
  if (archetype >= shape().archetypeCount)
    return 0;
  for (uint32_t k = 0; k < count; ++k)
    if (links[k].link >= shape().linkCount)
      return 0;
  beginMoment();
  Handle h = makeActor(archetype, 0, links, count, ++chains_);
  endMoment();
  return h;
}

uint64_t World::living(Handle *out, uint64_t room) const {
  uint64_t n = 0;
  for (uint32_t ai = 0; ai < actors_.size(); ++ai)
    if (row(ai).live) {
      if (n < room)
        out[n] = actorHandle(ai);
      ++n;
    }
  return n;
}

Handle World::linkOf(Handle a, Id link) const {
  if (lp_links[link].global)
    return globals_[link];
  if (!actor(a))
    return 0;
  return const_cast<World *>(this)->linkSlot(indexOf(a), link);
}

bool World::hasPool(Handle a, Id pool) const {
  return actor(a) && pool < shape().valueCount && lp_values[pool].kind == pack::ValueKind::Pool &&
         poolSlot(indexOf(a), pool).has;
}

bool World::holds(Handle a, Id effect) const {
  return alive(a) && effect < shape().effectCount && firstOf(indexOf(a), effect) != 0;
}

int64_t World::stacksOf(Handle a, Id effect, Handle from) const {
  if (!alive(a) || effect >= shape().effectCount)
    return 0;
  int64_t total = 0;
  for (uint32_t i = firstOf(indexOf(a), effect); i; i = inst(i - 1).nextSame)
    if (from == 0 || inst(i - 1).source == from)
      total += inst(i - 1).stacks;
  return total;
}

// Time left of the newest instance of an effect: a time in world time, turns
// or a count whole; -1 when it never ends. unit: runtime/host_types.h's
// DurationUnit, 2 turns and 3 a count. A count's remaining is of the event
// it counts: one naming another reads -1.
int64_t World::remainingOf(Handle a, Id effect, uint32_t unit, Id event, Id tag) const {
  if (!alive(a) || effect >= shape().effectCount)
    return 0;
  uint32_t newest = 0;
  for (uint32_t i = firstOf(indexOf(a), effect); i; i = inst(i - 1).nextSame)
    newest = i;
  if (!newest)
    return 0;
  const InstHead &in = inst(newest - 1);
  if (unit == 2)
    return in.turnsLeft < 0 ? -1 : in.turnsLeft;
  if (unit == 3) {
    if (event != kNoId || tag != kNoId) {
      Id countEvent = in.countEvent, countTag = in.countTag;
      if (countEvent == kNoId && countTag == kNoId) {
        countEvent = lp_effects[in.effect].lasts.countFilter.event;
        countTag = lp_effects[in.effect].lasts.countFilter.tag;
      }
      bool named = countEvent != kNoId ? event == countEvent : countTag != kNoId && tag == countTag;
      if (!named)
        return -1;
    }
    return in.countLeft < 0 ? -1 : in.countLeft;
  }
  // An end at the last time a world holds is never reached (reading 135).
  if (in.expiresAt < 0 || in.expiresAt == INT64_MAX)
    return -1;
  int64_t left = in.expiresAt - worldTime();
  return left > 0 ? left : 0;
}

int64_t World::countOf(Id archetype) const {
  int64_t n = 0;
  for (uint32_t ai = 0; ai < actors_.size(); ++ai)
    n += row(ai).live && row(ai).archetype == archetype;
  return n;
}

void World::keepFrom(const World &replaced) {
  uint32_t actors = actors_.size() < replaced.actors_.size() ? actors_.size() : replaced.actors_.size();
  for (uint32_t ai = 0; ai < actors; ++ai) {
    // One destroyed since keeps its pools as a ghost does: they carry over.
    if (row(ai).gen != replaced.row(ai).gen)
      continue;
    for (Id p = 0; p < shape().valueCount; ++p) {
      if (lp_values[p].kind != pack::ValueKind::Pool || !lp_values[p].kept)
        continue;
      const PoolSlot &theirs = replaced.poolSlot(ai, p);
      PoolSlot &mine = poolSlot(ai, p);
      if (!mine.has || !theirs.has)
        continue;
      mine.amount = theirs.amount;
      mine.at = theirs.at;
      mine.max = theirs.max;
      ++row(ai).epoch;
    }
  }
  ++epoch_;
}

// ---- coverage -----------------------------------------------------------------------

static uint32_t coverageSize(uint32_t kind) {
  switch (kind) {
  case LEDGER_COVER_HEARD:
  case LEDGER_COVER_FIRED:
  case LEDGER_COVER_CHANGED:
    return shape().ruleCount;
  case LEDGER_COVER_APPLIED:
    return shape().effectCount;
  case LEDGER_COVER_USED:
  case LEDGER_COVER_REFUSED:
    return shape().abilityCount;
  default:
    return shape().archetypeCount;
  }
}

void World::countCoverage(const uint64_t *const *counted) {
  for (uint32_t k = 0; k < LEDGER_COVER_KINDS; ++k) {
    coverage_[k].clear();
    coverage_[k].resize(coverageSize(k), 0);
    if (counted && counted[k])
      for (uint32_t i = 0; i < coverageSize(k); ++i)
        coverage_[k][i] = counted[k][i];
  }
  covering_ = true;
}

// Null while the instrument is off; a table with no rows reads as one
// holding nothing.
const uint64_t *World::coverage(uint32_t kind) const {
  static const uint64_t none = 0;
  if (!covering_ || kind >= LEDGER_COVER_KINDS)
    return nullptr;
  return coverage_[kind].size() ? coverage_[kind].data() : &none;
}

// ---- bodies ---------------------------------------------------------------------------

// A frame made by value points at itself only once it stands where it runs.
void World::prepare(Frame &f) {
  f.c.api = nullptr;
  f.c.kernel = this;
  f.c.event = f.event >= 0 ? reinterpret_cast<const LedgerEventHead *>(&ev(uint32_t(f.event)))
                           : nullptr;
  if (!f.c.locals)
    f.c.locals = f.roots;
  if (!f.c.vars)
    f.c.vars = scratchVars_.data();
}

int64_t World::runBodyCall(Id body, Frame &f) {
  prepare(f);
  return reinterpret_cast<LedgerFormulaFn>(lp_bodies[body])(&f.c);
}

int32_t World::runSteps(Id body, Frame &f) {
  if (body == kNoId)
    return LEDGER_GO;
  prepare(f);
  const pack::Body &b = lp_bodyInfo[body];
  // A steps body's own names live above its caller's.
  uint32_t top = localTop_;
  uint64_t need = uint64_t(LEDGER_SLOT_FIRST_LOCAL) + b.localCount;
  if (localTop_ + need > pack::kLocalSlots) {
    static const char words[] = "rules nested past what the world holds";
    fault(Refusal::ChainBudget, words, sizeof words - 1);
    return LEDGER_STOP;
  }
  // The whole stack at once: bodies under way point into it.
  if (locals_.empty())
    locals_.resize(pack::kLocalSlots, 0);
  int64_t *locals = locals_.data() + localTop_;
  for (uint32_t k = 0; k < LEDGER_SLOT_FIRST_LOCAL; ++k)
    locals[k] = f.c.locals[k];
  for (uint32_t k = LEDGER_SLOT_FIRST_LOCAL; k < uint32_t(need); ++k)
    locals[k] = 0;
  localTop_ += uint32_t(need);
  int64_t *saved = f.c.locals;
  f.c.locals = locals;
  // Whose rule runs, named by a fault it sets off.
  Id ruleName = rulesName_;
  if (const InstHead *in = f.instance ? instance(f.instance) : nullptr)
    rulesName_ = lp_effects[in->effect].name;
  else if (f.propsEvent >= 0 && ev(uint32_t(f.propsEvent)).ability != kNoId)
    rulesName_ = lp_abilities[ev(uint32_t(f.propsEvent)).ability].name;
  int32_t r = reinterpret_cast<LedgerStepsFn>(lp_bodies[body])(&f.c);
  // An actor var the steps set refers to whom it names from here.
  if (countingRefs_ && anyActorVars_ && f.instance && instance(f.instance))
    recountVars(indexOf(f.instance));
  rulesName_ = ruleName;
  f.c.locals = saved;
  localTop_ = top;
  return r;
}

int32_t World::runRule(uint32_t rule, Frame &f) {
  uint64_t journaled = journalCount_;
  int32_t r = runSteps(lp_rules[rule].steps, f);
  if (covering_) {
    ++coverage_[LEDGER_COVER_FIRED][rule];
    coverage_[LEDGER_COVER_CHANGED][rule] += journalCount_ != journaled;
  }
  return r;
}

int32_t World::apiStep(Frame &f, uint32_t stepId, const int64_t *args) {
  Handle holder = f.c.locals[LEDGER_SLOT_HOLDER];
  bool holderAlive = alive(holder);
  int32_t r = action(f, lp_actions[stepId], args);
  // What the step raised may have moved the events' storage: the body reads
  // the event in hand's head where it is now.
  if (f.event >= 0)
    f.c.event = reinterpret_cast<const LedgerEventHead *>(&ev(uint32_t(f.event)));
  // A step that destroyed the body's holder or caster ends the body.
  if (holderAlive && !alive(holder))
    return LEDGER_STOP;
  if (f.instance == 0)
    return r;
  // An instance whose rule the step took off ends the rule there.
  if (!instance(f.instance))
    return LEDGER_STOP;
  // What the step set off may have moved the instances' storage.
  if (f.c.vars != scratchVars_.data())
    f.c.vars = varsOf(indexOf(f.instance));
  return r;
}

} // namespace ledger::cw
