// The generic kernel: the language's rules machinery written once over the
// pack's tables, for any catalog. The reference engine runs it with bodies
// evaluated from the IR; a compiled pack whose catalog the compiled engine
// doesn't specialise yet runs it with its compiled bodies (the generic path,
// counted). A world's actors, their values and the effect instances they
// hold, the timer queue, the event pipeline and the journal, all in flat
// arrays with generational handles, so a save is a copy of the state.
//
// The host reaches it through World (world.h), whose orders and reads it
// answers one for one.
#pragma once

#include "host_types.h"
#include "journal.h"
#include "number.h"
#include "pack.h"
#include "refusals.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ledger::rt {

class Kernel {
public:
  Kernel(const Pack &pack, uint64_t seed = 0);
  Kernel(const Kernel &) = default;
  Kernel &operator=(const Kernel &) = default;

  // ---- the host's orders ---------------------------------------------------
  Handle make(pack::Id archetype, const std::vector<std::pair<pack::Id, Handle>> &links = {});
  // An order; `usingEffect` names the grant: the newest instance of that
  // effect the actor holds, refused NotGranted where it grants none.
  Outcome act(Handle actor, pack::Id ability, const std::vector<Handle> &targets,
              const Given &given = {}, pack::Id usingEffect = pack::kNoId);
  // Whether an order would be taken; with targetsNamed false, its target
  // clause isn't read (a host asking before the player aims).
  Outcome canAct(Handle actor, pack::Id ability, const std::vector<Handle> &targets,
                 bool targetsNamed = true);
  Outcome apply(pack::Id effect, int64_t stacks, Handle to, Handle from, const Lifetime &given,
                const Given &vars);
  // The whole effect, or that many stacks, oldest first: 0 takes none. A
  // before rule's prevent keeps an instance on and the order is done; a
  // block keeping every one on refuses it Blocked (docs/readings.md 142).
  static constexpr int64_t kWhole = INT64_MIN;
  Outcome remove(pack::Id effect, Handle from, int64_t stacks = kWhole);
  Outcome raise(pack::Id event, Handle of, Handle by);
  // One change carrying every type named: each a tag's set (its closure).
  Outcome deal(int64_t amount, Handle to, Handle from, const std::vector<pack::TagSet> &types = {});
  Outcome setPool(Handle actor, pack::Id pool, int64_t amount);
  Outcome destroy(Handle actor);
  Outcome link(Handle actor, pack::Id link, Handle to); // actor 0: a global link
  void advance(int64_t ticks);
  // The low end of the calling thread's stack (runtime/thread_stack.h).
  void setStackLow(uintptr_t low) { stackLow_ = low; }
  // A restore replacing `replaced`: what the content declares kept (a pool
  // saying kept) carries over from it, for each actor in both.
  void keepFrom(const Kernel &replaced);
  // A save on disk (world_save.cpp): the world between orders as bytes,
  // which another process running the same pack reads back as the world
  // they were; a save of another pack, or damaged, is refused with why.
  std::string saveBytes() const;
  static std::optional<Kernel> loadSave(const Pack &pack, std::string_view bytes, std::string &why);

  void countCoverage(Coverage counted);
  const Coverage *coverage() const { return covering_ ? &coverage_ : nullptr; }

  // ---- reads ---------------------------------------------------------------
  bool alive(Handle h) const {
    const Actor *a = actor(h);
    return a && a->live;
  }
  bool exists(Handle actor) const;
  // The living actors, in the world's order: their slots' (reading 157).
  std::vector<Handle> living() const;
  int64_t value(Handle actor, pack::Id value, NumberFault *made = nullptr);
  // A pool's maximum now, or a stat's max option; none where it has none.
  std::optional<int64_t> maximum(Handle actor, pack::Id value);
  Handle linkOf(Handle actor, pack::Id link) const;
  bool hasPool(Handle actor, pack::Id pool) const;
  bool holds(Handle actor, pack::Id effect) const;
  bool carries(Handle actor, pack::Id tag);
  int64_t stacksOf(Handle actor, pack::Id effect, Handle from = 0) const;
  // Time left of the newest instance of an effect (a time in millionths of the
  // pack's unit, a count or turns whole); -1 when it never ends.
  // A count's remaining is of the event it counts: `event` (or `tag`, a
  // pool's change by its tag) naming another reads -1, as a count of none.
  int64_t remainingOf(Handle actor, pack::Id effect, DurationUnit unit,
                      pack::Id event = pack::kNoId, pack::Id tag = pack::kNoId) const;
  int64_t now() const { return now_; }
  // How many actors made from an archetype are in play.
  int64_t countOf(pack::Id archetype) const;
  const Journal &journal() const { return journal_; }
  void setJournalMode(JournalMode mode) { journal_.setMode(mode); }
  void forgetJournal() { journal_.forget(); }
  std::string handleName(Handle h) const;
  const pack::Tables &tables() const { return *t_; }

  // ---- internals the kernel's C API reaches ------------------------------------
  struct Frame;
  int64_t apiRead(Frame &f, uint32_t readId, const int64_t *args);
  int32_t apiStep(Frame &f, uint32_t stepId, const int64_t *args);
  int64_t apiListOpen(Frame &f, uint32_t queryId, const int64_t *args);
  int64_t apiListItem(Frame &f, int64_t index);
  void apiListClose(Frame &f);
  void apiFault(Frame &f, uint32_t code);
  int64_t apiRepeat(Frame &f, int64_t times);
  void journalFault(NumberFault fault);

  static constexpr uint32_t kMaxTagWords = 8;
  static constexpr uint32_t kMaxPortions = pack::kMaxPortions;
  static constexpr uint32_t kMaxProps = 8;
  static constexpr uint32_t kChainBudget = 1000;
  // How often one every rule of one instance may come due within one tick.
  static constexpr uint32_t kEveryBudget = 10000;

private:
  using Id = pack::Id;
  struct TagBits {
    uint64_t w[kMaxTagWords] = {};
  };

  struct Actor {
    uint32_t gen = 1;
    Id archetype = pack::kNoId;
    bool live = false;      // made and not destroyed
    bool fallen = false;
    int64_t madeAt = 0;
    uint64_t epoch = 1;     // bumped whenever anything a stat of it reads changes
    uint64_t tagsEpoch = 1; // and whenever its tags may have
  };

  // Where an instance slot's per-instance arrays stand, and how much they hold.
  struct Storage {
    uint32_t varsAt = 0, varsCap = 0;
    uint32_t capturedAt = 0, capturedCap = 0;
    uint32_t everyAt = 0, everyCap = 0;
    uint32_t propsAt = 0, propsCap = 0;
  };

