// A world of a pack carrying its machinery (engine_abi.h): the runtime's
// side of it. The pack lays out and runs the world; here are the memory it
// asks for, the journal it keeps whole, and the host's API around it, every
// order and read passed to the pack's entry points.
#pragma once

#include "host_types.h"
#include "journal.h"
#include "pack.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ledger::rt {

class CompiledWorld {
public:
  CompiledWorld(const Pack &pack, uint64_t seed);
  CompiledWorld(const CompiledWorld &other);
  CompiledWorld &operator=(const CompiledWorld &) = delete;
  ~CompiledWorld();

  Handle make(pack::Id archetype, const std::vector<std::pair<pack::Id, Handle>> &links);
  Outcome act(Handle actor, pack::Id ability, const Handle *targets, size_t count,
              const Given &given, pack::Id usingEffect);
  Outcome canAct(Handle actor, pack::Id ability, const std::vector<Handle> &targets,
                 bool targetsNamed);
  Outcome apply(pack::Id effect, int64_t stacks, Handle to, Handle from, const Lifetime &given,
                const Given &vars);
  Outcome remove(pack::Id effect, Handle from, int64_t stacks);
  Outcome raise(pack::Id event, Handle of, Handle by);
  Outcome deal(int64_t amount, Handle to, Handle from, const std::vector<pack::TagSet> &types);
  Outcome setPool(Handle actor, pack::Id pool, int64_t amount);
  Outcome destroy(Handle actor);
  Outcome link(Handle actor, pack::Id link, Handle to);
  void advance(int64_t ticks);
  void keepFrom(const CompiledWorld &replaced);
  std::string saveBytes() const;
  static std::unique_ptr<CompiledWorld> loadSave(const Pack &pack, std::string_view bytes,
                                                 std::string &why);

  void countCoverage(Coverage counted);
  const Coverage *coverage() const;

  bool alive(Handle h) const;
  bool exists(Handle h) const;
  std::vector<Handle> living() const;
  int64_t value(Handle actor, pack::Id value);
  std::optional<int64_t> maximum(Handle actor, pack::Id value);
  Handle linkOf(Handle actor, pack::Id link) const;
  bool hasPool(Handle actor, pack::Id pool) const;
  bool holds(Handle actor, pack::Id effect) const;
  bool carries(Handle actor, pack::Id tag);
  int64_t stacksOf(Handle actor, pack::Id effect, Handle from) const;
  int64_t remainingOf(Handle actor, pack::Id effect, DurationUnit unit, pack::Id event,
                      pack::Id tag) const;
  int64_t now() const;
  int64_t countOf(pack::Id archetype) const;
  pack::Id archetypeOf(Handle actor) const;

  // The low end of the calling thread's stack (runtime/thread_stack.h).
  void setStackLow(uintptr_t low) { host_.stackLow = low; }

  const Journal &journal() const { return journal_; }
  void setJournalMode(JournalMode mode);
  void forgetJournal() { journal_.forget(); }
  uint64_t journalCount() const;
  uint64_t journalHash() const;

private:
  CompiledWorld(const Pack &pack, LedgerWorld *world);
  static void record(void *context, const void *entry, const uint64_t *tags, const char *note,
                     uint32_t noteLength);
  Outcome outcome(const LedgerOutcome &o) const;

  const Pack *pack_;
  const LedgerEngine *engine_;
  LedgerHost host_;
  Journal journal_;
  LedgerWorld *world_ = nullptr;
  mutable Coverage coverage_;
};

} // namespace ledger::rt
