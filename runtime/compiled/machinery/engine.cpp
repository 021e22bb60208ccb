// The pack's side of the compiled engine's C interface (engine_abi.h): the
// entry points the runtime calls, and the functions compiled bodies call in
// place of the kernel's API (pack_abi.h), each a world's own method.
#include "world.h"

#include <new>

namespace ledger::cw {
namespace {

World *of(LedgerWorld *w) { return reinterpret_cast<World *>(w); }
const World *of(const LedgerWorld *w) { return reinterpret_cast<const World *>(w); }
LedgerWorld *out(World *w) { return reinterpret_cast<LedgerWorld *>(w); }

void answer(const Outcome &o, LedgerOutcome *to) {
  to->refusal = uint32_t(o.refusal);
  to->element = o.element;
  to->need = o.need;
  to->have = o.have;
  to->payer = o.payer;
  to->pool = o.pool;
  to->hasNumbers = o.hasNumbers;
  to->text = o.text;
  to->textLength = o.textLength;
}

Given given(const LedgerGiven *values, uint32_t count) { return {values, count}; }

// The memory every world's storage comes from, kept by value: the host a
// world was made or loaded with may go before worlds copied from it do.
LedgerHost memoryHost;
void takeMemory(const LedgerHost *host) {
  memoryHost = *host;
  gHost = &memoryHost;
}

// [[gnu::cold]]: what runs once a world, a make, a save or a load, and
// what only it calls, the code generator compiles for the build's speed
// over its own (docs/build.md).
[[gnu::cold]] LedgerWorld *create(const LedgerHost *host, uint64_t seed) {
  takeMemory(host);
  World *w = new (reallocate(nullptr, sizeof(World))) World(seed);
  w->setHost(host);
  return out(w);
}
[[gnu::cold]] LedgerWorld *copy(const LedgerWorld *w, const LedgerHost *host) {
  World *c = new (reallocate(nullptr, sizeof(World))) World(*of(w));
  c->setHost(host);
  return out(c);
}
[[gnu::cold]] void release(LedgerWorld *w) {
  of(w)->~World();
  reallocate(w, 0);
}

[[gnu::cold]] LedgerHandle make(LedgerWorld *w, uint32_t archetype, const LedgerLink *links, uint32_t n) {
  return of(w)->make(archetype, links, n);
}
void act(LedgerWorld *w, LedgerHandle actor, uint32_t ability, const LedgerHandle *targets,
         uint32_t n, const LedgerGiven *values, uint32_t count, uint32_t usingEffect,
         LedgerOutcome *o) {
  answer(of(w)->act(actor, ability, targets, n, given(values, count), usingEffect), o);
}
void canAct(LedgerWorld *w, LedgerHandle actor, uint32_t ability, const LedgerHandle *targets,
            uint32_t n, uint8_t named, LedgerOutcome *o) {
  answer(of(w)->canAct(actor, ability, targets, n, named), o);
}
void apply(LedgerWorld *w, uint32_t effect, int64_t stacks, LedgerHandle to, LedgerHandle from,
           const LedgerLifetime *life, const LedgerGiven *vars, uint32_t count, LedgerOutcome *o) {
  Lifetime l;
  l.time = life->time;
  l.turns = life->turns;
  l.count = life->count;
  l.countEvent = life->countEvent;
  l.countTag = life->countTag;
  answer(of(w)->apply(effect, stacks, to, from, l, given(vars, count)), o);
}
void remove(LedgerWorld *w, uint32_t effect, LedgerHandle from, int64_t stacks, LedgerOutcome *o) {
  answer(of(w)->remove(effect, from, stacks), o);
}
void raise(LedgerWorld *w, uint32_t event, LedgerHandle of_, LedgerHandle by, LedgerOutcome *o) {
  answer(of(w)->raise(event, of_, by), o);
}
void deal(LedgerWorld *w, int64_t amount, LedgerHandle to, LedgerHandle from,
          const uint32_t *types, uint32_t n, LedgerOutcome *o) {
  answer(of(w)->deal(amount, to, from, types, n), o);
}
void setPool(LedgerWorld *w, LedgerHandle actor, uint32_t pool, int64_t amount, LedgerOutcome *o) {
  answer(of(w)->setPool(actor, pool, amount), o);
}
void destroy(LedgerWorld *w, LedgerHandle actor, LedgerOutcome *o) {
  answer(of(w)->destroy(actor), o);
}
void link(LedgerWorld *w, LedgerHandle actor, uint32_t l, LedgerHandle to, LedgerOutcome *o) {
  answer(of(w)->link(actor, l, to), o);
}
void advance(LedgerWorld *w, int64_t ticks) { of(w)->advance(ticks); }
[[gnu::cold]] void keepFrom(LedgerWorld *w, const LedgerWorld *replaced) { of(w)->keepFrom(*of(replaced)); }

uint8_t alive(const LedgerWorld *w, LedgerHandle h) { return of(w)->alive(h); }
uint8_t exists(const LedgerWorld *w, LedgerHandle h) { return of(w)->exists(h); }
uint64_t living(const LedgerWorld *w, LedgerHandle *to, uint64_t room) {
  return of(w)->living(to, room);
}
int64_t value(LedgerWorld *w, LedgerHandle a, uint32_t v) { return of(w)->value(a, v); }
uint8_t maximum(LedgerWorld *w, LedgerHandle a, uint32_t v, int64_t *to) {
  return of(w)->maximum(a, v, *to);
}
LedgerHandle linkOf(const LedgerWorld *w, LedgerHandle a, uint32_t l) { return of(w)->linkOf(a, l); }
uint8_t hasPool(const LedgerWorld *w, LedgerHandle a, uint32_t p) { return of(w)->hasPool(a, p); }
uint8_t holds(const LedgerWorld *w, LedgerHandle a, uint32_t e) { return of(w)->holds(a, e); }
uint8_t carries(LedgerWorld *w, LedgerHandle a, uint32_t t) {
  return of(w)->alive(a) && t < shape().tagCount && of(w)->carries(a, t);
}
int64_t stacksOf(const LedgerWorld *w, LedgerHandle a, uint32_t e, LedgerHandle from) {
  return of(w)->stacksOf(a, e, from);
}
int64_t remainingOf(const LedgerWorld *w, LedgerHandle a, uint32_t effect, uint32_t unit,
                    uint32_t event, uint32_t tag) {
  return of(w)->remainingOf(a, effect, unit, event, tag);
}
int64_t now(const LedgerWorld *w) { return of(w)->now(); }
int64_t countOf(const LedgerWorld *w, uint32_t archetype) { return of(w)->countOf(archetype); }
uint32_t archetypeOf(const LedgerWorld *w, LedgerHandle a) { return of(w)->archetypeOf(a); }

void setJournalMode(LedgerWorld *w, uint32_t mode) { of(w)->setJournalMode(mode); }
uint64_t journalCount(const LedgerWorld *w) { return of(w)->journalCount(); }
uint64_t journalHash(const LedgerWorld *w) { return of(w)->journalHash(); }
[[gnu::cold]] void countCoverage(LedgerWorld *w, const uint64_t *const *counted) { of(w)->countCoverage(counted); }
const uint64_t *coverage(const LedgerWorld *w, uint32_t kind) { return of(w)->coverage(kind); }
[[gnu::cold]] void save(const LedgerWorld *w, void *context, void (*write)(void *, const void *, uint64_t)) {
  of(w)->save(context, write);
}
[[gnu::cold]] LedgerWorld *load(const LedgerHost *host, const void *bytes, uint64_t size, const char **why) {
  takeMemory(host);
  World *w = World::load(bytes, size, why);
  if (w)
    w->setHost(host);
  return out(w);
}

} // namespace
} // namespace ledger::cw