  struct Instance {
    uint32_t gen = 1;
    Storage storage;
    bool live = false;
    bool ending = false; // coming off: its expire and end steps run, its rules hear nothing
    bool capturing = false; // going on: its captured amounts are worked out without its terms
    Id effect = pack::kNoId;
    Handle holder = 0, source = 0, credit = 0;
    int64_t stacks = 0;
    uint64_t seq = 0;            // put on in this order
    int32_t clock = -1;          // its clock: -1 the world's, else its holder's clocks_[clock]
    int64_t appliedAt = 0;       // on its clock (millionths of a unit)
    int64_t expiresAt = -1;      // on its clock, -1 never
    int64_t lifetime = 0;        // the time it was given, on its clock
    int64_t turnsLeft = -1;      // -1: not counted
    int64_t countLeft = -1;      // events left, -1: not counted
    Id countEvent = pack::kNoId; // the event an apply's count counts, or
    Id countTag = pack::kNoId;   // the tag its change carries (Lifetime)
    uint32_t everyAt = 0;        // into everyDue_: each every rule's next run, on its clock
    uint32_t varsAt = 0;         // into vars_
    uint32_t capturedAt = 0;     // into captured_: one amount a modifier
    uint32_t timerVersion = 0;
    TagBits carried;             // tags it carries down its rules' chains
    uint32_t propCount = 0;      // and properties, in instProps_ from storage.propsAt
  };

  // A pool's crossing: its drift reaching a bound, at the tick it does.
  // AutoWake: the autos are tried again, no moment having woken them.
  enum class TimerKind : uint8_t { Expire, Every, PoolBound, AutoWake };
  struct Timer {
    int64_t due = 0;     // world time (millionths of a unit)
    uint8_t phase = 0;   // what runs first within a tick: rules, then lifetimes
    // An instance's timers: its seq, so of two due at once the one put on
    // first runs first however often either was set again (reading 153); a
    // pool's crossing: 0, met before them, by actor then pool; the autos':
    // when it was set.
    uint64_t seq = 0;
    TimerKind kind = TimerKind::Expire;
    Handle instance = 0; // PoolBound: the actor
    uint32_t rule = 0;   // PoolBound: the pool
    uint32_t version = 0;
    int64_t at = 0; // the tick it fires on, worked out as it goes on the heap
    // By the tick it fires on, then what runs first within a tick (a time
    // expires after anything else due then), then its exact time, then the
    // order instances went on (crossings first, by their actors' slots,
    // the world's order of actors: reading 157), then one instance's every
    // rules or one actor's pools as written.
    bool operator>(const Timer &o) const {
      if (at != o.at)
        return at > o.at;
      if (phase != o.phase)
        return phase > o.phase;
      if (due != o.due)
        return due > o.due;
      if (seq != o.seq)
        return seq > o.seq;
      if (uint32_t(instance) != uint32_t(o.instance))
        return uint32_t(instance) > uint32_t(o.instance);
      return rule > o.rule;
    }
  };

  struct Portion {
    TagBits tags;
    int64_t amount = 0;
    bool gone = false; // taken by a before rule (a prevent, a convert, a redirect): no longer held
  };
  struct Prop {
    Id first;
    int64_t second;
  };
  // Room for up to N items, read only below the count kept beside it, so a
  // new event writes its head and not its ~700 bytes of room.
  template <typename T, size_t N> struct Room {
    union {
      T items[N];
    };
    Room() {}
    T &operator[](size_t i) { return items[i]; }
    const T &operator[](size_t i) const { return items[i]; }
  };

  // Its head is laid out as LedgerEventHead, which compiled bodies read.
  struct Event {
    Handle subject = 0, source = 0, credit = 0;
    Id kind = pack::kNoId;
    bool prevented = false;
    TagBits tags;
    Id pool = pack::kNoId;
    uint32_t portionCount = 0;
    Room<Portion, kMaxPortions> portions;
    int64_t sent = 0, amount = 0, landed = 0, overflow = 0, before = 0, after = 0;
    int64_t upTo = INT64_MAX;
    uint32_t propCount = 0;
    Room<Prop, kMaxProps> props;
    int64_t propsFrom = -1; // the event in its chain it took its properties from
    Id reached = pack::kNoId; // a change: the Depleted or Filled its landing sets off
    bool onPool = false;      // a change: landed, its before and after kept
    Id effect = pack::kNoId;     // Apply, Remove
    Handle instance = 0;         // Remove: the instance; Apply: the one made or merged
    int64_t stacks = 0;          // Apply: stacks brought
    Lifetime life;               // Apply: what it installs
    Id ability = pack::kNoId;
    Id varsFrom = 0;             // Apply: given vars, into givenVars_
    uint32_t varCount = 0;
    Refusal refusal = Refusal::None;
    uint32_t chain = 0;
    // Its before rules have run: a cost's payment, priced as its bill was; a
    // Remove something did, heard (and counted in its chain) before its
    // instance came off.
    bool beforeHeard = false;
    bool made = false;   // an Apply that put on a new instance, not merged into one held
    Handle grant = 0;    // the instance whose grant the chain's activation used
    Handle target = 0;   // Activate: the target its order named first
    uint32_t targetsAt = 0, targetCount = 0; // Activate: all it named, in eventTargets_
    // The targets the activation it descends from named, in eventTargets_.
    uint32_t targetedAt = 0, targetedCount = 0;
    Handle redirectTo = 0;
    Id redirectPool = pack::kNoId;
  };

  struct Job { // an after rule, queued in the moment
    enum Kind : uint8_t { Rule, Destroy } kind = Rule;
    Handle instance = 0;
    uint32_t rule = 0;
    uint32_t event = 0; // into events_
    Handle actor = 0;
  };

public:
  struct Frame {
    LedgerFrame c;
    Kernel *world;
    Handle instance = 0;
    int64_t event = -1;   // into events_, the event in hand
    uint32_t chain = 0;
    TagBits carried;
    int64_t propsEvent = -1; // the chain's props: events_[propsEvent]
    const std::vector<Handle> *targets = nullptr;
    uint32_t portions = ~0u; // a before rule naming portions: the ones it acts on
    int32_t portion = -1;    // the portion a scale works out its factor for
    int64_t roots[LEDGER_SLOT_FIRST_LOCAL] = {};
    // An order's grant while no activation carries it yet: its requirements
    // and costs read grant.VAR too.
    Handle grant = 0;
    bool creditHolder = false; // a before rule's credit holder: a redirect's credit is its holder's
  };

private:
  // ---- handles -----------------------------------------------------------------
  static Handle handle(uint32_t index, uint32_t gen) {
    return Handle((uint64_t(gen) << 32) | (uint64_t(index) + 1));
  }
  static uint32_t indexOf(Handle h) { return uint32_t(uint64_t(h) & 0xffffffffu) - 1; }
  static uint32_t genOf(Handle h) { return uint32_t(uint64_t(h) >> 32); }
  // A slot's next generation: past the last, round to 1, never to 0, which
  // no slot has.
  static uint32_t nextGen(uint32_t gen) { return gen == UINT32_MAX ? 1 : gen + 1; }
  Actor *actor(Handle h) {
    uint32_t i = indexOf(h);
    return h == 0 || i >= actors_.size() || actors_[i].gen != genOf(h) ? nullptr : &actors_[i];
  }
  const Actor *actor(Handle h) const { return const_cast<Kernel *>(this)->actor(h); }
  Instance *instance(Handle h);
  const Instance *instance(Handle h) const;
  Handle instanceHandle(uint32_t i) const { return handle(i, insts_[i].gen); }

