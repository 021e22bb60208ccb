// The world's state and the host's reads: handles, making actors, the
// journal, and the C API the pack's bodies call back through.
#include "kernel.h"

#include "number.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <type_traits>

namespace ledger::rt {

using pack::kNoId;

namespace {
Kernel::Frame &frameOf(LedgerFrame *f) { return *static_cast<Kernel::Frame *>(f->kernel); }

int64_t apiRead(LedgerFrame *f, uint32_t id, const int64_t *args) {
  return frameOf(f).world->apiRead(frameOf(f), id, args);
}
int32_t apiStep(LedgerFrame *f, uint32_t id, const int64_t *args) {
  return frameOf(f).world->apiStep(frameOf(f), id, args);
}
int64_t apiListOpen(LedgerFrame *f, uint32_t id, const int64_t *args) {
  return frameOf(f).world->apiListOpen(frameOf(f), id, args);
}
int64_t apiListItem(LedgerFrame *f, int64_t i) { return frameOf(f).world->apiListItem(frameOf(f), i); }
void apiListClose(LedgerFrame *f) { frameOf(f).world->apiListClose(frameOf(f)); }
int64_t apiMath(LedgerFrame *f, uint32_t op, int64_t a, int64_t b) {
  NumberFault fault = NumberFault::None;
  int64_t r = op == LEDGER_MATH_POW ? pow(a, int(b), fault) : root(a, int(b), fault);
  if (fault != NumberFault::None)
    frameOf(f).world->apiFault(frameOf(f), uint32_t(fault));
  return r;
}
void apiFault(LedgerFrame *f, uint32_t code) { frameOf(f).world->apiFault(frameOf(f), code); }
int64_t apiRepeat(LedgerFrame *f, int64_t times) { return frameOf(f).world->apiRepeat(frameOf(f), times); }
} // namespace

const LedgerKernelApi Kernel::kApi = {&rt::apiRead,      &rt::apiStep, &rt::apiListOpen,
                                     &rt::apiListItem,  &rt::apiListClose, &apiMath,
                                     &rt::apiFault,     &rt::apiRepeat};

Kernel::Kernel(const Pack &pack, uint64_t seed)
    : pack_(&pack), t_(&pack.tables()), ix_(&pack.index()), seed_(seed),
      tickTime_(t_->unitsPerTick * kOne), journal_(t_->tagWords) {
  valueCount_ = uint32_t(t_->values.size());
  globals_.assign(t_->links.size(), 0);
  scratchVars_.assign(ix_->mostVars, 0);
  anyActorVars_ = std::any_of(t_->vars.begin(), t_->vars.end(),
                              [](const pack::Var &v) { return v.kind == pack::VarKind::Actor; });
}

Kernel::Instance *Kernel::instance(Handle h) {
  uint32_t i = indexOf(h);
  if (h == 0 || i >= insts_.size() || insts_[i].gen != genOf(h) || !insts_[i].live)
    return nullptr;
  return &insts_[i];
}
const Kernel::Instance *Kernel::instance(Handle h) const {
  return const_cast<Kernel *>(this)->instance(h);
}

bool Kernel::exists(Handle h) const { return actor(h) != nullptr; }

// Counting from what was counted so far (a play's run before a rewind).
void Kernel::countCoverage(Coverage counted) {
  auto fit = [](std::vector<uint64_t> &v, size_t n) { v.resize(n, 0); };
  fit(counted.heard, t_->rules.size());
  fit(counted.fired, t_->rules.size());
  fit(counted.changed, t_->rules.size());
  fit(counted.applied, t_->effects.size());
  fit(counted.used, t_->abilities.size());
  fit(counted.refused, t_->abilities.size());
  fit(counted.made, t_->archetypes.size());
  coverage_ = std::move(counted);
  covering_ = true;
}

uint64_t Kernel::handDigest(const Event &e) const {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
  for (uint64_t v : {uint64_t(e.amount), uint64_t(e.prevented), uint64_t(e.subject),
                     uint64_t(e.pool), uint64_t(e.redirectTo), uint64_t(e.redirectPool),
                     uint64_t(e.stacks), uint64_t(e.life.time), uint64_t(e.life.turns),
                     uint64_t(e.life.count), uint64_t(e.portionCount), uint64_t(e.propCount)})
    mix(v);
  for (uint64_t w : e.tags.w)
    mix(w);
  for (uint32_t p = 0; p < e.portionCount; ++p) {
    mix(uint64_t(e.portions[p].amount));
    mix(e.portions[p].gone);
    for (uint64_t w : e.portions[p].tags.w)
      mix(w);
  }
  for (uint32_t p = 0; p < e.propCount; ++p) {
    mix(e.props[p].first);
    mix(uint64_t(e.props[p].second));
  }
  return h;
}

int32_t Kernel::runRule(uint32_t rule, Frame &f) {
  uint64_t journaled = journal_.count();
  int32_t r = runSteps(t_->rules[rule].steps, f);
  if (covering_) {
    ++coverage_.fired[rule];
    coverage_.changed[rule] += journal_.count() != journaled;
  }
  return r;
}

std::vector<Handle> Kernel::living() const {
  std::vector<Handle> out;
  for (uint32_t ai = 0; ai < actors_.size(); ++ai)
    if (actors_[ai].live)
      out.push_back(handle(ai, actors_[ai].gen));
  return out;
}

std::string Kernel::handleName(Handle h) const {
  if (h == 0)
    return "none";
  const Actor *a = actor(h);
  std::string arch = a && a->archetype != kNoId ? std::string(t_->name(t_->archetypes[a->archetype].name))
                                               : "actor";
  return arch + "#" + std::to_string(indexOf(h) + 1);
}

Handle Kernel::make(Id archetype, const std::vector<std::pair<Id, Handle>> &links) {
  // An archetype or a link its pack lacks makes no one (docs/readings.md 134).
  if (archetype >= t_->archetypes.size())
    return 0;
  for (auto [l, to] : links)
    if (l >= t_->links.size())
      return 0;
  beginMoment();
  Given withs;
  for (auto [l, to] : links)
    withs.values.push_back({l | pack::kWithLink, to});
  Handle h = makeActor(archetype, 0, withs, ++chains_);
  endMoment();
  return h;
}

// ---- actor slots ---------------------------------------------------------------------

// From the first destroy on, what refers to each actor is counted: the
// world as it stands, counted whole once.
void Kernel::countRefs() {
  countingRefs_ = true;
  actorRefs_.assign(actors_.size(), 0);
  for (uint32_t i = 0; i < insts_.size(); ++i)
    if (insts_[i].live)
      referInstance(i);
  size_t links = t_->links.size();
  for (uint32_t ai = 0; ai < actors_.size(); ++ai)
    if (actors_[ai].live)
      for (size_t l = 0; l < links; ++l)
        refer(links_[ai * links + l]);
  for (Handle g : globals_)
    refer(g);
}

// A live instance refers to its source and credit, and to whom its actor
// vars and link overrides name. Its holder needs no count: destroying the
// holder ends what it holds in the same moment, before its slot is let go.
void Kernel::referInstance(uint32_t inst) {
  const Instance &in = insts_[inst];
  if (in.source != in.holder)
    refer(in.source);
  if (in.credit != in.holder && in.credit != in.source)
    refer(in.credit);
  const pack::Effect &ef = t_->effects[in.effect];
  for (uint32_t o = 0; o < ef.overrideCount; ++o)
    refer(captured_[in.capturedAt + ef.modifierCount + o]);
  if (!anyActorVars_)
    return;
  varRefs_.resize(vars_.size(), 0);
  for (uint32_t v = 0; v < ef.varCount; ++v)
    if (t_->vars[ef.varsBegin + v].kind == pack::VarKind::Actor) {
      varRefs_[in.varsAt + v] = vars_[in.varsAt + v];
      refer(varRefs_[in.varsAt + v]);
    }
}

void Kernel::unreferInstance(uint32_t inst) {
  const Instance &in = insts_[inst];
  if (in.source != in.holder)
    unrefer(in.source);
  if (in.credit != in.holder && in.credit != in.source)
    unrefer(in.credit);
  const pack::Effect &ef = t_->effects[in.effect];
  for (uint32_t o = 0; o < ef.overrideCount; ++o)
    unrefer(captured_[in.capturedAt + ef.modifierCount + o]);
  if (!anyActorVars_)
    return;
  for (uint32_t v = 0; v < ef.varCount; ++v)
    if (t_->vars[ef.varsBegin + v].kind == pack::VarKind::Actor)
      unrefer(varRefs_[in.varsAt + v]);
}

// Steps set an instance's actor var: it refers to whom it names now.
void Kernel::recountVars(uint32_t inst) {
  const Instance &in = insts_[inst];
  const pack::Effect &ef = t_->effects[in.effect];
  for (uint32_t v = 0; v < ef.varCount; ++v) {
    Handle &counted = varRefs_[in.varsAt + v];
    Handle now = vars_[in.varsAt + v];
    if (t_->vars[ef.varsBegin + v].kind == pack::VarKind::Actor && counted != now) {
      refer(now);
      unrefer(counted);
      counted = now;
    }
  }
}

// As the moment ends: the slots it left destroyed with nothing referring to
// them are free for a make.
void Kernel::releaseSlots() {
  slotListed_.resize(actors_.size(), 0);
  for (uint32_t ai : releasing_)
    if (!actors_[ai].live && actorRefs_[ai] == 0 && !slotListed_[ai]) {
      slotListed_[ai] = 1;
      freeSlots_.push_back(ai);
      std::push_heap(freeSlots_.begin(), freeSlots_.end(), std::greater<>());
    }
  releasing_.clear();
}

// The lowest free slot, kNoSlot where there is none; one referred to again
// since it was freed (a ghost applying, an actor var set to it) waits until
// nothing does.
uint32_t Kernel::takeFreeSlot() {
  while (!freeSlots_.empty()) {
    std::pop_heap(freeSlots_.begin(), freeSlots_.end(), std::greater<>());
    uint32_t ai = freeSlots_.back();
    freeSlots_.pop_back();
    slotListed_[ai] = 0;
    if (!actors_[ai].live && actorRefs_[ai] == 0)
      return ai;
  }
  return kNoSlot;
}

// What named a slot's last actor by its index, let go as another takes the
// slot: its place among the readers and the autos, its autos' ticks. Its
// generation moves on, so every handle to it reads as no actor.
void Kernel::forgetSlot(uint32_t ai) {
  auto drop = [&](std::vector<uint32_t> &list) {
    list.erase(std::remove(list.begin(), list.end(), ai), list.end());
  };
  drop(worldReaders_);
  drop(countReaders_);
  drop(globalReaders_);
  if (ai < touchedMark_.size())
    touchedMark_[ai] = 0;
  if (ai < autoState_.size()) {
    drop(autoAwake_);
    drop(clauseWaiters_);
    drop(valueWaiters_);
    auto later = [&](uint32_t x, uint32_t y) { return autoRank_[x] > autoRank_[y]; };
    drop(autoPass_);
    std::make_heap(autoPass_.begin(), autoPass_.end(), later);
    autoState_[ai] = kNotAuto;
    autoScanAll_[ai] = 1;
    autoHints_[ai].clear();
    autoListed_[ai] = 0;
    // Those after it in the order they came to hold autos move up one: the
    // order among them stands.
    auto at = std::find(autoActors_.begin(), autoActors_.end(), handle(ai, actors_[ai].gen));
    if (at != autoActors_.end()) {
      uint32_t rank = uint32_t(at - autoActors_.begin());
      autoActors_.erase(at);
      for (uint32_t p = rank; p < autoActors_.size(); ++p)
        if (actor(autoActors_[p]))
          autoRank_[indexOf(autoActors_[p])] = p;
      if (passRank_ != kNoPass && passRank_ > rank)
        --passRank_;
    }
  }
  auto fired = std::lower_bound(autoFired_.begin(), autoFired_.end(),
                                std::pair{uint64_t(ai) << 32, INT64_MIN});
  auto past = std::lower_bound(fired, autoFired_.end(), std::pair{uint64_t(ai + 1) << 32, INT64_MIN});
  autoFired_.erase(fired, past);
}

// A save holds no counts: they are counted again, and the slots free then
// are free again, where any actor was destroyed.
void Kernel::listSlotsFromSave() {
  if (std::all_of(actors_.begin(), actors_.end(), [](const Actor &a) { return a.live; }))
    return;
  countRefs();
  for (uint32_t ai = 0; ai < actors_.size(); ++ai)
    if (!actors_[ai].live && actorRefs_[ai] == 0)
      releasing_.push_back(ai);
  releaseSlots();
}

Handle Kernel::linkOf(Handle a, Id link) const {
  if (t_->links[link].global)
    return globals_[link];
  const Actor *ac = actor(a);
  if (!ac)
    return 0;
  size_t i = size_t(indexOf(a)) * t_->links.size() + link;
  // The newest working override, if any holds the link.
  if (overridden_[i] != 0) {
    const auto &list = held_[indexOf(a)];
    for (auto it = list.rbegin(); it != list.rend(); ++it) {
      if (!working(*it))
        continue;
      const Instance &in = insts_[*it];
      const pack::Effect &e = t_->effects[in.effect];
      for (uint32_t k = 0; k < e.overrideCount; ++k)
        if (t_->linkOverrides[e.overridesBegin + k].link == link)
          return captured_[in.capturedAt + e.modifierCount + k];
    }
  }
  return links_[i];
}

void Kernel::keepFrom(const Kernel &replaced) {
  size_t actors = std::min(actors_.size(), replaced.actors_.size());
  for (size_t a = 0; a < actors; ++a) {
    // One destroyed since keeps its pools as a ghost does: they carry over.
    if (actors_[a].gen != replaced.actors_[a].gen)
      continue;
    for (Id p = 0; p < valueCount_; ++p) {
      size_t i = a * valueCount_ + p;
      if (!t_->values[p].kept || !hasPool_[i] || !replaced.hasPool_[i])
        continue;
      pools_[i] = replaced.pools_[i];
      poolAt_[i] = replaced.poolAt_[i];
      poolMax_[i] = replaced.poolMax_[i];
      ++actors_[a].epoch;
    }
  }
  ++epoch_;
}

int64_t Kernel::countOf(Id archetype) const {
  int64_t n = 0;
  for (const Actor &a : actors_)
    n += a.live && a.archetype == archetype;
  return n;
}

bool Kernel::hasPool(Handle a, Id pool) const {
  const Actor *ac = actor(a);
  return ac && pool < valueCount_ && hasPool_[size_t(indexOf(a)) * valueCount_ + pool];
}

bool Kernel::holds(Handle a, Id effect) const {
  if (!alive(a))
    return false;
  for (uint32_t i : held_[indexOf(a)])
    if (insts_[i].effect == effect)
      return true;
  return false;
}

int64_t Kernel::stacksOf(Handle a, Id effect, Handle from) const {
  if (!alive(a))
    return 0;
  int64_t total = 0;
  for (uint32_t i : held_[indexOf(a)])
    if (insts_[i].effect == effect && (from == 0 || insts_[i].source == from))
      total += insts_[i].stacks;
  return total;
}

int64_t Kernel::remainingOf(Handle a, Id effect, DurationUnit unit, Id event, Id tag) const {
  if (!alive(a))
    return 0;
  const Instance *newest = nullptr;
  for (uint32_t i : held_[indexOf(a)])
    if (insts_[i].effect == effect)
      newest = &insts_[i];
  if (!newest)
    return 0;
  switch (unit) {
  case DurationUnit::Turns:
    return newest->turnsLeft < 0 ? -1 : newest->turnsLeft;
  case DurationUnit::Count:
    if ((event != kNoId || tag != kNoId) &&
        !countsNamed(newest->countEvent, newest->countTag, newest->effect, event, tag))
      return -1;
    return newest->countLeft < 0 ? -1 : newest->countLeft;
  default:
    return worldTimeLeft(*newest);
  }
}

// The world's time until an instance expires, its clock's rate as it
// stands, as a cast bar draws "the world's time left"; -1 where it doesn't,
// its lifetime endless or its clock stopped.
int64_t Kernel::worldTimeLeft(const Instance &in) const {
  if (in.expiresAt < 0)
    return -1;
  int64_t due = worldDue(in.holder, in.clock, in.expiresAt);
  return due == INT64_MAX ? -1 : std::max<int64_t>(0, due - worldTime());
}

void Kernel::fault(Refusal reason, const std::string &text) {
  journal_.fault(now_, std::string(refusalName(reason)) + (text.empty() ? "" : ": " + text));
}

// ---- the kernel's C API ------------------------------------------------------------

void Kernel::apiFault(Frame &, uint32_t code) { journalFault(NumberFault(code)); }

void Kernel::journalFault(NumberFault fault) {
  static const char *words[] = {"", "a number past what a number holds", "a division by zero",
                                "an even root below zero", "a power that is no whole 1 to 9"};
  uint32_t code = uint32_t(fault);
  journal_.fault(now_, std::string("Number: ") + (code < 5 ? words[code] : "a fault"));
}

int64_t Kernel::apiListOpen(Frame &f, uint32_t queryId, const int64_t *args) {
  const pack::Query &q = t_->queries[queryId];
  listStarts_.push_back(lists_.size());
  PendingList pending;
  if (talliedBySide(q)) {
    pending.query = queryId;
    for (uint32_t k = 0; k < uint32_t(q.hasCount) + uint32_t(q.hasOf); ++k)
      pending.args[k] = args[k];
    listPending_.push_back(pending);
    return countBySide(f, queryId, args);
  }
  listPending_.push_back(pending);
  return appendFound(f, q, args);
}

// What a query finds, onto the innermost list; how many.
int64_t Kernel::appendFound(Frame &f, const pack::Query &q, const int64_t *args) {
  Scratch<int64_t> found(scratchHandles_); // no allocation per query
  query(f, q, args, *found);
  lists_.insert(lists_.end(), found->begin(), found->end());
  return int64_t(found->size());
}

int64_t Kernel::apiListItem(Frame &f, int64_t index) {
  if (PendingList pending = listPending_.back(); pending.query != UINT32_MAX) {
    appendFound(f, t_->queries[pending.query], pending.args);
    listPending_.back().query = UINT32_MAX;
  }
  size_t start = listStarts_.back();
  size_t at = start + size_t(index);
  return at < lists_.size() ? lists_[at] : 0;
}

void Kernel::apiListClose(Frame &) {
  lists_.resize(listStarts_.back());
  listStarts_.pop_back();
  listPending_.pop_back();
}

int32_t Kernel::apiStep(Frame &f, uint32_t stepId, const int64_t *args) {
  Handle holder = f.c.locals[LEDGER_SLOT_HOLDER];
  bool holderAlive = alive(holder);
  int32_t r = action(f, t_->actions[stepId], args);
  // What the step raised may have moved the events' storage: a compiled
  // body reads the event in hand's head where it is now.
  if (f.event >= 0)
    f.c.event = headOf(events_[size_t(f.event)]);
  // A step that destroyed the body's holder or caster ends the body: "from
  // then it does nothing". A body an actor's destroy runs (its effects'
  // end steps) runs whole.
  if (holderAlive && !alive(holder))
    return LEDGER_STOP;
  if (f.instance == 0)
    return r;
  // An instance whose rule the step took off (its own apply replacing it,
  // its holder destroyed) ends the rule there, as remove self does: "since
  // what ran it has gone".
  if (!instance(f.instance))
    return LEDGER_STOP;
  // What the step set off may have put on instances and moved the vars'
  // storage: the body reads its own instance's vars from where they are now.
  if (f.c.vars != scratchVars_.data())
    f.c.vars = vars_.data() + insts_[indexOf(f.instance)].varsAt;
  return r;
}

// The event's head as compiled bodies read it in place.
static_assert(Kernel::kMaxTagWords == LEDGER_EVENT_TAG_WORDS);
const LedgerEventHead *Kernel::headOf(const Event &e) {
  static_assert(std::is_standard_layout_v<Event>);
  static_assert(offsetof(Event, subject) == offsetof(LedgerEventHead, subject));
  static_assert(offsetof(Event, source) == offsetof(LedgerEventHead, source));
  static_assert(offsetof(Event, credit) == offsetof(LedgerEventHead, credit));
  static_assert(offsetof(Event, kind) == offsetof(LedgerEventHead, kind));
  static_assert(offsetof(Event, prevented) == offsetof(LedgerEventHead, prevented));
  static_assert(offsetof(Event, tags) == offsetof(LedgerEventHead, tags));
  return reinterpret_cast<const LedgerEventHead *>(&e);
}

// A frame made by value points at itself only once it stands where it runs.
void Kernel::prepare(Frame &f) {
  f.world = this;
  f.c.event = f.event >= 0 ? headOf(events_[size_t(f.event)]) : nullptr;
  f.c.api = &kApi;
  f.c.kernel = &f;
  if (!f.c.locals)
    f.c.locals = f.roots;
  if (!f.c.vars)
    f.c.vars = scratchVars_.data();
}

int64_t Kernel::runBody(Id body, Frame &f) {
  if (body == kNoId)
    return 0;
  prepare(f);
  return pack_->formula(body, &f.c);
}

int32_t Kernel::runSteps(Id body, Frame &f) {
  if (body == kNoId)
    return LEDGER_GO;
  prepare(f);
  const pack::Body &b = t_->bodies[body];
  // A steps body's own names live above its caller's.
  size_t top = localTop_;
  size_t need = size_t(LEDGER_SLOT_FIRST_LOCAL) + b.localCount;
  if (localStack_.slots.empty())
    localStack_.slots.assign(pack::kLocalSlots, 0);
  if (localTop_ + need > localStack_.slots.size()) {
    fault(Refusal::ChainBudget, "rules nested past what the world holds");
    return LEDGER_STOP;
  }
  int64_t *locals = localStack_.slots.data() + localTop_;
  std::copy(f.c.locals, f.c.locals + LEDGER_SLOT_FIRST_LOCAL, locals);
  std::fill(locals + LEDGER_SLOT_FIRST_LOCAL, locals + need, 0);
  localTop_ += need;
  int64_t *saved = f.c.locals;
  f.c.locals = locals;
  // Whose rule runs: an effect's (its instance's) or an ability's (its
  // Activate in hand), named by a fault it sets off.
  Id ruleName = rulesName_;
  Handle blockerHolder = 0;
  if (const Instance *in = f.instance ? instance(f.instance) : nullptr) {
    rulesName_ = t_->effects[in->effect].name;
    if (ix_->blocksByVar[in->effect])
      blockerHolder = in->holder;
  } else if (f.propsEvent >= 0 && events_[size_t(f.propsEvent)].ability != kNoId) {
    rulesName_ = t_->abilities[events_[size_t(f.propsEvent)].ability].name;
  }
  int32_t r = pack_->steps(body, &f.c);
  // An actor var the steps set refers to whom it names from here.
  if (countingRefs_ && anyActorVars_ && f.instance && instance(f.instance))
    recountVars(indexOf(f.instance));
  rulesName_ = ruleName;
  // A var the steps set (self.VAR, in place) may be what blocked an auto.
  if (blockerHolder)
    wakeAutos(blockerHolder);
  f.c.locals = saved;
  localTop_ = top;
  return r;
}

} // namespace ledger::rt
