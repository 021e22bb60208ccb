// A save: the world between orders as bytes, every lasting field in one
// order, and a world read back from them against the same pack, each index,
// handle, list and time checked before it is trusted. What lives only inside a moment (its events,
// queued rules, steps' locals, scratch lists) is empty between orders and
// isn't written; what is made again from the rest (side files, which autos
// sleep) is made again.
#include "world.h"

namespace ledger::cw {

namespace {

// The order timers come due in, and where that leaves two alike (a stale
// timer beside the live one), by their kind and version: one order for
// every world holding them.
bool comesDueFirst(const Timer &x, const Timer &y) {
  if (timerLater(y, x) || timerLater(x, y))
    return timerLater(y, x);
  return x.kind != y.kind ? x.kind < y.kind : x.version < y.version;
}

struct Writer {
  void *context;
  void (*write)(void *, const void *, uint64_t);
  template <typename T> void pod(const T &v) { write(context, &v, sizeof v); }
  // The queue's timers, as a list in the order they come due, every field
  // deciding it (a world read back queues them in that order, so its own
  // save is the same bytes). Each is its fields alone, its padding cleared:
  // a save's bytes are its world's, however its timers were made.
  void timers(const TimerQueue &q) {
    Vec<Timer> listed;
    q.each([&](const Timer &t) {
      Timer &clear = listed.pushDefault();
      std::memset(static_cast<void *>(&clear), 0, sizeof clear);
      clear.due = t.due;
      clear.at = t.at;
      clear.seq = t.seq;
      clear.instance = t.instance;
      clear.rule = t.rule;
      clear.version = t.version;
      clear.phase = t.phase;
      clear.kind = t.kind;
    });
    std::sort(listed.begin(), listed.end(), comesDueFirst);
    vec(listed);
  }
  template <typename T> void vec(const Vec<T> &v) {
    pod(uint64_t(v.size()));
    if (v.size())
      write(context, v.data(), uint64_t(v.size()) * sizeof(T));
  }
  // Rows as a list of their bytes.
  void rows(const Rows &r) {
    pod(r.bytes());
    if (r.bytes())
      write(context, r.data(), r.bytes());
  }
};

struct Reader {
  const uint8_t *at, *end;
  bool ok = true;
  template <typename T> void pod(T &v) {
    if (!ok || uint64_t(end - at) < sizeof v) {
      ok = false;
      return;
    }
    std::memcpy(&v, at, sizeof v);
    at += sizeof v;
  }
  // Read as a list into loaded_, queued again once the world is read.
  void timers(const TimerQueue &) { vec(loaded); }
  Vec<Timer> loaded;
  template <typename T> void vec(Vec<T> &v) {
    uint64_t n = 0;
    pod(n);
    if (!ok || n > uint64_t(end - at) / sizeof(T) || n > 0xffffffffu) {
      ok = false;
      return;
    }
    v.clear();
    T blank{};
    v.resize(uint32_t(n), blank);
    if (n)
      std::memcpy(static_cast<void *>(v.data()), at, n * sizeof(T));
    at += n * sizeof(T);
  }
  void rows(Rows &r) {
    uint64_t n = 0;
    pod(n);
    if (!ok || n > uint64_t(end - at) || n > 0xffffffffu) {
      ok = false;
      return;
    }
    r.adopt(at, n);
    at += n;
  }
};

// 2: an instance's fields in another order (its head's first cache line),
// which an older save's bytes don't follow.
constexpr uint32_t kFormat = 2;

} // namespace

// Both directions walk the lasting fields in this order.
struct SaveWalk {
  template <typename IO, typename W> static void walk(IO &io, W &w) {
    io.pod(w.seed_);
    io.pod(w.now_);
    io.pod(w.epoch_);
    io.pod(w.shapeEpoch_);
    io.pod(w.seq_);
    io.pod(w.chains_);
    io.pod(w.counting_);
    io.pod(w.journalMode_);
    io.pod(w.journalCount_);
    io.pod(w.journalHash_);
    actorRows(io, w);
    io.rows(w.insts_);
    io.vec(w.freeInsts_);
    io.timers(w.timers_);
    io.vec(w.globals_);
    io.vec(w.autoActors_);
    io.vec(w.autoFired_);
    io.vec(w.autoFiredAt_);
    io.pod(w.autoWakeAt_);
  }
  static void actorRows(Reader &io, World &w) { io.rows(w.actors_); }
  // The actors' rows as a save is read back (listAutosFromSave): each auto
  // actor in play awake, ranked by its place among them, every other none,
  // so that a world read back saves the bytes it was read from.
  static void actorRows(Writer &io, const World &w) {
    Vec<uint32_t> rank;
    rank.resize(w.actors_.size(), kNone);
    for (uint32_t k = 0; k < w.autoActors_.size(); ++k)
      if (w.alive(w.autoActors_[k]))
        rank[indexOf(w.autoActors_[k])] = k;
    io.pod(w.actors_.bytes());
    for (uint32_t ai = 0; ai < w.actors_.size(); ++ai) {
      ActorHead head = w.row(ai);
      head.autoState = rank[ai] == kNone ? World::kNotAuto : World::kAutoAwake;
      if (rank[ai] != kNone)
        head.autoRank = rank[ai];
      io.write(io.context, &head, sizeof head);
      io.write(io.context, w.actors_.at(ai, w.actorWidth()) + sizeof head, w.actorWidth() - sizeof head);
    }
  }
};

void World::save(void *context, void (*write)(void *, const void *, uint64_t)) const {
  Writer w{context, write};
  w.pod(kFormat);
  w.pod(actorWidth());
  w.pod(instWidth());
  SaveWalk::walk(w, *this);
}

World *World::load(const void *bytes, uint64_t size, const char **why) {
  Reader r{static_cast<const uint8_t *>(bytes), static_cast<const uint8_t *>(bytes) + size};
  uint32_t format = 0, actorWidth = 0, instWidth = 0;
  r.pod(format);
  r.pod(actorWidth);
  r.pod(instWidth);
  if (r.ok && format != kFormat) {
    *why = "a compiled world's save of another format";
    return nullptr;
  }
  World *w = new (reallocate(nullptr, sizeof(World))) World(0);
  w->tickTime_ = shape().unitsPerTick * kOne;
  if (r.ok && (actorWidth != w->actorWidth() || instWidth != w->instWidth())) {
    *why = "a save of a world laid out for another catalog";
  } else {
    SaveWalk::walk(r, *w);
    *why = !r.ok           ? "it is cut short or damaged"
           : r.at != r.end ? "it runs past the world it holds"
                           : nullptr;
  }
  if (!*why)
    w->holdsTogether(r.loaded, why);
  if (*why) {
    w->~World();
    reallocate(w, 0);
    return nullptr;
  }
  // Queued again, in the order they come due: each goes on the wheel or
  // far, or after those the tick under way has left before it.
  std::sort(r.loaded.begin(), r.loaded.end(), comesDueFirst);
  w->timers_.reset(w->now_);
  for (const Timer &t : r.loaded)
    w->timers_.push(t);
  w->afterLoad();
  return w;
}

namespace {

// The latest world time a save may stand at (millionths of a unit): far past
// any game's, and short enough of int64's end to leave room for the spans
// the world adds to it.
constexpr int64_t kLatestTime = INT64_MAX / 4;

// A formula that is a number, and the number.
bool plainNumber(Id body, int64_t &n) {
  if (body == kNoId || lp_plain[body].kind != 1)
    return false;
  n = lp_plain[body].number;
  return true;
}

// A stat as it last read, within its bounds where they are numbers (a whole
// one's rounding may take it past by less than one).
bool withinBounds(Id stat, int64_t v) {
  const pack::Value &val = lp_values[stat];
  __int128 slack = val.whole == pack::Rounding::None ? 0 : kOne;
  int64_t least = 0, most = 0;
  bool hasMost = plainNumber(val.maxBody, most);
  if (hasMost && v > most + slack)
    return false;
  return !plainNumber(val.minBody, least) || (hasMost && least > most) || v >= least - slack;
}

// Stacks held within the cap where it is a number: every apply but a
// separate instance's holds its newcomer to it, and every add its sum.
bool stacksHold(const InstHead &in) {
  const pack::StackPolicy &stack = lp_effects[in.effect].stack;
  int64_t cap = 0;
  if (stack.mode == pack::StackMode::Separate || !plainNumber(stack.maxBody, cap))
    return true;
  return stack.isSigned ? in.stacks >= -cap && in.stacks <= cap : in.stacks <= cap;
}

// An every rule whose interval is a number: it runs on, never waiting.
bool fixedInterval(const pack::Rule &rule) {
  int64_t interval = 0;
  return plainNumber(rule.intervalBody, interval) && interval > 0;
}

} // namespace

// What a save holds is trusted no further than it is checked: every index
// points where the world will read it, every handle names an actor or
// instance its slot holds, every list through the instances holds each of
// its holder's once, and every time stands where the world could have left
// it, so a damaged or hostile save is refused before the world runs on it.
bool World::holdsTogether(const Vec<Timer> &timers, const char **why) {
  if (actors_.bytes() % actorWidth() || insts_.bytes() % instWidth()) {
    *why = "the save is damaged: its rows are cut short";
    return false;
  }
  actors_.counted(actorWidth());
  insts_.counted(instWidth());
  if (globals_.size() != shape().linkCount) {
    *why = "the save is damaged: its global links aren't its pack's";
    return false;
  }
  if (journalMode_ > 2) {
    *why = "the save is damaged: a journal kept in no way the world has";
    return false;
  }
  if (now_ < 0 || now_ > kLatestTime / tickTime_) {
    *why = "the save is damaged: its time is none a world reaches";
    return false;
  }
  return savedActorsHold(why) && savedInstancesHold(why) && savedListsHold(why) &&
         savedTimersHold(timers, why) && savedAutosHold(why);
}

// A handle a link or an instance holds names an actor its slot holds, or
// held once: a generation it has had. A handle to an actor whose slot has
// gone to another since (a destroyed actor's link, a crossing's timer)
// names no one, as reading 157 says.
bool World::savedHandleFits(Handle h) const {
  return h == 0 || (indexOf(h) < actors_.size() && genOf(h) != 0 && genOf(h) <= row(indexOf(h)).gen);
}

bool World::savedActorsHold(const char **why) {
  auto bad = [&](const char *what) {
    *why = what;
    return false;
  };
  uint32_t insts = insts_.size();
  for (uint32_t ai = 0; ai < actors_.size(); ++ai) {
    const ActorHead &a = row(ai);
    if (a.gen == 0)
      return bad("the save is damaged: an actor's generation is 0, which no handle has");
    if (a.archetype >= shape().archetypeCount)
      return bad("the save is damaged: an actor of no archetype its pack has");
    if (a.live > 1 || a.fallen > 1 || a.touched)
      return bad("the save is damaged: an actor caught inside a moment, or neither in play nor out");
    if (a.madeAt < 0 || a.madeAt > now_)
      return bad("the save is damaged: an actor made at a tick the world hasn't reached");
    for (Id l = 0; l < shape().linkCount; ++l)
      if (!savedHandleFits(linkSlot(ai, l)))
        return bad("the save is damaged: a link to no actor the world has had");
    if (a.firstHeld > insts || a.lastHeld > insts)
      return bad("the save is damaged: an actor holding no instance the world has");
    for (Id e = 0; e < shape().effectCount; ++e)
      if (firstOf(ai, e) > insts)
        return bad("the save is damaged: an actor holding no instance the world has");
    for (Id v = 0; v < shape().valueCount; ++v) {
      if (lp_values[v].kind == pack::ValueKind::Stat) {
        const StatSlot &st = statSlot(ai, v);
        if (st.stamp != 0 && !withinBounds(v, st.value))
          return bad("the save is damaged: an actor's stat last read past its bounds");
        continue;
      }
      // A drift's anchor: a time on its pool's clock since the make.
      const PoolSlot &p = poolSlot(ai, v);
      if (p.has > 1 || p.due < -1 ||
          (p.has && lp_values[v].drifts() && (p.at < 0 || p.at > (now_ - a.madeAt) * tickTime_)))
        return bad("the save is damaged: an actor's pool is anchored at a time its clock hasn't reached");
    }
  }
  for (Handle g : globals_)
    if (!savedHandleFits(g))
      return bad("the save is damaged: a link to no actor the world has had");
  return true;
}

bool World::savedInstancesHold(const char **why) {
  auto bad = [&](const char *what) {
    *why = what;
    return false;
  };
  uint32_t insts = insts_.size(), counting = 0;
  for (uint32_t i = 0; i < insts; ++i) {
    const InstHead &in = inst(i);
    if (in.gen == 0)
      return bad("the save is damaged: an instance's generation is 0, which no handle has");
    if (!in.live)
      continue;
    if (in.effect >= shape().effectCount)
      return bad("the save is damaged: an instance of no effect the world has");
    // Its holder is the actor in its slot now: destroying an actor ends
    // what it holds.
    if (!alive(in.holder))
      return bad("the save is damaged: an instance's holder is no actor in play");
    if (!savedHandleFits(in.source) || !savedHandleFits(in.credit))
      return bad("the save is damaged: an instance's source or credit is no actor the world has had");
    if (in.ending)
      return bad("the save is damaged: an instance caught inside a moment");
    if (in.seq > seq_)
      return bad("the save is damaged: an instance put on after the last the world counts");
    if ((in.countEvent != kNoId && in.countEvent >= shape().eventCount) ||
        (in.countTag != kNoId && in.countTag >= shape().tagCount) || in.turnsLeft < -1 ||
        in.countLeft < -1)
      return bad("the save is damaged: an instance counting what its pack has none of");
    if (!stacksHold(in))
      return bad("the save is damaged: an instance's stacks are past its effect's cap");
    if (!savedTimesHold(i))
      return bad("the save is damaged: an instance's times are none the world has reached or passed");
    counting += in.countLeft >= 0;
  }
  if (counting != counting_)
    return bad("the save is damaged: its count of instances counting events isn't theirs");
  return true;
}

// An instance's times: put on by now; ending, and each every rule's next
// run, not before now, where the world would have run them already. An
// every rule whose interval is a formula stands where it last ran once its
// interval reads none, so its next run may be behind now, but never before
// the instance went on.
bool World::savedTimesHold(uint32_t i) {
  const InstHead &in = inst(i);
  int64_t now = worldTime();
  if (in.appliedAt < 0 || in.appliedAt > now || in.lifetime < -1 ||
      (in.expiresAt != -1 && in.expiresAt < now))
    return false;
  const pack::Effect &ef = lp_effects[in.effect];
  const int64_t *due = everyDueOf(i);
  for (uint32_t r = 0; r < ef.ruleCount; ++r) {
    const pack::Rule &rule = lp_rules[ef.rulesBegin + r];
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

// Each actor's lists through its instances, all it holds and what it holds
// of each effect, hold each live instance it holds once, oldest first, and
// end; no other instance is in them.
bool World::savedListsHold(const char **why) {
  auto bad = [&](const char *what) {
    *why = what;
    return false;
  };
  uint32_t insts = insts_.size();
  Vec<uint8_t> held, same;
  held.resize(insts, 0);
  same.resize(insts, 0);
  for (uint32_t ai = 0; ai < actors_.size(); ++ai) {
    const ActorHead &a = row(ai);
    uint32_t last = 0;
    for (uint32_t h = a.firstHeld; h; last = h, h = inst(h - 1).nextHeld)
      if (h > insts || held[h - 1]++ || !inst(h - 1).live || inst(h - 1).holder != actorHandle(ai) ||
          inst(h - 1).prevHeld != last)
        return bad("the save is damaged: an actor's instances don't hold together");
    if (a.lastHeld != last)
      return bad("the save is damaged: an actor's instances don't hold together");
    for (Id e = 0; e < shape().effectCount; ++e)
      for (uint32_t h = firstOf(ai, e); h; h = inst(h - 1).nextSame)
        if (h > insts || same[h - 1]++ || !inst(h - 1).live || inst(h - 1).holder != actorHandle(ai) ||
            inst(h - 1).effect != e)
          return bad("the save is damaged: an actor's instances of an effect don't hold together");
  }
  for (uint32_t i = 0; i < insts; ++i)
    if (inst(i).live && (!held[i] || !same[i]))
      return bad("the save is damaged: an instance its holder doesn't hold");
  Vec<uint8_t> freed;
  freed.resize(insts, 0);
  for (uint32_t f : freeInsts_)
    if (f >= insts || inst(f).live || freed[f]++)
      return bad("the save is damaged: a free instance slot is one an instance stands in, or twice");
  return true;
}

bool World::savedTimersHold(const Vec<Timer> &timers, const char **why) {
  auto bad = [&](const char *what) {
    *why = what;
    return false;
  };
  for (const Timer &t : timers) {
    bool fits = t.kind == TimerKind::PoolBound ? t.rule < shape().valueCount &&
                                                     lp_values[t.rule].kind == pack::ValueKind::Pool &&
                                                     savedHandleFits(t.instance)
                : t.kind == TimerKind::Every ? t.rule < shape().ruleCount
                : t.kind == TimerKind::Expire || t.kind == TimerKind::AutoWake;
    if (!fits || t.at != tickAtOrAfter(t.due) || t.due < 0)
      return bad("the save is damaged: a timer of nothing the world has");
  }
  // Each time the world waits for has its timer, set as the world last set
  // it (its version) and due then: an instance's end, its every rules' next
  // runs (one whose interval read none waits with none), a drifting pool's
  // crossing, the autos' wake.
  uint32_t insts = insts_.size();
  Vec<uint8_t> ends, runs, crossings;
  ends.resize(insts, 0);
  runs.resize(insts * shape().instanceSlots, 0);
  crossings.resize(actors_.size() * shape().valueCount, 0);
  bool wakes = false;
  for (const Timer &t : timers) {
    if (t.kind == TimerKind::PoolBound) {
      if (alive(t.instance) && poolSlot(indexOf(t.instance), t.rule).version == t.version)
        crossings[indexOf(t.instance) * shape().valueCount + t.rule] |=
            t.due == poolSlot(indexOf(t.instance), t.rule).due;
      continue;
    }
    if (t.kind == TimerKind::AutoWake) {
      wakes |= t.due == autoWakeAt_;
      continue;
    }
    const InstHead *in = instance(t.instance);
    if (!in || in->timerVersion != t.version || in->seq != t.seq)
      continue;
    uint32_t i = indexOf(t.instance);
    if (t.kind == TimerKind::Expire) {
      ends[i] |= t.phase == 1 && t.due == in->expiresAt;
      continue;
    }
    const pack::Effect &ef = lp_effects[in->effect];
    if (t.rule < ef.rulesBegin || t.rule >= ef.rulesBegin + ef.ruleCount ||
        lp_rules[t.rule].kind != pack::RuleKind::Every)
      return bad("the save is damaged: a timer of an every rule its instance's effect lacks");
    uint32_t every = 0;
    for (uint32_t r = ef.rulesBegin; r < t.rule; ++r)
      every += lp_rules[r].kind == pack::RuleKind::Every;
    runs[i * shape().instanceSlots + every] |= t.phase == 0 && t.due == everyDueOf(i)[every];
  }
  for (uint32_t i = 0; i < insts; ++i) {
    const InstHead &in = inst(i);
    if (!in.live)
      continue;
    if (in.expiresAt >= 0 && !ends[i])
      return bad("the save is damaged: an instance's end has no timer");
    const pack::Effect &ef = lp_effects[in.effect];
    for (uint32_t r = 0, every = 0; r < ef.ruleCount; ++r) {
      const pack::Rule &rule = lp_rules[ef.rulesBegin + r];
      if (rule.kind != pack::RuleKind::Every)
        continue;
      if (everyDueOf(i)[every] >= 0 && fixedInterval(rule) && !runs[i * shape().instanceSlots + every])
        return bad("the save is damaged: an instance's every rule has no timer for its next run");
      ++every;
    }
  }
  for (uint32_t ai = 0; ai < actors_.size(); ++ai)
    for (Id v = 0; v < shape().valueCount && row(ai).live; ++v)
      if (lp_values[v].kind == pack::ValueKind::Pool && poolSlot(ai, v).due >= 0 &&
          !crossings[ai * shape().valueCount + v])
        return bad("the save is damaged: an actor's pool's crossing has no timer");
  if (autoWakeAt_ >= 0 && !wakes)
    return bad("the save is damaged: its autos' wake has no timer");
  return true;
}

// The auto actors, each once and in the world, and the ticks their autos
// last went off, by actor and ability in order.
bool World::savedAutosHold(const char **why) {
  auto bad = [&](const char *what) {
    *why = what;
    return false;
  };
  Vec<uint8_t> listed;
  listed.resize(actors_.size(), 0);
  for (Handle a : autoActors_)
    if (!actor(a) || listed[indexOf(a)]++)
      return bad("the save is damaged: an auto of no actor the world holds, or listed twice");
  if (autoFired_.size() != autoFiredAt_.size())
    return bad("the save is damaged: its autos' ticks don't hold together");
  for (uint32_t k = 0; k < autoFired_.size(); ++k)
    if ((autoFired_[k] >> 32) >= actors_.size() || (autoFired_[k] & 0xffffffffu) >= shape().abilityCount ||
        (k > 0 && autoFired_[k] <= autoFired_[k - 1]) || autoFiredAt_[k] < 0 || autoFiredAt_[k] > now_)
      return bad("the save is damaged: an auto went off for no actor or ability the world has, or at no tick");
  if (autoWakeAt_ < -1 || autoWakeAt_ > kLatestTime)
    return bad("the save is damaged: its autos wake at no time");
  return true;
}

// What a save doesn't hold, made again: every auto actor starts awake, the
// side files are filed afresh as first asked.
void World::afterLoad() {
  listAutosFromSave();
  listSlotsFromSave();
}

} // namespace ledger::cw