  // ---- values (world_values.cpp) -------------------------------------------------
  int64_t base(Handle actor, Id value);
  // A stat now: read from its cache where what it reads hasn't changed.
  // `made`, where given, is told the fault working it out made, None from
  // the cache: a stat that faulted is never kept (docs/readings.md 165).
  int64_t computeStat(Handle a, Id stat, const TagBits *except, NumberFault *made = nullptr) {
    const Actor *ac = actor(a);
    if (ac && !except) {
      size_t slot = size_t(indexOf(a)) * valueCount_ + stat;
      PackIndex::StatCache kind = ix_->statCache[stat];
      uint64_t stamp = statStamp(*ac, kind);
      if (kind != PackIndex::StatCache::Never && statEpoch_[slot] == stamp)
        return statCache_[slot];
    }
    return computeStatAfresh(a, stat, except, made);
  }
  int64_t computeStatAfresh(Handle a, Id stat, const TagBits *except, NumberFault *made);
  // A value a rule's formula reads, journaling the fault its working out made.
  int64_t statRead(Handle a, Id value, const TagBits *except);
  // What a cached stat was worked out at: both counts only ever rise, so
  // their sum moves whenever either does.
  uint64_t statStamp(const Actor &ac, PackIndex::StatCache kind) const {
    return kind == PackIndex::StatCache::Holder  ? ac.epoch
           : kind == PackIndex::StatCache::Shape ? ac.epoch + shapeEpoch_
                                                 : epoch_;
  }
  static constexpr int kValueNesting = 64;
  int valueNesting_ = 0;
  struct Nesting {
    int &depth;
    explicit Nesting(int &d) : depth(d) { ++depth; }
    ~Nesting() { --depth; }
  };
  bool nestedTooDeep() { return valueNesting_ > kValueNesting && faultNesting(); }
  bool faultNesting();
  int64_t boundOf(Handle a, Id body);
  // A pool's least and most as they read now, read once for all that a
  // settle or a landing needs of them.
  struct PoolBounds {
    int64_t least = 0;
    int64_t most = INT64_MAX;
  };
  PoolBounds poolBounds(Handle a, Id pool) {
    int64_t least = poolLeast(a, pool);
    return {least, poolMost(a, pool)};
  }
  int64_t poolNow(Handle a, Id pool);
  // The same, its slot and bounds in hand.
  int64_t poolNowWithin(Handle a, Id pool, size_t slot, PoolBounds bounds);
  int64_t poolDrifted(Handle a, Id pool, size_t slot, PoolBounds bounds);
  void settlePools(Handle a);
  void touch(Handle a);
  // An instance of this effect comes, goes or changes stacks on a.
  void touchFor(Handle a, Id effect);
  PoolBounds settlePool(Handle a, Id pool);
  // A drift's rate a period: read afresh, or where it reads the world, the
  // one it read at its anchor.
  int64_t driftRate(Handle a, Id pool, size_t slot);
  // The period of a pool's regen or refill in world time: its number, or its
  // formula read as the rate is. One of 0 or less doesn't drift.
  int64_t regenPeriod(Handle a, Id pool, size_t slot) {
    const pack::Value &v = t_->values[pool];
    return v.regenPeriodBody == pack::kNoId ? v.regenPeriod : readPeriod(a, pool, slot, false);
  }
  int64_t refillPeriod(Handle a, Id pool, size_t slot) {
    const pack::Value &v = t_->values[pool];
    return v.refillPeriodBody == pack::kNoId ? v.refillPeriod : readPeriod(a, pool, slot, true);
  }
  int64_t readPeriod(Handle a, Id pool, size_t slot, bool refill);
  int64_t drifted(Handle a, Id pool, size_t slot, int64_t amount, int64_t from, int64_t to,
                  PoolBounds bounds);
  static int64_t driftedApart(int64_t amount, int64_t from, int64_t to, int64_t rate,
                              int64_t perRegen, int64_t refill, int64_t perRefill,
                              PoolBounds bounds);
  bool boundsHeld(Handle a, Id pool, size_t &slot) const;
  void settleWorldReaders();
  void settleReader(uint32_t ai, bool countsMoved, bool globalsMoved);
  bool readMoved(uint32_t ai, Id pool, bool countsMoved, bool globalsMoved) const;
  bool globalsMoved(const std::vector<Id> &globals, uint64_t since) const;
  void noteReaderLinks(uint32_t ai);
  void appendLiveReaders(std::vector<uint32_t> &readers, std::vector<uint32_t> &out);
  void appendLinkReaders(Handle a, std::vector<uint32_t> &out);
  void appendSourceReaders(Handle a, std::vector<uint32_t> &out);
  bool sourceTouched(uint32_t ai) const;
  void listReader(uint32_t ai);
  void listReadersFromSave();
  void watchReadersOf(Handle a);
  bool wasTouched(uint32_t ai) const { return ai < touchedMark_.size() && touchedMark_[ai]; }
  void retimeWorldClocks();
  PoolBounds touchPool(Handle a, Id pool);
  int64_t poolClock(Handle a, Id pool) const;
  int64_t driftReaches(Handle a, Id pool, size_t slot, int64_t rate, int64_t amount, int64_t to);
  void schedulePoolBounds(Handle a);
  void firePoolBound(const Timer &tm);
  // The bounds it landed within, as the settle before it read them.
  PoolBounds landOnPool(Event &e, Handle a);
  // A maximum no landing on its pool moves: none, a number, or a stat of the
  // holder's own cached by what the holder holds.
  bool maxSteadyOnLanding(Id pool) const {
    Id body = t_->values[pool].maxBody;
    if (body == pack::kNoId)
      return true;
    const PackIndex::Plain &plain = ix_->plain[body];
    return plain.kind == PackIndex::Plain::Number ||
           (plain.kind == PackIndex::Plain::HolderStat &&
            ix_->statCache[plain.stat] == PackIndex::StatCache::Holder);
  }
  int64_t clampPool(Handle a, Id pool, int64_t amount) {
    return clampWithin(pool, amount, poolBounds(a, pool));
  }
  int64_t clampWithin(Id pool, int64_t amount, PoolBounds b) const {
    return roundedPool(pool, std::clamp(amount, b.least, std::max(b.least, b.most)));
  }
  int64_t poolLeast(Handle a, Id pool);
  int64_t poolMost(Handle a, Id pool);
  int64_t rounded(Id value, int64_t v, NumberFault &fault) const;
  // A whole pool rounded up past what a number holds is held at the last
  // whole number within it (docs/readings.md 165).
  int64_t roundedPool(Id pool, int64_t v) const {
    NumberFault passed = NumberFault::None;
    int64_t whole = rounded(pool, v, passed);
    return passed == NumberFault::None ? whole : truncWhole(v);
  }
  TagBits tagsOf(Handle a);
  bool suspendedBy(const Instance &in, uint32_t suspender) const;
  // At work: live, and suspended by none of its holder's other effects.
  bool working(uint32_t inst) const {
    const Instance &in = insts_[inst];
    return in.live && (suspenders_[indexOf(in.holder)] == 0 || !suspendedAmong(inst));
  }
  bool suspendedAmong(uint32_t inst) const;

