// The duel as a game: a Knight and a cave Troll fight in a terminal, each
// choosing its next ability as it comes off cooldown, until one falls. The
// game loop runs frames of 50 ms; the combat log is the world's journal,
// read as each frame ends and let go.
//
//   duel_game PACK [SEED]
#include "duel_ids.h"
#include <ledger/world.h>

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace duel;
using ledger::rt::Handle;
using ledger::rt::World;

namespace {

constexpr int64_t kOne = 1'000'000; // Ledger's numbers: six places of a second, of a point
constexpr int64_t kFrame = 50'000;  // 50 ms
constexpr int64_t kLongest = 120 * kOne;

long long whole(int64_t n) { return static_cast<long long>(n / kOne); }

// A tick as seconds, at whatever rate the catalog runs.
double secondsAt(const World &world, int64_t tick) {
  return double(world.secondsOf(tick * world.tables().unitsPerTick * kOne)) / double(kOne);
}

struct Fighter {
  const char *name;
  Handle actor;
};

// The Knight spends rage on a wounded foe, bashes with enough of it, and
// otherwise strikes, raising his shield once he is hurt.
void knightTurn(World &world, const Fighter &knight, const Fighter &foe) {
  if (world.canAct(knight.actor, abilities::Execute, {foe.actor}).ok())
    world.act(knight.actor, abilities::Execute, {foe.actor});
  else if (world.value(knight.actor, pools::Health) < 60 * kOne &&
           world.canAct(knight.actor, abilities::Brace, {knight.actor}).ok())
    world.act(knight.actor, abilities::Brace, {knight.actor});
  else if (world.canAct(knight.actor, abilities::ShieldBash, {foe.actor}).ok())
    world.act(knight.actor, abilities::ShieldBash, {foe.actor});
  else
    world.act(knight.actor, abilities::Strike, {foe.actor}); // refused while it cools down
}

// The Troll frenzies when it can and claws otherwise.
void trollTurn(World &world, const Fighter &troll, const Fighter &foe) {
  if (world.act(troll.actor, abilities::Frenzy, {foe.actor}).ok())
    return;
  world.act(troll.actor, abilities::Claw, {foe.actor});
}

const char *nameOf(Handle h, const Fighter &a, const Fighter &b) {
  return h == a.actor ? a.name : h == b.actor ? b.name : "the world";
}

// Whether a journal entry carries a tag (its parents among them).
bool carries(const World &world, const ledger::rt::JournalEntry &e, ledger::ids::Tag tag) {
  uint64_t word = world.journalTags()[e.tagsAt + tag.id / 64];
  return (word >> (tag.id % 64)) & 1;
}

// The log: each blow and heal on a fighter's Health, as floating numbers
// would show them, and each death.
void tellJournal(World &world, const Fighter &a, const Fighter &b) {
  for (const ledger::rt::JournalEntry &e : world.journal()) {
    double at = secondsAt(world, e.tick);
    if (e.event == events::Change.id && e.pool == pools::Health.id && e.landed != 0)
      std::printf("%6.2fs  %-6s %s %lld\n", at, nameOf(e.subject, a, b),
                  carries(world, e, tags::Heal) ? "heals" : "takes", whole(e.landed));
    else if (e.event == events::Died.id)
      std::printf("%6.2fs  %-6s falls\n", at, nameOf(e.subject, a, b));
  }
  world.forgetJournal();
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s PACK [SEED]\n", argv[0]);
    return 2;
  }
  std::string why;
  std::unique_ptr<ledger::rt::Pack> pack = loadPack(argv[1], why); // refused unless it is this catalog's
  if (!pack) {
    std::fprintf(stderr, "duel_game: the pack is refused: %s\n", why.c_str());
    return 1;
  }
  World world(*pack, argc == 3 ? std::strtoull(argv[2], nullptr, 10) : 1);
  Handle left = world.make(archetypes::Team), right = world.make(archetypes::Team);
  Fighter knight{"Knight", world.make(archetypes::Knight, {{links::side, left}})};
  Fighter troll{"Troll", world.make(archetypes::Troll, {{links::side, right}})};
  std::printf("A Knight (%lld Health) meets a cave Troll (%lld Health).\n",
              whole(world.value(knight.actor, pools::Health)),
              whole(world.value(troll.actor, pools::Health)));
  world.forgetJournal();

  for (int64_t t = 0; t < kLongest && world.alive(knight.actor) && world.alive(troll.actor);
       t += kFrame) {
    knightTurn(world, knight, troll);
    if (world.alive(troll.actor))
      trollTurn(world, troll, knight);
    world.advanceSeconds(kFrame);
    tellJournal(world, knight, troll);
    if ((t + kFrame) % (5 * kOne) == 0)
      std::printf("         Knight %lld, Troll %lld\n", whole(world.value(knight.actor, pools::Health)),
                  whole(world.value(troll.actor, pools::Health)));
  }
  const Fighter *standing = world.alive(knight.actor) ? &knight
                            : world.alive(troll.actor) ? &troll
                                                       : nullptr;
  if (standing)
    std::printf("%s wins with %lld Health, at %.2fs.\n", standing->name,
                whole(world.value(standing->actor, pools::Health)), secondsAt(world, world.now()));
  else
    std::printf("Both fall.\n");
  return 0;
}
