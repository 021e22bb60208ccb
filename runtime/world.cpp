// The host's API, answered by the engine the pack runs on.
#include "world.h"

#include "kernel/kernel.h"

#include <cstdio>

namespace ledger::rt {

using pack::kNoId;

World::World(const Pack &pack, uint64_t seed)
    : pack_(&pack), kernel_(std::make_unique<Kernel>(pack, seed)) {}
World::World(std::unique_ptr<Kernel> kernel, const Pack &pack)
    : pack_(&pack), kernel_(std::move(kernel)) {}
World::World(const World &other)
    : pack_(other.pack_), kernel_(std::make_unique<Kernel>(*other.kernel_)) {}
World &World::operator=(const World &other) {
  if (this != &other) {
    pack_ = other.pack_;
    kernel_ = std::make_unique<Kernel>(*other.kernel_);
  }
  return *this;
}
World::World(World &&) noexcept = default;
World &World::operator=(World &&) noexcept = default;
World::~World() = default;

Handle World::make(pack::Id archetype, const std::vector<std::pair<pack::Id, Handle>> &links) {
  return kernel_->make(archetype, links);
}
Outcome World::act(Handle actor, pack::Id ability, const std::vector<Handle> &targets,
                   const Given &given, pack::Id usingEffect) {
  return kernel_->act(actor, ability, targets, given, usingEffect);
}
Outcome World::actAt(Handle actor, pack::Id ability, Handle target) {
  std::vector<Handle> targets;
  if (target)
    targets.push_back(target);
  return kernel_->act(actor, ability, targets);
}
Outcome World::canAct(Handle actor, pack::Id ability, const std::vector<Handle> &targets,
                      bool targetsNamed) {
  return kernel_->canAct(actor, ability, targets, targetsNamed);
}
Outcome World::apply(pack::Id effect, int64_t stacks, Handle to, Handle from,
                     const Lifetime &given, const Given &vars) {
  return kernel_->apply(effect, stacks, to, from, given, vars);
}
Outcome World::remove(pack::Id effect, Handle from, int64_t stacks) {
  return kernel_->remove(effect, from, stacks);
}
Outcome World::raise(pack::Id event, Handle of, Handle by) { return kernel_->raise(event, of, by); }
Outcome World::deal(int64_t amount, Handle to, Handle from, const std::vector<pack::TagSet> &types) {
  return kernel_->deal(amount, to, from, types);
}
Outcome World::setPool(Handle actor, pack::Id pool, int64_t amount) {
  return kernel_->setPool(actor, pool, amount);
}
Outcome World::destroy(Handle actor) { return kernel_->destroy(actor); }
Outcome World::link(Handle actor, pack::Id link, Handle to) { return kernel_->link(actor, link, to); }
void World::advance(int64_t ticks) { kernel_->advance(ticks); }
void World::keepFrom(const World &replaced) { kernel_->keepFrom(*replaced.kernel_); }
std::string World::saveBytes() const { return kernel_->saveBytes(); }
std::optional<World> World::loadSave(const Pack &pack, std::string_view bytes, std::string &why) {
  std::optional<Kernel> kernel = Kernel::loadSave(pack, bytes, why);
  if (!kernel)
    return std::nullopt;
  return World(std::make_unique<Kernel>(std::move(*kernel)), pack);
}

void World::countCoverage(Coverage counted) { kernel_->countCoverage(std::move(counted)); }
const Coverage *World::coverage() const { return kernel_->coverage(); }

bool World::alive(Handle h) const { return kernel_->alive(h); }
bool World::exists(Handle actor) const { return kernel_->exists(actor); }
std::vector<Handle> World::living() const { return kernel_->living(); }
int64_t World::value(Handle actor, pack::Id value) { return kernel_->value(actor, value); }
std::optional<int64_t> World::maximum(Handle actor, pack::Id value) {
  return kernel_->maximum(actor, value);
}
Handle World::linkOf(Handle actor, pack::Id link) const { return kernel_->linkOf(actor, link); }
bool World::hasPool(Handle actor, pack::Id pool) const { return kernel_->hasPool(actor, pool); }
bool World::holds(Handle actor, pack::Id effect) const { return kernel_->holds(actor, effect); }
bool World::carries(Handle actor, pack::Id tag) { return kernel_->carries(actor, tag); }
int64_t World::stacksOf(Handle actor, pack::Id effect, Handle from) const {
  return kernel_->stacksOf(actor, effect, from);
}
int64_t World::remainingOf(Handle actor, pack::Id effect, DurationUnit unit, pack::Id event,
                           pack::Id tag) const {
  return kernel_->remainingOf(actor, effect, unit, event, tag);
}
int64_t World::now() const { return kernel_->now(); }
int64_t World::countOf(pack::Id archetype) const { return kernel_->countOf(archetype); }

const Journal &World::journalOf() const { return kernel_->journal(); }
void World::setJournalMode(JournalMode mode) { kernel_->setJournalMode(mode); }
void World::forgetJournal() { kernel_->forgetJournal(); }
std::string World::handleName(Handle h) const { return kernel_->handleName(h); }

uint64_t World::genericEvents() const { return pack_->compiled() ? journalCount() : 0; }

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
    std::snprintf(buf, sizeof buf, " amount %lld landed %lld%s tags", (long long)j.amount,
                  (long long)j.landed, j.prevented ? " prevented" : "");
    out += buf;
    for (uint32_t w = 0; w < journal.tagWords(); ++w) {
      std::snprintf(buf, sizeof buf, " %llx", (unsigned long long)journal.tags()[j.tagsAt + w]);
      out += buf;
    }
    out += '\n';
  }
  return out;
}

} // namespace ledger::rt
