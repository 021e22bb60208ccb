// The world's randomness (architecture: "Randomness"): each stream seeded
// from the world's seed and the stream's name, so adding a stream moves no
// other's draws; one documented generator, part of the format: SplitMix64
// seeds xoshiro256** from seed ^ FNV-1a(name). The same seed gives the same
// draws in every engine and every release.
#pragma once

#include <cstdint>
#include <string_view>

namespace ledger::rt {

// FNV-1a, 64 bits, of a stream's name (and of a pack's tables).
uint64_t nameHash(std::string_view name);

class Stream {
public:
  // A stream seeded from the world's seed and its name (and, after a
  // reseed, the number the game gave).
  Stream(uint64_t worldSeed, std::string_view name, uint64_t reseed = 0);

  uint64_t next();
  // A number from 0 up to 1, in millionths: 0 to 999999.
  int64_t draw();
  // A whole number between the two, both included, in millionths: from the
  // lower rounded up to the higher rounded down, in either order; where no
  // whole number lies between, the one just above the lower.
  int64_t roll(int64_t low, int64_t high);
  // 1 with that probability (a number in millionths), else 0, in millionths.
  int64_t chance(int64_t probability);

  // The generator's whole state, for saves.
  struct State {
    uint64_t s[4];
  };
  State state() const { return {{s_[0], s_[1], s_[2], s_[3]}}; }
  void restore(const State &state);

private:
  uint64_t below(uint64_t bound); // uniform in [0, bound), bound > 0
  uint64_t s_[4];
};

} // namespace ledger::rt
