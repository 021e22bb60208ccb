// One engine's side of a run: its world, and the names a play gives its
// actors and saves, kept as tools/ledger/play_runner.cpp keeps them, so
// that an order given here is the order a play's line gives.
#pragma once

#include "host_orders.h"
#include "world.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ledger::fuzz {

using rt::Handle;

struct PlayedWorld {
  const rt::Pack &pack;
  const pack::Tables &t;
  std::optional<rt::World> world;
  std::map<std::string, Handle> actors;
  std::vector<std::string> made; // the names, in the order they were made
  struct Saved {
    rt::World world;
    std::map<std::string, Handle> actors;
    std::vector<std::string> made;
  };
  std::map<std::string, Saved> saves;

  explicit PlayedWorld(const rt::Pack &p) : pack(p), t(p.tables()) {
    world.emplace(pack, 0);
    world->countCoverage({});
  }
  // The world played on from another (a save read back, a rewind's): what
  // the coverage instrument counted goes on with it, as in a play.
  void replaceWorld(const rt::World &next) {
    rt::World::Coverage counted = *world->coverage();
    world.emplace(next);
    world->countCoverage(std::move(counted));
  }

  Handle named(const std::string &name, bool &invalid) const {
    auto it = actors.find(name);
    if (it == actors.end()) {
      invalid = true;
      return 0;
    }
    return it->second;
  }
};

// Gives the order to the world as a play's line would, an exception in the
// engine taken as its outcome; with `reads`, every actor is read after it.
OrderResult give(PlayedWorld &w, const Order &order, bool reads);

// The first place what two engines gave for an order parts, if it does:
// an exception, the journal's new entries, the outcome, then the reads.
std::optional<Difference> compare(const OrderResult &reference, const OrderResult &compiled, size_t order);

} // namespace ledger::fuzz
