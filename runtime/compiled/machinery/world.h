// The compiled engine's world: the rules machinery over storage laid out
// for one catalog. An actor is a row of the columns its catalog needs (its
// links, pools, cached stats, and for each effect the instances of it held);
// an instance a row of its vars and timers. Every table it reads is the
// pack's constant (catalog.h), so each piece below, inlined where the code
// in hand knows which event, stat, effect or ability it works on, compiles
// to that one's rules alone.
//
// The meaning is the generic kernel's (runtime/kernel/), the reference
// engine: the two are written apart and must journal every run alike.
#pragma once

#include "catalog.h"
#include "compiled/engine_abi.h"
#include "number.h"
#include "thread_stack.h"
#include "refusals.h"
#include "timers.h"
#include "vec.h"

#include <cstddef>
#include <cstdint>

namespace ledger::cw {

using Handle = int64_t;
using rt::kOne;
using rt::NumberFault;
using rt::Refusal;

constexpr uint32_t kMaxTagWords = LEDGER_EVENT_TAG_WORDS;
constexpr uint32_t kMaxPortions = pack::kMaxPortions;
constexpr uint32_t kChainBudget = 1000;
// How often one every rule of one instance may come due within one tick.
constexpr uint32_t kEveryBudget = 10000;
constexpr uint32_t kNone = UINT32_MAX;

struct Tags {
  uint64_t w[kMaxTagWords];
};

inline Handle handle(uint32_t index, uint32_t gen) {
  return Handle((uint64_t(gen) << 32) | (uint64_t(index) + 1));
}
inline uint32_t indexOf(Handle h) { return uint32_t(uint64_t(h) & 0xffffffffu) - 1; }
inline uint32_t genOf(Handle h) { return uint32_t(uint64_t(h) >> 32); }
// A slot's next generation: past the last, round to 1, never to 0, which no
// slot has.
inline uint32_t nextGen(uint32_t gen) { return gen == UINT32_MAX ? 1 : gen + 1; }

// ---- rows ---------------------------------------------------------------------

struct ActorHead {
  uint32_t gen;
  Id archetype;
  uint8_t live;    // made and not destroyed
  uint8_t fallen;
  uint8_t touched; // listed in touched_: retimed as the moment ends
  uint8_t autoState;
  uint32_t autoRank;
  int64_t madeAt;
  uint64_t epoch;     // bumped whenever anything a stat of it reads changes
  uint64_t tagsEpoch; // and whenever its tags may have
  uint64_t tagCacheEpoch;
  uint32_t firstHeld, lastHeld; // its instances, oldest first: index + 1, 0 none
};

struct PoolSlot {
  int64_t amount; // at the anchor
  int64_t at;     // the anchor's time on the pool's clock
  int64_t max;    // the maximum it last read
  int64_t due;    // the world time its crossing is due, -1 none
  uint32_t version;
  uint8_t has;
};

struct StatSlot {
  int64_t value;
  uint64_t stamp; // the holder's epoch it was worked out at, 0 never
};

// What every walk and dispatch reads comes first, in one cache line (a row
// starts on a line, Rows): its links, whose it is and its order; what is
// read as it is timed, counted or ends after.
struct InstHead {
  uint32_t gen;
  uint8_t live;
  uint8_t ending;    // coming off: its expire and end steps run, its rules hear nothing
  uint8_t pad[2];
  Id effect;
  uint32_t nextHeld, prevHeld; // its holder's instances, oldest first: index + 1
  uint32_t nextSame;           // its holder's instances of its effect, oldest first
  Handle holder, source, credit;
  int64_t stacks;
  uint64_t seq;        // put on in this order
  uint32_t timerVersion;
  Id countEvent;       // the event an apply's count counts, or
  Id countTag;         // the tag its change carries
  int64_t appliedAt;   // world time (millionths of a unit)
  int64_t expiresAt;   // -1 never
  int64_t lifetime;
  int64_t turnsLeft;   // -1: not counted
  int64_t countLeft;   // events left, -1: not counted
  // then the effect's vars, then its every rules' next runs
};
static_assert(offsetof(InstHead, seq) + sizeof(uint64_t) == 64,
              "an instance's first cache line holds what walks and dispatch read");

// ---- the moment ------------------------------------------------------------------

struct Portion {
  Tags tags;
  int64_t amount;
  uint8_t gone; // taken by a before rule: no longer held
};

struct Lifetime {
  int64_t time = -1, turns = -1, count = -1;
  Id countEvent = kNoId, countTag = kNoId;
};

// Its head is laid out as LedgerEventHead, which compiled bodies read.
struct Event {
  Handle subject, source, credit;
  Id kind;
  uint8_t prevented;
  uint8_t pad[3];
  Tags tags;
  Id pool;
  uint32_t portionsAt, portionCount;
  uint32_t chain;
  int64_t sent, amount, landed, overflow, before, after;
  int64_t upTo;
  Id reached;       // a change: the Depleted or Filled its landing sets off
  uint8_t onPool;   // a change: landed, its before and after kept
  uint8_t beforeHeard;
  uint8_t made;     // an Apply that put on a new instance
  Refusal refusal;
  Id effect;
  Handle instance;
  int64_t stacks;
  Lifetime life;
  Id ability;
  uint32_t varsFrom, varCount; // an Apply's given vars, in givenVars_
  Handle grant;
  Handle target;
  uint32_t targetsAt, targetCount;     // an Activate's targets, in eventTargets_
  uint32_t targetedAt, targetedCount;  // the activation it descends from's
};

struct Job { // an after rule queued in the moment, or a death's destroy
  Handle instance; // 0: the destroy of `actor`
  Handle actor;
  uint32_t rule;
  uint32_t event;
};

struct Frame {
  LedgerFrame c;
  Handle instance;
  int64_t event;      // into events_, the event in hand, or -1
  int64_t propsEvent; // the event its chain's activation and targets are read from, or -1
  uint32_t chain;
  const Handle *targets;
  uint32_t targetCount;
  uint32_t portions = ~0u; // a before rule naming portions: the ones it acts on
  int32_t portion;   // the portion a scale works out its factor for
  Handle grant;
  uint8_t creditHolder;
  int64_t roots[LEDGER_SLOT_FIRST_LOCAL];
};

struct Given {
  const LedgerGiven *values = nullptr;
  uint32_t count = 0;
};

struct Outcome {
  Refusal refusal = Refusal::None;
  int64_t need = 0, have = 0;
  bool hasNumbers = false;
  Handle payer = 0;
  Id pool = kNoId;
  uint32_t element = 0;
  // Its words: a name's (requirement, clause), or built in the world's buffer.
  const char *text = nullptr;
  uint32_t textLength = 0;
  bool ok() const { return refusal == Refusal::None; }
};

class World {
public:
  explicit World(uint64_t seed);
  World(const World &other) = default;