using namespace ledger::cw;

extern "C" {

// The entry points, as the code generator's descriptor points at them.
extern const LedgerEngine lm_engine;
const LedgerEngine lm_engine = {
    LEDGER_ENGINE_ABI_VERSION,
    create,
    copy,
    release,
    make,
    act,
    canAct,
    apply,
    remove,
    raise,
    deal,
    setPool,
    destroy,
    link,
    advance,
    keepFrom,
    alive,
    exists,
    living,
    value,
    maximum,
    linkOf,
    hasPool,
    holds,
    carries,
    stacksOf,
    remainingOf,
    now,
    countOf,
    archetypeOf,
    setJournalMode,
    journalCount,
    journalHash,
    countCoverage,
    coverage,
    save,
    load,
};

// What a compiled body calls: the kernel's API (pack_abi.h), direct.
static World &worldOf(LedgerFrame *f) { return *static_cast<World *>(f->kernel); }
static Frame &frameOf(LedgerFrame *f) { return *reinterpret_cast<Frame *>(f); }

// Inlined into the bodies that call them.
#define LEDGER_INLINE __attribute__((always_inline))
LEDGER_INLINE int64_t lm_read(LedgerFrame *f, uint32_t readId, const int64_t *args) {
  return worldOf(f).apiRead(frameOf(f), readId, args);
}
LEDGER_INLINE int32_t lm_step(LedgerFrame *f, uint32_t stepId, const int64_t *args) {
  return worldOf(f).apiStep(frameOf(f), stepId, args);
}
LEDGER_INLINE int64_t lm_listOpen(LedgerFrame *f, uint32_t queryId, const int64_t *args) {
  return worldOf(f).apiListOpen(frameOf(f), queryId, args);
}
LEDGER_INLINE int64_t lm_listItem(LedgerFrame *f, int64_t index) {
  return worldOf(f).apiListItem(frameOf(f), index);
}
LEDGER_INLINE void lm_listClose(LedgerFrame *f) { worldOf(f).apiListClose(frameOf(f)); }
int64_t lm_math(LedgerFrame *f, uint32_t op, int64_t a, int64_t b) {
  ledger::rt::NumberFault fault = ledger::rt::NumberFault::None;
  int64_t r = op == LEDGER_MATH_POW ? ledger::rt::pow(a, int(b), fault)
                                    : ledger::rt::root(a, int(b), fault);
  if (fault != ledger::rt::NumberFault::None)
    worldOf(f).apiFault(uint32_t(fault));
  return r;
}
void lm_fault(LedgerFrame *f, uint32_t code) { worldOf(f).apiFault(code); }
int64_t lm_repeat(LedgerFrame *f, int64_t times) { return worldOf(f).apiRepeat(frameOf(f), times); }

// What the code generator's functions for each definition inline, its id a
// constant there (catalog.h's lp_landChange …).
LEDGER_INLINE void lm_landChange(World *w, uint32_t ei, uint32_t pool) { w->landChange(ei, pool); }
}
