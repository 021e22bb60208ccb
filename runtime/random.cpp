#include "random.h"

namespace ledger::rt {

namespace {

uint64_t splitMix64(uint64_t &x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

constexpr int64_t kOne = 1'000'000;

} // namespace

uint64_t nameHash(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

Stream::Stream(uint64_t worldSeed, std::string_view name, uint64_t reseed) {
  uint64_t x = worldSeed ^ nameHash(name) ^ splitMix64(reseed);
  for (uint64_t &word : s_)
    word = splitMix64(x);
}

void Stream::restore(const State &state) {
  for (int i = 0; i < 4; ++i)
    s_[i] = state.s[i];
}

// xoshiro256** 1.0
uint64_t Stream::next() {
  uint64_t result = rotl(s_[1] * 5, 7) * 9;
  uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

// Lemire's method without its one division, by rejection: unbiased.
uint64_t Stream::below(uint64_t bound) {
  uint64_t threshold = -bound % bound;
  while (true) {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
    if (static_cast<uint64_t>(m) >= threshold)
      return static_cast<uint64_t>(m >> 64);
  }
}

int64_t Stream::draw() { return static_cast<int64_t>(below(kOne)); }

int64_t Stream::roll(int64_t low, int64_t high) {
  if (low > high) {
    int64_t t = low;
    low = high;
    high = t;
  }
  // The whole numbers between the two: from low rounded up to high rounded
  // down; where none lies between, the one just above low.
  int64_t a = low / kOne + (low % kOne > 0 ? 1 : 0);
  int64_t b = high / kOne - (high % kOne < 0 ? 1 : 0);
  if (a > b)
    return a * kOne;
  uint64_t span = static_cast<uint64_t>(b - a) + 1;
  return (a + static_cast<int64_t>(below(span))) * kOne;
}

int64_t Stream::chance(int64_t probability) { return draw() < probability ? kOne : 0; }

} // namespace ledger::rt