  // ---- the host's orders ----
  Handle make(Id archetype, const LedgerLink *links, uint32_t count);
  Outcome act(Handle actor, Id ability, const Handle *targets, uint32_t n, Given given,
              Id usingEffect);
  Outcome canAct(Handle actor, Id ability, const Handle *targets, uint32_t n, bool targetsNamed);
  Outcome apply(Id effect, int64_t stacks, Handle to, Handle from, const Lifetime &given,
                Given vars);
  Outcome remove(Id effect, Handle from, int64_t stacks);
  Outcome raise(Id event, Handle of, Handle by);
  Outcome deal(int64_t amount, Handle to, Handle from, const uint32_t *types, uint32_t n);
  Outcome setPool(Handle actor, Id pool, int64_t amount);
  Outcome destroy(Handle actor);
  Outcome link(Handle actor, Id link, Handle to);
  void advance(int64_t ticks);
  void keepFrom(const World &replaced);

  // ---- reads ----
  bool alive(Handle h) const {
    const ActorHead *a = actor(h);
    return a && a->live;
  }
  bool exists(Handle h) const { return actor(h) != nullptr; }
  uint64_t living(Handle *out, uint64_t room) const;
  [[gnu::always_inline]] int64_t value(Handle a, Id v, NumberFault *made = nullptr);
  bool maximum(Handle a, Id v, int64_t &out);
  Handle linkOf(Handle a, Id link) const;
  bool hasPool(Handle a, Id pool) const;
  bool holds(Handle a, Id effect) const;
  bool carries(Handle a, Id tag);
  int64_t stacksOf(Handle a, Id effect, Handle from) const;
  int64_t remainingOf(Handle a, Id effect, uint32_t unit, Id event, Id tag) const;
  int64_t now() const { return now_; }
  int64_t countOf(Id archetype) const;
  Id archetypeOf(Handle a) const {
    const ActorHead *h = actor(a);
    return h ? h->archetype : kNoId;
  }

  // The runtime's services this world answers to: its journal kept whole.
  void setHost(const LedgerHost *host) { host_ = host; }

  // ---- journal, coverage, saves ----
  void setJournalMode(uint32_t mode) { journalMode_ = uint8_t(mode); }
  uint64_t journalCount() const { return journalCount_; }
  uint64_t journalHash() const { return journalHash_; }
  void countCoverage(const uint64_t *const *counted);
  const uint64_t *coverage(uint32_t kind) const;
  void save(void *context, void (*write)(void *, const void *, uint64_t)) const;
  static World *load(const void *bytes, uint64_t size, const char **why);
  bool holdsTogether(const Vec<Timer> &timers, const char **why);
  void afterLoad();

