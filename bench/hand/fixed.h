// Six-place fixed point, as the catalog's numbers are: a count of millionths
// in 64 bits. `+` and `-` are plain; `*` and `/` round to the nearest
// millionth, a half to the even one, through a 128-bit intermediate, so
// the hand-written rules land on the same amounts as the catalog's.
#pragma once

#include <cstdint>

namespace skirmish_hand {

using Fixed = int64_t;

inline constexpr Fixed kOne = 1'000'000;

constexpr Fixed whole(int64_t n) { return n * kOne; }

// a * b / c, rounded half to even.
constexpr int64_t mulDiv(int64_t a, int64_t b, int64_t c) {
  __int128 n = __int128(a) * b;
  __int128 q = n / c, r = n % c;
  __int128 twice = (r < 0 ? -r : r) * 2, d = c < 0 ? -__int128(c) : __int128(c);
  if (twice > d || (twice == d && q % 2 != 0))
    q += (n < 0) != (c < 0) ? -1 : 1;
  return int64_t(q);
}

constexpr Fixed mul(Fixed a, Fixed b) { return mulDiv(a, b, kOne); }
constexpr Fixed div(Fixed a, Fixed b) { return mulDiv(a, kOne, b); }

static_assert(mul(whole(18), whole(76)) == whole(1368));
static_assert(div(whole(1368), whole(100)) == 13'680'000);
static_assert(div(5, whole(2)) == 2 && div(7, whole(2)) == 4); // 2.5 and 3.5 millionths: to the even one

} // namespace skirmish_hand
