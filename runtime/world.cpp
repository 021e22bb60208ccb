// The host's API, answered by the engine the pack runs on: its own
// machinery where it carries one (compiled/), else the generic kernel.
#include "world.h"

#include "compiled/compiled_world.h"
#include "kernel/kernel.h"
#include "number.h"
#include "thread_stack.h"

#include <cstdio>
#include <utility>

namespace ledger::rt {

using pack::kNoId;

void World::runsHere() {
  uintptr_t low = threadStackLow();
  if (compiled_)
    compiled_->setStackLow(low);
  else
    kernel_->setStackLow(low);
}

template <typename F> decltype(auto) World::on(F f) {
  runsHere();
  return compiled_ ? f(*compiled_) : f(*kernel_);
}
template <typename F> decltype(auto) World::on(F f) const {
  return compiled_ ? f(std::as_const(*compiled_)) : f(std::as_const(*kernel_));
}

World::World(const Pack &pack, uint64_t seed) : pack_(&pack) {
  if (pack.engine())
    compiled_ = std::make_unique<CompiledWorld>(pack, seed);
  else
    kernel_ = std::make_unique<Kernel>(pack, seed);
}
World::World(const Pack &pack, std::unique_ptr<Kernel> kernel,
             std::unique_ptr<CompiledWorld> compiled)
    : pack_(&pack), kernel_(std::move(kernel)), compiled_(std::move(compiled)) {}
World::World(const World &other) : pack_(other.pack_), partTick_(other.partTick_) {
  if (other.compiled_)
    compiled_ = std::make_unique<CompiledWorld>(*other.compiled_);
  else
    kernel_ = std::make_unique<Kernel>(*other.kernel_);
}
World &World::operator=(const World &other) {
  if (this != &other) {
    World copy(other);
    *this = std::move(copy);
  }
  return *this;
}
World::World(World &&) noexcept = default;
World &World::operator=(World &&) noexcept = default;
World::~World() = default;

// The host's orders and reads are checked here, at the API, before either
// engine reads an id or a handle: one naming what its pack lacks, or an
// actor that isn't there, is refused and changes nothing (docs/readings.md
// 134), a read of it reads as of no one.

Handle World::make(pack::Id archetype, const std::vector<std::pair<pack::Id, Handle>> &links) {
  const pack::Tables &t = tables();
  if (archetype >= t.archetypes.size())
    return 0;
  for (auto [l, to] : links)
    if (l >= t.links.size() || (to != 0 && !alive(to)))
      return 0;
  return on([&](auto &e) { return e.make(archetype, links); });
}
Outcome World::act(Handle actor, pack::Id ability, const std::vector<Handle> &targets,
                   const Given &given, pack::Id usingEffect) {
  runsHere();
  if (compiled_)
    return compiled_->act(actor, ability, targets.data(), targets.size(), given, usingEffect);
  return kernel_->act(actor, ability, targets, given, usingEffect);
}
Outcome World::actAt(Handle actor, pack::Id ability, Handle target) {
  runsHere();
  if (compiled_)
    return compiled_->act(actor, ability, &target, target ? 1 : 0, {}, kNoId);
  std::vector<Handle> targets;
  if (target)
    targets.push_back(target);
  return kernel_->act(actor, ability, targets);
}
Outcome World::canAct(Handle actor, pack::Id ability, const std::vector<Handle> &targets,
                      bool targetsNamed) {
  return on([&](auto &e) { return e.canAct(actor, ability, targets, targetsNamed); });
}
Outcome World::apply(pack::Id effect, int64_t stacks, Handle to, Handle from,
                     const Lifetime &given, const Given &vars) {
  const pack::Tables &t = tables();
  // -1 is none; a time, turns or a count below that is no lifetime.
  if ((given.countEvent != kNoId && given.countEvent >= t.events.size()) ||
      (given.countTag != kNoId && given.countTag >= t.tags.size()) || given.time < -1 ||
      given.turns < -1 || given.count < -1) {
    Outcome refused;
    refused.refusal = Refusal::Refused;
    return refused;
  }
  return on([&](auto &e) { return e.apply(effect, stacks, to, from, given, vars); });
}
Outcome World::remove(pack::Id effect, Handle from, int64_t stacks) {
  return on([&](auto &e) { return e.remove(effect, from, stacks); });
}
Outcome World::raise(pack::Id event, Handle of, Handle by) {
  return on([&](auto &e) { return e.raise(event, of, by); });
}
Outcome World::deal(int64_t amount, Handle to, Handle from, const std::vector<pack::TagSet> &types) {
  return on([&](auto &e) { return e.deal(amount, to, from, types); });
}
Outcome World::setPool(Handle actor, pack::Id pool, int64_t amount) {
  return on([&](auto &e) { return e.setPool(actor, pool, amount); });
}
Outcome World::destroy(Handle actor) {
  return on([&](auto &e) { return e.destroy(actor); });
}
Outcome World::link(Handle actor, pack::Id l, Handle to) {
  return on([&](auto &e) { return e.link(actor, l, to); });
}
void World::advance(int64_t ticks) {
  // Time moves on, never back, and no further than the world's time holds
  // (docs/readings.md 135): a tick past that, or fewer than none, moves
  // nothing.
  int64_t last = INT64_MAX / (tables().unitsPerTick * kOne);
  if (ticks < 0 || ticks > last - now())
    return;
  on([&](auto &e) { e.advance(ticks); });
}
bool World::advanceSeconds(int64_t seconds) {
  const pack::Tables &t = tables();
  NumberFault fault = NumberFault::None;
  int64_t time = rt::add(partTick_, rt::mul(seconds, t.unitsPerSecond, fault), fault);
  int64_t tick = t.unitsPerTick * kOne;
  if (seconds < 0 || fault != NumberFault::None || time / tick > INT64_MAX / tick - now())
    return false;
  partTick_ = time % tick;
  if (time / tick > 0)
    advance(time / tick);
  return true;
}

int64_t World::timeOf(int64_t seconds) const {
  NumberFault fault = NumberFault::None;
  return seconds < 0 ? -1 : rt::mul(seconds, tables().unitsPerSecond, fault);
}

int64_t World::secondsOf(int64_t time) const {
  NumberFault fault = NumberFault::None;
  return time < 0 ? -1 : rt::div(time, tables().unitsPerSecond, fault);
}

void World::keepFrom(const World &replaced) {
  if (compiled_ && replaced.compiled_)
    compiled_->keepFrom(*replaced.compiled_);
  else if (kernel_ && replaced.kernel_)
    kernel_->keepFrom(*replaced.kernel_);
}
std::string World::saveBytes() const {
  return on([&](const auto &e) { return e.saveBytes(); });
}
std::optional<World> World::loadSave(const Pack &pack, std::string_view bytes, std::string &why) {
  if (pack.engine()) {
    std::unique_ptr<CompiledWorld> compiled = CompiledWorld::loadSave(pack, bytes, why);
    if (!compiled)
      return std::nullopt;
    return World(pack, nullptr, std::move(compiled));
  }
  std::optional<Kernel> kernel = Kernel::loadSave(pack, bytes, why);
  if (!kernel)
    return std::nullopt;
  return World(pack, std::make_unique<Kernel>(std::move(*kernel)), nullptr);
}

void World::countCoverage(Coverage counted) {
  on([&](auto &e) { e.countCoverage(std::move(counted)); });
}
const Coverage *World::coverage() const {
  return on([&](const auto &e) { return e.coverage(); });
}

bool World::alive(Handle h) const {
  return on([&](const auto &e) { return e.alive(h); });
}
bool World::exists(Handle actor) const {
  return on([&](const auto &e) { return e.exists(actor); });
}
std::vector<Handle> World::living() const {
  return on([&](const auto &e) { return e.living(); });
}
int64_t World::value(Handle actor, pack::Id value) {
  if (value >= tables().values.size())
    return 0;
  return on([&](auto &e) { return e.value(actor, value); });
}
std::optional<int64_t> World::maximum(Handle actor, pack::Id value) {
  if (value >= tables().values.size())
    return std::nullopt;
  return on([&](auto &e) { return e.maximum(actor, value); });
}
Handle World::linkOf(Handle actor, pack::Id link) const {
  if (link >= tables().links.size())
    return 0;
  return on([&](const auto &e) { return e.linkOf(actor, link); });
}
bool World::hasPool(Handle actor, pack::Id pool) const {
  return on([&](const auto &e) { return e.hasPool(actor, pool); });
}
bool World::holds(Handle actor, pack::Id effect) const {
  return on([&](const auto &e) { return e.holds(actor, effect); });
}
bool World::carries(Handle actor, pack::Id tag) {
  if (tag >= tables().tags.size())
    return false;
  return on([&](auto &e) { return e.carries(actor, tag); });
}
int64_t World::stacksOf(Handle actor, pack::Id effect, Handle from) const {
  return on([&](const auto &e) { return e.stacksOf(actor, effect, from); });
}
int64_t World::remainingOf(Handle actor, pack::Id effect, DurationUnit unit, pack::Id event,
                           pack::Id tag) const {
  return on([&](const auto &e) { return e.remainingOf(actor, effect, unit, event, tag); });
}
int64_t World::now() const {
  return on([&](const auto &e) { return e.now(); });
}
int64_t World::countOf(pack::Id archetype) const {
  return on([&](const auto &e) { return e.countOf(archetype); });
}

const Journal &World::journalOf() const {
  return on([&](const auto &e) -> const Journal & { return e.journal(); });
}
void World::setJournalMode(JournalMode mode) {
  on([&](auto &e) { e.setJournalMode(mode); });
}
void World::forgetJournal() {
  on([&](auto &e) { e.forgetJournal(); });
}
uint64_t World::journalCount() const {
  return compiled_ ? compiled_->journalCount() : kernel_->journal().count();
}
uint64_t World::journalHash() const {
  return compiled_ ? compiled_->journalHash() : kernel_->journal().hash();
}

std::string World::handleName(Handle h) const {
  if (kernel_)
    return kernel_->handleName(h);
  if (h == 0)
    return "none";
  pack::Id arch = compiled_->archetypeOf(h);
  const pack::Tables &t = tables();
  std::string name = arch != kNoId ? std::string(t.name(t.archetypes[arch].name)) : "actor";
  return name + "#" + std::to_string((uint64_t(h) & 0xffffffffu));
}

uint64_t World::genericEvents() const {
  return kernel_ && pack_->compiled() ? journalCount() : 0;
}

namespace {
// A number as the catalog writes it: 7, 0.5, -1.25.
std::string numberText(int64_t n) {
  __int128 v = n;
  std::string text = v < 0 ? "-" : "";
  if (v < 0)
    v = -v;
  text += std::to_string(static_cast<unsigned long long>(v / kOne));
  if (int64_t part = int64_t(v % kOne)) {
    char digits[8];
    std::snprintf(digits, sizeof digits, "%06lld", static_cast<long long>(part));
    std::string fraction(digits);
    fraction.erase(fraction.find_last_not_of('0') + 1);
    text += "." + fraction;
  }
  return text;
}
} // namespace

std::string World::journalText(size_t from) const {
  const pack::Tables &t = tables();
  const Journal &journal = journalOf();
  const std::vector<JournalEntry> &entries = journal.entries();
  std::string out;
  char buf[512];
  for (size_t i = from; i < entries.size(); ++i) {
    const JournalEntry &j = entries[i];
    if (j.fault) {
      std::snprintf(buf, sizeof buf, "%lld fault %s\n", (long long)j.tick,
                    journal.note(j.note).c_str());
      out += buf;
      continue;
    }
    std::snprintf(buf, sizeof buf, "%lld %s of %s by %s credit %s", (long long)j.tick,
                  std::string(t.name(t.events[j.event].name)).c_str(),
                  handleName(j.subject).c_str(), handleName(j.source).c_str(),
                  handleName(j.credit).c_str());
    out += buf;
    if (j.effect != kNoId)
      out += " effect " + std::string(t.name(t.effects[j.effect].name));
    if (j.ability != kNoId)
      out += " ability " + std::string(t.name(t.abilities[j.ability].name));
    if (j.pool != kNoId)
      out += " pool " + std::string(t.name(t.values[j.pool].name));
    out += " amount " + numberText(j.amount) + " landed " + numberText(j.landed);
    if (j.prevented)
      out += " prevented";
    // Its tags by name, a dotted one's parents among them.
    const char *lead = " tags";
    for (uint32_t w = 0; w < journal.tagWords(); ++w)
      for (uint64_t bits = journal.tags()[j.tagsAt + w]; bits; bits &= bits - 1) {
        size_t tag = size_t(w) * 64 + size_t(__builtin_ctzll(bits));
        out += lead;
        out += ' ';
        out += tag < t.tags.size() ? std::string(t.name(t.tags[tag].name)) : "?";
        lead = "";
      }
    out += '\n';
  }
  return out;
}

} // namespace ledger::rt