  // ---- what compiled bodies call (the kernel's C API, direct) ----
  // Inlined into each body's read and step, where the read's and the step's
  // shapes are constants: each folds to its one case.
  [[gnu::always_inline]] int64_t apiRead(Frame &f, uint32_t readId, const int64_t *args);
  [[gnu::always_inline]] int32_t apiStep(Frame &f, uint32_t stepId, const int64_t *args);
  int64_t apiListOpen(Frame &f, uint32_t queryId, const int64_t *args);
  int64_t apiListItem(Frame &f, int64_t index);
  void apiListClose(Frame &f);
  void apiFault(uint32_t code);
  int64_t apiRepeat(Frame &f, int64_t times);

private:
  friend struct SaveWalk;
  bool savedHandleFits(Handle h) const;
  bool savedActorsHold(const char **why);
  bool savedInstancesHold(const char **why);
  bool savedTimesHold(uint32_t i);
  bool savedListsHold(const char **why);
  bool savedTimersHold(const Vec<Timer> &timers, const char **why);
  bool savedAutosHold(const char **why);

  // ---- rows ----
  uint32_t linksAt() const { return sizeof(ActorHead); }
  uint32_t poolsAt() const { return linksAt() + 8 * shape().linkCount; }
  uint32_t statsAt() const { return poolsAt() + sizeof(PoolSlot) * shape().poolCount; }
  uint32_t headsAt() const { return statsAt() + sizeof(StatSlot) * shape().statCount; }
  uint32_t tagCacheAt() const { return headsAt() + 4 * shape().effectCount; }
  // Whole cache lines, so every row starts on one (Rows).
  static constexpr uint32_t lines(uint32_t bytes) { return (bytes + Rows::kLine - 1) & ~(Rows::kLine - 1); }
  uint32_t actorWidth() const { return lines(tagCacheAt() + 8 * tagWords()); }
  ActorHead &row(uint32_t i) { return *reinterpret_cast<ActorHead *>(actors_.at(i, actorWidth())); }
  const ActorHead &row(uint32_t i) const {
    return *reinterpret_cast<const ActorHead *>(actors_.at(i, actorWidth()));
  }
  [[gnu::always_inline]] ActorHead *actor(Handle h) {
    uint32_t i = indexOf(h);
    return h == 0 || i >= actors_.size() || row(i).gen != genOf(h) ? nullptr : &row(i);
  }
  const ActorHead *actor(Handle h) const { return const_cast<World *>(this)->actor(h); }
  Handle actorHandle(uint32_t i) const { return handle(i, row(i).gen); }
  Handle &linkSlot(uint32_t ai, Id link) {
    return reinterpret_cast<Handle *>(actors_.at(ai, actorWidth()) + linksAt())[link];
  }
  PoolSlot &poolSlot(uint32_t ai, Id pool) {
    return reinterpret_cast<PoolSlot *>(actors_.at(ai, actorWidth()) + poolsAt())[lp_valueSlot[pool]];
  }
  const PoolSlot &poolSlot(uint32_t ai, Id pool) const {
    return const_cast<World *>(this)->poolSlot(ai, pool);
  }
  StatSlot &statSlot(uint32_t ai, Id stat) {
    return reinterpret_cast<StatSlot *>(actors_.at(ai, actorWidth()) + statsAt())[lp_valueSlot[stat]];
  }
  uint32_t &firstOf(uint32_t ai, Id effect) {
    return reinterpret_cast<uint32_t *>(actors_.at(ai, actorWidth()) + headsAt())[effect];
  }
  uint32_t firstOf(uint32_t ai, Id effect) const {
    return const_cast<World *>(this)->firstOf(ai, effect);
  }
  uint64_t *tagCache(uint32_t ai) {
    return reinterpret_cast<uint64_t *>(actors_.at(ai, actorWidth()) + tagCacheAt());
  }

  uint32_t instWidth() const { return lines(sizeof(InstHead) + 8 * shape().instanceSlots); }
  InstHead &inst(uint32_t i) { return *reinterpret_cast<InstHead *>(insts_.at(i, instWidth())); }
  const InstHead &inst(uint32_t i) const {
    return *reinterpret_cast<const InstHead *>(insts_.at(i, instWidth()));
  }
  int64_t *varsOf(uint32_t i) {
    return reinterpret_cast<int64_t *>(insts_.at(i, instWidth()) + sizeof(InstHead));
  }
  int64_t *everyDueOf(uint32_t i) { return varsOf(i) + lp_effects[inst(i).effect].varCount; }
  InstHead *instance(Handle h) {
    uint32_t i = indexOf(h);
    if (h == 0 || i >= insts_.size() || inst(i).gen != genOf(h) || !inst(i).live)
      return nullptr;
    return &inst(i);
  }
  const InstHead *instance(Handle h) const { return const_cast<World *>(this)->instance(h); }
  Handle instanceHandle(uint32_t i) const { return handle(i, inst(i).gen); }
  bool working(uint32_t i) const { return inst(i).live; }

