// The world a host drives: a pack's actors, their values, the effects they
// hold and the journal of what happened, behind one API whichever engine
// runs it.
//
// Make actors, give orders, apply and remove effects, raise events, deal,
// set pools and links, advance time, read values, save and restore. Every
// order answers with an Outcome; a bad one is refused by the reference's name
// and changes nothing.
#pragma once

#include "host_types.h"
#include "journal.h"
#include "pack.h"
#include "typed_ids.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ledger::rt {

class Kernel;
class CompiledWorld;

class World {
public:
  World(const Pack &pack, uint64_t seed = 0);
  World(const World &other);
  World &operator=(const World &other);
  World(World &&) noexcept;
  World &operator=(World &&) noexcept;
  ~World();

  // ---- the host's orders ---------------------------------------------------
  Handle make(pack::Id archetype, const std::vector<std::pair<pack::Id, Handle>> &links = {});
  // An order; `usingEffect` names the grant: the newest instance of that
  // effect the actor holds, refused NotGranted where it grants none.
  Outcome act(Handle actor, pack::Id ability, const std::vector<Handle> &targets,
              const Given &given = {}, pack::Id usingEffect = pack::kNoId);
  // An order at one target (0: none), with nothing given: a game's hot path,
  // which makes no list.
  Outcome actAt(Handle actor, pack::Id ability, Handle target);
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
  // Time moved on by seconds, as the catalog's numbers say them (millionths:
  // 16'667 is 16.667 ms): every whole tick the time passes runs, and what
  // is left of a tick waits for the next call, so sixty frames of 16'667 at
  // rate 20 run 20 ticks. False, moving nothing, for fewer than no seconds
  // or past the last time the world holds. What is left of a tick is the
  // host's, not the world's: a save holds whole ticks.
  bool advanceSeconds(int64_t seconds);
  // A time in seconds (millionths) in the world's own time, which a
  // Lifetime and remainingOf speak (millionths of the pack's unit), and
  // back; -1, never, stays -1, and one past what a time holds is 0.
  int64_t timeOf(int64_t seconds) const;
  int64_t secondsOf(int64_t time) const;
  // A restore replacing `replaced`: what the content declares kept (a pool
  // saying kept) carries over from it, for each actor in both.
  void keepFrom(const World &replaced);
  // A save on disk: the world between orders as bytes, which another process
  // running the same pack reads back as the world they were; a save of
  // another pack, or damaged, is refused with why.
  std::string saveBytes() const;
  static std::optional<World> loadSave(const Pack &pack, std::string_view bytes, std::string &why);

  using Coverage = rt::Coverage;
  void countCoverage(Coverage counted);
  const Coverage *coverage() const;

  // ---- reads ---------------------------------------------------------------
  bool alive(Handle h) const;
  bool exists(Handle actor) const;
  // The living actors, in the world's order: their slots', an actor made
  // into one a destroyed actor left standing in its place (docs/readings.md
  // 157).
  std::vector<Handle> living() const;
  int64_t value(Handle actor, pack::Id value);
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
  int64_t now() const;
  // How many actors made from an archetype are in play.
  int64_t countOf(pack::Id archetype) const;

