// An effect's id given where an ability's is wanted, and a stat set as a
// pool: neither compiles.
#include "ids.h"
#include <ledger/world.h>

void order(ledger::rt::World &world, ledger::rt::Handle a, ledger::rt::Handle b) {
  using namespace game::content;
  world.act(a, effects::Burn, {b});
  world.setPool(a, stats::Power, 5);
}