  // ---- tags ----
  static void clearTags(Tags &t) {
    for (uint32_t w = 0; w < tagWords(); ++w)
      t.w[w] = 0;
  }
  static void addTags(Tags &to, pack::TagSet set) {
    const uint64_t *w = tagSet(set);
    for (uint32_t i = 0; i < tagWords(); ++i)
      to.w[i] |= w[i];
  }
  static bool carriesAll(const Tags &have, pack::TagSet want) {
    const uint64_t *w = tagSet(want);
    for (uint32_t i = 0; i < tagWords(); ++i)
      if ((have.w[i] & w[i]) != w[i])
        return false;
    return true;
  }
  static bool carriesAny(const Tags &have, pack::TagSet want) {
    const uint64_t *w = tagSet(want);
    for (uint32_t i = 0; i < tagWords(); ++i)
      if (have.w[i] & w[i])
        return true;
    return false;
  }
  static bool hasTag(const Tags &have, Id tag) { return (have.w[tag / 64] >> (tag % 64)) & 1; }
  static Id tagOfValue(int64_t tag) {
    return tag > 0 && uint64_t(tag) <= shape().tagCount ? Id(tag - 1) : kNoId;
  }
  Tags tagsOf(Handle a);

  // ---- the journal ----
  void record(LedgerJournalEntry &entry, const uint64_t *tags, const char *note, uint32_t length);
  void journalEvent(const Event &e);
  void fault(Refusal reason, const char *text, uint32_t length, Id name = kNoId);

  // ---- values (values.cpp) ----
  int64_t base(Handle a, Id value);
  // `made`, where given, is told the fault working it out made, None from
  // the cache: a stat that faulted is never kept (docs/readings.md 165).
  [[gnu::always_inline]] int64_t computeStat(Handle a, Id stat, NumberFault *made = nullptr);
  int64_t computeStatAfresh(Handle a, Id stat, NumberFault *made);
  [[gnu::always_inline]] int64_t boundOf(Handle a, Id body);
  bool faultNesting();
  int64_t rounded(Id value, int64_t v, NumberFault &fault) const;
  // A whole pool rounded up past what a number holds is held at the last
  // whole number within it (docs/readings.md 165).
  int64_t roundedPool(Id pool, int64_t v) const {
    NumberFault passed = NumberFault::None;
    int64_t whole = rounded(pool, v, passed);
    return passed == NumberFault::None ? whole : rt::truncWhole(v);
  }
  struct PoolBounds {
    int64_t least = 0;
    int64_t most = INT64_MAX;
  };
  [[gnu::always_inline]] PoolBounds poolBounds(Handle a, Id pool) {
    int64_t least = poolLeast(a, pool);
    return {least, poolMost(a, pool)};
  }
  [[gnu::always_inline]] int64_t poolLeast(Handle a, Id pool);
  [[gnu::always_inline]] int64_t poolMost(Handle a, Id pool);
  int64_t clampWithin(Id pool, int64_t amount, PoolBounds b) const {
    int64_t most = b.most > b.least ? b.most : b.least;
    int64_t v = amount < b.least ? b.least : amount > most ? most : amount;
    return roundedPool(pool, v);
  }
  int64_t clampPool(Handle a, Id pool, int64_t amount) {
    return clampWithin(pool, amount, poolBounds(a, pool));
  }
  int64_t poolNow(Handle a, Id pool);
  [[gnu::always_inline]] int64_t poolNowWithin(Handle a, Id pool, PoolBounds bounds);
  [[gnu::always_inline]] int64_t poolDrifted(Handle a, Id pool, PoolBounds bounds);
  [[gnu::always_inline]] int64_t drifted(Handle a, Id pool, int64_t amount, int64_t from,
                                         int64_t to, PoolBounds bounds);
  [[gnu::always_inline]] int64_t regenPeriod(Handle a, Id pool);
  [[gnu::always_inline]] int64_t refillPeriod(Handle a, Id pool);
  int64_t poolClock(Handle a) const { return (now_ - actor(a)->madeAt) * tickTime_; }
  int64_t driftReaches(Handle a, Id pool, int64_t rate, int64_t amount, int64_t to);
  // The pool's anchor brought to now; inlined where the pool is known
  // (settlePoolOf), called where it isn't.
  PoolBounds settlePool(Handle a, Id pool);
  [[gnu::always_inline]] PoolBounds settlePoolOf(Handle a, Id pool);
  void settlePools(Handle a);
  void touch(Handle a);
  void touchFor(Handle a, Id effect);
  [[gnu::always_inline]] PoolBounds touchPool(Handle a, Id pool);
  void markTouched(uint32_t ai);
  void watchBounds(Handle a);
  void reachBounds(Handle source, Handle credit, uint32_t chain);
  void schedulePoolBounds(Handle a);
  void firePoolBound(const Timer &tm);
  [[gnu::always_inline]] PoolBounds landOnPool(Event &e, Handle a, Id pool);
  bool maxSteadyOnLanding(Id pool) const;