  // ---- the same, by a pack's typed ids (ledger build --header) ------------
  Handle make(ids::Archetype archetype) { return make(archetype.id); }
  Handle make(ids::Archetype archetype, const std::vector<std::pair<ids::Link, Handle>> &links) {
    std::vector<std::pair<pack::Id, Handle>> byId;
    for (const auto &[l, to] : links)
      byId.emplace_back(l.id, to);
    return make(archetype.id, byId);
  }
  Outcome act(Handle actor, ids::Ability ability, const std::vector<Handle> &targets,
              const Given &given = {}) {
    return act(actor, ability.id, targets, given);
  }
  Outcome actAt(Handle actor, ids::Ability ability, Handle target) {
    return actAt(actor, ability.id, target);
  }
  Outcome canAct(Handle actor, ids::Ability ability, const std::vector<Handle> &targets,
                 bool targetsNamed = true) {
    return canAct(actor, ability.id, targets, targetsNamed);
  }
  Outcome apply(ids::Effect effect, int64_t stacks, Handle to, Handle from,
                const Lifetime &given = {}, const Given &vars = {}) {
    return apply(effect.id, stacks, to, from, given, vars);
  }
  Outcome remove(ids::Effect effect, Handle from, int64_t stacks = kWhole) {
    return remove(effect.id, from, stacks);
  }
  Outcome raise(ids::Event event, Handle of, Handle by) { return raise(event.id, of, by); }
  Outcome setPool(Handle actor, ids::Pool pool, int64_t amount) {
    return setPool(actor, pool.id, amount);
  }
  Outcome link(Handle actor, ids::Link l, Handle to) { return link(actor, l.id, to); }
  int64_t value(Handle actor, ids::Pool pool) { return value(actor, pool.id); }
  int64_t value(Handle actor, ids::Stat stat) { return value(actor, stat.id); }
  std::optional<int64_t> maximum(Handle actor, ids::Pool pool) { return maximum(actor, pool.id); }
  std::optional<int64_t> maximum(Handle actor, ids::Stat stat) { return maximum(actor, stat.id); }
  Handle linkOf(Handle actor, ids::Link l) const { return linkOf(actor, l.id); }
  bool hasPool(Handle actor, ids::Pool pool) const { return hasPool(actor, pool.id); }
  bool holds(Handle actor, ids::Effect effect) const { return holds(actor, effect.id); }
  bool carries(Handle actor, ids::Tag tag) { return carries(actor, tag.id); }
  int64_t stacksOf(Handle actor, ids::Effect effect, Handle from = 0) const {
    return stacksOf(actor, effect.id, from);
  }
  int64_t remainingOf(Handle actor, ids::Effect effect, DurationUnit unit) const {
    return remainingOf(actor, effect.id, unit);
  }
  int64_t countOf(ids::Archetype archetype) const { return countOf(archetype.id); }

  // ---- the journal ---------------------------------------------------------
  const std::vector<JournalEntry> &journal() const { return journalOf().entries(); }
  const std::vector<uint64_t> &journalTags() const { return journalOf().tags(); }
  const std::string &journalNote(uint32_t note) const { return journalOf().note(note); }
  void setJournalMode(JournalMode mode);
  // A host streaming the journal reads the entries kept, then forgets them,
  // so a long run holds only what it has not read; the count and the hash go
  // on.
  void forgetJournal();
  // Every entry so far, kept or not, and a hash of them all in order: two
  // worlds that hash alike ran alike.
  uint64_t journalCount() const;
  uint64_t journalHash() const;
  // The journal as text, one line an entry, in the catalog's numbers and
  // names (amount 7.5, tags Damage Fire), for reading and comparing engines.
  std::string journalText(size_t from = 0) const;
  std::string handleName(Handle h) const;
  const pack::Tables &tables() const { return pack_->tables(); }

  // ---- the engine ----------------------------------------------------------
  // Whether the pack's own machinery runs this world (the compiled engine,
  // specialised to its catalog), not the generic kernel.
  bool specialised() const { return compiled_ != nullptr; }
  // Events the generic kernel ran for a compiled pack whose catalog the
  // compiled engine doesn't specialise (Pack::genericBecause says why): the
  // fallbacks a benchmark drives to none. The reference engine's own events
  // are no fallback.
  uint64_t genericEvents() const;

private:
  World(const Pack &pack, std::unique_ptr<Kernel> kernel, std::unique_ptr<CompiledWorld> compiled);
  const Journal &journalOf() const;
  // The same call on whichever engine runs the world.
  template <typename F> decltype(auto) on(F f);
  // Tells the engine the stack the calling thread runs it on, which it
  // checks a chain against (thread_stack.h): before every order.
  void runsHere();
  template <typename F> decltype(auto) on(F f) const;

  const Pack *pack_;
  std::unique_ptr<Kernel> kernel_;
  std::unique_ptr<CompiledWorld> compiled_;
  // Of a tick, what advanceSeconds has passed and not yet run (millionths
  // of the pack's unit).
  int64_t partTick_ = 0;
};

} // namespace ledger::rt
