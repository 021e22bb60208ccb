// Orders made up as a sequence goes: each from the state the reference
// engine's world is in (who is alive, on which side, what each holds and is
// granted), mostly ones the world may take, now and then one it refuses.
#pragma once

#include "played_world.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ledger::fuzz {

class OrderMaker {
public:
  OrderMaker(const pack::Tables &tables, uint64_t seed);
  ~OrderMaker();
  // The first orders of every sequence: the sides, then a few fighters on them.
  std::vector<Order> opening(const PlayedWorld &w);
  Order next(const PlayedWorld &w);

private:
  class Choices;
  std::unique_ptr<Choices> choices_;
};

} // namespace ledger::fuzz