  // ---- effects (effects.cpp) ----
  enum class Taking : uint8_t { Forced, Stoppable };
  struct Taken {
    int64_t stacks = 0;
    Refusal kept = Refusal::None;
  };
  [[gnu::always_inline]] Frame frameFor(uint32_t inst, int64_t event, uint32_t chain);
  void schedule(uint32_t inst);
  void pushTimer(Timer t);
  uint32_t newInstance(Event &e, uint32_t eventIndex);
  void hold(uint32_t ai, uint32_t inst);
  void letGo(uint32_t ai, uint32_t inst);
  void newcomerVars(Id effect, Frame &f, uint32_t givenFrom, uint32_t givenCount);
  int64_t stackCap(uint32_t inst, const Event &e);
  void putOn(Event &e, uint32_t eventIndex);
  void runStart(uint32_t eventIndex);
  void install(Event &e, uint32_t eventIndex);
  uint32_t removeEventFor(uint32_t inst, int64_t stacks, Id endTag, uint32_t chain);
  Refusal keptOn(uint32_t ev, int64_t asked);
  Taken settleTaking(uint32_t inst, uint32_t ev, Id endTag, int64_t asked);
  bool beingHeard(uint32_t inst) const;
  Taken endInstance(uint32_t inst, Id endTag, uint32_t chain, Taking taking = Taking::Forced);
  void comeOff(uint32_t inst, uint32_t ev, Id endTag);
  Taken takeStacks(uint32_t inst, int64_t stacks, Id endTag, uint32_t chain,
                   Taking taking = Taking::Forced);
  void takeSome(uint32_t inst, uint32_t ev, int64_t take);
  void countFor(InstHead &in, int64_t left);
  void countDown(uint32_t ei);
  void turnTaken(Handle a, uint32_t chain);
  void runTimers();
  void fireTimer(const Timer &tm);
  bool pastEveryBudget(uint32_t i, uint32_t every, Id effect);
  static int64_t dueAfter(int64_t due, int64_t interval, int64_t now);
  // The runs of every rules due again within the tick under way, by
  // instance and rule: kept for that tick alone, so no save holds them.
  struct EveryRuns {
    uint32_t inst, every, runs;
  };
  Vec<EveryRuns> everyRuns_;
  int64_t everyRunsTick_ = -1;

  // ---- bodies ----
  // A formula read in a frame: a number its content says is read as it
  // stands, no frame made ready nor body called (a lifetime, a stack cap).
  int64_t runBody(Id body, Frame &f) {
    if (body == kNoId)
      return 0;
    if (lp_plain[body].kind == 1)
      return lp_plain[body].number;
    return runBodyCall(body, f);
  }
  int64_t runBodyCall(Id body, Frame &f);
  [[gnu::always_inline]] int32_t runSteps(Id body, Frame &f);
  [[gnu::always_inline]] int32_t runRule(uint32_t rule, Frame &f);
  [[gnu::always_inline]] void prepare(Frame &f);

  // ---- events (events.cpp) ----
  uint32_t newEvent(Id kind, Handle subject, Handle source, Handle credit, uint32_t chain);
  Event &ev(uint32_t i) { return events_[i]; }
  Refusal raiseEvent(uint32_t ei);
  // Inline for the count, out of line for a chain's first event and its end.
  [[gnu::always_inline]] bool withinBudget(uint32_t ei) {
    uint32_t chain = ev(ei).chain;
    uint32_t at = chain >= chainBase_ ? chain - chainBase_ : 0;
    if (at < chainCounts_.size() && chainCounts_[at] < kChainBudget &&
        !rt::stackRunningOut(__builtin_frame_address(0), host_->stackLow)) {
      ++chainCounts_[at];
      return true;
    }
    return countPastBudget(at);
  }
  bool countPastBudget(uint32_t at);
  bool inPreventedChain(const Event &e) const;
  bool allies(Handle a, Handle b) const;
  bool enemies(Handle a, Handle b) const;
  bool related(pack::Who relation, Handle who, Handle holder) const;
  bool whoMatches(const pack::WhoClause &w, Handle who, Handle holder, uint32_t inst);
  // The pipeline for an event of kind K, or of the kind it says (kAnyKind);
  // made for each kind the world raises itself, whose raisers call theirs.
  static constexpr Id kAnyKind = kNoId;
  template <Id K> Refusal raiseOf(uint32_t ei);
  template <Id K, decided::Phase P> uint32_t candidatesOf(const Event &e);
  template <Id K> void runBeforeOf(uint32_t ei);
  template <Id K> void queueAfterOf(uint32_t ei);
  template <Id K> void landOf(uint32_t ei);
public:
  // Inlined into the landing the code generator makes for each pool.
  [[gnu::always_inline]] void landChange(uint32_t ei, Id pool);

private:
  void runBefore(uint32_t ei);
  [[gnu::always_inline]] bool hearBefore(uint32_t ei, uint32_t inst, uint32_t rule);
  [[gnu::always_inline]] void hearAfter(uint32_t ei, uint32_t inst, uint32_t rule);
  Handle soleHolder(const Event &e, uint32_t rule);
  uint32_t soleInstance(Handle holder, uint32_t rule);
  bool actedInChain(uint32_t rule, uint32_t inst, uint32_t chain) const;
  void dieOrFall(uint32_t ei);

