// The event pipeline: before rules by stage and order, the landing, after
// rules queued in the moment, chains and their budget, the journal. Which
// effects may hear an event of a kind is the compiler's list (lp_hear): an
// event whose kind the code in hand knows walks that list alone.
#include "world.h"

namespace ledger::cw {

using pack::BuiltinEvent;
using pack::BuiltinTag;

// ---- the journal -------------------------------------------------------------------

// Counted always; hashed unless off; kept by the runtime in Keep mode, the
// hash the runtime's own (runtime/journal.cpp), word for word.
void World::record(LedgerJournalEntry &j, const uint64_t *tags, const char *note,
                   uint32_t length) {
  ++journalCount_;
  if (journalMode_ == 2)
    return;
  uint64_t h = journalHash_;
  auto mix = [&](uint64_t v) {
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  };
  mix(uint64_t(j.tick));
  mix(uint64_t(j.amount));
  mix(uint64_t(j.landed));
  mix(uint64_t(j.subject));
  mix(uint64_t(j.source));
  mix(uint64_t(j.credit));
  mix(uint64_t(j.event));
  mix(uint64_t(j.effect));
  mix(uint64_t(j.ability));
  mix(uint64_t(j.pool));
  mix(uint64_t(j.prevented));
  mix(uint64_t(j.fault));
  for (uint32_t w = 0; tags && w < tagWords(); ++w)
    mix(tags[w]);
  for (uint32_t c = 0; note && c < length; ++c)
    mix(uint8_t(note[c]));
  journalHash_ = h;
  if (journalMode_ == 0)
    host_->record(host_->context, &j, tags, note, length);
}

void World::journalEvent(const Event &e) {
  if (journalMode_ == 2) {
    ++journalCount_; // off: counted, nothing more
    return;
  }
  LedgerJournalEntry j;
  j.tick = now_;
  j.event = e.kind;
  j.subject = e.subject;
  j.source = e.source;
  j.credit = e.credit;
  j.effect = e.effect;
  j.ability = e.ability;
  j.pool = e.pool;
  bool stacks = e.kind == Id(BuiltinEvent::Apply) || e.kind == Id(BuiltinEvent::Remove);
  j.amount = stacks ? e.stacks : e.amount;
  j.landed = e.landed;
  j.prevented = e.prevented;
  j.fault = 0;
  j.tagsAt = 0;
  j.note = kNoId;
  record(j, e.tags.w, nullptr, 0);
}

// A fault's words: its refusal's name, then what it says.
void World::fault(Refusal reason, const char *text, uint32_t length, Id name) {
  char note[256];
  uint32_t n = 0;
  auto put = [&](const char *s, uint32_t len) {
    for (uint32_t k = 0; k < len && n < sizeof note; ++k)
      note[n++] = s[k];
  };
  const char *reasonName = rt::refusalName(reason);
  uint32_t reasonLength = 0;
  while (reasonName[reasonLength])
    ++reasonLength;
  put(reasonName, reasonLength);
  if (length) {
    put(": ", 2);
    put(text, length);
  }
  if (name != kNoId) {
    put(" in ", 4);
    put(nameChars(name), nameLength(name));
  }
  LedgerJournalEntry j{};
  j.tick = now_;
  j.fault = 1;
  j.event = j.effect = j.ability = j.pool = kNoId;
  j.note = kNoId;
  record(j, nullptr, note, n);
}

void World::apiFault(uint32_t code) {
  struct Words {
    const char *text;
    uint32_t length;
  };
#define WORDS(s) {s, sizeof(s) - 1}
  static const Words words[] = {WORDS("Number: a fault"),
                                WORDS("Number: a number past what a number holds"),
                                WORDS("Number: a division by zero"),
                                WORDS("Number: an even root below zero"),
                                WORDS("Number: a power that is no whole 1 to 9")};
#undef WORDS
  const Words &w = words[code < 5 ? code : 0];
  LedgerJournalEntry j{};
  j.tick = now_;
  j.fault = 1;
  j.event = j.effect = j.ability = j.pool = kNoId;
  j.note = kNoId;
  record(j, nullptr, w.text, w.length);
}

// ---- moments -----------------------------------------------------------------------

void World::beginMoment() {
  if (momentDepth_++ == 0) {
    chainBase_ = chains_ + 1;
    chainCounts_.clear();
    chainRepeats_.clear();
    events_.clear();
    portions_.clear();
    givenVars_.clear();
    eventTargets_.clear();
    jobs_.clear();
    jobAt_ = 0;
    oncePerChain_.clear();
    preventedChains_.clear();
    boundWatch_.clear();
    boundWatchAt_ = 0;
  }
}

// The moment's queue runs to its end: each after rule in the order its event
// landed, what they set off queued behind them.
void World::endMoment() {
  if (momentDepth_ == 1) {
    if (boundWatchAt_ < boundWatch_.size())
      reachBounds(0, 0, ++chains_);
    while (jobAt_ < jobs_.size()) {
      Job job = jobs_[jobAt_++];
      runJob(job);
      if (boundWatchAt_ < boundWatch_.size())
        reachBounds(0, 0, ++chains_);
    }
    // Pools whose holder moved are retimed from here.
    for (uint32_t k = 0; k < touched_.size(); ++k) {
      uint32_t ai = touched_[k];
      Handle a = actorHandle(ai);
      if (alive(a))
        schedulePoolBounds(a);
    }
    for (uint32_t ai : touched_)
      row(ai).touched = 0;
    touched_.clear();
    // Nothing of the moment names them any more (reading 157).
    if (!releasing_.empty())
      releaseSlots();
  }
  --momentDepth_;
  if (momentDepth_ == 0)
    runAutos();
}

// Each field set here, the tags' words the catalog has alone: a new event
// writes what it reads, not its whole room.
uint32_t World::newEvent(Id kind, Handle subject, Handle source, Handle credit, uint32_t chain) {
  Event &e = events_.pushDefault();
  e.subject = subject;
  e.source = source;
  e.credit = credit;
  e.kind = kind;
  e.prevented = 0;
  clearTags(e.tags);
  e.pool = kNoId;
  e.portionsAt = e.portionCount = 0;
  e.chain = chain;
  e.sent = e.amount = e.landed = e.overflow = e.before = e.after = 0;
  e.upTo = INT64_MAX;
  e.reached = kNoId;
  e.onPool = e.beforeHeard = e.made = 0;
  e.refusal = Refusal::None;
  e.effect = kNoId;
  e.instance = 0;
  e.stacks = 0;
  e.ability = kNoId;
  e.varsFrom = e.varCount = 0;
  e.grant = e.target = 0;
  e.targetsAt = e.targetCount = e.targetedAt = e.targetedCount = 0;
  return events_.size() - 1;
}

// ---- who hears it ------------------------------------------------------------------

bool World::allies(Handle a, Handle b) const {
  if (a == b)
    return true;
  if (shape().allegiance == kNoId)
    return false;
  Handle la = linkOf(a, shape().allegiance), lb = linkOf(b, shape().allegiance);
  return la != 0 && la == lb;
}

// Enemies point their allegiance at different actors; an actor pointing
// nowhere is neutral to all but itself.
bool World::enemies(Handle a, Handle b) const {
  if (a == b || shape().allegiance == kNoId)
    return false;
  Handle la = linkOf(a, shape().allegiance), lb = linkOf(b, shape().allegiance);
  return la != 0 && lb != 0 && la != lb;
}

bool World::related(pack::Who relation, Handle who, Handle holder) const {
  switch (relation) {
  case pack::Who::Anyone:
    return who != 0;
  case pack::Who::Enemies:
    return who != 0 && enemies(who, holder);
  case pack::Who::Allies:
    return who != 0 && allies(who, holder);
  case pack::Who::OtherAllies:
    return who != 0 && who != holder && allies(who, holder);
  case pack::Who::Others:
    return who != 0 && who != holder;
  default:
    return false;
  }
}

bool World::targeted(const Event &e, Handle actor) const {
  for (uint32_t k = 0; k < e.targetedCount; ++k)
    if (eventTargets_[e.targetedAt + k] == actor)
      return true;
  return false;
}

bool World::whoMatches(const pack::WhoClause &w, Handle who, Handle holder, uint32_t i) {
  switch (w.who) {
  case pack::Who::Unsaid:
    return true;
  case pack::Who::Holder:
    return who == holder;
  case pack::Who::Actor: {
    Frame f = frameFor(i, -1, 0);
    return runBody(w.body, f) == who;
  }
  default:
    return related(w.who, who, holder);
  }
}

// Whether some effect's rule of a phase may hear an event: one naming its
// kind, or a tag it carries. Most events (a cost paid, an activation) none
// may, and nothing more is looked at.
static bool someoneHears(Id kind, const Tags &tags, decided::Phase phase) {
  if (lp_kindHeard[phase * shape().eventCount + kind])
    return true;
  const uint64_t *heard = lp_tagsHeard + phase * tagWords();
  for (uint32_t w = 0; w < tagWords(); ++w)
    if (heard[w] & tags.w[w])
      return true;
  return false;
}

// The instances whose rules of a phase may hear an event: the subject's, the
// source's and the credit's, of the effects the compiler listed for its
// kind, each where its holder stands as its rules ask; in the order they
// went on. Pushed onto scratchIds_; answers how many. K: the event's kind
// where the code in hand knows it, so its list is a constant, as the phase
// always is.
template <Id K, decided::Phase phase> uint32_t World::candidatesOf(const Event &e) {
  Id kind = K == kAnyKind ? e.kind : K;
  if (!someoneHears(kind, e.tags, phase))
    return 0;
  uint32_t at = scratchIds_.size();
  uint32_t begin = lp_hearBegin[phase * shape().eventCount + kind];
  uint32_t end = lp_hearBegin[phase * shape().eventCount + kind + 1];
  const Handle who[3] = {e.subject, e.source, e.credit};
  uint8_t present = 0; // the roles an actor distinct from those before stands in
  for (int k = 0; k < 3; ++k)
    if (who[k] != 0 && !(k > 0 && who[k] == who[0]) && !(k > 1 && who[k] == who[1]) &&
        actor(who[k]))
      present |= uint8_t(1u << k);
  for (uint32_t h = begin; h < end; ++h) {
    const decided::Hearer &hearer = lp_hear[h];
    // Its tag rules hear the event if it carries one of their tags.
    bool tagsHeard = false;
    if (hearer.tagRoles) {
      const uint64_t *tags = lp_heardTags + (size_t(hearer.effect) * 2 + phase) * tagWords();
      for (uint32_t w = 0; w < tagWords(); ++w)
        tagsHeard |= (tags[w] & e.tags.w[w]) != 0;
    }
    uint8_t asks = uint8_t(hearer.kindRoles | (tagsHeard ? hearer.tagRoles : 0));
    if (!asks)
      continue;
    for (int k = 0; k < 3; ++k) {
      if (!(present >> k & 1))
        continue;
      Handle a = who[k];
      uint8_t roles = uint8_t((a == who[0] ? decided::kSubject : 0) |
                              (a == who[1] ? decided::kSource : 0) |
                              (a == who[2] ? decided::kCredit : 0));
      if (!(asks & roles))
        continue;
      for (uint32_t i = firstOf(indexOf(a), hearer.effect); i; i = inst(i - 1).nextSame)
        if (!inst(i - 1).ending)
          scratchIds_.push(i - 1);
    }
  }
  // In the order they went on: a short list, slid into place.
  uint32_t n = scratchIds_.size() - at;
  for (uint32_t x = at + 1; x < at + n; ++x)
    for (uint32_t y = x; y > at && inst(scratchIds_[y]).seq < inst(scratchIds_[y - 1]).seq; --y) {
      uint32_t swap = scratchIds_[y];
      scratchIds_[y] = scratchIds_[y - 1];
      scratchIds_[y - 1] = swap;
    }
  return n;
}

// prevent chain: every later event of its chain on the holder.
bool World::inPreventedChain(const Event &e) const {
  for (const PreventedChain &p : preventedChains_)
    if (p.chain == e.chain && p.holder == e.subject)
      return true;
  return false;
}

bool World::actedInChain(uint32_t rule, uint32_t i, uint32_t chain) const {
  for (const OnceActed &o : oncePerChain_)
    if (o.rule == rule && o.inst == i && o.chain == chain)
      return true;
  return false;
}

static bool hearsKind(const pack::Filter &f, const Event &e) {
  if (f.any)
    return true;
  if (f.event != kNoId && f.event != e.kind)
    return false;
  if (f.tag != kNoId && !((e.tags.w[f.tag / 64] >> (f.tag % 64)) & 1))
    return false;
  return true;
}

// The actor standing where the one hearer of a kind of event must (its
// rules' holder: the subject, the source or the credit), or 0.
Handle World::soleHolder(const Event &e, uint32_t rule) {
  const pack::Filter &f = lp_rules[rule].filter;
  Handle a = f.by.who == pack::Who::Holder         ? e.source
             : f.credited.who == pack::Who::Holder ? e.credit
                                                   : e.subject;
  return actor(a) ? a : 0;
}

// Its one instance of the sole hearer's effect, in hand, or kNone (none, or
// several, which the general dispatch orders).
uint32_t World::soleInstance(Handle holder, uint32_t rule) {
  uint32_t first = firstOf(indexOf(holder), lp_rules[rule].owner);
  if (!first || inst(first - 1).nextSame)
    return first && inst(first - 1).nextSame ? kNone - 1 : kNone;
  return inst(first - 1).ending ? kNone : first - 1;
}

// One before rule of an instance hears the event in hand: its filter read
// on the portions it names, its when, its steps. False once the event is
// prevented: no rule after it hears it.
bool World::hearBefore(uint32_t ei, uint32_t i, uint32_t ruleId) {
  if (ev(ei).prevented)
  return false;
  if (!inst(i).live)
  return true;
  const pack::Rule &rule = lp_rules[ruleId];
  if (rule.oncePerChain && !pricing_ && actedInChain(ruleId, i, ev(ei).chain))
  return true;
  Frame f = frameFor(i, ei, ev(ei).chain);
  if (rule.creditHolder) {
    f.roots[LEDGER_SLOT_CREDIT] = inst(i).holder;
    f.creditHolder = 1;
  }
  f.portions = ~0u;
  // A rule naming types hears the portions of those types alone.
  Event &e = ev(ei);
  bool narrowed = e.portionCount > 0 && (rule.filter.having || rule.filter.unless);
  Tags heard;
  clearTags(heard);
  if (narrowed) {
    uint32_t mask = 0;
    for (uint32_t p = 0; p < e.portionCount; ++p) {
      const Portion &mine = portions_[e.portionsAt + p];
      if (mine.gone)
        continue;
      Tags tb = mine.tags;
      addTags(tb, lp_tags[Id(BuiltinTag::Damage)].closure);
      for (uint32_t w = 0; w < tagWords(); ++w)
        tb.w[w] |= e.tags.w[w];
      for (uint32_t q = 0; q < e.portionCount; ++q)
        if (q != p)
          for (uint32_t w = 0; w < tagWords(); ++w)
            tb.w[w] &= ~portions_[e.portionsAt + q].tags.w[w] | mine.tags.w[w];
      if ((!rule.filter.having || carriesAll(tb, rule.filter.having)) &&
          (!rule.filter.unless || !carriesAny(tb, rule.filter.unless))) {
        mask |= 1u << p;
        for (uint32_t w = 0; w < tagWords(); ++w)
          heard.w[w] |= tb.w[w];
      }
    }
    if (mask == 0)
      return true;
    f.portions = mask;
    Tags swap = e.tags;
    e.tags = heard;
    heard = swap;
  }
  bool matches = runBody(rule.matchBody, f) != 0;
  if (narrowed)
    ev(ei).tags = heard;
  if (!matches)
    return true;
  bool counted = covering_ && (!pricing_ || billing_);
  if (counted)
    ++coverage_[LEDGER_COVER_HEARD][ruleId];
  if (rule.whenBody != kNoId && runBody(rule.whenBody, f) == 0)
    return true;
  if (rule.oncePerChain && !pricing_)
    oncePerChain_.push({ruleId, i, ev(ei).chain});
  uint64_t hand = counted ? handDigest(ev(ei)) : 0;
  runSteps(rule.steps, f);
  if (counted) {
    ++coverage_[LEDGER_COVER_FIRED][ruleId];
    coverage_[LEDGER_COVER_CHANGED][ruleId] += handDigest(ev(ei)) != hand;
  }
  return true;
}

template <Id K> void World::runBeforeOf(uint32_t ei) {
  Id kind = K == kAnyKind ? ev(ei).kind : K;
  // One rule hearing it, of one effect, in one role: its holder's instance
  // hears it, with nothing to gather or sort.
  if (Id sole = lp_soleRule[decided::kBefore * shape().eventCount + kind]; sole != kNoId) {
    if (!someoneHears(kind, ev(ei).tags, decided::kBefore) || !hearsKind(lp_rules[sole].filter, ev(ei)))
      return;
    Handle holder = soleHolder(ev(ei), sole);
    if (!holder)
      return;
    uint32_t i = soleInstance(holder, sole);
    if (i == kNone)
      return;
    if (i != kNone - 1) {
      hearBefore(ei, i, sole);
      return;
    }
  }
  uint32_t candAt = scratchIds_.size();
  uint32_t n = candidatesOf<K, decided::kBefore>(ev(ei));
  if (n == 0)
    return;
  // Each rule heard: stage, order key, seq, instance, rule, five words.
  uint32_t entriesAt = scratchHandles_.size();
  for (uint32_t c = 0; c < n; ++c) {
    uint32_t i = scratchIds_[candAt + c];
    if (!working(i))
      continue;
    const pack::Effect &ef = lp_effects[inst(i).effect];
    for (uint32_t r = 0; r < ef.ruleCount; ++r) {
      const pack::Rule &rule = lp_rules[ef.rulesBegin + r];
      if (rule.kind != pack::RuleKind::Before || !hearsKind(rule.filter, ev(ei)))
        continue;
      int64_t order = 0;
      if (ef.orderBody != kNoId) {
        Frame f = frameFor(i, ei, ev(ei).chain);
        order = runBody(ef.orderBody, f);
      }
      // Unstaged rules run before the first stage (docs/readings.md 60).
      int64_t entry[5] = {rule.stage == kNoId ? 0 : int64_t(rule.stage) + 1, order,
                          int64_t(inst(i).seq), int64_t(i), int64_t(ef.rulesBegin + r)};
      for (int64_t word : entry)
        scratchHandles_.push(word);
    }
  }
  scratchIds_.truncate(candAt);
  uint32_t count = (scratchHandles_.size() - entriesAt) / 5;
  int64_t *entries = scratchHandles_.data() + entriesAt;
  auto before = [](const int64_t *x, const int64_t *y) {
    for (int k = 0; k < 5; ++k)
      if (x[k] != y[k])
        return k == 2 ? uint64_t(x[k]) < uint64_t(y[k]) : x[k] < y[k];
    return false;
  };
  for (uint32_t x = 1; x < count; ++x)
    for (uint32_t y = x; y > 0 && before(entries + 5 * y, entries + 5 * (y - 1)); --y)
      for (int k = 0; k < 5; ++k) {
        int64_t swap = entries[5 * y + k];
        entries[5 * y + k] = entries[5 * (y - 1) + k];
        entries[5 * (y - 1) + k] = swap;
      }
  for (uint32_t k = 0; k < count; ++k) {
    const int64_t *entry = scratchHandles_.data() + entriesAt + 5 * k;
    if (!hearBefore(ei, uint32_t(entry[3]), uint32_t(entry[4])))
      break;
  }
  scratchHandles_.truncate(entriesAt);
}

// What a before rule may change of the event in hand, as one number.
uint64_t World::handDigest(const Event &e) const {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
  for (uint64_t v : {uint64_t(e.amount), uint64_t(e.prevented), uint64_t(e.subject),
                     uint64_t(e.pool), uint64_t(0), uint64_t(kNoId), uint64_t(e.stacks),
                     uint64_t(e.life.time), uint64_t(e.life.turns), uint64_t(e.life.count),
                     uint64_t(e.portionCount), uint64_t(0)})
    mix(v);
  for (uint32_t w = 0; w < kMaxTagWords; ++w)
    mix(w < tagWords() ? e.tags.w[w] : 0);
  for (uint32_t p = 0; p < e.portionCount; ++p) {
    const Portion &portion = portions_[e.portionsAt + p];
    mix(uint64_t(portion.amount));
    mix(portion.gone);
    for (uint32_t w = 0; w < kMaxTagWords; ++w)
      mix(w < tagWords() ? portion.tags.w[w] : 0);
  }
  return h;
}

// Death: a pool at its least, where a dies its holder holds hears it.
void World::dieOrFall(uint32_t ei) {
  Handle a = ev(ei).subject;
  Id pool = ev(ei).pool;
  if (!alive(a))
    return;
  for (uint32_t h = row(indexOf(a)).firstHeld; h; h = inst(h - 1).nextHeld) {
    uint32_t i = h - 1;
    const pack::Effect &ef = lp_effects[inst(i).effect];
    if (ef.diesPool != pool || !working(i))
      continue;
    if (ef.diesEvent != kNoId) {
      uint32_t queued = jobs_.size();
      uint32_t d = newEvent(ef.diesEvent, a, ev(ei).source, ev(ei).credit, ev(ei).chain);
      raiseEvent(d);
      if (jobs_.size() == queued) {
        destroyActor(a, ev(ei).chain);
        return;
      }
      jobs_.push({0, a, 0, d});
    } else {
      destroyActor(a, ev(ei).chain);
    }
    return;
  }
}

// A change lands on its pool, the pool the code in hand knows: moved
// within its bounds, and the Depleted or Filled it reaches noted; a hit that
// would leave it at its least where a death hears it and something prevents
// death lands one above, and that effect ends Spent.
void World::landChange(uint32_t ei, Id pool) {
  Handle a = ev(ei).subject;
    int64_t least = poolLeast(a, pool);
    PoolBounds bounds = landOnPool(ev(ei), a, pool);
    Event &landed = ev(ei);
    bool isSet = carriesAll(landed.tags, lp_tags[Id(BuiltinTag::Set)].closure);
    // prevents death: a hit that would leave the pool at its least, where a
    // death hears that pool, lands one above it, and the effect ends Spent.
    if (landed.after <= least && landed.before > least && !isSet) {
      bool deathHears = false;
      uint32_t preventer = kNone;
      for (uint32_t h = row(indexOf(a)).firstHeld; h; h = inst(h - 1).nextHeld) {
        uint32_t i = h - 1;
        const pack::Effect &ef = lp_effects[inst(i).effect];
        deathHears |= ef.diesPool == pool && working(i);
        if (ef.preventsDeath && working(i) && !inst(i).ending && preventer == kNone)
          preventer = i;
      }
      if (deathHears && preventer != kNone && !actor(a)->fallen) {
        PoolSlot &slot = poolSlot(indexOf(a), pool);
        slot.amount = clampPool(a, pool, least + kOne);
        Event &held = ev(ei);
        held.after = poolSlot(indexOf(a), pool).amount;
        held.landed = held.before - held.after;
        ++epoch_;
        endInstance(preventer, Id(BuiltinTag::EndSpent), held.chain);
        return;
      }
    }
    Event &done = ev(ei);
    if (done.after <= least && done.before > least) {
      done.reached = Id(BuiltinEvent::Depleted);
      for (uint32_t k = boundWatchAt_; k < boundWatch_.size(); ++k)
        if (boundWatch_[k].actor == a && boundWatch_[k].pool == pool)
          boundWatch_[k].aboveLeast = false;
    } else {
      int64_t most = maxSteadyOnLanding(pool) ? bounds.most : poolMost(a, pool);
      if (most != INT64_MAX && done.after >= most && done.before < most)
        ev(ei).reached = Id(BuiltinEvent::Filled);
    }
}

template <Id K> void World::landOf(uint32_t ei) {
  Event &e = ev(ei);
  switch (BuiltinEvent(K == kAnyKind ? e.kind : K)) {
  case BuiltinEvent::Change: {
    if (!actor(e.subject) || !hasPool(e.subject, e.pool)) {
      e.refusal = Refusal::NoPool;
      return;
    }
    if (!alive(e.subject)) {
      e.refusal = Refusal::Gone;
      return;
    }
    // Its pool's own landing, made for that pool: its bounds, drift and
    // crossings as the catalog gives them.
    reinterpret_cast<void (*)(World *, uint32_t)>(lp_landChange[e.pool])(this, ei);
    return;
  }
  case BuiltinEvent::Apply:
    if (!alive(e.subject)) {
      e.refusal = Refusal::Gone;
      return;
    }
    if (e.stacks == 0 || (e.stacks < 0 && !lp_effects[e.effect].stack.isSigned)) {
      e.refusal = Refusal::NothingToApply;
      return;
    }
    install(e, ei);
    if (covering_ && ev(ei).refusal == Refusal::None)
      ++coverage_[LEDGER_COVER_APPLIED][ev(ei).effect];
    return;
  default:
    // A content event of an actor destroyed is refused as a change to it is
    // (docs/readings.md 125).
    if (e.kind >= Id(BuiltinEvent::Count) && e.subject != 0 && !alive(e.subject)) {
      e.refusal = Refusal::Gone;
      return;
    }
    if (e.kind == shape().turnEvent && e.kind != kNoId)
      turnTaken(e.subject, e.chain);
    return;
  }
}

// An after rule of an instance hears the event: queued, its filter matched.
void World::hearAfter(uint32_t ei, uint32_t i, uint32_t ruleId) {
  const pack::Rule &rule = lp_rules[ruleId];
  if (!hearsKind(rule.filter, ev(ei)))
    return;
  Frame f = frameFor(i, ei, ev(ei).chain);
  if (runBody(rule.matchBody, f) == 0)
    return;
  if (covering_)
    ++coverage_[LEDGER_COVER_HEARD][ruleId];
  jobs_.push({instanceHandle(i), 0, ruleId, ei});
}

template <Id K> void World::queueAfterOf(uint32_t ei) {
  Id kind = K == kAnyKind ? ev(ei).kind : K;
  if (Id sole = lp_soleRule[decided::kAfter * shape().eventCount + kind]; sole != kNoId) {
    if (!someoneHears(kind, ev(ei).tags, decided::kAfter))
      return;
    Handle holder = soleHolder(ev(ei), sole);
    if (!holder)
      return;
    uint32_t i = soleInstance(holder, sole);
    if (i == kNone)
      return;
    if (i != kNone - 1) {
      if (inst(i).live)
        hearAfter(ei, i, sole);
      return;
    }
  }
  uint32_t candAt = scratchIds_.size();
  uint32_t n = candidatesOf<K, decided::kAfter>(ev(ei));
  for (uint32_t c = 0; c < n; ++c) {
    uint32_t i = scratchIds_[candAt + c];
    if (!inst(i).live || !working(i))
      continue;
    const pack::Effect &ef = lp_effects[inst(i).effect];
    for (uint32_t r = 0; r < ef.ruleCount; ++r) {
      pack::RuleKind k = lp_rules[ef.rulesBegin + r].kind;
      if (k == pack::RuleKind::After || k == pack::RuleKind::EndsOn || k == pack::RuleKind::Each)
        hearAfter(ei, i, ef.rulesBegin + r);
    }
  }
  scratchIds_.truncate(candAt);
}

void World::runJob(const Job &job) {
  if (job.instance == 0) {
    destroyActor(job.actor, ev(job.event).chain);
    return;
  }
  InstHead *in = instance(job.instance);
  if (!in)
    return;
  uint32_t i = indexOf(job.instance);
  if (!working(i) || !alive(in->holder))
    return;
  const pack::Rule &rule = lp_rules[job.rule];
  uint32_t chain = ev(job.event).chain;
  if (rule.oncePerChain && actedInChain(job.rule, i, chain))
    return;
  Frame f = frameFor(i, job.event, chain);
  if (rule.creditHolder)
    f.roots[LEDGER_SLOT_CREDIT] = inst(i).holder;
  if (rule.whenBody != kNoId && runBody(rule.whenBody, f) == 0)
    return;
  if (rule.oncePerChain)
    oncePerChain_.push({job.rule, i, chain});
  uint64_t journaled = journalCount_;
  switch (rule.kind) {
  case pack::RuleKind::After:
    runRule(job.rule, f);
    return;
  case pack::RuleKind::EndsOn:
    endInstance(i, Id(BuiltinTag::EndBroken), chain, Taking::Stoppable);
    break;
  case pack::RuleKind::Each: {
    int64_t spent = runBody(rule.countBody, f);
    if (spent > 0)
      takeStacks(i, spent, Id(BuiltinTag::EndSpent), chain, Taking::Stoppable);
    break;
  }
  default:
    break;
  }
  if (covering_) {
    ++coverage_[LEDGER_COVER_FIRED][job.rule];
    coverage_[LEDGER_COVER_CHANGED][job.rule] += journalCount_ != journaled;
  }
}

// Lifetimes counted in events: each matching event lands one off.
void World::countDown(uint32_t ei) {
  if (counting_ == 0)
    return;
  uint32_t at = scratchIds_.size();
  const Handle who[3] = {ev(ei).subject, ev(ei).source, ev(ei).credit};
  for (int k = 0; k < 3; ++k) {
    Handle a = who[k];
    if (a == 0 || (k > 0 && a == who[0]) || (k > 1 && a == who[1]) || !actor(a))
      continue;
    for (uint32_t h = row(indexOf(a)).firstHeld; h; h = inst(h - 1).nextHeld)
      if (!inst(h - 1).ending && inst(h - 1).countLeft >= 0)
        scratchIds_.push(h - 1);
  }
  uint32_t n = scratchIds_.size() - at;
  for (uint32_t x = at + 1; x < at + n; ++x)
    for (uint32_t y = x; y > at && inst(scratchIds_[y]).seq < inst(scratchIds_[y - 1]).seq; --y) {
      uint32_t swap = scratchIds_[y];
      scratchIds_[y] = scratchIds_[y - 1];
      scratchIds_[y - 1] = swap;
    }
  for (uint32_t c = 0; c < n; ++c) {
    uint32_t i = scratchIds_[at + c];
    if (!inst(i).live || inst(i).countLeft <= 0)
      continue;
    const InstHead &in = inst(i);
    const pack::Effect &ef = lp_effects[in.effect];
    const Event &e = ev(ei);
    bool counts;
    if (in.countEvent != kNoId)
      counts = e.kind == in.countEvent && e.subject == in.holder && !e.prevented;
    else if (in.countTag != kNoId)
      counts = hasTag(e.tags, in.countTag) && e.subject == in.holder && !e.prevented;
    else if (ef.lasts.kind == pack::LastsKind::Count && hearsKind(ef.lasts.countFilter, e)) {
      Frame f = frameFor(i, ei, e.chain);
      counts = runBody(ef.lasts.countMatchBody, f) != 0;
    } else
      counts = false;
    if (ev(ei).kind == Id(BuiltinEvent::Apply) && ev(ei).instance == instanceHandle(i))
      counts = false; // its own Apply doesn't count
    if (!counts)
      continue;
    if (--inst(i).countLeft == 0)
      endInstance(i, Id(BuiltinTag::EndExpired), ev(ei).chain);
  }
  scratchIds_.truncate(at);
}

void World::turnTaken(Handle a, uint32_t chain) {
  if (!alive(a))
    return;
  uint32_t at = scratchIds_.size();
  for (uint32_t h = row(indexOf(a)).firstHeld; h; h = inst(h - 1).nextHeld) {
    InstHead &in = inst(h - 1);
    if (in.turnsLeft > 0 && --in.turnsLeft == 0)
      scratchIds_.push(h - 1);
  }
  uint32_t n = scratchIds_.size() - at;
  for (uint32_t k = 0; k < n; ++k)
    endInstance(scratchIds_[at + k], Id(BuiltinTag::EndExpired), chain);
  scratchIds_.truncate(at);
}

// The Depleted or Filled a change's landing set off, and the death hearing it.
void World::raiseReached(uint32_t ei) {
  uint32_t d = newEvent(ev(ei).reached, ev(ei).subject, ev(ei).source, ev(ei).credit,
                        ev(ei).chain);
  ev(d).pool = ev(ei).pool;
  if (raiseEvent(d) == Refusal::None && ev(d).kind == Id(BuiltinEvent::Depleted))
    dieOrFall(d);
}

// An event counted against its chain's budget, where the count isn't in
// hand: the chain's first, one past its budget, or one nested as deep as
// the host's thread's stack holds; false: the chain is past its budget, and
// the world has ended it.
bool World::countPastBudget(uint32_t at) {
  if (at >= chainCounts_.size())
    chainCounts_.resize(at + 1, 0);
  if (chainCounts_[at] <= kChainBudget &&
      rt::stackRunningOut(__builtin_frame_address(0), host_->stackLow)) {
    static const char words[] =
        "a chain nested deeper than the host thread's stack holds, and the world ended it";
    fault(Refusal::ChainBudget, words, sizeof words - 1, rulesName_);
    chainCounts_[at] = kChainBudget + 1;
    return false;
  }
  if (++chainCounts_[at] > kChainBudget) {
    if (chainCounts_[at] == kChainBudget + 1) {
      static const char words[] = "a chain raised more than 1000 events, and the world ended it";
      static_assert(kChainBudget == 1000);
      fault(Refusal::ChainBudget, words, sizeof words - 1, rulesName_);
    }
    return false;
  }
  return true;
}

// A repeat's runs counted against its chain's budget: as many as are left.
int64_t World::apiRepeat(Frame &f, int64_t times) {
  uint32_t at = f.chain >= chainBase_ ? f.chain - chainBase_ : 0;
  if (at >= chainRepeats_.size())
    chainRepeats_.resize(at + 1, 0);
  uint32_t &ran = chainRepeats_[at];
  int64_t left = int64_t(LEDGER_REPEAT_BUDGET) - int64_t(ran < LEDGER_REPEAT_BUDGET ? ran : LEDGER_REPEAT_BUDGET);
  if (times <= left) {
    ran += uint32_t(times);
    return times;
  }
  if (ran <= LEDGER_REPEAT_BUDGET) {
    static const char words[] =
        "a chain repeated steps more than 2000000 times, and the world ended its repeats";
    static_assert(LEDGER_REPEAT_BUDGET == 2000000);
    fault(Refusal::ChainBudget, words, sizeof words - 1, rulesName_);
  }
  ran = LEDGER_REPEAT_BUDGET + 1;
  return left;
}

// One event through the pipeline: changed by before rules, landed,
// journaled, its after rules queued; made once for each kind the world
// raises itself, its hearers and its landing known where it is made.
template <Id K> Refusal World::raiseOf(uint32_t ei) {
  bool counted = K == Id(BuiltinEvent::Remove) && ev(ei).beforeHeard;
  if (!counted && !withinBudget(ei))
    return Refusal::ChainBudget;
  ev(ei).sent = ev(ei).amount;
  if (!preventedChains_.empty() && inPreventedChain(ev(ei)))
    return Refusal::Prevented;
  if (!ev(ei).beforeHeard) {
    runBeforeOf<K>(ei);
    // A Remove raised once its instance has come off whatever a rule says:
    // what its before rules did to it changes nothing (docs/readings.md 142).
    if (ev(ei).kind == Id(BuiltinEvent::Remove)) {
      Event &forced = ev(ei);
      forced.prevented = 0;
      forced.amount = forced.stacks = forced.sent;
    }
  }
  if (ev(ei).prevented) {
    journalEvent(ev(ei));
    queueAfterOf<K>(ei);
    countDown(ei);
    return Refusal::Prevented;
  }
  landOf<K>(ei);
  if (ev(ei).refusal != Refusal::None)
    return ev(ei).refusal;
  journalEvent(ev(ei));
  queueAfterOf<K>(ei);
  countDown(ei);
  if (K == Id(BuiltinEvent::Apply) || (K == kAnyKind && ev(ei).kind == Id(BuiltinEvent::Apply)))
    runStart(ei);
  if (ev(ei).reached != kNoId) {
    if (deferReached_)
      reachedLater_.push(ei);
    else
      raiseReached(ei);
  }
  if (boundWatchAt_ < boundWatch_.size())
    reachBounds(ev(ei).source, ev(ei).credit, ev(ei).chain);
  return Refusal::None;
}

#define X(Kind) template Refusal World::raiseOf<Id(BuiltinEvent::Kind)>(uint32_t);
LEDGER_BUILTIN_KINDS(X)
#undef X

Refusal World::raiseEvent(uint32_t ei) {
  switch (ev(ei).kind) {
#define X(Kind)                                                                                    \
  case Id(BuiltinEvent::Kind):                                                                     \
    return raiseOf<Id(BuiltinEvent::Kind)>(ei);
    LEDGER_BUILTIN_KINDS(X)
#undef X
  default:
    return raiseOf<kAnyKind>(ei);
  }
}

void World::runBefore(uint32_t ei) {
  switch (ev(ei).kind) {
#define X(Kind)                                                                                    \
  case Id(BuiltinEvent::Kind):                                                                     \
    return runBeforeOf<Id(BuiltinEvent::Kind)>(ei);
    LEDGER_BUILTIN_KINDS(X)
#undef X
  default:
    return runBeforeOf<kAnyKind>(ei);
  }
}

} // namespace ledger::cw
