// Values: stats worked out from their base and the terms their holder's
// effects contribute, cached until what they read changes; pools as an
// amount at an anchor, drifting in closed form from there.
#include "world.h"

namespace ledger::cw {

using pack::ModOp;
using rt::add;
using rt::addHeld;
using rt::div;
using rt::mul;
using rt::sub;
using rt::subHeld;

namespace {
// a * b / c, rounded half to even, exact however far it passes int64 (a
// drift's arithmetic faults nothing: what passes int64 has passed every
// bound, and is held at the one it passed, docs/readings.md 158); 0 by a c
// of 0. In 64 bits where the product fits, all but always: no library
// division.
__int128 mulDivWide(int64_t a, int64_t b, int64_t c) {
  if (c == 0)
    return 0;
  if (int64_t p; !__builtin_mul_overflow(a, b, &p) && c != INT64_MIN) {
    uint64_t m = p < 0 ? 0 - uint64_t(p) : uint64_t(p), d = c < 0 ? -c : c;
    uint64_t q = m / d, r = m % d;
    if (r > d - r || (r == d - r && (q & 1)))
      ++q;
    return (p < 0) != (c < 0) ? -__int128(q) : __int128(q);
  }
  __int128 n = __int128(a) * b;
  __int128 q = n / c, r = n % c;
  __int128 twice = (r < 0 ? -r : r) * 2, d = c < 0 ? -__int128(c) : __int128(c);
  bool negative = (n < 0) != (c < 0);
  if (twice > d || (twice == d && (q % 2 != 0)))
    q += negative ? -1 : 1;
  return q;
}

// A value times a factor count times, each product rounded (a count below
// zero divides by it as many times); a run that reaches a value the factor
// keeps, or one it swings between two of, ends there.
int64_t applyFactor(int64_t v, int64_t factor, int64_t count, NumberFault &fault) {
  bool divide = count < 0;
  int64_t n = divide ? -count : count;
  int64_t before = v;
  for (int64_t k = 0; k < n; ++k) {
    int64_t next = divide ? div(v, factor, fault) : mul(v, factor, fault);
    if (next == v)
      return v;
    if (k > 0 && next == before)
      return (n - k - 1) % 2 == 0 ? next : v;
    before = v;
    v = next;
  }
  return v;
}

int64_t clamp128(__int128 x, int64_t low, int64_t high) {
  return int64_t(x < low ? low : x > high ? high : x);
}

// A drift's amount, past int64 held at its edge: past every bound as the
// amount it stands for is, and read held at the bound.
int64_t saturated(__int128 x) { return clamp128(x, INT64_MIN, INT64_MAX); }
} // namespace

Tags World::tagsOf(Handle a) {
  Tags bits;
  clearTags(bits);
  ActorHead *ac = actor(a);
  if (!ac)
    return bits;
  uint32_t ai = indexOf(a);
  uint64_t *cached = tagCache(ai);
  if (ac->tagCacheEpoch == ac->tagsEpoch) {
    for (uint32_t w = 0; w < tagWords(); ++w)
      bits.w[w] = cached[w];
    return bits;
  }
  if (ac->archetype != kNoId)
    addTags(bits, lp_archetypes[ac->archetype].tags);
  for (uint32_t i = ac->firstHeld; i; i = inst(i - 1).nextHeld)
    if (working(i - 1))
      addTags(bits, lp_effects[inst(i - 1).effect].tags);
  if (ac->fallen)
    addTags(bits, lp_tags[Id(pack::BuiltinTag::Fallen)].closure);
  for (uint32_t w = 0; w < tagWords(); ++w)
    cached[w] = bits.w[w];
  ac->tagCacheEpoch = ac->tagsEpoch;
  return bits;
}

bool World::carries(Handle a, Id tag) { return hasTag(tagsOf(a), tag); }

int64_t World::base(Handle a, Id v) {
  Id body = lp_archetypeBase[size_t(actor(a)->archetype) * shape().valueCount + v];
  return body != kNoId ? boundOf(a, body) : lp_values[v].defaultValue;
}

int64_t World::rounded(Id v, int64_t x, NumberFault &fault) const {
  switch (lp_values[v].whole) {
  case pack::Rounding::None:
    return x;
  case pack::Rounding::Floor:
    return rt::floorWhole(x, fault);
  case pack::Rounding::Ceil:
    return rt::ceilWhole(x, fault);
  case pack::Rounding::Trunc:
    return rt::truncWhole(x);
  case pack::Rounding::Round:
    return rt::roundWhole(x, fault);
  }
  return x;
}

// Values read inside values: past kValueNesting the read is a fault and
// reads 0 (docs/readings.md).
bool World::faultNesting() {
  static const char words[] = "Value: a value read inside itself, 64 values deep";
  static_assert(kValueNesting == 64);
  LedgerJournalEntry j{};
  j.tick = now_;
  j.fault = 1;
  j.event = j.effect = j.ability = j.pool = kNoId;
  j.note = kNoId;
  record(j, nullptr, words, sizeof words - 1);
  return true;
}

int64_t World::boundOf(Handle a, Id body) {
  const decided::Plain &plain = lp_plain[body];
  if (plain.kind == 1)
    return plain.number;
  ++valueNesting_;
  int64_t v = 0;
  if (!(valueNesting_ > kValueNesting && faultNesting())) {
    if (plain.kind == 2) {
      v = computeStat(a, plain.stat);
    } else {
      Frame f{};
      f.event = f.propsEvent = -1;
      f.roots[LEDGER_SLOT_HOLDER] = a;
      f.roots[LEDGER_SLOT_CREDIT] = a;
      v = runBody(body, f);
    }
  }
  --valueNesting_;
  return v;
}

// A stat now: read from its cache where what it reads hasn't changed.
int64_t World::computeStat(Handle a, Id stat, NumberFault *made) {
  ActorHead *ac = actor(a);
  if (ac) {
    uint8_t kind = lp_statCache[stat];
    if (kind != 3) {
      uint64_t stamp = kind == 0 ? ac->epoch : kind == 1 ? ac->epoch + shapeEpoch_ : epoch_;
      StatSlot &slot = statSlot(indexOf(a), stat);
      if (slot.stamp == stamp + 1)
        return slot.value;
    }
  }
  return computeStatAfresh(a, stat, made);
}

// A stat: its base, then the terms of its holder's working effects, in the
// order docs/readings.md gives: base terms replace the base, adds, the sum of
// percents, factors one by one, `=` over all, then at least and at most, then
// the stat's own bounds and rounding.
int64_t World::computeStatAfresh(Handle a, Id stat, NumberFault *made) {
  ActorHead *ac = actor(a);
  if (!ac)
    return 0;
  ++valueNesting_;
  if (valueNesting_ > kValueNesting && faultNesting()) {
    --valueNesting_;
    return 0;
  }
  uint32_t ai = indexOf(a);
  uint8_t kind = lp_statCache[stat];
  uint64_t stamp = kind == 0 ? ac->epoch : kind == 1 ? ac->epoch + shapeEpoch_ : epoch_;
  const pack::Value &value = lp_values[stat];
  NumberFault fault = NumberFault::None;
  int64_t b = base(a, stat);
  int64_t v;
  if (lp_termsBegin[stat] == lp_termsBegin[stat + 1]) {
    v = b;
  } else {
    int64_t adds = 0, percents = 0;
    bool set = false, baseSet = false;
    int64_t setTo = 0, atLeast = INT64_MIN, atMost = INT64_MAX;
    uint64_t setSeq = 0, baseSeq = 0;
    // Factors in the order met: each rounds as it is applied.
    uint32_t factorsAt = scratchHandles_.size();
    struct Strongest {
      bool any;
      int64_t distance, amount;
      ModOp op;
      bool percent;
      int64_t count;
    };
    // Categories past 64 leave the catalog on the generic path.
    Strongest strongest[64];
    uint32_t categoryCount = 0;
    auto addTerm = [&](ModOp op, bool percent, int64_t amount, uint64_t seq, int64_t count) {
      switch (op) {
      case ModOp::Add:
        (percent ? percents : adds) = add(percent ? percents : adds, amount, fault);
        break;
      case ModOp::Sub:
        (percent ? percents : adds) = sub(percent ? percents : adds, amount, fault);
        break;
      case ModOp::Mul:
        scratchHandles_.push(amount);
        scratchHandles_.push(count);
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
        atLeast = atLeast > amount ? atLeast : amount;
        break;
      case ModOp::AtMost:
        atMost = atMost < amount ? atMost : amount;
        break;
      }
    };
    for (uint32_t h = ac->firstHeld; h; h = inst(h - 1).nextHeld) {
      uint32_t i = h - 1;
      if (!working(i))
        continue;
      Id effect = inst(i).effect;
      const pack::Effect &e = lp_effects[effect];
      for (uint32_t m = 0; m < e.modifierCount; ++m) {
        const pack::Modifier &mod = lp_modifiers[e.modifiersBegin + m];
        if (mod.stat != stat)
          continue;
        Frame f = frameFor(i, -1, 0);
        int64_t amount = runBody(mod.amountBody, f);
        int64_t count = 1;
        int64_t stacks = inst(i).stacks;
        if (!mod.flat) {
          if (mod.op == ModOp::Mul)
            count = stacks / kOne;
          else if (mod.op == ModOp::Add || mod.op == ModOp::Sub)
            amount = mul(amount, stacks, fault);
        }
        if (mod.category != kNoId) {
          if (categoryCount <= mod.category) {
            for (uint32_t c = categoryCount; c <= mod.category; ++c)
              strongest[c] = Strongest{}; // whole: its held term is read before one is kept
            categoryCount = mod.category + 1;
          }
          Strongest &s = strongest[mod.category];
          int64_t signedAmount = mod.op == ModOp::Sub ? -amount : amount;
          int64_t whole = mod.op == ModOp::Mul ? applyFactor(kOne, amount, count, fault) : 0;
          int64_t distance = mod.op == ModOp::Mul
                                 ? (whole <= 0 ? INT64_MAX : whole >= kOne ? whole : div(kOne, whole, fault))
                                 : (signedAmount < 0 ? -signedAmount : signedAmount);
          if (mod.op == ModOp::Mul)
            signedAmount = whole;
          int64_t held = s.op == ModOp::Sub   ? -s.amount
                         : s.op == ModOp::Mul ? applyFactor(kOne, s.amount, s.count, fault)
                                              : s.amount;
          if (!s.any || distance > s.distance || (distance == s.distance && signedAmount > held))
            s = {true, distance, amount, mod.op, mod.percent, count};
          continue;
        }
        addTerm(mod.op, mod.percent, amount, inst(i).seq, count);
      }
    }
    for (uint32_t c = 0; c < categoryCount; ++c)
      if (strongest[c].any)
        addTerm(strongest[c].op, strongest[c].percent, strongest[c].amount, 0, strongest[c].count);
    v = add(b, adds, fault);
    if (percents != 0)
      v = mul(v, add(kOne, percents, fault), fault);
    for (uint32_t k = factorsAt; k < scratchHandles_.size(); k += 2)
      v = applyFactor(v, scratchHandles_[k], scratchHandles_[k + 1], fault);
    scratchHandles_.truncate(factorsAt);
    if (set)
      v = setTo;
    v = v > atLeast ? v : atLeast;
    v = v < atMost ? v : atMost;
  }
  if (value.minBody != kNoId) {
    int64_t least = boundOf(a, value.minBody);
    v = v > least ? v : least;
  }
  if (value.maxBody != kNoId) {
    int64_t most = boundOf(a, value.maxBody);
    v = v < most ? v : most;
  }
  v = rounded(stat, v, fault);
  // A stat whose working out faulted is never kept: each read works it out
  // again, so each rule reading it journals its fault (docs/readings.md 165).
  if (made)
    *made = fault;
  if (fault == NumberFault::None) {
    StatSlot &slot = statSlot(ai, stat);
    slot.value = v;
    slot.stamp = stamp + 1;
  }
  --valueNesting_;
  return v;
}

int64_t World::poolLeast(Handle a, Id pool) {
  const pack::Value &p = lp_values[pool];
  return p.minBody == kNoId ? 0 : boundOf(a, p.minBody);
}

int64_t World::poolMost(Handle a, Id pool) {
  const pack::Value &p = lp_values[pool];
  return p.maxBody == kNoId ? INT64_MAX : boundOf(a, p.maxBody);
}

int64_t World::poolNow(Handle a, Id pool) {
  ActorHead *ac = actor(a);
  if (!ac || !poolSlot(indexOf(a), pool).has)
    return 0;
  return poolNowWithin(a, pool, poolBounds(a, pool));
}

// A destroyed actor's pools "stand where they stood".
int64_t World::poolNowWithin(Handle a, Id pool, PoolBounds bounds) {
  if (!actor(a)->live)
    return poolSlot(indexOf(a), pool).amount;
  return clampWithin(pool, poolDrifted(a, pool, bounds), bounds);
}

int64_t World::poolDrifted(Handle a, Id pool, PoolBounds bounds) {
  const pack::Value &p = lp_values[pool];
  PoolSlot &slot = poolSlot(indexOf(a), pool);
  int64_t amount = slot.amount;
  if (p.drifts()) {
    int64_t nowAt = poolClock(a);
    if (nowAt > slot.at)
      amount = drifted(a, pool, amount, slot.at, nowAt, bounds);
  }
  if (p.rise == pack::Rise::Heal && p.maxBody != kNoId && bounds.most > slot.max)
    amount = saturated(__int128(amount) + bounds.most - slot.max);
  return amount;
}

int64_t World::regenPeriod(Handle a, Id pool) {
  const pack::Value &v = lp_values[pool];
  return v.regenPeriodBody == kNoId ? v.regenPeriod : boundOf(a, v.regenPeriodBody);
}

int64_t World::refillPeriod(Handle a, Id pool) {
  const pack::Value &v = lp_values[pool];
  return v.refillPeriodBody == kNoId ? v.refillPeriod : boundOf(a, v.refillPeriodBody);
}

// A pool's amount at its clock's `from`, drifted to `to`: a regen's rate
// over its period, a refill's amount on each multiple of its period passed;
// a regen and a refill pulling apart stepped refill by refill
// (docs/readings.md 141).
int64_t World::drifted(Handle a, Id pool, int64_t amount, int64_t from, int64_t to,
                       PoolBounds bounds) {
  const pack::Value &p = lp_values[pool];
  int64_t perRegen = p.regenStat != kNoId ? regenPeriod(a, pool) : 0;
  int64_t rate = perRegen > 0 ? computeStat(a, p.regenStat) : 0;
  int64_t perRefill = p.refills() ? refillPeriod(a, pool) : 0;
  int64_t refill = perRefill > 0 ? p.refillAmount : 0;
  if (rate == 0 || refill == 0 || (rate < 0) == (refill < 0)) {
    // Past int64 too, held at its edge (reading 158).
    __int128 x = amount;
    if (rate != 0)
      x += mulDivWide(rate, to - from, perRegen);
    if (refill != 0)
      x += __int128(refill) * (to / perRefill - from / perRefill);
    return saturated(x);
  }
  int64_t most = bounds.most > bounds.least ? bounds.most : bounds.least;
  auto held = [&](__int128 x) { return clamp128(x, bounds.least, most); };
  int64_t x = amount;
  int64_t k = from / perRefill, last = to / perRefill;
  if (k < last) {
    x = held(__int128(x) + mulDivWide(rate, (k + 1) * perRefill - from, perRegen));
    x = held(__int128(x) + refill);
    from = (k + 1) * perRefill;
    __int128 stretch = mulDivWide(rate, perRefill, perRegen);
    __int128 step = stretch + refill;
    __int128 low = stretch < step ? stretch : step;
    __int128 high = stretch < step ? step : stretch;
    for (int64_t left = last - k - 1; left > 0;) {
      __int128 free = 0;
      if (x + low >= bounds.least && x + high <= most)
        free = step > 0   ? (most - high - x) / step + 1
               : step < 0 ? (x + low - bounds.least) / -step + 1
                          : left;
      if (free > 0) {
        int64_t run = int64_t(free < left ? free : left);
        x = held(x + step * run);
        left -= run;
        continue;
      }
      int64_t next = held(__int128(held(x + stretch)) + refill);
      if (next == x)
        break;
      x = next;
      --left;
    }
    from = last * perRefill;
  }
  return held(__int128(x) + mulDivWide(rate, to - from, perRegen));
}

void World::settlePools(Handle a) {
  if (!actor(a))
    return;
  for (Id p = 0; p < shape().valueCount; ++p)
    if (lp_values[p].kind == pack::ValueKind::Pool)
      settlePool(a, p);
}

World::PoolBounds World::settlePool(Handle a, Id p) { return settlePoolOf(a, p); }

World::PoolBounds World::settlePoolOf(Handle a, Id p) {
  uint32_t ai = indexOf(a);
  if (!poolSlot(ai, p).has)
    return {};
  PoolBounds bounds = poolBounds(a, p);
  int64_t amount = actor(a) ? poolNowWithin(a, p, bounds) : 0;
  PoolSlot &slot = poolSlot(ai, p);
  slot.amount = amount;
  if (lp_values[p].drifts())
    slot.at = poolClock(a);
  slot.max = bounds.most;
  return bounds;
}

void World::markTouched(uint32_t ai) {
  if (!row(ai).touched) {
    row(ai).touched = 1;
    touched_.push(ai);
  }
}

void World::touch(Handle a) {
  wakeAutos(a);
  settlePools(a);
  watchBounds(a);
  ++epoch_;
  if (ActorHead *ac = actor(a)) {
    markTouched(indexOf(a));
    ++ac->epoch;
    ++ac->tagsEpoch;
  }
}

void World::touchFor(Handle a, Id effect) {
  wakeAutos(a);
  if (lp_inert[effect] && !shape().poolsReadWorld) {
    ++epoch_;
    if (ActorHead *ac = actor(a); ac && lp_effects[effect].tags)
      ++ac->tagsEpoch;
    return;
  }
  touch(a);
}

// A change to one pool alone: the holder's other pools drift on as they were.
World::PoolBounds World::touchPool(Handle a, Id pool) {
  wakeAutos(a);
  PoolBounds bounds;
  if (shape().poolsReadWorld) {
    // Settling one pool moves no amount another's bound reads.
    for (Id p = 0; actor(a) && p < shape().valueCount; ++p)
      if (lp_values[p].kind == pack::ValueKind::Pool) {
        PoolBounds settled = settlePool(a, p);
        if (p == pool)
          bounds = settled;
      }
  } else {
    bounds = settlePoolOf(a, pool);
  }
  ++epoch_;
  // Retimed as the moment ends: what a crossing reads moved. Where no pool
  // reads the world, a pool that doesn't drift moves no crossing.
  if (actor(a) && (shape().poolsReadWorld || lp_values[pool].drifts()))
    markTouched(indexOf(a));
  return bounds;
}

// Each of a's pools with a bound, as it stands before what its bounds read
// changes; reachBounds reads them again once the change is done.
void World::watchBounds(Handle a) {
  if (!alive(a))
    return;
  uint32_t ai = indexOf(a);
  for (Id p = 0; p < shape().valueCount; ++p) {
    const pack::Value &v = lp_values[p];
    if (v.kind != pack::ValueKind::Pool || !poolSlot(ai, p).has ||
        (v.minBody == kNoId && v.maxBody == kNoId))
      continue;
    bool watched = false;
    for (uint32_t k = boundWatchAt_; k < boundWatch_.size() && !watched; ++k)
      watched = boundWatch_[k].actor == a && boundWatch_[k].pool == p;
    if (!watched)
      boundWatch_.push({a, p, poolSlot(ai, p).amount > poolLeast(a, p)});
  }
}

// A watched pool its moved bounds leave at its least reaches it: its
// Depleted, credited as the change that moved them, and the death hearing it.
void World::reachBounds(Handle source, Handle credit, uint32_t chain) {
  while (boundWatchAt_ < boundWatch_.size()) {
    BoundWatch w = boundWatch_[boundWatchAt_++];
    if (!w.aboveLeast || !alive(w.actor) || poolNow(w.actor, w.pool) > poolLeast(w.actor, w.pool))
      continue;
    settlePool(w.actor, w.pool);
    uint32_t d = newEvent(Id(pack::BuiltinEvent::Depleted), w.actor, source, credit, chain);
    ev(d).pool = w.pool;
    if (raiseEvent(d) == Refusal::None)
      dieOrFall(d);
  }
  boundWatch_.clear();
  boundWatchAt_ = 0;
}

// The world time a pool's drift brings it from `amount` (where its drift
// stands now, neither held within its bounds nor rounded) to `to`, or -1
// where it never does.
int64_t World::driftReaches(Handle a, Id p, int64_t rate, int64_t amount, int64_t to) {
  const pack::Value &v = lp_values[p];
  int64_t at = poolClock(a), due = -1;
  int64_t perRegen = v.regenStat != kNoId ? regenPeriod(a, p) : 0;
  int64_t perRefill = v.refills() ? refillPeriod(a, p) : 0;
  if (perRegen <= 0)
    rate = 0;
  // Worked in 128 bits: a time past the last the world counts never comes
  // (reading 158).
  __int128 gap = rate > 0 ? __int128(to) - amount : rate < 0 ? __int128(amount) - to : 0;
  if (rate != 0 && gap > 0) {
    // From where the regen's closed form runs from, as the kernel counts it.
    int64_t from = poolSlot(indexOf(a), p).at;
    if (perRefill > 0 && v.refillAmount != 0 && (rate < 0) != (v.refillAmount < 0) &&
        at / perRefill * perRefill > from)
      from = at / perRefill * perRefill;
    __int128 base = amount - mulDivWide(rate, at - from, perRegen);
    __int128 r = rate > 0 ? __int128(rate) : -__int128(rate);
    // The least time whose read, the drift rounded half to even at the
    // millionth, has moved span: where 2 * r * t passes (2 * span - 1) *
    // perRegen, or meets it with span even (docs/readings.md 166). In 64
    // bits where it fits, as nearly every crossing does (no library
    // division), else in two, no product passing 128 bits.
    __int128 span = rate > 0 ? to - base : base - to;
    bool odd = span % 2 != 0;
    int64_t n, d, product;
    if (span >= 1 && span <= INT64_MAX / 2 && r <= INT64_MAX / 2 &&
        !__builtin_mul_overflow(int64_t(2 * span - 1), perRegen, &product) &&
        !__builtin_add_overflow(product, int64_t(odd), &n)) {
      d = int64_t(2 * r);
      int64_t need = n / d + (n % d != 0);
      // An anchor before the world's start (a clock run back) leaves room.
      if (__int128(need) <= __int128(INT64_MAX) - from)
        due = int64_t(from + __int128(need));
    } else if (__int128 n2 = 2 * span - 1, d2 = 2 * r, whole = n2 / d2, part = n2 % d2;
               whole <= INT64_MAX / perRegen) {
      __int128 rest = part * perRegen + odd;
      __int128 need = whole * perRegen + (rest + d2 - 1) / d2;
      if (need <= __int128(INT64_MAX) - from)
        due = int64_t(from + need);
    }
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
      due = due < 0 ? refilled : (due < refilled ? due : refilled);
  }
  int64_t made = actor(a)->madeAt * tickTime_;
  return due < 0 || due > INT64_MAX - made ? -1 : made + due;
}

// Where a pool's drift will reach a bound, a timer at that tick.
void World::schedulePoolBounds(Handle a) {
  if (!alive(a))
    return;
  uint32_t ai = indexOf(a);
  for (uint32_t k = 0; k < lp_driftingPoolCount; ++k) {
    Id p = lp_driftingPools[k];
    if (!poolSlot(ai, p).has)
      continue;
    PoolBounds bounds = poolBounds(a, p);
    int64_t drifted = poolDrifted(a, p, bounds);
    int64_t amount = clampWithin(p, drifted, bounds);
    int64_t most = bounds.most > bounds.least ? bounds.most : bounds.least;
    // Its bounds moved past it: it drifts on from where they hold it
    // (reading 102).
    if (drifted < bounds.least || drifted > most) {
      settlePool(a, p);
      drifted = amount;
    }
    int64_t worldAt = -1;
    int64_t rate = lp_values[p].regenStat != kNoId ? computeStat(a, lp_values[p].regenStat) : 0;
    bool down = rate < 0 || (rate == 0 && lp_values[p].refillAmount < 0);
    // A pool every amount of which reads the same (a whole one whose maximum
    // rounds to its least) never moves as read, so it crosses nothing
    // (docs/readings.md 159).
    bool still = bounds.most != INT64_MAX &&
                 clampWithin(p, bounds.least, bounds) == clampWithin(p, bounds.most, bounds);
    if (!still && (down || bounds.most != INT64_MAX))
      worldAt = driftReaches(a, p, rate, drifted, down ? bounds.least : bounds.most);
    PoolSlot &slot = poolSlot(ai, p);
    if (slot.due == worldAt)
      continue;
    bool atBound = down ? amount <= bounds.least : amount >= bounds.most;
    if (worldAt < 0 && atBound && slot.due >= 0 && slot.due <= worldTime())
      continue;
    ++slot.version;
    slot.due = worldAt;
    if (worldAt < 0)
      continue;
    pushTimer({worldAt, 0, 0, a, p, slot.version, 0, TimerKind::PoolBound});
  }
}

void World::firePoolBound(const Timer &tm) {
  Handle a = tm.instance;
  Id p = tm.rule;
  if (!alive(a) || poolSlot(indexOf(a), p).version != tm.version)
    return;
  poolSlot(indexOf(a), p).due = -1;
  beginMoment();
  uint32_t chain = ++chains_;
  int64_t amount = poolNow(a, p);
  if (amount <= poolLeast(a, p)) {
    uint32_t d = newEvent(Id(pack::BuiltinEvent::Depleted), a, 0, 0, chain);
    ev(d).pool = p;
    if (raiseEvent(d) == Refusal::None)
      dieOrFall(d);
  } else if (amount >= poolMost(a, p)) {
    uint32_t d = newEvent(Id(pack::BuiltinEvent::Filled), a, 0, 0, chain);
    ev(d).pool = p;
    raiseEvent(d);
  }
  if (lp_values[p].regenStat != kNoId && lp_values[p].refills())
    schedulePoolBounds(a);
  endMoment();
}

bool World::maximum(Handle a, Id v, int64_t &out) {
  if (!actor(a) || lp_values[v].maxBody == kNoId)
    return false;
  out = boundOf(a, lp_values[v].maxBody);
  return true;
}

int64_t World::value(Handle a, Id v, NumberFault *made) {
  if (!actor(a))
    return 0;
  if (lp_values[v].kind == pack::ValueKind::Pool)
    return poolNow(a, v);
  return computeStat(a, v, made);
}

bool World::maxSteadyOnLanding(Id pool) const {
  Id body = lp_values[pool].maxBody;
  if (body == kNoId)
    return true;
  const decided::Plain &plain = lp_plain[body];
  return plain.kind == 1 || (plain.kind == 2 && lp_statCache[plain.stat] == 0);
}

// A change lands: its portions summed, the pool moved within its bounds, and
// what it took and what its bound refused written on the event.
World::PoolBounds World::landOnPool(Event &e, Handle a, Id pool) {
  PoolBounds bounds = touchPool(a, pool);
  PoolSlot &slot = poolSlot(indexOf(a), pool);
  int64_t before = slot.amount;
  NumberFault fault = NumberFault::None;
  int64_t amount = 0;
  for (uint32_t p = 0; p < e.portionCount; ++p)
    amount = add(amount, portions_[e.portionsAt + p].amount, fault);
  if (e.portionCount == 0)
    amount = e.amount;
  e.amount = amount;
  int64_t target;
  bool lowers = carriesAll(e.tags, lp_tags[Id(pack::BuiltinTag::Damage)].closure) ||
                carriesAll(e.tags, lp_tags[Id(pack::BuiltinTag::Loss)].closure) ||
                carriesAll(e.tags, lp_tags[Id(pack::BuiltinTag::Cost)].closure);
  bool isSet = carriesAll(e.tags, lp_tags[Id(pack::BuiltinTag::Set)].closure);
  bool passed = false;
  if (isSet) {
    target = amount;
  } else if (lowers) {
    target = subHeld(before, amount, passed);
  } else {
    int64_t room = amount;
    if (e.upTo != INT64_MAX) {
      bool roomPassed = false;
      room = subHeld(e.upTo, before, roomPassed);
      room = room > 0 ? room : 0;
    }
    target = addHeld(before, amount < room ? amount : room, passed);
  }
  int64_t after = clampWithin(pool, target, bounds);
  if (passed && after == target)
    fault = NumberFault::Overflow;
  poolSlot(indexOf(a), pool).amount = after;
  e.before = before;
  e.onPool = 1;
  e.after = after;
  // Past what a number holds, each reads 0, as a formula's does (reading 49).
  e.landed = isSet || !lowers ? sub(after, before, fault) : sub(before, after, fault);
  e.overflow = isSet ? 0 : sub(amount, e.landed, fault);
  ++epoch_;
  if (fault != NumberFault::None)
    apiFault(uint32_t(fault));
  return bounds;
}

} // namespace ledger::cw