  void runJob(const Job &job);
  void raiseReached(uint32_t ei);
  void beginMoment();
  void endMoment();
  uint64_t handDigest(const Event &e) const;
#define LEDGER_BUILTIN_KINDS(X)                                                                    \
  X(Apply) X(Remove) X(Create) X(Destroy) X(Activate) X(Depleted) X(Filled) X(Change)

  // ---- actions (actions.cpp) ----
  [[gnu::always_inline]] int32_t action(Frame &f, const pack::Action &a, const int64_t *args);
  [[gnu::always_inline]] void targetsOf(Frame &f, const pack::Action &a, const int64_t *args);
  Refusal changePool(Frame *f, Id tag, Id pool, Handle to, Handle source, Handle credit,
                     const Portion *portions, uint32_t count, int64_t upTo, uint32_t chain,
                     bool priced = false);
  Refusal applyTo(Frame *f, Id effect, int64_t stacks, Handle to, Handle source, Handle credit,
                  const Lifetime &given, Given vars, uint32_t chain, uint32_t *made,
                  uint32_t *merged);
  int64_t removeEffect(Id effect, Handle from, int64_t stacks, Id endTag, uint32_t chain,
                       pack::TagSet tags, pack::TagSet unless, uint32_t *keptBy);
  Refusal raiseOn(Frame *f, Id event, Handle of, Handle by, pack::TagSet tagged, uint32_t chain);
  Handle makeActor(Id archetype, Handle creator, const LedgerLink *links, uint32_t linkCount,
                   uint32_t chain);
  Refusal destroyActor(Handle a, uint32_t chain);
  // A destroyed actor's slot goes to a later make once nothing in the world
  // refers to it (docs/readings.md 157): a live instance it holds, applied
  // or is credited with, or names in an actor var; a link of an actor in
  // play, or a global one. Counted from the first destroy on; made again as
  // a save is read.
  void refer(Handle a) {
    if (countingRefs_ && actor(a))
      ++actorRefs_[indexOf(a)];
  }
  void unrefer(Handle a) {
    if (countingRefs_ && actor(a) && --actorRefs_[indexOf(a)] == 0 && !row(indexOf(a)).live)
      releasing_.push(indexOf(a));
  }
  // A link cell set: one of an actor in play, or a global one, holds whom it
  // names; a destroyed actor's holds no one.
  void setLink(Handle &cell, Handle to, bool holds) {
    if (holds) {
      refer(to);
      unrefer(cell);
    }
    cell = to;
  }
  void countRefs();
  void referInstance(uint32_t i);
  void unreferInstance(uint32_t i);
  void recountVars(uint32_t i);
  Handle &varRef(uint32_t i, uint32_t v) { return varRefs_[i * shape().instanceSlots + v]; }
  void releaseSlots();
  uint32_t takeFreeSlot();
  void forgetSlot(uint32_t ai);
  void listSlotsFromSave();
  bool granted(Handle a, Id ability, Handle *grant, Id usingEffect);
  void takePortion(Event &e, uint32_t p);
  static void stacksFollowAmount(Event *e);
  static Id namedTag(pack::TagSet set);
  void inheritChain(Event &e, const Frame &f);

  // ---- orders (orders.cpp) ----
  enum class ClauseMiss : uint8_t { None, Gone, Side, Having, Unless };
  ClauseMiss clauseMiss(Handle caster, const pack::Ability &ab, Handle target);
  Outcome checkCaster(Handle a, Id ability, bool forCast, bool noCooldown, Id usingEffect,
                      Handle &grant);
  Outcome checkOrder(Handle a, Id ability, const Handle *targets, uint32_t n, bool free,
                     const Frame *parent, bool targetsNamed, Handle grant, Given given);
  Outcome check(Handle a, Id ability, const Handle *targets, uint32_t n, bool forCast, bool free,
                bool noCooldown, const Frame *parent, bool targetsNamed, Id usingEffect,
                Given given);
  uint32_t activateEvent(const Frame *parent, Handle caster, Id ability, const Handle *targets,
                         uint32_t n, pack::TagSet tagged, uint32_t chain, Handle grant);
  Refusal castAbility(Frame *parent, Handle caster, Id ability, const Handle *targets, uint32_t n,
                      bool free, bool noCooldown, pack::TagSet tagged, uint32_t chain,
                      Handle grant);
  int64_t price(Handle payer, Id pool, int64_t amount, Handle caster, Id ability, int64_t order);
  Outcome checkProps(Id ability, Given given);
  Outcome wordsOf(Refusal r, const char *text, uint32_t length);
  Outcome clauseWords(Refusal r, const char *word, pack::TagSet set);

