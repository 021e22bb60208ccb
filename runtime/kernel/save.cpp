// A save on disk: the world between orders as bytes, field by field, and a
// world read back from them against the same pack. What lives only inside a
// moment (its events, queued rules, steps' locals, scratch lists) is empty
// between orders and isn't written. A save that isn't one, of another pack
// or another save format, or damaged, is refused whole with why.
#include "kernel.h"

#include "bytes.h"

#include <algorithm>

namespace ledger::rt {

using pack::kNoId;

namespace {

constexpr char kSaveMagic[8] = {'L', 'E', 'D', 'G', 'S', 'A', 'V', 'E'};
// Raised whenever a field is added to what a save holds, or what one means
// (7: a timer's seq is its instance's).
constexpr uint32_t kSaveFormat = 7;

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
  bytes::Writer w;
  w.out.assign(kSaveMagic, sizeof kSaveMagic);
  w.pod(kSaveFormat);
  w.pod(pack_->hash());
  const_cast<Kernel *>(this)->walkSave(w);
  return std::move(w.out);
}

std::optional<Kernel> Kernel::loadSave(const Pack &pack, std::string_view bytes, std::string &why) {
  if (bytes.size() < sizeof kSaveMagic || bytes.compare(0, sizeof kSaveMagic, kSaveMagic, sizeof kSaveMagic) != 0) {
    why = "not a ledger save";
    return std::nullopt;
  }
  bytes::Reader r{bytes.substr(sizeof kSaveMagic)};
  uint32_t format = 0;
  uint64_t hash = 0;
  r.pod(format);
  r.pod(hash);
  if (r.ok && format != kSaveFormat) {
    why = "a save of format " + std::to_string(format) + ", and this runtime reads format " +
          std::to_string(kSaveFormat);
    return std::nullopt;
  }
  if (r.ok && hash != pack.hash()) {
    why = "a save of another catalog: its pack's hash isn't this pack's";
    return std::nullopt;
  }
  Kernel world(pack, 0);
  if (r.ok)
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

// Every index a save holds points where the world will read it, so a damaged
// save is refused before the world runs on it.
bool Kernel::saveHolds(std::string &why) const {
  auto bad = [&](const char *what) {
    why = std::string("the save is damaged: ") + what;
    return false;
  };
  size_t actors = actors_.size();
  size_t values = size_t(actors) * valueCount_;
  size_t links = actors * t_->links.size();
  if (valueCount_ != t_->values.size())
    return bad("its values aren't its pack's");
  for (size_t n : {pools_.size(), poolAt_.size(), poolMax_.size(), hasPool_.size(),
                   poolVersion_.size(), poolDue_.size(), statCache_.size(), statEpoch_.size()})
    if (n != values)
      return bad("a list of its actors' values isn't one for each");
  if (poolRate_.size() != (ix_->worldDrifts.empty() ? 0 : values) ||
      regenPeriod_.size() != poolRate_.size() || refillPeriod_.size() != poolRate_.size() ||
      poolMin_.size() != (ix_->countBounds.empty() ? 0 : values) ||
      boundsSettled_.size() != poolMin_.size())
    return bad("a list of its actors' values isn't one for each");
  if (links_.size() != links || overridden_.size() != links ||
      globals_.size() != t_->links.size())
    return bad("its links aren't its pack's");
  for (size_t n : {held_.size(), hearers_.size(), blockers_.size(), suspenders_.size(),
                   tagCache_.size(), tagEpoch_.size()})
    if (n != actors)
      return bad("a list of its actors isn't one for each");
  if (clocks_.size() != actors * ix_->clockStats.size())
    return bad("its clocks aren't one for each actor's");
  for (const Actor &a : actors_)
    if (a.archetype != kNoId && a.archetype >= t_->archetypes.size())
      return bad("an actor of no archetype its pack has");
  for (uint32_t ai : worldReaders_)
    if (ai >= actors)
      return bad("an actor past the last");
  if (readerLinkSeen_.size() != actors * ix_->readerLinks.size())
    return bad("its links aren't its pack's");
  auto inInsts = [&](uint32_t i) { return i < insts_.size(); };
  for (const std::vector<uint32_t> &list : held_)
    if (!std::all_of(list.begin(), list.end(), inInsts))
      return bad("an instance past the last");
  for (const std::vector<Hearer> &list : hearers_)
    for (const Hearer &h : list)
      if (!inInsts(h.inst) || h.effect >= t_->effects.size())
        return bad("an instance past the last");
  if (!std::all_of(freeInsts_.begin(), freeInsts_.end(), inInsts) ||
      !std::all_of(wide_.begin(), wide_.end(), inInsts))
    return bad("an instance past the last");
  auto within = [](uint64_t at, uint64_t count, size_t size) { return at + count <= size; };
  for (const Instance &in : insts_) {
    const Storage &s = in.storage;
    if (!within(s.varsAt, s.varsCap, vars_.size()) ||
        !within(s.capturedAt, s.capturedCap, captured_.size()) ||
        !within(s.everyAt, s.everyCap, everyDue_.size()) ||
        !within(s.propsAt, s.propsCap, instProps_.size()) || in.propCount > s.propsCap)
      return bad("an instance's storage runs past its list");
    if (!in.live)
      continue;
    if (in.effect >= t_->effects.size() || indexOf(in.holder) >= actors ||
        in.clock >= int32_t(ix_->clockStats.size()))
      return bad("an instance of no effect, holder or clock the world has");
    const pack::Effect &ef = t_->effects[in.effect];
    uint32_t every = 0;
    for (uint32_t r = 0; r < ef.ruleCount; ++r)
      every += t_->rules[ef.rulesBegin + r].kind == pack::RuleKind::Every;
    if (!within(in.varsAt, ef.varCount, vars_.size()) ||
        !within(in.capturedAt, ef.modifierCount, captured_.size()) ||
        !within(in.everyAt, every, everyDue_.size()))
      return bad("an instance's storage runs past its list");
  }
  for (const Prop &p : instProps_)
    if (p.first != kNoId && p.first >= t_->props.size())
      return bad("a property its pack lacks");
  for (const Timer &tm : timers_) {
    bool fits = tm.kind == TimerKind::PoolBound ? tm.rule < valueCount_
                : tm.kind == TimerKind::Every   ? tm.rule < t_->rules.size()
                                                : tm.kind == TimerKind::Expire ||
                                                    tm.kind == TimerKind::AutoWake;
    // An every rule's timer of an instance still held is one of its effect's.
    if (const Instance *in = tm.kind == TimerKind::Every ? instance(tm.instance) : nullptr) {
      const pack::Effect &ef = t_->effects[in->effect];
      fits = fits && tm.rule >= ef.rulesBegin && tm.rule < ef.rulesBegin + ef.ruleCount &&
             t_->rules[tm.rule].kind == pack::RuleKind::Every;
    }
    if (!fits || tm.at != tickAtOrAfter(tm.due))
      return bad("a timer of nothing the world has");
  }
  if (!std::is_heap(timers_.begin(), timers_.end(), std::greater<>()))
    return bad("its timers are out of order");
  std::string journalWhy;
  if (!journal_.holds(journalWhy))
    return bad(journalWhy.c_str());
  return true;
}

} // namespace ledger::rt