  // ---- effects (world_effects.cpp) ------------------------------------------------
  void install(Event &e, uint32_t eventIndex);
  uint32_t newInstance(Event &e, uint32_t eventIndex);
  void putOn(Event &e, uint32_t eventIndex);
  void countFor(Instance &in, int64_t left);
  // Whether a before rule may keep an instance on (docs/readings.md 142): a
  // taking something did (a step, an order, its ends on, an each … removes)
  // is heard before anything comes off; one its lifetime, a newcomer, a sum
  // to 0, its prevents death or its holder's end brought has come off
  // whatever a rule says.
  enum class Taking : uint8_t { Forced, Stoppable };
  struct Taken {
    int64_t stacks = 0;               // how many it took (whole units times kOne)
    Refusal kept = Refusal::None;     // what kept them on: Prevented, Blocked
  };
  // by: the step taking it, whose chain's properties and carried tags its
  // Remove takes.
  Taken endInstance(uint32_t inst, Id endTag, uint32_t chain, Taking taking = Taking::Forced,
                    const Frame *by = nullptr);
  Taken takeStacks(uint32_t inst, int64_t stacks, Id endTag, uint32_t chain,
                   Taking taking = Taking::Forced, const Frame *by = nullptr);
  uint32_t removeEventFor(uint32_t inst, int64_t stacks, Id endTag, uint32_t chain,
                          const Frame *by);
  Refusal keptOn(uint32_t ev, int64_t asked);
  Taken settleTaking(uint32_t inst, uint32_t ev, Id endTag, int64_t asked);
  bool beingHeard(uint32_t inst) const;
  void comeOff(uint32_t inst, uint32_t ev, Id endTag);
  void takeSome(uint32_t inst, uint32_t ev, int64_t take);
  void schedule(uint32_t inst);
  // Clocks: each actor's time stat and the stats effects say they run on.
  struct Clock {
    int64_t anchorWorld = 0; // world time at the anchor (millionths of a unit)
    int64_t anchorClock = 0; // the clock's time there
    int64_t rate = 1'000'000;
  };
  int64_t clockNow(Handle a, int32_t clock) const;
  int64_t worldTimeLeft(const Instance &in) const;
  int64_t worldDue(Handle a, int32_t clock, int64_t due) const;
  void retime(Handle a);
  int32_t clockOfStat(Id stat) const;
  void runTimers(int64_t upTo);
  void fireTimer(const Timer &tm);
  bool pastEveryBudget(uint32_t inst, uint32_t every, Id effect);
  static int64_t dueAfter(int64_t due, int64_t interval, int64_t now);
  // The runs of every rules due again within the tick under way, by
  // instance and rule: kept for that tick alone, so no save holds them.
  struct EveryRuns {
    uint32_t inst, every, runs;
  };
  std::vector<EveryRuns> everyRuns_;
  int64_t everyRunsTick_ = -1;
  void prepare(Frame &f);
  static const LedgerEventHead *headOf(const Event &e);
  int64_t runBody(Id body, Frame &f);
  int32_t runSteps(Id body, Frame &f);
  Frame frameFor(uint32_t inst, int64_t event, uint32_t chain);
  void countDown(uint32_t eventIndex);
  void turnTaken(Handle a, uint32_t chain);
  // Which of an effect's rules an event reaches: before rules; after rules
  // (with ends on and each … removes, queued alike); a lifetime counting it.
  enum class Phase : uint8_t { Before, After, Count };
  void candidates(const Event &e, Phase phase, std::vector<uint32_t> &out);
  // The roles (PackIndex::kSubject …) its holder may hear the event in.
  // Of the roles asked, those its holder may hear this event in: by its kind
  // first, its tags read only where they would add a role asked.
  uint8_t mayHear(Id effect, Phase phase, const Event &e,
                  uint8_t asked = PackIndex::kAnyRole) const {
    if (phase == Phase::Count)
      return asked; // hearers_ holds the instances counting events
    size_t at = size_t(effect) * 2 + size_t(phase);
    uint8_t roles = ix_->heardKinds[at * ix_->eventCount + e.kind] & asked;
    if (uint8_t tagRoles = ix_->heardTagRoles[at] & asked; tagRoles & ~roles) {
      const uint64_t *tags = &ix_->heardTags[at * ix_->tagWords];
      for (uint32_t w = 0; w < ix_->tagWords; ++w)
        if (tags[w] & e.tags.w[w])
          return roles | tagRoles;
    }
    return roles;
  }
  // Some rule of the phase may hear it: its kind, or a tag it carries.
  bool someoneHears(Phase phase, const Event &e) const {
    if (ix_->kindHeard[size_t(phase) * ix_->eventCount + e.kind])
      return true;
    const uint64_t *tags = &ix_->tagsHeard[size_t(phase) * ix_->tagWords];
    for (uint32_t w = 0; w < ix_->tagWords; ++w)
      if (tags[w] & e.tags.w[w])
        return true;
    return false;
  }
  void mergeBySeq(std::vector<uint32_t> &out, size_t mid);
  void runJob(const Job &job);
  void dieOrFall(uint32_t eventIndex);
  // A pool whose bound moves onto it: its maximum falling to its least, or
  // its least rising to it, depletes it as a change would (docs/readings.md).
  void watchBounds(Handle a);
  void reachBounds(Handle source, Handle credit, uint32_t chain);
  int64_t stackCap(uint32_t inst, const Event &e);
  void newcomerVars(Id effect, Frame &f, uint32_t givenFrom, uint32_t givenCount);
  // While a body reads a newcomer with no instance yet (its lasts, its
  // stronger by), self.stacks reads the stacks it brings.
  static constexpr int64_t kNoNewcomer = INT64_MIN;
  int64_t newcomerStacks_ = kNoNewcomer;
  struct Newcomer {
    int64_t &slot, saved;
    Newcomer(int64_t &s, int64_t stacks) : slot(s), saved(s) { slot = stacks; }
    ~Newcomer() { slot = saved; }
  };

