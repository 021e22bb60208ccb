// A save: the world between orders as bytes, every lasting field in one
// order, and a world read back from them against the same pack, each index
// checked before it is trusted. What lives only inside a moment (its events,
// queued rules, steps' locals, scratch lists) is empty between orders and
// isn't written; what is made again from the rest (side files, which autos
// sleep) is made again.
#include "world.h"

namespace ledger::cw {

namespace {

struct Writer {
  void *context;
  void (*write)(void *, const void *, uint64_t);
  template <typename T> void pod(const T &v) { write(context, &v, sizeof v); }
  // The queue's timers, as a list: the tick under way's left, the wheel's,
  // the far ones.
  void timers(const TimerQueue &q) {
    pod(uint64_t(q.size()));
    q.each([&](const Timer &t) { write(context, &t, sizeof t); });
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
    io.rows(w.actors_);
    io.rows(w.insts_);
    io.vec(w.freeInsts_);
    io.timers(w.timers_);
    io.vec(w.globals_);
    io.vec(w.autoActors_);
    io.vec(w.autoFired_);
    io.vec(w.autoFiredAt_);
    io.pod(w.autoWakeAt_);
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
  w->tickTime_ = shape().unitsPerTick * kOne;
  // Queued again: each goes on the wheel or far, as it is due.
  w->timers_.reset(w->now_);
  for (const Timer &t : r.loaded)
    w->timers_.push(t);
  w->afterLoad();
  return w;
}

// Whether every index a save holds points where it may, and every list ends.
bool World::holdsTogether(const Vec<Timer> &timers, const char **why) {
  auto bad = [&](const char *what) {
    *why = what;
    return false;
  };
  if (actors_.bytes() % actorWidth() || insts_.bytes() % instWidth())
    return bad("its rows are cut short");
  actors_.counted(actorWidth());
  insts_.counted(instWidth());
  if (globals_.size() != shape().linkCount)
    return bad("its global links aren't its pack's");
  uint32_t actors = actors_.size(), insts = insts_.size();
  if (journalMode_ > 2)
    return bad("a journal kept in no way the world has");
  // A handle to an actor whose slot has gone to another since (a destroyed
  // actor's link, a crossing's timer) names no one, as reading 157 says.
  auto handleFits = [&](Handle h) {
    return h == 0 || (indexOf(h) < actors && genOf(h) != 0 && genOf(h) <= row(indexOf(h)).gen);
  };
  for (uint32_t ai = 0; ai < actors; ++ai) {
    const ActorHead &a = row(ai);
    if (a.gen == 0 || (a.archetype != kNoId && a.archetype >= shape().archetypeCount) ||
        a.live > 1 || a.fallen > 1 || a.touched || a.madeAt > now_)
      return bad("an actor of nothing the world has");
    for (Id l = 0; l < shape().linkCount; ++l)
      if (!handleFits(linkSlot(ai, l)))
        return bad("a link to no actor the world has");
    if (a.firstHeld > insts || a.lastHeld > insts)
      return bad("an actor holding no instance the world has");
    for (Id e = 0; e < shape().effectCount; ++e)
      if (firstOf(ai, e) > insts)
        return bad("an actor holding no instance the world has");
    // Each list walks through live instances of its holder to its end.
    uint32_t steps = 0;
    for (uint32_t h = a.firstHeld; h; h = inst(h - 1).nextHeld)
      if (h > insts || ++steps > insts || !inst(h - 1).live || inst(h - 1).holder != actorHandle(ai) ||
          inst(h - 1).nextHeld > insts)
        return bad("an actor's instances don't hold together");
    for (Id e = 0; e < shape().effectCount; ++e) {
      steps = 0;
      for (uint32_t h = firstOf(ai, e); h; h = inst(h - 1).nextSame)
        if (h > insts || ++steps > insts || inst(h - 1).effect != e || inst(h - 1).nextSame > insts)
          return bad("an actor's instances don't hold together");
    }
  }
  for (Handle g : globals_)
    if (!handleFits(g))
      return bad("a link to no actor the world has");
  for (uint32_t i = 0; i < insts; ++i) {
    const InstHead &in = inst(i);
    if (!in.live)
      continue;
    if (in.effect >= shape().effectCount || !handleFits(in.holder) || in.holder == 0 ||
        !handleFits(in.source) || !handleFits(in.credit) || in.ending ||
        in.prevHeld > insts || in.nextHeld > insts || in.nextSame > insts)
      return bad("an instance of no effect or holder the world has");
  }
  for (uint32_t f : freeInsts_)
    if (f >= insts || inst(f).live)
      return bad("a free instance the world holds");
  for (const Timer &t : timers) {
    bool fits = t.kind == TimerKind::PoolBound ? t.rule < shape().valueCount &&
                                                     lp_values[t.rule].kind == pack::ValueKind::Pool &&
                                                     handleFits(t.instance)
                : t.kind == TimerKind::Every ? t.rule < shape().ruleCount
                : t.kind == TimerKind::Expire || t.kind == TimerKind::AutoWake;
    if (!fits || t.at != tickAtOrAfter(t.due) || t.due < 0)
      return bad("a timer of nothing the world has");
  }
  for (Handle a : autoActors_)
    if (!handleFits(a) || a == 0)
      return bad("an auto of no actor the world has");
  if (autoFired_.size() != autoFiredAt_.size())
    return bad("its autos' ticks don't hold together");
  return true;
}

// What a save doesn't hold, made again: every auto actor starts awake, the
// side files are filed afresh as first asked.
void World::afterLoad() {
  listAutosFromSave();
  listSlotsFromSave();
}

} // namespace ledger::cw
