// Values: stats worked out from their base and the terms their holder's
// working effects contribute, cached until something changes; pools as an
// amount at an anchor tick, drifting in closed form from there.
#include "kernel.h"

#include "number.h"

#include <algorithm>

namespace ledger::rt {

using pack::kNoId;
using pack::ModOp;

namespace {
// a * b / c, rounded half to even, through 128 bits: exact, however far it
// passes int64 (a regen's rate times a long time). A drift's arithmetic
// faults nothing: what passes int64 has passed every bound, and is held at
// the one it passed (docs/readings.md 158).
__int128 mulDiv(int64_t a, int64_t b, int64_t c) {
  if (c == 0)
    return 0;
  __int128 n = __int128(a) * b;
  __int128 q = n / c, r = n % c;
  __int128 twice = (r < 0 ? -r : r) * 2, d = c < 0 ? -__int128(c) : __int128(c);
  bool negative = (n < 0) != (c < 0);
  if (twice > d || (twice == d && (q % 2 != 0)))
    q += negative ? -1 : 1;
  return q;
}

// The least time a drift of r a period (per) takes for its read, the drift
// rounded half to even at the millionth as mulDiv rounds it, to move span
// (at least 1) from its anchor, or -1 past int64: the crossing comes as the
// pool first reads at its bound, not the millionth's share later its exact
// course reaches it (docs/readings.md 166). The read reaches span once
// 2 * r * t passes (2 * span - 1) * per, or meets it with span even; worked
// in two so that no product passes 128 bits.
int64_t driftNeeds(__int128 span, __int128 r, int64_t per) {
  __int128 n = 2 * span - 1, d = 2 * r;
  __int128 whole = n / d, part = n % d;
  if (whole > INT64_MAX / per)
    return -1;
  __int128 rest = part * per + (span % 2 != 0);
  __int128 need = whole * per + (rest + d - 1) / d;
  return need <= INT64_MAX ? int64_t(need) : -1;
}

// A drift's amount, past int64 held at its edge: past every bound as the
// amount it stands for is, and read held at the bound.
int64_t saturated(__int128 x) {
  return x > INT64_MAX ? INT64_MAX : x < INT64_MIN ? INT64_MIN : int64_t(x);
}
} // namespace

bool Kernel::carriesAll(const TagBits &have, pack::TagSet want) const {
  const uint64_t *w = t_->tagSet(want);
  for (uint32_t i = 0; i < t_->tagWords; ++i)
    if ((have.w[i] & w[i]) != w[i])
      return false;
  return true;
}

bool Kernel::carriesAny(const TagBits &have, pack::TagSet want) const {
  const uint64_t *w = t_->tagSet(want);
  for (uint32_t i = 0; i < t_->tagWords; ++i)
    if (have.w[i] & w[i])
      return true;
  return false;
}

// Whether an instance's effect is at work: not suspended by another effect
// its holder holds.
bool Kernel::suspendedBy(const Instance &in, uint32_t suspender) const {
  const Instance &s = insts_[suspender];
  // "the holder's other effects": a separate instance of the same effect is
  // no other effect (docs/readings.md 94, 113).
  if (&s == &in || !s.live || s.effect == in.effect)
    return false;
  const pack::Effect &se = t_->effects[s.effect];
  if (!se.suspendsAll)
    return false;
  TagBits mine;
  addTags(mine, t_->effects[in.effect].tags);
  return !(se.suspendsExcept && carriesAny(mine, se.suspendsExcept));
}

bool Kernel::suspendedAmong(uint32_t inst) const {
  const Instance &in = insts_[inst];
  for (uint32_t other : held_[indexOf(in.holder)])
    if (other != inst && suspendedBy(in, other))
      return true;
  return false;
}

Kernel::TagBits Kernel::tagsOf(Handle a) {
  TagBits bits;
  const Actor *ac = actor(a);
  if (!ac)
    return bits;
  uint32_t ai = indexOf(a);
  if (tagEpoch_[ai] == ac->tagsEpoch)
    return tagCache_[ai];
  if (ac->archetype != kNoId)
    addTags(bits, t_->archetypes[ac->archetype].tags);
  for (uint32_t i : held_[indexOf(a)])
    if (working(i))
      addTags(bits, t_->effects[insts_[i].effect].tags);
  if (ac->fallen)
    addTags(bits, t_->tags[Id(pack::BuiltinTag::Fallen)].closure);
  tagCache_[ai] = bits;
  tagEpoch_[ai] = ac->tagsEpoch;
  return bits;
}

// A destroyed actor carries nothing, as has() of it answers 0.
bool Kernel::carries(Handle a, Id tag) {
  if (!alive(a))
    return false;
  TagBits bits = tagsOf(a);
  return (bits.w[tag / 64] >> (tag % 64)) & 1;
}

// A base is read live: one reading another actor through a link follows it.
int64_t Kernel::base(Handle a, Id v) {
  Id arch = actor(a)->archetype;
  for (Id c : ix_->covers[v]) {
    Id body = ix_->archetypeBase[size_t(arch) * valueCount_ + c];
    if (body != kNoId)
      return boundOf(a, body);
  }
  return t_->values[v].defaultValue;
}

int64_t Kernel::rounded(Id v, int64_t x, NumberFault &fault) const {
  switch (t_->values[v].whole) {
  case pack::Rounding::None:
    return x;
  case pack::Rounding::Floor:
    return floorWhole(x, fault);
  case pack::Rounding::Ceil:
    return ceilWhole(x, fault);
  case pack::Rounding::Trunc:
    return truncWhole(x);
  case pack::Rounding::Round:
    return roundWhole(x, fault);
  }
  return x;
}


// Values read inside values: a value reading itself, round its bases,
// bounds or terms, never ends, so past kValueNesting the read is a fault
// and reads 0 (docs/readings.md).
bool Kernel::faultNesting() {
  journal_.fault(now_, "Value: a value read inside itself, " + std::to_string(kValueNesting) +
                           " values deep");
  return true;
}

int64_t Kernel::boundOf(Handle a, Id body) {
  const PackIndex::Plain &plain = ix_->plain[body];
  if (plain.kind == PackIndex::Plain::Number)
    return plain.number;
  Nesting nest(valueNesting_);
  if (nestedTooDeep())
    return 0;
  if (plain.kind == PackIndex::Plain::HolderStat)
    return computeStat(a, plain.stat, nullptr);
  Frame f{};
  f.roots[LEDGER_SLOT_HOLDER] = a;
  f.roots[LEDGER_SLOT_CREDIT] = a;
  return runBody(body, f);
}

// A value times a factor count times, each product rounded (a count below
// zero divides by it as many times). A run that reaches a value the factor
// keeps, or one it swings between two of, ends there: its end is known.
static int64_t applyFactor(int64_t v, int64_t factor, int64_t count, NumberFault &fault) {
  bool divide = count < 0;
  int64_t n = divide ? -count : count;
  int64_t before = v;
  for (int64_t k = 0; k < n; ++k) {
    int64_t next = divide ? div(v, factor, fault) : mul(v, factor, fault);
    if (next == v)
      return v;
    if (k > 0 && next == before) // v, next, v, next, …
      return (n - k - 1) % 2 == 0 ? next : v;
    before = v;
    v = next;
  }
  return v;
}

// A stat: its base, then the terms of its holder's working effects, in the
// order docs/readings.md gives: base terms replace the base, adds, the sum
// of percents, factors one by one, `=` over all, then at least and at most,
// then the stat's own bounds and rounding.
int64_t Kernel::computeStatAfresh(Handle a, Id stat, const TagBits *except, NumberFault *made) {
  const Actor *ac = actor(a);
  if (!ac)
    return 0;
  Nesting nest(valueNesting_);
  if (nestedTooDeep())
    return 0;
  uint32_t ai = indexOf(a);
  size_t slot = size_t(ai) * valueCount_ + stat;
  PackIndex::StatCache kind = ix_->statCache[stat];
  uint64_t stamp = statStamp(*ac, kind);
  const pack::Value &value = t_->values[stat];
  NumberFault fault = NumberFault::None;
  int64_t b = base(a, stat);
  int64_t adds = 0, percents = 0;
  std::vector<std::pair<int64_t, int64_t>> factors; // each factor and its count of stacks
  bool set = false, baseSet = false;
  int64_t setTo = 0, atLeast = INT64_MIN, atMost = INT64_MAX;
  uint64_t setSeq = 0, baseSeq = 0;
  // The strongest term of each category: its moving distance and its term.
  struct Strongest {
    bool any = false;
    int64_t distance = 0;
    int64_t amount = 0;
    ModOp op = ModOp::Add;
    bool percent = false;
    int64_t count = 1; // a factor's stacks
  };
  // Sized at the first term in a category: most stats have none.
  std::vector<Strongest> strongest;
  auto addTerm = [&](ModOp op, bool percent, int64_t amount, uint64_t seq, int64_t count) {
    switch (op) {
    case ModOp::Add:
      (percent ? percents : adds) = add(percent ? percents : adds, amount, fault);
      break;
    case ModOp::Sub:
      (percent ? percents : adds) = sub(percent ? percents : adds, amount, fault);
      break;
    case ModOp::Mul:
      factors.push_back({amount, count});
      break;
    case ModOp::Set:
      if (!set || seq > setSeq) {
        set = true;
        setTo = amount;
        setSeq = seq;
      }
      break;
    case ModOp::Base:
      if (!baseSet || seq > baseSeq) {
        baseSet = true;
        b = amount;
        baseSeq = seq;
      }
      break;
    case ModOp::AtLeast:
      atLeast = std::max(atLeast, amount);
      break;
    case ModOp::AtMost:
      atMost = std::min(atMost, amount);
      break;
    }
  };
  for (uint32_t i : held_[ai]) {
    const Instance &in = insts_[i];
    if (!working(i) || in.capturing)
      continue;
    const pack::Effect &e = t_->effects[in.effect];
    if (except) {
      TagBits et;
      addTags(et, e.tags);
      bool excluded = false;
      for (uint32_t w = 0; w < t_->tagWords; ++w)
        excluded |= (et.w[w] & except->w[w]) != 0;
      if (excluded)
        continue;
    }
    for (uint32_t m = 0; m < e.modifierCount; ++m) {
      const pack::Modifier &mod = t_->modifiers[e.modifiersBegin + m];
      if (mod.stat != stat &&
          std::find(ix_->covers[stat].begin(), ix_->covers[stat].end(), mod.stat) == ix_->covers[stat].end())
        continue;
      int64_t amount;
      if (mod.captured) {
        amount = captured_[in.capturedAt + m];
      } else {
        Frame f = frameFor(i, -1, 0);
        amount = runBody(mod.amountBody, f);
      }
      // A factor is scaled by its stacks as one factor a stack, a signed
      // count below zero dividing by it; an add or a subtraction by their
      // count; a flat term is one.
      int64_t count = 1;
      if (!mod.flat) {
        if (mod.op == ModOp::Mul)
          count = in.stacks / kOne;
        else if (mod.op == ModOp::Add || mod.op == ModOp::Sub)
          amount = mul(amount, in.stacks, fault);
      }
      if (mod.category != kNoId) {
        strongest.resize(t_->categories.size());
        Strongest &s = strongest[mod.category];
        int64_t signedAmount = mod.op == ModOp::Sub ? -amount : amount;
        // A factor's distance from one is its stacks' whole factor's.
        int64_t whole = mod.op == ModOp::Mul ? applyFactor(kOne, amount, count, fault) : 0;
        int64_t distance = mod.op == ModOp::Mul
                               ? (whole <= 0 ? INT64_MAX
                                  : whole >= kOne ? whole
                                                  : div(kOne, whole, fault))
                               : (signedAmount < 0 ? -signedAmount : signedAmount);
        if (mod.op == ModOp::Mul)
          signedAmount = whole;
        int64_t held = s.op == ModOp::Sub ? -s.amount
                       : s.op == ModOp::Mul ? applyFactor(kOne, s.amount, s.count, fault)
                                            : s.amount;
        if (!s.any || distance > s.distance || (distance == s.distance && signedAmount > held)) {
          s = {true, distance, amount, mod.op, mod.percent, count};
        }
        continue;
      }
      addTerm(mod.op, mod.percent, amount, in.seq, count);
    }
  }
  for (const Strongest &s : strongest)
    if (s.any)
      addTerm(s.op, s.percent, s.amount, 0, s.count);
  int64_t v = add(b, adds, fault);
  if (percents != 0)
    v = mul(v, add(kOne, percents, fault), fault);
  // Each factor in turn, each product rounded.
  for (auto [factor, count] : factors)
    v = applyFactor(v, factor, count, fault);
  if (set)
    v = setTo;
  v = std::max(v, atLeast);
  v = std::min(v, atMost);
  if (value.minBody != kNoId)
    v = std::max(v, boundOf(a, value.minBody));
  if (value.maxBody != kNoId)
    v = std::min(v, boundOf(a, value.maxBody));
  v = rounded(stat, v, fault);
  if (made)
    *made = fault;
  if (!except && fault == NumberFault::None) {
    statCache_[slot] = v;
    statEpoch_[slot] = stamp;
  }
  return v;
}

int64_t Kernel::poolLeast(Handle a, Id pool) {
  const pack::Value &p = t_->values[pool];
  if (size_t slot; p.minBody != kNoId && boundsHeld(a, pool, slot))
    return poolMin_[slot];
  return p.minBody == kNoId ? 0 : boundOf(a, p.minBody);
}

int64_t Kernel::poolMost(Handle a, Id pool) {
  const pack::Value &p = t_->values[pool];
  if (size_t slot; p.maxBody != kNoId && boundsHeld(a, pool, slot))
    return poolMax_[slot];
  return p.maxBody == kNoId ? INT64_MAX : boundOf(a, p.maxBody);
}

// A count a pool's bound reads "inside a moment reads as the last settle
// left it": its bounds are the ones the last moment's end took, once one has.
bool Kernel::boundsHeld(Handle a, Id pool, size_t &slot) const {
  if (!ix_->boundsReadCount[pool] || momentDepth_ == 0 || freshBounds_)
    return false;
  slot = size_t(indexOf(a)) * valueCount_ + pool;
  return boundsSettled_[slot];
}

// A pool now: its anchor's amount, the drift since in closed form, its
// maximum's rise if it heals, within its bounds.
int64_t Kernel::poolNow(Handle a, Id pool) {
  if (!actor(a))
    return 0;
  size_t i = size_t(indexOf(a)) * valueCount_ + pool;
  if (!hasPool_[i])
    return 0;
  return poolNowWithin(a, pool, i, poolBounds(a, pool));
}

int64_t Kernel::poolNowWithin(Handle a, Id pool, size_t i, PoolBounds bounds) {
  // A destroyed actor's pools "stand where they stood": as its destroy
  // settled them, whatever its bounds read since.
  if (!actor(a)->live)
    return pools_[i];
  return clampWithin(pool, poolDrifted(a, pool, i, bounds), bounds);
}

// The same, of an actor in play or fallen, before it is held within its
// bounds: past one where they moved onto a pool that drifts.
int64_t Kernel::poolDrifted(Handle a, Id pool, size_t i, PoolBounds bounds) {
  const pack::Value &p = t_->values[pool];
  int64_t amount = pools_[i];
  if (p.drifts()) {
    // Its clock: its holder's time, or the world's pace with clock world; both
    // count from the make.
    int64_t nowAt = poolClock(a, pool);
    if (nowAt > poolAt_[i])
      amount = drifted(a, pool, i, amount, poolAt_[i], nowAt, bounds);
  }
  if (p.rise == pack::Rise::Heal && p.maxBody != kNoId && bounds.most > poolMax_[i])
    amount = saturated(__int128(amount) + bounds.most - poolMax_[i]);
  return amount;
}

// A pool's amount `amount` at its clock's `from`, drifted to `to`: a regen's
// rate over its period, a refill's amount on each multiple of its period
// passed. With both, pulling apart (a regen going down, a refill adding),
// each stretch between refills stops at a bound, so it is stepped refill by
// refill, a run of stretches that meet no bound taken at once and a held
// amount left held (docs/readings.md 141).
int64_t Kernel::drifted(Handle a, Id pool, size_t i, int64_t amount, int64_t from, int64_t to,
                       PoolBounds bounds) {
  const pack::Value &p = t_->values[pool];
  int64_t perRegen = p.regenStat != kNoId ? regenPeriod(a, pool, i) : 0;
  int64_t rate = perRegen > 0 ? driftRate(a, pool, i) : 0;
  int64_t perRefill = p.refills() ? refillPeriod(a, pool, i) : 0;
  int64_t refill = perRefill > 0 ? p.refillAmount : 0;
  if (rate == 0 || refill == 0 || (rate < 0) == (refill < 0)) {
    // One way only: what passes a bound stays past it, held as it is read;
    // past int64 too, held at its edge (reading 158).
    __int128 x = amount;
    if (rate != 0)
      x += mulDiv(rate, to - from, perRegen);
    if (refill != 0)
      x += __int128(refill) * (to / perRefill - from / perRefill);
    return saturated(x);
  }
  return driftedApart(amount, from, to, rate, perRegen, refill, perRefill, bounds);
}

// A regen and a refill pulling apart, stretch by stretch between refills.
int64_t Kernel::driftedApart(int64_t amount, int64_t from, int64_t to, int64_t rate,
                            int64_t perRegen, int64_t refill, int64_t perRefill,
                            PoolBounds bounds) {
  // Held within its bounds, not rounded: the read rounds once, however the
  // stretches were taken.
  int64_t most = std::max(bounds.least, bounds.most);
  auto held = [&](__int128 x) { return int64_t(std::clamp<__int128>(x, bounds.least, most)); };
  int64_t x = amount;
  int64_t k = from / perRefill, last = to / perRefill;
  if (k < last) {
    // To the first refill, then whole stretches each ending in one.
    x = held(__int128(x) + mulDiv(rate, (k + 1) * perRefill - from, perRegen));
    x = held(__int128(x) + refill);
    from = (k + 1) * perRefill;
    __int128 stretch = mulDiv(rate, perRefill, perRegen);
    __int128 step = stretch + refill;
    __int128 low = std::min<__int128>(stretch, step), high = std::max<__int128>(stretch, step);
    for (int64_t left = last - k - 1; left > 0;) {
      // Stretches meeting no bound, on their way down and at their refill.
      __int128 free = 0;
      if (x + low >= bounds.least && x + high <= most)
        free = step > 0   ? (most - high - x) / step + 1
               : step < 0 ? (x + low - bounds.least) / -step + 1
                          : left;
      if (free > 0) {
        int64_t run = int64_t(std::min<__int128>(free, left));
        x = held(x + step * run);
        left -= run;
        continue;
      }
      int64_t next = held(__int128(held(x + stretch)) + refill);
      if (next == x)
        break; // held there: every stretch after ends where it began
      x = next;
      --left;
    }
    from = last * perRefill;
  }
  return held(__int128(x) + mulDiv(rate, to - from, perRegen));
}

// Before anything an actor's values read changes: its pools' drift so far
// kept at the old rates, then every cached stat read afresh.
void Kernel::settlePools(Handle a) {
  Actor *ac = actor(a);
  if (!ac)
    return;
  for (Id p = 0; p < valueCount_; ++p)
    settlePool(a, p);
}

Kernel::PoolBounds Kernel::settlePool(Handle a, Id p) {
  size_t i = size_t(indexOf(a)) * valueCount_ + p;
  if (!hasPool_[i])
    return {};
  PoolBounds bounds = poolBounds(a, p);
  pools_[i] = actor(a) ? poolNowWithin(a, p, i, bounds) : 0;
  // Its anchor's time, which only a drift reads.
  if (t_->values[p].drifts())
    poolAt_[i] = poolClock(a, p);
  poolMax_[i] = bounds.most;
  if (ix_->boundsReadCount[p])
    poolMin_[i] = bounds.least;
  if (ix_->driftReadsWorld[p]) {
    const pack::Value &v = t_->values[p];
    if (v.regenStat != kNoId)
      poolRate_[i] = computeStat(a, v.regenStat, nullptr);
    if (v.regenPeriodBody != kNoId)
      regenPeriod_[i] = boundOf(a, v.regenPeriodBody);
    if (v.refillPeriodBody != kNoId)
      refillPeriod_[i] = boundOf(a, v.refillPeriodBody);
  }
  return bounds;
}

int64_t Kernel::driftRate(Handle a, Id pool, size_t slot) {
  return ix_->driftReadsWorld[pool] ? poolRate_[slot]
                                    : computeStat(a, t_->values[pool].regenStat, nullptr);
}

// A period a formula gives: as the last settle took it where it reads the
// world, else read now.
int64_t Kernel::readPeriod(Handle a, Id pool, size_t slot, bool refill) {
  const pack::Value &v = t_->values[pool];
  if (ix_->driftReadsWorld[pool])
    return (refill ? refillPeriod_ : regenPeriod_)[slot];
  return boundOf(a, refill ? v.refillPeriodBody : v.regenPeriodBody);
}

// Once a moment has moved the world, what reads it settles. A drift ("what
// it reads following only that actor's own values, and the pool follows
// it") keeps what it ran at its old rate and runs on at the new one; a bound
// counting a query takes the count it reads until the next moment's end.
// A clock whose stat reads beyond its holder (through a link, a count) runs
// at the rate it reads as each moment that moved what it reads ends: the
// actors the moment touched are retimed as it ends, and here those reading
// a touched actor through a link, or every actor where who is in play or a
// global link moved, or where a clock's stat reads anything else.
void Kernel::retimeWorldClocks() {
  if (!ix_->clocksReadWorld || clocksEpoch_ == epoch_)
    return;
  const PackIndex::Reach &reach = ix_->clockReach;
  bool globals = globalsMoved(reach.globals, clocksGlobals_);
  if (reach.everything || (reach.counts && clocksShape_ != shapeEpoch_) || globals) {
    for (uint32_t ai = 0; ai < actors_.size(); ++ai)
      if (actors_[ai].live)
        retime(handle(ai, actors_[ai].gen));
  } else if (!reach.links.empty() || reach.sources) {
    Scratch<uint32_t> readers(scratchIds_);
    for (Handle a : touched_) {
      appendLinkReaders(a, *readers);
      appendSourceReaders(a, *readers);
    }
    std::sort(readers->begin(), readers->end());
    readers->erase(std::unique(readers->begin(), readers->end()), readers->end());
    for (uint32_t ai : *readers)
      retime(handle(ai, actors_[ai].gen));
  }
  // Whom each actor touched names now: any link of its set touched it.
  if (!reach.links.empty())
    for (Handle a : touched_)
      if (alive(a))
        noteReaderLinks(indexOf(a));
  clocksEpoch_ = epoch_;
  clocksShape_ = shapeEpoch_;
  clocksGlobals_ = globalsEpoch_;
}

// Only the pools whose reads moved settle: those of an actor the moment
// touched, of one reading a touched actor through a link, and where who is
// in play or a global link moved, of every actor reading that. Each settles
// in the order its holder was made, as all of them would.
void Kernel::settleWorldReaders() {
  if (ix_->readerPools.empty() || settledEpoch_ == epoch_)
    return;
  freshBounds_ = true;
  bool counts = ix_->readersCount && readersShape_ != shapeEpoch_;
  bool globals = globalsMoved(ix_->readerGlobals, readersGlobals_);
  if (ix_->readersEverything) {
    size_t kept = 0;
    for (uint32_t ai : worldReaders_) {
      if (!actors_[ai].live)
        continue;
      worldReaders_[kept++] = ai;
      settleReader(ai, counts, globals);
    }
    worldReaders_.resize(kept);
  } else {
    Scratch<uint32_t> moved(scratchIds_);
    if (counts)
      appendLiveReaders(countReaders_, *moved);
    if (globals)
      appendLiveReaders(globalReaders_, *moved);
    for (Handle a : touched_) {
      moved->push_back(indexOf(a));
      appendLinkReaders(a, *moved);
      appendSourceReaders(a, *moved);
    }
    std::sort(moved->begin(), moved->end());
    moved->erase(std::unique(moved->begin(), moved->end()), moved->end());
    for (uint32_t ai : *moved)
      if (actors_[ai].live)
        settleReader(ai, counts, globals);
  }
  freshBounds_ = false;
  settledEpoch_ = epoch_;
  readersShape_ = shapeEpoch_;
  readersGlobals_ = globalsEpoch_;
}

// The live readers of a list, those destroyed dropped from it.
void Kernel::appendLiveReaders(std::vector<uint32_t> &readers, std::vector<uint32_t> &out) {
  size_t kept = 0;
  for (uint32_t ai : readers)
    if (actors_[ai].live) {
      readers[kept++] = ai;
      out.push_back(ai);
    }
  readers.resize(kept);
}

// The readers still reading a through a link, each once: one whose link
// has moved on since it was listed is dropped.
void Kernel::appendLinkReaders(Handle a, std::vector<uint32_t> &out) {
  uint32_t ai = indexOf(a);
  if (ai >= linkReaders_.size())
    return;
  std::vector<uint32_t> &readers = linkReaders_[ai];
  size_t kept = 0, links = ix_->readerLinks.size();
  readerMark_.resize(actors_.size(), 0);
  for (uint32_t r : readers) {
    const Handle *seen = &readerLinkSeen_[size_t(r) * links];
    if (readerMark_[r] || std::find(seen, seen + links, a) == seen + links)
      continue;
    readerMark_[r] = 1;
    readers[kept++] = r;
    out.push_back(r);
  }
  readers.resize(kept);
  for (uint32_t r : readers)
    readerMark_[r] = 0;
}

// A reader listed by what its pools read beyond its links: a count of
// actors, a global link. In slot order, as a save read back lists them.
void Kernel::listReader(uint32_t ai) {
  bool counts = false, globals = false;
  for (Id p : ix_->readerPools)
    if (hasPool_[size_t(ai) * valueCount_ + p]) {
      counts |= ix_->reach[p].counts;
      globals |= !ix_->reach[p].globals.empty();
    }
  if (counts)
    countReaders_.insert(std::lower_bound(countReaders_.begin(), countReaders_.end(), ai), ai);
  if (globals)
    globalReaders_.insert(std::lower_bound(globalReaders_.begin(), globalReaders_.end(), ai), ai);
}

// Whether any of these global links was pointed elsewhere since the stamp,
// or the actor one names was touched in the moment ending.
bool Kernel::globalsMoved(const std::vector<Id> &globals, uint64_t since) const {
  if (globals.empty())
    return false;
  if (since != globalsEpoch_)
    return true;
  for (Id g : globals)
    if (Handle to = globals_[g]; to && wasTouched(indexOf(to)))
      return true;
  return false;
}

// Whether what a reader's pool reads moved in the moment ending: its holder
// was touched, or an actor one of its links names, or who is in play, or a
// global link or the actor one names.
bool Kernel::readMoved(uint32_t ai, Id pool, bool countsMoved, bool globalsMoved) const {
  const PackIndex::Reach &r = ix_->reach[pool];
  if (r.everything || wasTouched(ai) || (r.counts && countsMoved) ||
      (globalsMoved && !r.globals.empty()))
    return true;
  Handle a = handle(ai, actors_[ai].gen);
  for (Id l : r.links)
    if (Handle to = linkOf(a, l); to && wasTouched(indexOf(to)))
      return true;
  return r.sources && sourceTouched(ai);
}

// Whether the source of an instance the actor holds, read by its live
// terms, was touched.
bool Kernel::sourceTouched(uint32_t ai) const {
  for (uint32_t k : held_[ai]) {
    const Instance &in = insts_[k];
    if (ix_->termsReadSource[in.effect] && in.source && wasTouched(indexOf(in.source)))
      return true;
  }
  return false;
}

// The holders of the instances a is the source of whose live terms read it,
// each instance once: one ended, or its slot reused for another, is dropped.
void Kernel::appendSourceReaders(Handle a, std::vector<uint32_t> &out) {
  uint32_t ai = indexOf(a);
  if (ai >= sourcedBy_.size())
    return;
  std::vector<uint32_t> &list = sourcedBy_[ai];
  instMark_.resize(insts_.size(), 0);
  size_t kept = 0;
  for (uint32_t i : list) {
    const Instance &in = insts_[i];
    if (instMark_[i] || !in.live || in.source != a || !ix_->termsReadSource[in.effect])
      continue;
    instMark_[i] = 1;
    list[kept++] = i;
    out.push_back(indexOf(in.holder));
  }
  list.resize(kept);
  for (uint32_t i : list)
    instMark_[i] = 0;
}

// Settles the reader's pools whose reads moved.
void Kernel::settleReader(uint32_t ai, bool countsMoved, bool globalsMoved) {
  Handle a = handle(ai, actors_[ai].gen);
  bool settled = false;
  for (Id p : ix_->readerPools) {
    size_t slot = size_t(ai) * valueCount_ + p;
    if (!hasPool_[slot] || !readMoved(ai, p, countsMoved, globalsMoved))
      continue;
    // A bound counting a query moves as the settle takes the count: one
    // leaving the pool at its least is reached as a change's would be.
    bool counted = ix_->boundsReadCount[p], above = false;
    if (counted) {
      freshBounds_ = false;
      above = poolNow(a, p) > poolLeast(a, p);
      freshBounds_ = true;
    }
    settlePool(a, p);
    if (counted) {
      boundsSettled_[slot] = 1;
      if (above && pools_[slot] <= poolLeast(a, p))
        boundWatch_.push_back({a, p, true});
    }
    settled = true;
  }
  if (settled) {
    schedulePoolBounds(a);
    noteReaderLinks(ai);
  }
}

// Whom the reader's links name as it settles: where one names another actor
// than it did, the reader is listed under that actor.
void Kernel::noteReaderLinks(uint32_t ai) {
  size_t links = ix_->readerLinks.size();
  Handle a = handle(ai, actors_[ai].gen);
  for (size_t k = 0; k < links; ++k) {
    Handle to = linkOf(a, ix_->readerLinks[k]);
    Handle &seen = readerLinkSeen_[size_t(ai) * links + k];
    if (seen == to)
      continue;
    seen = to;
    if (to && indexOf(to) < linkReaders_.size())
      linkReaders_[indexOf(to)].push_back(ai);
  }
}

// The lists a save doesn't hold, made again from what it does.
void Kernel::listReadersFromSave() {
  sourcedBy_.assign(followsSources() ? actors_.size() : 0, {});
  for (uint32_t i = 0; i < insts_.size(); ++i) {
    const Instance &in = insts_[i];
    if (in.live && in.source && ix_->termsReadSource[in.effect] && indexOf(in.source) < sourcedBy_.size())
      sourcedBy_[indexOf(in.source)].push_back(i);
  }
  size_t links = ix_->readerLinks.size();
  linkReaders_.assign(links ? actors_.size() : 0, {});
  countReaders_.clear();
  globalReaders_.clear();
  for (uint32_t ai : worldReaders_)
    listReader(ai);
  // Every actor's clocks may read through a link; else only the readers'
  // pools do.
  auto listUnderLinks = [&](uint32_t ai) {
    for (size_t k = 0; k < links; ++k)
      if (Handle to = readerLinkSeen_[size_t(ai) * links + k]; to && indexOf(to) < actors_.size())
        linkReaders_[indexOf(to)].push_back(ai);
  };
  if (!ix_->clockReach.links.empty())
    for (uint32_t ai = 0; ai < actors_.size(); ++ai)
      listUnderLinks(ai);
  else
    for (uint32_t ai : worldReaders_)
      listUnderLinks(ai);
}

void Kernel::touch(Handle a) {
  wakeAutos(a);
  noteMoved(a);
  settlePools(a);
  watchBounds(a);
  if (!ix_->linkBounds.empty())
    watchReadersOf(a);
  ++epoch_;
  if (actor(a))
    markTouched(a);
  if (Actor *ac = actor(a)) {
    ++ac->epoch;
    ++ac->tagsEpoch;
  }
}

// Before an actor whose values another's bounds read through a link
// changes (a is that actor, or 0 for a global link set): those pools settle
// at the bounds they had, and are watched as their holder's own are.
void Kernel::watchReadersOf(Handle a) {
  Scratch<uint32_t> readers(scratchIds_);
  if (a) {
    appendLinkReaders(a, *readers);
    appendSourceReaders(a, *readers);
  }
  bool global = !a;
  for (Id g : ix_->readerGlobals)
    global |= a && globals_[g] == a;
  if (global)
    appendLiveReaders(globalReaders_, *readers);
  for (uint32_t ai : *readers) {
    if (!actors_[ai].live)
      continue;
    Handle r = handle(ai, actors_[ai].gen);
    for (Id p : ix_->linkBounds)
      settlePool(r, p);
    watchBounds(r);
  }
}

// Each of a's pools with a bound, as it stands before what its bounds read
// changes; reachBounds reads them again once the change is done.
void Kernel::watchBounds(Handle a) {
  if (!alive(a))
    return;
  uint32_t ai = indexOf(a);
  for (Id p = 0; p < valueCount_; ++p) {
    size_t i = size_t(ai) * valueCount_ + p;
    const pack::Value &v = t_->values[p];
    if (!hasPool_[i] || (v.minBody == kNoId && v.maxBody == kNoId))
      continue;
    bool watched = false;
    for (size_t k = boundWatchAt_; k < boundWatch_.size() && !watched; ++k)
      watched = boundWatch_[k].actor == a && boundWatch_[k].pool == p;
    if (!watched)
      boundWatch_.push_back({a, p, pools_[i] > poolLeast(a, p)});
  }
}

// A watched pool its moved bounds leave at its least reaches it: its
// Depleted, credited as the change that moved them, and the death hearing it.
void Kernel::reachBounds(Handle source, Handle credit, uint32_t chain) {
  while (boundWatchAt_ < boundWatch_.size()) {
    BoundWatch w = boundWatch_[boundWatchAt_++];
    if (!w.aboveLeast || !alive(w.actor) || poolNow(w.actor, w.pool) > poolLeast(w.actor, w.pool))
      continue;
    settlePool(w.actor, w.pool);
    uint32_t d = newEvent(Id(pack::BuiltinEvent::Depleted), w.actor, source, credit, chain);
    events_[d].pool = w.pool;
    if (raiseEvent(d) == Refusal::None)
      dieOrFall(d);
  }
  boundWatch_.clear();
  boundWatchAt_ = 0;
}

void Kernel::touchFor(Handle a, Id effect) {
  wakeAutos(a);
  noteMoved(a);
  if (ix_->inert[effect] && !ix_->poolsReadWorld) {
    ++epoch_;
    if (Actor *ac = actor(a); ac && t_->effects[effect].tags)
      ++ac->tagsEpoch;
    return;
  }
  touch(a);
}

// A change to one pool alone: what its holder's other values read stands,
// so only what reads the world is read afresh. Where no pool's bounds or
// drift read the world, the holder's other pools drift on as they were.
Kernel::PoolBounds Kernel::touchPool(Handle a, Id pool) {
  wakeAutos(a);
  noteMoved(a);
  PoolBounds bounds;
  if (!ix_->linkBounds.empty())
    watchReadersOf(a);
  if (ix_->poolsReadWorld) {
    // Settling one pool moves no amount another's bound reads.
    for (Id p = 0; actor(a) && p < valueCount_; ++p) {
      PoolBounds settled = settlePool(a, p);
      if (p == pool)
        bounds = settled;
    }
  } else {
    bounds = settlePool(a, pool);
  }
  ++epoch_;
  if (actor(a))
    markTouched(a);
  return bounds;
}

// A pool's clock: its holder's time, or the world's pace with clock world;
// both count from the make.
int64_t Kernel::poolClock(Handle a, Id pool) const {
  const Actor *ac = actor(a);
  if (t_->values[pool].clockWorld || t_->timeStat == kNoId)
    return (now_ - ac->madeAt) * tickTime_;
  return clockNow(a, clockOfStat(t_->timeStat));
}

// The world time a pool's drift brings it from `amount` to `to` (up with a
// positive regen or a refill, down with a negative regen), or -1 where it
// never does. `amount` is where its drift stands now, neither held within
// its bounds nor rounded as a read is (poolDrifted). `rate` is a regen's
// drift a period, as driftRate reads it; `slot` the pool's among its
// actor's values. With both a regen and a refill, the sooner of the
// regen's alone and the next refill: the pool is looked at again then, and
// the time after found from there.
int64_t Kernel::driftReaches(Handle a, Id p, size_t slot, int64_t rate, int64_t amount, int64_t to) {
  const pack::Value &v = t_->values[p];
  int64_t at = poolClock(a, p), due = -1;
  int64_t perRegen = v.regenStat != kNoId ? regenPeriod(a, p, slot) : 0;
  int64_t perRefill = v.refills() ? refillPeriod(a, p, slot) : 0;
  if (perRegen <= 0)
    rate = 0;
  // Worked in 128 bits: a time past the last the world counts never comes
  // (reading 158).
  __int128 gap = rate > 0 ? __int128(to) - amount : rate < 0 ? __int128(amount) - to : 0;
  if (rate != 0 && gap > 0) {
    // Counted from where the regen's closed form runs from (the anchor, or
    // the last refill pulling apart from it), not from now: the share of a
    // millionth a read rounds away now would move the crossing off its tick.
    int64_t from = poolAt_[slot];
    if (perRefill > 0 && v.refillAmount != 0 && (rate < 0) != (v.refillAmount < 0))
      from = std::max(from, at / perRefill * perRefill);
    __int128 base = amount - mulDiv(rate, at - from, perRegen);
    __int128 r = rate > 0 ? __int128(rate) : -__int128(rate);
    __int128 span = rate > 0 ? to - base : base - to;
    int64_t need = driftNeeds(span, r, perRegen);
    if (need >= 0 && __int128(need) <= __int128(INT64_MAX) - from)
      due = int64_t(from + __int128(need));
  }
  if (perRefill > 0 && v.refillAmount != 0) {
    // The refill `steps` on from the last one passed, or -1 past the last
    // time the world counts.
    auto refillOn = [&](__int128 steps) -> int64_t {
      __int128 n = at / perRefill + steps;
      return n <= INT64_MAX / perRefill ? int64_t(n * perRefill) : -1;
    };
    int64_t refilled = -1;
    bool apart = rate != 0 && (rate < 0) != (v.refillAmount < 0);
    if (apart || (rate != 0 && gap > 0)) {
      refilled = refillOn(1);
    } else if (rate == 0 && v.refillAmount > 0 && amount < to) {
      refilled = refillOn((__int128(to) - amount + v.refillAmount - 1) / v.refillAmount);
    } else if (rate == 0 && v.refillAmount < 0 && amount > to) {
      refilled = refillOn((__int128(amount) - to - v.refillAmount - 1) / -__int128(v.refillAmount));
    }
    if (refilled >= 0)
      due = due < 0 ? refilled : std::min(due, refilled);
  }
  int32_t clock = v.clockWorld || t_->timeStat == kNoId ? -1 : clockOfStat(t_->timeStat);
  int64_t made = actor(a)->madeAt * tickTime_;
  return due < 0                   ? -1
         : clock >= 0              ? worldDue(a, clock, due)
         : due <= INT64_MAX - made ? made + due
                                   : -1;
}

// Where a pool's drift will reach a bound, a timer at that tick: the Filled
// or the Depleted comes on the tick it crosses, nothing polled meanwhile.
void Kernel::schedulePoolBounds(Handle a) {
  if (!alive(a))
    return;
  uint32_t ai = indexOf(a);
  for (Id p : ix_->driftingPools) {
    size_t i = size_t(ai) * valueCount_ + p;
    if (!hasPool_[i])
      continue;
    PoolBounds bounds = poolBounds(a, p);
    int64_t drifted = poolDrifted(a, p, i, bounds);
    int64_t amount = clampWithin(p, drifted, bounds);
    // Its bounds moved past it (a maximum fallen below it): it drifts on from
    // where they hold it, not from its anchor's amount (reading 102).
    if (drifted < bounds.least || drifted > std::max(bounds.least, bounds.most)) {
      settlePool(a, p);
      drifted = amount;
    }
    int64_t worldAt = -1;
    int64_t rate = t_->values[p].regenStat != kNoId ? driftRate(a, p, i) : 0;
    // Down with a regen going down, or a refill taking away with no regen.
    bool down = rate < 0 || (rate == 0 && t_->values[p].refillAmount < 0);
    // A pool every amount of which reads the same (a whole one whose maximum
    // rounds to its least) never moves as read, so it crosses nothing
    // (docs/readings.md 159).
    bool still = bounds.most != INT64_MAX &&
                 clampWithin(p, bounds.least, bounds) == clampWithin(p, bounds.most, bounds);
    if (!still && (down || bounds.most != INT64_MAX))
      worldAt = driftReaches(a, p, i, rate, drifted, down ? bounds.least : bounds.most);
    // A crossing already due then stands; any other is replaced. So does one
    // due by now and not yet met, where the pool stands at that bound: a
    // change to another of its holder's pools on the crossing's tick, ahead
    // of it, leaves it to be met.
    if (poolDue_[i] == worldAt)
      continue;
    bool atBound = down ? amount <= bounds.least : amount >= bounds.most;
    if (worldAt < 0 && atBound && poolDue_[i] >= 0 && poolDue_[i] <= worldTime())
      continue;
    ++poolVersion_[i];
    poolDue_[i] = worldAt;
    if (worldAt < 0)
      continue;
    pushTimer({worldAt, 0, 0, TimerKind::PoolBound, a, p, poolVersion_[i]});
  }
}

void Kernel::firePoolBound(const Timer &tm) {
  Handle a = tm.instance;
  Id p = tm.rule;
  if (!alive(a) || poolVersion_[size_t(indexOf(a)) * valueCount_ + p] != tm.version)
    return;
  poolDue_[size_t(indexOf(a)) * valueCount_ + p] = -1;
  beginMoment();
  uint32_t chain = ++chains_;
  int64_t amount = poolNow(a, p);
  if (amount <= poolLeast(a, p)) {
    uint32_t d = newEvent(Id(pack::BuiltinEvent::Depleted), a, 0, 0, chain);
    events_[d].pool = p;
    if (raiseEvent(d) == Refusal::None)
      dieOrFall(d);
  } else if (amount >= poolMost(a, p)) {
    uint32_t d = newEvent(Id(pack::BuiltinEvent::Filled), a, 0, 0, chain);
    events_[d].pool = p;
    raiseEvent(d);
  }
  // A regen and a refill: looked at again as due, at a bound or not.
  if (t_->values[p].regenStat != kNoId && t_->values[p].refills())
    schedulePoolBounds(a);
  endMoment();
}

std::optional<int64_t> Kernel::maximum(Handle a, Id v) {
  if (!actor(a) || t_->values[v].maxBody == kNoId)
    return std::nullopt;
  return boundOf(a, t_->values[v].maxBody);
}

int64_t Kernel::value(Handle a, Id v, NumberFault *made) {
  if (!actor(a))
    return 0;
  if (t_->values[v].kind == pack::ValueKind::Pool)
    return poolNow(a, v);
  return computeStat(a, v, nullptr, made);
}

// A change lands: its portions summed, the pool moved within its bounds, and
// what it took and what its bound refused written on the event.
Kernel::PoolBounds Kernel::landOnPool(Event &e, Handle a) {
  size_t i = size_t(indexOf(a)) * valueCount_ + e.pool;
  PoolBounds bounds = touchPool(a, e.pool);
  int64_t before = pools_[i];
  NumberFault fault = NumberFault::None;
  int64_t amount = 0;
  for (uint32_t p = 0; p < e.portionCount; ++p)
    amount = add(amount, e.portions[p].amount, fault);
  if (e.portionCount == 0)
    amount = e.amount;
  e.amount = amount;
  int64_t target;
  bool lowers = carriesAll(e.tags, t_->tags[Id(pack::BuiltinTag::Damage)].closure) ||
                carriesAll(e.tags, t_->tags[Id(pack::BuiltinTag::Loss)].closure) ||
                carriesAll(e.tags, t_->tags[Id(pack::BuiltinTag::Cost)].closure);
  bool isSet = carriesAll(e.tags, t_->tags[Id(pack::BuiltinTag::Set)].closure);
  bool passed = false;
  if (isSet) {
    target = amount;
  } else if (lowers) {
    target = subHeld(before, amount, passed);
  } else {
    int64_t room = amount;
    if (e.upTo != INT64_MAX) {
      bool roomPassed = false;
      room = std::max<int64_t>(0, subHeld(e.upTo, before, roomPassed));
    }
    target = addHeld(before, std::min(amount, room), passed);
  }
  int64_t after = clampWithin(e.pool, target, bounds);
  if (passed && after == target)
    fault = NumberFault::Overflow;
  pools_[i] = after;
  e.before = before;
  e.onPool = true;
  e.after = after;
  // Past what a number holds, each reads 0, as a formula's does (reading 49).
  e.landed = isSet || !lowers ? sub(after, before, fault) : sub(before, after, fault);
  e.overflow = isSet ? 0 : sub(amount, e.landed, fault);
  ++epoch_;
  if (fault != NumberFault::None)
    journalFault(fault);
  return bounds;
}

} // namespace ledger::rt