  // ---- events (world_events.cpp) -----------------------------------------------------
  uint32_t newEvent(Id kind, Handle subject, Handle source, Handle credit, uint32_t chain);
  Refusal raiseEvent(uint32_t eventIndex);
  bool withinBudget(uint32_t eventIndex);
  bool blocks(const Event &e, uint32_t except = UINT32_MAX);
  bool inPreventedChain(const Event &e) const;
  bool hearsKind(const pack::Filter &f, const Event &e) const;
  bool whoMatches(const pack::WhoClause &w, Handle who, Handle holder, uint32_t inst);
  bool allies(Handle a, Handle b) const;
  bool enemies(Handle a, Handle b) const;
  // Whether who stands to the holder as a filter's anyone, enemies, allies,
  // other allies or others says.
  bool related(pack::Who relation, Handle who, Handle holder) const;
  // Whether the activation an event descends from named the actor.
  bool targeted(const Event &e, Handle actor) const;
  void runBefore(uint32_t eventIndex);
  void land(uint32_t eventIndex);
  void queueAfter(uint32_t eventIndex);
  void beginMoment();
  void endMoment();
  void journalEvent(const Event &e);
  void fault(Refusal reason, const std::string &text);
  bool carriesAll(const TagBits &have, pack::TagSet want) const;
  bool carriesAny(const TagBits &have, pack::TagSet want) const;
  // A tag as a formula holds it: its id + 1, 0 for none.
  Id tagOfValue(int64_t tag) const {
    return tag > 0 && uint64_t(tag) <= t_->tags.size() ? Id(tag - 1) : pack::kNoId;
  }
  bool carriesTag(const TagBits &have, int64_t tag) const {
    Id g = tagOfValue(tag);
    return g != pack::kNoId && ((have.w[g / 64] >> (g % 64)) & 1);
  }
  void addTags(TagBits &to, pack::TagSet set) const {
    const uint64_t *w = t_->tagSet(set);
    for (uint32_t i = 0; i < t_->tagWords; ++i)
      to.w[i] |= w[i];
  }

  // ---- actions and orders (world_actions.cpp, world_orders.cpp) ------------------------
  int32_t action(Frame &f, const pack::Action &a, const int64_t *args);
  int32_t runAction(Frame &f, const pack::Action &a, const int64_t *args, NumberFault &fault);
  bool countsAlike(const pack::Action &a, Id countEvent, Id countTag, Id effect) const;
  bool countsNamed(Id countEvent, Id countTag, Id effect, Id event, Id tag) const;
  Id namedTag(pack::TagSet set) const;
  void targetsOf(Frame &f, const pack::Action &a, const int64_t *args, std::vector<Handle> &out);
  // A change's type: the tag the action names, or the one its var holds.
  Id tagOf(const Frame &f, const pack::Action &a, Id named) const;
  void query(Frame &f, const pack::Query &q, const int64_t *args, std::vector<int64_t> &out);
  // Orders what a query found by its sort keys, each in turn, ties kept in
  // the order found: a tag's holders first, newest or oldest by when it went
  // on, highest or lowest F read of each as it in the frame's terms.
  void rank(Frame &f, uint32_t keysBegin, uint32_t keyCount, std::vector<int64_t> &found);
  Outcome checkCaster(Handle actor, Id ability, bool forCast, bool noCooldown, Id usingEffect,
                      Handle &grant);
  enum class ClauseMiss : uint8_t { None, Gone, Side, Having, Unless };
  ClauseMiss clauseMiss(Handle caster, const pack::Ability &ab, Handle target);
  Outcome checkOrder(Handle actor, Id ability, const std::vector<Handle> &targets, bool free,
                     const Given &given, const Frame *parent, bool targetsNamed, Handle grant);
  Outcome check(Handle actor, Id ability, const std::vector<Handle> &targets, bool forCast,
                bool free, bool noCooldown, const Given &given, const Frame *parent,
                bool targetsNamed = true, Id usingEffect = pack::kNoId);
  uint32_t activateEvent(const Frame *parent, Handle caster, Id ability,
                         const std::vector<Handle> &targets, const Given &given,
                         pack::TagSet tagged, uint32_t chain, Handle grant);
  // Whether the actor may use the ability, and the instance granting it (0
  // for its archetype's); with `using`, only that effect's newest instance.
  bool granted(Handle actor, Id ability, Handle *grant = nullptr, Id usingEffect = pack::kNoId);
  // An order's properties (order: their kinds as the host gave them too), or
  // a cast's, which the chain it is cast in (castIn) may carry.
  Outcome checkProps(Id ability, const Given &given, bool order,
                     const Frame *castIn = nullptr) const;
  bool chainCarries(const Frame &f, Id prop) const;
  void inheritChain(Event &e, const Frame &f) const;
  // What an event a step raises takes from its frame: the chain's carried
  // tags and its properties. Nothing where no step raises it (f null).
  void fromChain(Event &e, const Frame *f) const {
    if (!f)
      return;
    for (uint32_t w = 0; w < t_->tagWords; ++w)
      e.tags.w[w] |= f->carried.w[w];
    inheritChain(e, *f);
  }
  Frame hearingFrame(uint32_t inst, uint32_t ei);
  void setProp(Event &e, Id prop, int64_t v);
  void runAutos();
  // grantedBy: the instance whose grant it is, 0 for its archetype's.
  // RefusedByHolder: by what reads its holder alone. RefusedByClause: its
  // clause took no actor in play. RefusedWaiting: by what reads its holder
  // and the actors its clause takes (their values, effects, tags, sides).
  enum class AutoTry : uint8_t { Fired, Refused, RefusedByHolder, RefusedByClause, RefusedWaiting };
  AutoTry tryAuto(Handle actor, const pack::AutoGrant &grant, Handle grantedBy = 0);
  void addAutoActor(Handle actor);
  // An auto actor changing wakes its autos: what refused them may have moved.
  void wakeAutos(Handle actor) {
    uint32_t ai = indexOf(actor);
    if (ai >= autoState_.size() || autoState_[ai] == kNotAuto)
      return;
    autoScanAll_[ai] = 1;
    if (autoState_[ai] == kAutoAsleep)
      wakeAsleep(ai);
  }
  void wakeAsleep(uint32_t actorIndex);
  void wakeWaiters();
  void wakeWaitersOf(std::vector<uint32_t> &waiters, uint8_t listed);
  bool mayTake(Handle sleeper, Handle moved);
  bool readsThroughLink(Handle sleeper, Handle moved);
  template <typename Ask> bool anyAuto(Handle sleeper, Ask ask);
  // An actor's values or effects moved: an auto waiting on the values of
  // the actors its clause takes looks at it.
  void noteMoved(Handle a) {
    if (!valueWaiters_.empty())
      listMoved(a);
  }
  void listMoved(Handle a);
  // Who is in play, their sides or tags moved, at `a` (0: anyone's, a global
  // link set): a count reads afresh, an auto waiting on a target looks.
  void shapeMoved(Handle a) {
    ++shapeEpoch_;
    if ((!clauseWaiters_.empty() || !valueWaiters_.empty()) &&
        (shapeMovedAt_.empty() || shapeMovedAt_.back() != a))
      shapeMovedAt_.push_back(a);
    if (sidesKept_)
      fileAgain(a);
  }
  void listAutosFromSave();
  void wakeAutosBy(const pack::AutoGrant &grant, const Outcome &refusal);
  bool waitsOnCasterAndTarget(Id ability, const Outcome &refusal) const;
  void wakeAutosAt(int64_t at);
  void scheduleAutoWake();
  Refusal castAbility(Frame *parent, Handle caster, Id ability, const std::vector<Handle> &targets,
                      const Given &given, bool free, bool noCooldown, pack::TagSet tagged,
                      uint32_t chain, Handle grant = 0);
  Handle makeActor(Id archetype, Handle creator, const Given &withs, uint32_t chain,
                   const Frame *by = nullptr);
  Refusal destroyActor(Handle a, uint32_t chain, const Frame *by = nullptr);

