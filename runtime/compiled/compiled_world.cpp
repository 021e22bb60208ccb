#include "compiled/compiled_world.h"

#include "save_envelope.h"

#include <cstdlib>
#include <cstring>

namespace ledger::rt {

namespace {

void *reallocate(void *, void *block, uint64_t bytes) {
  if (bytes == 0) {
    std::free(block);
    return nullptr;
  }
  return std::realloc(block, bytes);
}

// A compiled world's save: the envelope's format, apart from the generic
// kernel's (runtime/kernel/save.cpp), so neither reads the other's (1002:
// the envelope's body hash).
constexpr uint32_t kSaveFormat = 1002;

std::vector<LedgerGiven> given(const Given &g) {
  std::vector<LedgerGiven> out;
  out.reserve(g.values.size());
  for (const Given::Value &v : g.values)
    out.push_back({v.name, uint8_t(v.tag), v.value});
  return out;
}

} // namespace

CompiledWorld::CompiledWorld(const Pack &pack, uint64_t seed)
    : pack_(&pack), engine_(pack.engine()), host_{this, &reallocate, &record, 0},
      journal_(pack.tables().tagWords) {
  world_ = engine_->create(&host_, seed);
}

CompiledWorld::CompiledWorld(const Pack &pack, LedgerWorld *world)
    : pack_(&pack), engine_(pack.engine()), host_{this, &reallocate, &record, 0},
      journal_(pack.tables().tagWords), world_(world) {}

CompiledWorld::CompiledWorld(const CompiledWorld &other)
    : pack_(other.pack_), engine_(other.engine_), host_{this, &reallocate, &record, 0},
      journal_(other.journal_), coverage_(other.coverage_) {
  world_ = engine_->copy(other.world_, &host_);
}

CompiledWorld::~CompiledWorld() {
  if (world_)
    engine_->release(world_);
}

void CompiledWorld::record(void *context, const void *entry, const uint64_t *tags,
                           const char *note, uint32_t noteLength) {
  auto *self = static_cast<CompiledWorld *>(context);
  const auto &e = *static_cast<const LedgerJournalEntry *>(entry);
  JournalEntry j;
  j.tick = e.tick;
  j.amount = e.amount;
  j.landed = e.landed;
  j.subject = e.subject;
  j.source = e.source;
  j.credit = e.credit;
  j.event = e.event;
  j.effect = e.effect;
  j.ability = e.ability;
  j.pool = e.pool;
  j.prevented = e.prevented;
  j.fault = e.fault;
  std::string words = note ? std::string(note, noteLength) : std::string();
  self->journal_.keep(j, tags, note ? &words : nullptr);
}

Outcome CompiledWorld::outcome(const LedgerOutcome &o) const {
  Outcome out;
  out.refusal = Refusal(o.refusal);
  out.element = o.element;
  out.need = o.need;
  out.have = o.have;
  out.hasNumbers = o.hasNumbers;
  out.payer = o.payer;
  out.pool = o.pool;
  if (o.text)
    out.text.assign(o.text, o.textLength);
  return out;
}

Handle CompiledWorld::make(pack::Id archetype, const std::vector<std::pair<pack::Id, Handle>> &links) {
  std::vector<LedgerLink> l;
  l.reserve(links.size());
  for (auto [link, to] : links)
    l.push_back({link, to});
  return engine_->make(world_, archetype, l.data(), uint32_t(l.size()));
}

Outcome CompiledWorld::act(Handle actor, pack::Id ability, const Handle *targets, size_t count,
                           const Given &g, pack::Id usingEffect) {
  LedgerOutcome o{};
  if (g.values.empty()) {
    engine_->act(world_, actor, ability, targets, uint32_t(count), nullptr, 0, usingEffect, &o);
  } else {
    std::vector<LedgerGiven> values = given(g);
    engine_->act(world_, actor, ability, targets, uint32_t(count), values.data(),
                 uint32_t(values.size()), usingEffect, &o);
  }
  return outcome(o);
}

Outcome CompiledWorld::canAct(Handle actor, pack::Id ability, const std::vector<Handle> &targets,
                              bool targetsNamed) {
  LedgerOutcome o{};
  engine_->canAct(world_, actor, ability, targets.data(), uint32_t(targets.size()), targetsNamed, &o);
  return outcome(o);
}

Outcome CompiledWorld::apply(pack::Id effect, int64_t stacks, Handle to, Handle from,
                             const Lifetime &life, const Given &vars) {
  LedgerLifetime l{life.time, life.turns, life.count, life.countEvent, life.countTag};
  std::vector<LedgerGiven> values = given(vars);
  LedgerOutcome o{};
  engine_->apply(world_, effect, stacks, to, from, &l, values.data(), uint32_t(values.size()), &o);
  return outcome(o);
}

Outcome CompiledWorld::remove(pack::Id effect, Handle from, int64_t stacks) {
  LedgerOutcome o{};
  engine_->remove(world_, effect, from, stacks, &o);
  return outcome(o);
}

Outcome CompiledWorld::raise(pack::Id event, Handle of, Handle by) {
  LedgerOutcome o{};
  engine_->raise(world_, event, of, by, &o);
  return outcome(o);
}

Outcome CompiledWorld::deal(int64_t amount, Handle to, Handle from,
                            const std::vector<pack::TagSet> &types) {
  LedgerOutcome o{};
  engine_->deal(world_, amount, to, from, types.data(), uint32_t(types.size()), &o);
  return outcome(o);
}

Outcome CompiledWorld::setPool(Handle actor, pack::Id pool, int64_t amount) {
  LedgerOutcome o{};
  engine_->setPool(world_, actor, pool, amount, &o);
  return outcome(o);
}

Outcome CompiledWorld::destroy(Handle actor) {
  LedgerOutcome o{};
  engine_->destroy(world_, actor, &o);
  return outcome(o);
}

Outcome CompiledWorld::link(Handle actor, pack::Id l, Handle to) {
  LedgerOutcome o{};
  engine_->link(world_, actor, l, to, &o);
  return outcome(o);
}

void CompiledWorld::advance(int64_t ticks) { engine_->advance(world_, ticks); }
void CompiledWorld::keepFrom(const CompiledWorld &replaced) {
  engine_->keepFrom(world_, replaced.world_);
}

std::string CompiledWorld::saveBytes() const {
  std::string out = saves::begin(kSaveFormat, pack_->hash());
  engine_->save(world_, &out, [](void *context, const void *bytes, uint64_t size) {
    static_cast<std::string *>(context)->append(static_cast<const char *>(bytes), size);
  });
  saves::seal(out);
  return out;
}

std::unique_ptr<CompiledWorld> CompiledWorld::loadSave(const Pack &pack, std::string_view bytes,
                                                       std::string &why) {
  std::string_view body;
  if (!saves::open(bytes, kSaveFormat, pack.hash(), body, why))
    return nullptr;
  // The host the world answers to is the CompiledWorld's own: made first,
  // then handed the world the pack reads back.
  std::unique_ptr<CompiledWorld> world(new CompiledWorld(pack, nullptr));
  const char *refused = nullptr;
  world->world_ = pack.engine()->load(&world->host_, body.data(), body.size(), &refused);
  if (!world->world_) {
    why = refused ? refused : "it is damaged";
    return nullptr;
  }
  return world;
}

void CompiledWorld::countCoverage(Coverage counted) {
  const pack::Tables &t = pack_->tables();
  auto fit = [](std::vector<uint64_t> &v, size_t n) { v.resize(n, 0); };
  fit(counted.heard, t.rules.size());
  fit(counted.fired, t.rules.size());
  fit(counted.changed, t.rules.size());
  fit(counted.applied, t.effects.size());
  fit(counted.used, t.abilities.size());
  fit(counted.refused, t.abilities.size());
  fit(counted.made, t.archetypes.size());
  const uint64_t *arrays[LEDGER_COVER_KINDS] = {
      counted.heard.data(),   counted.fired.data(), counted.changed.data(), counted.applied.data(),
      counted.used.data(),    counted.refused.data(), counted.made.data()};
  engine_->countCoverage(world_, arrays);
}

const Coverage *CompiledWorld::coverage() const {
  const pack::Tables &t = pack_->tables();
  auto read = [&](uint32_t kind, std::vector<uint64_t> &to, size_t n) {
    const uint64_t *counts = engine_->coverage(world_, kind);
    to.assign(counts, counts + n);
  };
  if (!engine_->coverage(world_, LEDGER_COVER_HEARD))
    return nullptr;
  read(LEDGER_COVER_HEARD, coverage_.heard, t.rules.size());
  read(LEDGER_COVER_FIRED, coverage_.fired, t.rules.size());
  read(LEDGER_COVER_CHANGED, coverage_.changed, t.rules.size());
  read(LEDGER_COVER_APPLIED, coverage_.applied, t.effects.size());
  read(LEDGER_COVER_USED, coverage_.used, t.abilities.size());
  read(LEDGER_COVER_REFUSED, coverage_.refused, t.abilities.size());
  read(LEDGER_COVER_MADE, coverage_.made, t.archetypes.size());
  return &coverage_;
}

bool CompiledWorld::alive(Handle h) const { return engine_->alive(world_, h); }
bool CompiledWorld::exists(Handle h) const { return engine_->exists(world_, h); }
std::vector<Handle> CompiledWorld::living() const {
  std::vector<Handle> out(engine_->living(world_, nullptr, 0));
  engine_->living(world_, out.data(), out.size());
  return out;
}
int64_t CompiledWorld::value(Handle actor, pack::Id v) { return engine_->value(world_, actor, v); }
std::optional<int64_t> CompiledWorld::maximum(Handle actor, pack::Id v) {
  int64_t most = 0;
  if (!engine_->maximum(world_, actor, v, &most))
    return std::nullopt;
  return most;
}
Handle CompiledWorld::linkOf(Handle actor, pack::Id l) const { return engine_->linkOf(world_, actor, l); }
bool CompiledWorld::hasPool(Handle actor, pack::Id pool) const {
  return engine_->hasPool(world_, actor, pool);
}
bool CompiledWorld::holds(Handle actor, pack::Id effect) const {
  return engine_->holds(world_, actor, effect);
}
bool CompiledWorld::carries(Handle actor, pack::Id tag) { return engine_->carries(world_, actor, tag); }
int64_t CompiledWorld::stacksOf(Handle actor, pack::Id effect, Handle from) const {
  return engine_->stacksOf(world_, actor, effect, from);
}
int64_t CompiledWorld::remainingOf(Handle actor, pack::Id effect, DurationUnit unit,
                                   pack::Id event, pack::Id tag) const {
  return engine_->remainingOf(world_, actor, effect, uint32_t(unit), event, tag);
}
int64_t CompiledWorld::now() const { return engine_->now(world_); }
int64_t CompiledWorld::countOf(pack::Id archetype) const { return engine_->countOf(world_, archetype); }
pack::Id CompiledWorld::archetypeOf(Handle actor) const { return engine_->archetypeOf(world_, actor); }

void CompiledWorld::setJournalMode(JournalMode mode) {
  journal_.setMode(mode);
  engine_->setJournalMode(world_, uint32_t(mode));
}
uint64_t CompiledWorld::journalCount() const { return engine_->journalCount(world_); }
uint64_t CompiledWorld::journalHash() const { return engine_->journalHash(world_); }

} // namespace ledger::rt
