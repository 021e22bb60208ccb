// libFuzzer entry over what loading a pack reads before it trusts it. Native
// code can't be fuzzed by loading it (a shared object runs code as it loads:
// a pack is trusted, docs/host-api.md), so the bytes go where a pack's bytes
// are read: as a pack file's, through the seal check Pack::load makes
// before the dynamic loader maps the file; as a tables blob, through
// pack::deserialize. Tables it accepts become the reference engine's pack,
// on which a world makes every archetype, orders every ability at them,
// runs up to 50 ticks and reads every value of every actor: nothing
// accepted may crash the world.
#include "eval/eval.h"
#include "pack_seal.h"
#include "world.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

using ledger::pack::Id;
using ledger::rt::Handle;

// As many as fuzz_frontend.cpp's run makes and orders: enough to meet every
// clause, few enough that an input runs in milliseconds.
constexpr Id kMost = 8;

void readEverything(ledger::rt::World &world, const std::vector<Handle> &actors) {
  const ledger::pack::Tables &t = world.tables();
  std::vector<Handle> everyone = world.living();
  everyone.insert(everyone.end(), actors.begin(), actors.end());
  for (Handle h : everyone)
    for (Id v = 0; v < t.values.size(); ++v) {
      (void)world.value(h, v);
      (void)world.maximum(h, v);
    }
}

void runWorld(ledger::pack::Tables tables) {
  auto pack = ledger::rt::Pack::reference(std::move(tables), ledger::eval::evaluator());
  const ledger::pack::Tables &t = pack->tables();
  ledger::rt::World world(*pack);
  // Hashed, not kept: content may journal a great deal within its budgets.
  world.setJournalMode(ledger::rt::JournalMode::HashOnly);
  std::vector<Handle> actors;
  for (Id a = 0; a < t.archetypes.size() && a < kMost; ++a)
    actors.push_back(world.make(a));
  for (Id ab = 0; ab < t.abilities.size() && ab < kMost; ++ab)
    for (Handle by : actors)
      for (Handle at : actors)
        world.act(by, ab, {at});
  // 50 ticks, or as many as make 20,000 entries: content may ask for a
  // great deal of work within its budgets (an every due 10,000 times a
  // tick), which is no hang, and an input runs in milliseconds.
  for (int tick = 0; tick < 50 && world.journalCount() < 20'000; ++tick)
    world.advance(1);
  readEverything(world, actors);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  std::string why;
  (void)ledger::rt::sealHoldsOn(bytes, why);
  ledger::pack::Tables tables;
  if (ledger::pack::deserialize(bytes, tables, why))
    runWorld(std::move(tables));
  return 0;
}
