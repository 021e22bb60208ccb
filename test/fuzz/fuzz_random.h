// The differential fuzzer's one source of choices: SplitMix64, so a seed
// gives the same catalogs and orders on every machine and every run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace ledger::fuzz {

class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // A whole number in [0, n); 0 when n is 0.
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(below(uint64_t(hi - lo + 1))); }
  // True `percent` times in a hundred.
  bool chance(int percent) { return int(below(100)) < percent; }
  template <typename T> const T &pick(const std::vector<T> &items) { return items[below(items.size())]; }
  template <typename T> T pick(std::initializer_list<T> items) { return items.begin()[below(items.size())]; }
  // A few of the items, in their order, none twice; at least `least`.
  template <typename T> std::vector<T> some(const std::vector<T> &items, size_t least, size_t most) {
    std::vector<T> chosen;
    if (items.empty())
      return chosen;
    size_t want = size_t(range(int64_t(std::min(least, items.size())), int64_t(std::min(most, items.size()))));
    std::vector<size_t> order(items.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    for (size_t i = 0; i < want; ++i)
      std::swap(order[i], order[i + below(order.size() - i)]);
    order.resize(want);
    std::sort(order.begin(), order.end());
    for (size_t i : order)
      chosen.push_back(items[i]);
    return chosen;
  }

private:
  uint64_t state_;
};

// A seed for the n-th thing made from a seed: catalogs from the run's seed,
// order sequences from a catalog's, so any one can be made again alone.
inline uint64_t derive(uint64_t seed, uint64_t n) {
  Rng r(seed ^ (n * 0xd1b54a32d192ed03ull));
  r.next();
  return r.next();
}

} // namespace ledger::fuzz