  // ---- actor slots (kernel.cpp) ------------------------------------------------------
  // A destroyed actor's slot goes to a later make once nothing in the world
  // refers to it (docs/readings.md 157): a live instance it holds, applied or
  // is credited with, or names in an actor var or a link override; a link of
  // an actor in play, or a global one. Counted from the first destroy on, so
  // a world that destroys nothing counts nothing; made again as a save is read.
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  void refer(Handle a) {
    if (countingRefs_ && actor(a))
      ++actorRefs_[indexOf(a)];
  }
  void unrefer(Handle a) {
    if (countingRefs_ && actor(a) && --actorRefs_[indexOf(a)] == 0 && !actors_[indexOf(a)].live)
      releasing_.push_back(indexOf(a));
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
  void referInstance(uint32_t inst);
  void unreferInstance(uint32_t inst);
  void recountVars(uint32_t inst);
  void releaseSlots();
  uint32_t takeFreeSlot();
  void forgetSlot(uint32_t ai);
  void listSlotsFromSave();
  Refusal applyTo(Frame *f, Id effect, int64_t stacks, Handle to, Handle source, Handle credit,
                  const Lifetime &given, const Given &vars, uint32_t chain, uint32_t *made,
                  uint32_t *merged);
  Refusal changePool(Frame *f, Id kind, Id pool, Handle to, Handle source, Handle credit,
                     const Portion *portions, uint32_t count, int64_t upTo, uint32_t chain,
                     const Given &props, bool priced = false);
  uint32_t costEvent(Handle payer, Id pool, Handle caster, Id ability, int64_t order);
  bool costBlocked(Handle payer, Id pool, Handle caster, Id ability, int64_t order);
  int64_t price(Handle payer, Id pool, int64_t amount, Handle caster, Id ability, int64_t order);
  int64_t removeEffect(Id effect, Handle from, int64_t stacks, Id endTag, uint32_t chain,
                       pack::TagSet tags = 0, pack::TagSet unless = 0,
                       uint32_t *keptBy = nullptr, const Frame *by = nullptr);
  Refusal raiseOn(Frame *f, Id event, Handle of, Handle by, pack::TagSet tagged, uint32_t chain);

  const Pack *pack_;
  const pack::Tables *t_;
  const PackIndex *ix_;
  uint64_t seed_ = 0;
  int64_t now_ = 0; // whole ticks
  // A tick in world time: millionths of the pack's unit (pack::Tables), so a
  // second is a whole number of them at every rate.
  int64_t tickTime_ = kOne;
  int64_t worldTime() const { return now_ * tickTime_; }
  // A span of clock time (millionths of a unit) as ticks, to six places.
  int64_t inTicks(int64_t time) const {
    NumberFault fault = NumberFault::None;
    return tickTime_ == kOne ? time : div(time, tickTime_, fault);
  }
  int64_t tickAtOrAfter(int64_t time) const {
    return time <= 0 ? time / tickTime_ : (time - 1) / tickTime_ + 1;
  }
  uint64_t epoch_ = 1;
  // Bumped whenever what a count of actors reads may have moved: an actor
  // made, destroyed, fallen or revived, a link set, an instance of an effect
  // PackIndex::shapesCounts names put on or ended.
  uint64_t shapeEpoch_ = 0;
  uint64_t globalsEpoch_ = 0; // bumped as a global link is set
  uint64_t seq_ = 0;
  uint32_t chains_ = 0;
  uint32_t valueCount_ = 0;
  std::vector<Actor> actors_;
  // By actor: what refers to it, while refs are counted (countingRefs_).
  std::vector<uint32_t> actorRefs_;
  bool countingRefs_ = false;
  bool anyActorVars_ = false; // the catalog has a var of kind actor
  // Beside vars_: the actor each actor var was counted as naming.
  std::vector<Handle> varRefs_;
  // Slots a moment left destroyed and unreferred, let go as it ends; the
  // free ones, a heap by index, so a make takes the lowest (a save read back
  // finds the same); and whether each is in that heap.
  std::vector<uint32_t> releasing_;
  std::vector<uint32_t> freeSlots_;
  std::vector<uint8_t> slotListed_;
  std::vector<int64_t> pools_;     // amount at the anchor
  std::vector<int64_t> poolAt_;    // the anchor's time on the pool's clock
  std::vector<int64_t> poolMax_;   // the maximum it last read
  std::vector<int64_t> poolRate_;  // a drift reading the world: its rate at the anchor
  std::vector<int64_t> regenPeriod_, refillPeriod_; // and its periods, where formulas give them
  std::vector<int64_t> poolMin_;   // bounds reading a count: the least it last read
  std::vector<uint8_t> boundsSettled_; // and whether a moment's end has taken them
  uint64_t settledEpoch_ = 0;      // the world's epoch when what reads it was last settled
  uint64_t clocksEpoch_ = 0;       // and when clocks reading it were last read
  uint64_t clocksShape_ = 0, clocksGlobals_ = 0; // who was in play, the global links, then
  bool freshBounds_ = false;       // settling: bounds are read afresh
  std::vector<uint32_t> worldReaders_; // actors holding such pools
  // What they read stood so at their last settle: who was in play, the
  // global links, and (reader * PackIndex::readerLinks + k) whom each of
  // its links named. linkReaders_ is its inverse, by actor, an entry whose
  // link has moved since dropped when next met; countReaders_ and
  // globalReaders_ list the readers counting actors or reading a global
  // link. The three are made again as a save is read.
  uint64_t readersShape_ = 0, readersGlobals_ = 0;
  std::vector<Handle> readerLinkSeen_;
  std::vector<std::vector<uint32_t>> linkReaders_;
  std::vector<uint32_t> countReaders_, globalReaders_;
  // By actor: the instances it is the source of whose live terms read it
  // (PackIndex::termsReadSource), so their holders' readers follow it; one
  // ended or reused for another is dropped when next met. Made again as a
  // save is read.
  std::vector<std::vector<uint32_t>> sourcedBy_;
  std::vector<uint8_t> instMark_; // all 0 but while such a list is read
  bool followsSources() const { return ix_->readersSources || ix_->clockReach.sources; }
  std::vector<uint8_t> readerMark_; // all 0 but while a list of them is read
  std::vector<uint8_t> hasPool_;
  std::vector<uint32_t> poolVersion_; // a pool's crossing timer is current while this holds
  std::vector<int64_t> poolDue_;      // and the world time it is due
  std::vector<Handle> links_;      // actor * links + link
  std::vector<Handle> overridden_; // link overrides: actor * links + link, the newest instance
  std::vector<Handle> globals_;
  std::vector<std::vector<uint32_t>> held_; // each actor's instances, oldest first
  // Each actor's instances with a rule hearing events or a lifetime counting
  // them, oldest first, each with what dispatch reads of it, so finding an
  // event's hearers reads no instance; and how many of its instances block.
  struct Hearer {
    uint32_t inst;
    Id effect;
    uint64_t seq;
  };
  std::vector<std::vector<Hearer>> hearers_;
  std::vector<uint32_t> blockers_;
  std::vector<Instance> insts_;
  std::vector<int64_t> everyDue_;
  std::vector<Clock> clocks_;    // actor * PackIndex::clockStats + clock
  // Actors whose clocks are retimed as the moment ends, each once: a mark by
  // actor index keeps the list a set without searching it.
  std::vector<Handle> touched_;
  std::vector<uint8_t> touchedMark_;
  void markTouched(Handle a) {
    uint32_t i = indexOf(a);
    if (i >= touchedMark_.size())
      touchedMark_.resize(actors_.size(), 0);
    if (!touchedMark_[i]) {
      touchedMark_[i] = 1;
      touched_.push_back(a);
    }
  }
  std::vector<Handle> autoActors_; // actors that may hold an auto grant, in the order they came to
  // By (actor index, ability) key, sorted: the tick each auto last went off.
  std::vector<std::pair<uint64_t, int64_t>> autoFired_;
  // The world time the autos are next tried with no moment ending then
  // (-1 none), and the soonest the pass trying them now has found.
  int64_t autoWakeAt_ = -1;
  int64_t autoWakeNext_ = -1;
  // By actor index: asleep, every auto it holds refused by what reads it
  // alone, and it unchanged since; awake, tried as each moment ends (listed
  // in autoAwake_). Its rank is its place in autoActors_. None is saved: a
  // restored world's autos start awake.
  enum : uint8_t { kNotAuto, kAutoAwake, kAutoAsleep };
  static constexpr uint32_t kNoPass = UINT32_MAX;
  std::vector<uint8_t> autoState_;
  std::vector<uint32_t> autoRank_;
  std::vector<uint32_t> autoAwake_;
  std::vector<uint32_t> autoPass_; // the pass under way: a heap by rank
  // By actor index: whether its next try looks at every actor (its holder
  // changed, or it wasn't waiting), else at its hints alone, the actors
  // its clauses take that moved while it waited.
  std::vector<uint8_t> autoScanAll_;
  std::vector<std::vector<Handle>> autoHints_;
  std::vector<uint8_t> autoListed_; // bits: in clauseWaiters_ (1), in valueWaiters_ (2)
  uint32_t passRank_ = kNoPass;    // the rank the pass under way has reached
  // Those asleep waiting for an actor their clauses take to come (clause),
  // or for one of those to change (value), and the actors that moved since
  // they last looked.
  std::vector<uint32_t> clauseWaiters_, valueWaiters_;
  std::vector<Handle> shapeMovedAt_, valueMovedAt_;
  bool inAutos_ = false; // the autos are being tried: one going off tries none again
  std::vector<uint32_t> freeInsts_;
  std::vector<int64_t> vars_;
  std::vector<int64_t> captured_;
  std::vector<Prop> instProps_; // what the Apply putting an instance on carried
  std::vector<Timer> timers_; // a heap
  void pushTimer(Timer t) {
    t.at = tickAtOrAfter(t.due);
    timers_.push_back(t);
    std::push_heap(timers_.begin(), timers_.end(), std::greater<>());
  }
  std::vector<int64_t> statCache_;
  std::vector<uint64_t> statEpoch_;
  // The moment's events: a reference holds as the list grows, and a new
  // moment reuses the storage the last one grew.
  template <typename T, size_t kChunk = 64> class StableList {
  public:
    T &operator[](size_t i) { return chunks_[i / kChunk][i % kChunk]; }
    const T &operator[](size_t i) const { return chunks_[i / kChunk][i % kChunk]; }
    size_t size() const { return size_; }
    void clear() { size_ = 0; }
    void truncate(size_t n) { size_ = std::min(size_, n); }
    T &push() {
      if (size_ == chunks_.size() * kChunk)
        chunks_.emplace_back(kChunk);
      T *item = &(*this)[size_++];
      // Default-initialised: the fields' own initialisers, no clearing of room.
      return *new (item) T;
    }

  private:
    std::vector<std::vector<T>> chunks_; // each kChunk long, never grown: they hold still
    size_t size_ = 0;
  };
  StableList<Event> events_;
  std::vector<Job> jobs_;
  size_t jobAt_ = 0;
  int momentDepth_ = 0;
  bool pricing_ = false; // a cost priced: before rules change its amount and nothing else
  bool billing_ = false; // and priced as its order goes off, not as it is checked: coverage counts it
  std::vector<std::pair<Id, int64_t>> givenVars_;
  std::vector<Handle> eventTargets_; // the moment's Activates' targets
  // Portions a before rule sent on (redirect), each raised once the change
  // they left lands: (that change, the part), into events_.
  std::vector<std::pair<uint32_t, uint32_t>> sentOn_;
  // A portion taken off a change: its amount 0, its types no longer heard.
  void takePortion(Event &e, uint32_t p);
  void stacksFollowAmount(Event *e);
  void raiseSentOn(uint32_t ei);
  void raiseReached(uint32_t ei);
  // While a bill is paid, what its costs' landings set off waits for the
  // last to land ("runs once the last has landed").
  uint32_t deferReached_ = 0;
  std::vector<uint32_t> reachedLater_;
  void runStart(uint32_t eventIndex);
  Id rulesName_ = pack::kNoId;       // the effect or ability whose rule's steps run
  uintptr_t stackLow_ = 0;           // the calling thread's stack's low end (thread_stack.h)
  // Steps' locals, a stack as rules run inside rules: empty between
  // moments, so a save copies none of it and its copy makes its own.
  struct LocalStack {
    std::vector<int64_t> slots;
    LocalStack() = default;
    LocalStack(const LocalStack &) {}
    LocalStack &operator=(const LocalStack &) { return *this; }
  };
  LocalStack localStack_;
  std::vector<int64_t> scratchVars_; // vars for a body read with no instance: a newcomer's
  size_t localTop_ = 0;
  std::vector<int64_t> lists_;
  std::vector<size_t> listStarts_;
  // A search whose count the tallies give opens its list unbuilt: the list
  // is found as its first item is read, which comes before anything else
  // runs, and a count never reads one.
  struct PendingList {
    uint32_t query = UINT32_MAX; // UINT32_MAX: built as it opened
    int64_t args[2] = {};        // its count and its `of`, as the search reads them
  };
  std::vector<PendingList> listPending_;
  // Of a search over actors by side and tags alone, how many match on each
  // side, worked out once for each state of what a count reads (shapeEpoch_).
  struct SideTally {
    uint64_t shape = UINT64_MAX;
    std::vector<std::pair<Handle, int64_t>> bySide; // by side, ascending
    int64_t all = 0, sided = 0;
  };
  std::vector<SideTally> tallies_; // by query id
  static bool talliedBySide(const pack::Query &q) {
    return q.kind == pack::QueryKind::Search && q.keyCount == 0 && q.whenBody == pack::kNoId;
  }
  const SideTally &tallyOf(uint32_t queryId);
  std::pair<int64_t, Handle> searchOperands(Frame &f, const pack::Query &q,
                                            const int64_t *args) const;
  bool asksFallen(const pack::Query &q) const;
  bool searchFinds(const pack::Query &q, bool fallenAsked, uint32_t actorIndex);
  int64_t countBySide(Frame &f, uint32_t queryId, const int64_t *args);
  int64_t appendFound(Frame &f, const pack::Query &q, const int64_t *args);
  struct OnceActed { // a once per chain rule that has acted, of one instance
    uint32_t rule, inst, chain;
  };
  std::vector<OnceActed> oncePerChain_;
  bool actedInChain(uint32_t rule, uint32_t inst, uint32_t chain) const;
  std::vector<std::pair<Handle, uint32_t>> preventedChains_; // holder, chain
  // The instances whose Remove its before rules are hearing, innermost
  // last: a step of theirs taking one of them again does nothing.
  std::vector<Handle> hearingTakings_;
  struct BoundWatch { // a pool above its least as something its bounds read changes
    Handle actor;
    Id pool;
    bool aboveLeast;
  };
  std::vector<BoundWatch> boundWatch_; // read from boundWatchAt_ on
  size_t boundWatchAt_ = 0;
  std::vector<uint32_t> chainCounts_; // the moment's chains' events, from chainBase_
  std::vector<uint32_t> chainRepeats_; // and their repeated steps' runs
  uint32_t chainBase_ = 0;
  uint32_t counting_ = 0;           // live instances whose lifetime counts events
  std::vector<uint32_t> wide_;      // live instances of effects heard on every event (PackIndex::wideEffect)
  Journal journal_;
  // Scratch lists reused across events, one a depth, since rules run inside
  // rules: no allocation per event once the world has warmed up.
  // Empty between moments, so a copy of the world starts its own.
  template <typename T> struct ScratchPool {
    std::vector<std::unique_ptr<std::vector<T>>> lists;
    size_t depth = 0;
    ScratchPool() = default;
    ScratchPool(const ScratchPool &) {}
    ScratchPool &operator=(const ScratchPool &) { return *this; }
  };
  template <typename T> class Scratch {
  public:
    explicit Scratch(ScratchPool<T> &pool) : pool_(pool) {
      if (pool_.depth == pool_.lists.size()) [[unlikely]]
        grow(pool_);
      list_ = pool_.lists[pool_.depth++].get();
      list_->clear();
    }
    // Out of line: a list is made once per depth, so the hot path stays small.
    [[gnu::noinline]] static void grow(ScratchPool<T> &pool) {
      pool.lists.push_back(std::make_unique<std::vector<T>>());
    }
    ~Scratch() { --pool_.depth; }
    Scratch(const Scratch &) = delete;
    Scratch &operator=(const Scratch &) = delete;
    std::vector<T> &operator*() { return *list_; }
    std::vector<T> *operator->() { return list_; }

  private:
    ScratchPool<T> &pool_;
    std::vector<T> *list_;
  };
  ScratchPool<uint32_t> scratchIds_;
  // The actors in play (live, not fallen) filed by the actor their
  // allegiance names (0: none; every actor where the catalog has none),
  // each file in slot order: a search or an auto's target by
  // side walks the actors of the sides it takes, not every actor. Built as
  // first asked, then brought up to date as next asked from the actors
  // whose shape moved since; a world that never asks keeps nothing. Not
  // saved: a loaded world files its actors afresh (world_sides.cpp).
  struct SideFile {
    Handle side = 0;
    std::vector<uint32_t> members; // actor indices, ascending
  };
  static constexpr Handle kUnfiled = -1;
  std::vector<SideFile> sideFiles_;
  std::vector<Handle> filedUnder_; // by actor: its file's side, kUnfiled out of play
  std::vector<uint32_t> toRefile_;
  std::vector<uint8_t> refileListed_; // by actor: listed in toRefile_
  bool sidesKept_ = false, sidesAllStale_ = false;
  void fileAgain(Handle a);
  void fileSides();
  void refile(uint32_t actorIndex);
  // Walks, in slot order, the actors in play that a search of
  // `whom` from `from` takes by side alone. Nothing may move who is in play
  // or their sides while it walks.
  class SideWalk {
  public:
    SideWalk(Kernel &world, pack::Subject whom, Handle from);
    static constexpr uint32_t kEnd = UINT32_MAX;
    uint32_t next(); // an actor's index, kEnd past the last

  private:
    Kernel &w_;
    Scratch<uint32_t> cursors_; // of each file walked: its index in sideFiles_, then its position
    uint32_t skip_ = kEnd;      // the searcher, where the search leaves it out
    uint32_t only_ = kEnd;      // the searcher, the one ally of one with no side
  };
  struct BeforeEntry { // a before rule the event reaches, in the order they run
    uint32_t stage;
    int64_t order;
    uint64_t seq;
    uint32_t inst;
    uint32_t rule;
  };
  ScratchPool<BeforeEntry> scratchEntries_;
  ScratchPool<int64_t> scratchHandles_;

  std::vector<uint32_t> suspenders_; // each actor's instances that suspend the others
  std::vector<TagBits> tagCache_;
  std::vector<uint64_t> tagEpoch_;

  static const LedgerKernelApi kApi;

  template <typename IO> void walkSave(IO &io);
  bool saveHolds(std::string &why) const;
  bool savedSizesHold(std::string &why) const;
  bool savedActorsHold(std::string &why) const;
  bool savedInstancesHold(std::string &why) const;
  bool savedStacksHold(const Instance &in) const;
  bool savedTimesHold(const Instance &in) const;
  bool savedListsHold(std::string &why) const;
  bool savedTimersHold(std::string &why) const;
  bool savedWaitsTimed(std::string &why) const;
  bool fixedInterval(const pack::Rule &rule) const;
  bool savedHandleFits(Handle h) const;
  bool savedWithinBounds(Id value, int64_t v) const;
  bool plainNumber(Id body, int64_t &n) const;
  __int128 savedClockNow(uint32_t ai, int32_t clock) const;
  __int128 savedPoolClock(uint32_t ai, Id pool) const;

  bool covering_ = false;
  Coverage coverage_;
  // A rule's steps run: fired, and changed where the journal grew.
  int32_t runRule(uint32_t rule, Frame &f);
  // What a before rule may change of the event in hand, as one number.
  uint64_t handDigest(const Event &e) const;
};

} // namespace ledger::rt
