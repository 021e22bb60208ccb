// A host driving a pack by its typed header: `host PACK` loads it through
// the header's loadPack (refused, with why, unless it is of the header's
// catalog), orders a Bolt and reads what it did.
#include "ids.h"
#include <ledger/world.h>

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  using namespace game::content;
  std::string why;
  std::unique_ptr<ledger::rt::Pack> pack = loadPack(argv[1], why);
  if (!pack) {
    std::printf("refused: %s\n", why.c_str());
    return 1;
  }
  ledger::rt::World world(*pack);
  ledger::rt::Handle a = world.make(archetypes::Mage), b = world.make(archetypes::Mage);
  ledger::rt::Outcome o = world.act(a, abilities::Bolt, {b});
  world.advance(1);
  std::printf("ordered: %s\n", o.ok() ? "done" : "refused");
  std::printf("health: %lld of %lld\n", static_cast<long long>(world.value(b, pools::Health)),
              static_cast<long long>(*world.maximum(b, pools::Health)));
  std::printf("power: %lld\n", static_cast<long long>(world.value(a, stats::Power)));
  std::printf("burning: %d\n", world.holds(b, effects::Burn) ? 1 : 0);
  std::printf("delete held: %d\n", world.holds(b, effects::delete_) ? 1 : 0);
  return 0;
}
