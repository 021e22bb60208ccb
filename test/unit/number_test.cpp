#include "number.h"

#include <gtest/gtest.h>

#include <limits>

using namespace ledger::rt;

namespace {
constexpr int64_t n(double v) { return static_cast<int64_t>(v * 1'000'000 + (v < 0 ? -0.5 : 0.5)); }
} // namespace

TEST(Number, AddAndSubtractExactly) {
  NumberFault f = NumberFault::None;
  EXPECT_EQ(add(n(0.1), n(0.2), f), n(0.3));
  EXPECT_EQ(sub(n(1), n(0.000001), f), 999'999);
  EXPECT_EQ(f, NumberFault::None);
  // The step down from within a unit of the least number is past it.
  EXPECT_EQ(floorWhole(INT64_MIN + 1, f), 0);
  EXPECT_NE(f, NumberFault::None);
}

TEST(Number, PastWhatANumberHoldsIsZeroAndAFault) {
  NumberFault f = NumberFault::None;
  EXPECT_EQ(add(std::numeric_limits<int64_t>::max(), 1, f), 0);
  EXPECT_EQ(f, NumberFault::Overflow);
  f = NumberFault::None;
  EXPECT_EQ(mul(std::numeric_limits<int64_t>::max(), n(2), f), 0);
  EXPECT_EQ(f, NumberFault::Overflow);
}

TEST(Number, MultiplyRoundsHalfToEven) {
  NumberFault f = NumberFault::None;
  EXPECT_EQ(mul(n(1.5), n(1.5), f), n(2.25));
  EXPECT_EQ(mul(1, n(0.5), f), 0);   // 0.0000005 -> 0
  EXPECT_EQ(mul(3, n(0.5), f), 2);   // 0.0000015 -> 0.000002
  EXPECT_EQ(mul(-3, n(0.5), f), -2); // and below zero alike
  EXPECT_EQ(f, NumberFault::None);
}

TEST(Number, DivideRoundsAndRefusesZero) {
  NumberFault f = NumberFault::None;
  EXPECT_EQ(div(n(1), n(3), f), 333'333);
  EXPECT_EQ(div(n(2), n(3), f), 666'667);
  EXPECT_EQ(div(1, n(2), f), 0);
  EXPECT_EQ(f, NumberFault::None);
  EXPECT_EQ(div(n(1), 0, f), 0);
  EXPECT_EQ(f, NumberFault::DivideByZero);
}

TEST(Number, PowBySquaringEachProductRounded) {
  NumberFault f = NumberFault::None;
  EXPECT_EQ(pow(n(2), 3, f), n(8));
  EXPECT_EQ(pow(n(1.1), 2, f), n(1.21));
  // 0.5^9 by squaring: 0.5 * ((0.5^2)^2)^2 with 0.00390625 rounded to 0.003906
  EXPECT_EQ(pow(n(0.5), 9, f), n(0.001953));
  EXPECT_EQ(f, NumberFault::None);
  EXPECT_EQ(pow(n(1'000'000), 9, f), 0);
  EXPECT_EQ(f, NumberFault::Overflow);
  f = NumberFault::None;
  EXPECT_EQ(pow(n(2), 10, f), 0);
  EXPECT_EQ(f, NumberFault::BadPower);
}

TEST(Number, RootIsTheLargestWhosePowerDoesNotPass) {
  NumberFault f = NumberFault::None;
  EXPECT_EQ(root(n(4), 2, f), n(2));
  EXPECT_EQ(root(n(2), 2, f), n(1.414213));
  EXPECT_EQ(root(n(0.25), 2, f), n(0.5));
  EXPECT_EQ(root(n(27), 3, f), n(3));
  EXPECT_EQ(root(n(-8), 3, f), n(-2));
  EXPECT_EQ(root(n(-9), 3, f), n(-2.080084));
  EXPECT_EQ(root(n(7), 1, f), n(7));
  EXPECT_EQ(root(std::numeric_limits<int64_t>::max(), 9, f), 27'576'764);
  EXPECT_EQ(f, NumberFault::None);
  EXPECT_EQ(root(n(-4), 2, f), 0);
  EXPECT_EQ(f, NumberFault::EvenRootOfNegative);
}

TEST(Number, WholeNumbers) {
  NumberFault f = NumberFault::None;
  EXPECT_EQ(roundWhole(n(2.5), f), n(2));
  EXPECT_EQ(roundWhole(n(3.5), f), n(4));
  EXPECT_EQ(roundWhole(n(-2.5), f), n(-2));
  EXPECT_EQ(floorWhole(n(-1.5), f), n(-2));
  EXPECT_EQ(ceilWhole(n(-1.5), f), n(-1));
  EXPECT_EQ(ceilWhole(n(1.2), f), n(2));
  EXPECT_EQ(truncWhole(n(-1.5)), n(-1));
  EXPECT_EQ(abs(n(-3), f), n(3));
  EXPECT_EQ(clamp(n(5), n(0), n(3)), n(3));
  EXPECT_EQ(f, NumberFault::None);
}

// Products and quotients that fit in 64 bits take a path of their own: it
// must round and fault exactly as the 128-bit statement of the same rule.
TEST(Number, SixtyFourBitPathMatchesTheWideRule) {
  auto wide = [](__int128 num, __int128 den, NumberFault &f) -> int64_t {
    bool negative = (num < 0) != (den < 0);
    unsigned __int128 un = num < 0 ? -num : num, ud = den < 0 ? -den : den;
    unsigned __int128 q = un / ud, r = un % ud;
    if (r * 2 > ud || (r * 2 == ud && (q & 1)))
      ++q;
    __int128 v = negative ? -__int128(q) : __int128(q);
    if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min()) {
      f = NumberFault::Overflow;
      return 0;
    }
    return int64_t(v);
  };
  const int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  const int64_t values[] = {0,         1,          -1,          2,           3,
                            499'999,   500'000,    500'001,     -500'000,    1'000'000,
                            -1'000'000, 1'500'000, -2'500'000,  9'223'372'036'854,
                            -9'223'372'036'854, 3'037'000'499, -3'037'000'500,
                            kMax,      kMin,       kMax / 2,    kMin / 2,   kMax - 1'000'000,
                            kMin + 1'000'000, 4'611'686'018'427'387'904};
  for (int64_t a : values)
    for (int64_t b : values) {
      NumberFault got = NumberFault::None, want = NumberFault::None;
      EXPECT_EQ(mul(a, b, got), wide(__int128(a) * b, 1'000'000, want)) << a << " * " << b;
      EXPECT_EQ(got, want) << a << " * " << b;
      if (b == 0)
        continue;
      got = want = NumberFault::None;
      EXPECT_EQ(div(a, b, got), wide(__int128(a) * 1'000'000, b, want)) << a << " / " << b;
      EXPECT_EQ(got, want) << a << " / " << b;
    }
}