  // ---- autos (autos.cpp) ----
  enum : uint8_t { kNotAuto, kAutoAwake, kAutoAsleep };
  // RefusedByHolder: by what reads its holder alone. RefusedByClause: its
  // clause took no actor in play. RefusedWaiting: by what reads its holder
  // and the actors its clause takes (their values, effects, tags, sides),
  // or the actors its holder's links name.
  enum class AutoTry : uint8_t { Fired, Refused, RefusedByHolder, RefusedByClause, RefusedWaiting };
  void runAutos();
  AutoTry tryAuto(Handle a, const pack::AutoGrant &grant, Handle grantedBy);
  void addAutoActor(Handle a);
  // An actor changing: its autos wake, looking at every actor again, and an
  // auto waiting on the values of the actors its clause takes looks at it.
  void wakeAutos(Handle a);
  void wakeHolder(uint32_t ai);
  void wakeAsleep(uint32_t ai);
  void shapeMoved(Handle a);
  void wakeWaiters();
  void wakeWaitersOf(Vec<uint32_t> &waiters, uint8_t listed);
  bool mayTake(Handle sleeper, Handle moved);
  bool readsThroughLink(Handle sleeper, Handle moved);
  template <typename Ask> bool anyAuto(Handle sleeper, Ask ask);
  void addHint(uint32_t ai, Handle moved);
  void clearHints(uint32_t ai);
  void forgetAutoWaits(uint32_t ai);
  void listAutosFromSave();
  bool waitsOnCasterAndTarget(Id ability, const Outcome &refusal) const;
  void wakeAutosBy(const pack::AutoGrant &grant, const Outcome &refusal);
  void wakeAutosAt(int64_t at);
  void scheduleAutoWake();

  // ---- sides (sides.cpp) ----
  void fileAgain(uint32_t ai);
  void fileSides();
  void refile(uint32_t ai);
  Handle sideOf(uint32_t ai) const;
  // Walks, in slot order, the actors in play that a search of
  // `whom` from `from` takes by side alone.
  class SideWalk {
  public:
    SideWalk(World &w, pack::Subject whom, Handle from);
    ~SideWalk() { w_.scratchIds_.truncate(cursorsAt_); }
    SideWalk(const SideWalk &) = delete;
    SideWalk &operator=(const SideWalk &) = delete;
    uint32_t next(); // an actor's index, kNone past the last

  private:
    World &w_;
    uint32_t cursorsAt_; // each file walked: its index in sideFiles_, then its position, in scratchIds_
    uint32_t cursorsEnd_;
    uint32_t skip_ = kNone; // the searcher, where the search leaves it out
    uint32_t only_ = kNone; // the searcher, the one ally of one with no side
  };


  // ---- reads and queries (reads.cpp) ----
  void query(Frame &f, const pack::Query &q, const int64_t *args, Vec<int64_t> &out);
  bool searchFinds(const pack::Query &q, bool fallenAsked, uint32_t ai);
  void rank(Frame &f, uint32_t keysBegin, uint32_t keyCount, Vec<int64_t> &found, uint32_t from);
  bool targeted(const Event &e, Handle actor) const;

  // ---- state ----
  const LedgerHost *host_ = nullptr;
  uint64_t seed_ = 0;
  int64_t now_ = 0;
  int64_t tickTime_ = kOne;
  int64_t worldTime() const { return now_ * tickTime_; }
  int64_t inTicks(int64_t time) const {
    NumberFault fault = NumberFault::None;
    return tickTime_ == kOne ? time : rt::div(time, tickTime_, fault);
  }
  int64_t tickAtOrAfter(int64_t time) const {
    return time <= 0 ? time / tickTime_ : (time - 1) / tickTime_ + 1;
  }
  uint64_t epoch_ = 1;
  uint64_t shapeEpoch_ = 0;
  uint64_t seq_ = 0;
  uint32_t chains_ = 0;
  uint32_t counting_ = 0; // live instances whose lifetime counts events
  uint8_t journalMode_ = 0;
  uint64_t journalCount_ = 0;
  uint64_t journalHash_ = 0xcbf29ce484222325ull;
  Rows actors_;
  // By actor: what refers to it, while refs are counted (countingRefs_).
  Vec<uint32_t> actorRefs_;
  bool countingRefs_ = false;
  bool anyActorVars_ = false; // the catalog has a var of kind actor
  // By instance, beside its vars: the actor each actor var was counted as
  // naming.
  Vec<Handle> varRefs_;
  // Slots a moment left destroyed and unreferred, let go as it ends; the
  // free ones, a heap by index, so a make takes the lowest (a save read back
  // finds the same); and whether each is in that heap.
  Vec<uint32_t> releasing_;
  Vec<uint32_t> freeSlots_;
  Vec<uint8_t> slotListed_;
  Rows insts_;
  Vec<uint32_t> freeInsts_;
  TimerQueue timers_;
  Vec<Handle> globals_;
  Vec<Handle> autoActors_; // in the order they came to hold autos
  Vec<uint64_t> autoFired_; // by (actor index << 32 | ability), sorted, with its tick beside
  Vec<int64_t> autoFiredAt_;
  int64_t autoWakeAt_ = -1;

