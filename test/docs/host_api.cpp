// docs/host-api.md's C++ examples, whole: each block of the page is a run of
// lines of this file (test/docs/examples.py checks so), which the suite
// compiles and runs on test/docs/game.ledger's pack (host_api.test).
#include "ids.h"
#include <ledger/world.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace {

[[noreturn]] void die(const std::string &why) {
  std::fprintf(stderr, "host_api: %s\n", why.c_str());
  std::exit(1);
}

void byName() {
  std::string why;
  std::unique_ptr<ledger::rt::Pack> pack = ledger::rt::Pack::load("game.so", why);
  if (!pack)
    die(why); // unsealed or damaged, not a ledger pack, another ABI's, a wrong hash

  const ledger::pack::Tables &t = pack->tables();
  ledger::pack::Id bolt = t.find(t.abilities, "Bolt");   // kNoId if there is none
  ledger::pack::Id mage = t.find(t.archetypes, "Mage"), team = t.find(t.archetypes, "Team");
  ledger::pack::Id side = t.find(t.links, "side");
  ledger::pack::Id health = t.find(t.values, "Health");
  ledger::pack::Id power = t.find(t.props, "Power"), element = t.find(t.props, "Element");
  ledger::pack::Id fire = t.find(t.tags, "School.Fire");

  ledger::rt::World world(*pack, /*seed=*/7);
  ledger::rt::Handle red = world.make(team), blue = world.make(team);
  ledger::rt::Handle a = world.make(mage, {{side, red}}), b = world.make(mage, {{side, blue}});

  using ledger::rt::Given;
  Given with{{Given::number(power, 2'000'000), Given::tagged(element, fire)}};
  ledger::rt::Outcome o = world.act(a, bolt, {b}, with);
  if (!o.ok())
    die(ledger::rt::refusalName(o.refusal));
  world.advanceSeconds(1'000'000);
  std::printf("by name: Health %lld\n", static_cast<long long>(world.value(b, health) / 1'000'000));

  std::string bytes = world.saveBytes();              // between orders
  std::optional<ledger::rt::World> back = ledger::rt::World::loadSave(*pack, bytes, why);
  if (!back)
    die(why);
  std::printf("read back: Health %lld\n",
              static_cast<long long>(back->value(b, health) / 1'000'000));
}

void typed() {
  using namespace game::content;
  std::string why;
  std::unique_ptr<ledger::rt::Pack> pack = loadPack("game.so", why);   // null, with why
  if (!pack)
    die(why);
  ledger::rt::World world(*pack);
  ledger::rt::Handle red = world.make(archetypes::Team), blue = world.make(archetypes::Team);
  ledger::rt::Handle a = world.make(archetypes::Mage, {{links::side, red}});
  ledger::rt::Handle b = world.make(archetypes::Mage, {{links::side, blue}});
  world.act(a, abilities::Bolt, {b});
  int64_t health = world.value(b, pools::Health);
  std::printf("typed: Health %lld\n", static_cast<long long>(health / 1'000'000));
}

} // namespace

int main() {
  byName();
  typed();
  return 0;
}