  // Empty between moments: a save holds none of it.
  Vec<Event> events_;
  Vec<Portion> portions_;
  Vec<Handle> eventTargets_;
  Vec<LedgerGiven> givenVars_;
  Vec<Job> jobs_;
  uint32_t jobAt_ = 0;
  int momentDepth_ = 0;
  Vec<uint32_t> chainCounts_;
  Vec<uint32_t> chainRepeats_; // the moment's chains' repeated steps' runs
  uint32_t chainBase_ = 0;
  struct OnceActed {
    uint32_t rule, inst, chain;
  };
  Vec<OnceActed> oncePerChain_;
  struct PreventedChain {
    Handle holder;
    uint32_t chain;
  };
  Vec<PreventedChain> preventedChains_;
  Vec<Handle> hearingTakings_;
  struct BoundWatch {
    Handle actor;
    Id pool;
    bool aboveLeast;
  };
  Vec<BoundWatch> boundWatch_;
  uint32_t boundWatchAt_ = 0;
  Vec<uint32_t> touched_;
  uint32_t deferReached_ = 0;
  Vec<uint32_t> reachedLater_;
  bool pricing_ = false;
  bool billing_ = false;
  Id rulesName_ = kNoId;
  static constexpr int64_t kNoNewcomer = INT64_MIN;
  int64_t newcomerStacks_ = kNoNewcomer;
  int valueNesting_ = 0;
  static constexpr int kValueNesting = 64;
  Vec<int64_t> locals_;
  uint32_t localTop_ = 0;
  Vec<int64_t> scratchVars_;
  // Scratch lists, each a stack: a user takes the top from its size and
  // truncates back as it is done, so rules inside rules share them.
  Vec<uint32_t> scratchIds_;
  Vec<int64_t> scratchHandles_;
  Vec<int64_t> lists_;
  Vec<uint32_t> listStarts_;
  Vec<Handle> targetScratch_;
  char words_[160]; // an Outcome's words built from parts

  // Autos: asleep until what refused them may have moved (reading 139).
  bool inAutos_ = false;
  int64_t autoWakeNext_ = -1;
  Vec<uint32_t> autoAwake_;
  Vec<uint32_t> autoPass_;
  uint32_t passRank_ = kNone;
  // By actor index, for the auto actors (addAutoActor sizes them; none is
  // saved: a restored world's autos start awake): whether its next try
  // looks at every actor (its holder changed, or it wasn't waiting), else
  // at its hints alone, the actors its clauses take that moved while it
  // waited (a chain in autoHints_, index + 1, 0 none); which waiter lists
  // hold it (bits: clauseWaiters_ 1, valueWaiters_ 2).
  Vec<uint8_t> autoScanAll_;
  Vec<uint8_t> autoListed_;
  Vec<uint32_t> autoHintFirst_;
  struct AutoHint {
    Handle actor;
    uint32_t next; // index + 1, 0 none
  };
  Vec<AutoHint> autoHints_;
  uint32_t freeHints_ = 0; // a chain of autoHints_ free for another, index + 1
  // Those asleep waiting for an actor their clauses take to come (clause),
  // or for one of those to change (value), and the actors that moved since
  // they last looked (0: anyone, a global link set).
  Vec<uint32_t> clauseWaiters_, valueWaiters_;
  Vec<Handle> shapeMovedAt_, valueMovedAt_;

  // The actors in play filed by the side their allegiance names.
  struct SideFile {
    Handle side;
    Vec<uint32_t> members; // ascending
  };
  Vec<SideFile> sideFiles_;
  Vec<Handle> filedUnder_; // by actor: its file's side, kUnfiled out of play
  Vec<uint32_t> toRefile_;
  Vec<uint8_t> refileListed_;
  bool sidesKept_ = false, sidesAllStale_ = false;
  static constexpr Handle kUnfiled = -1;

  bool covering_ = false;
  Vec<uint64_t> coverage_[LEDGER_COVER_KINDS];
};

} // namespace ledger::cw
