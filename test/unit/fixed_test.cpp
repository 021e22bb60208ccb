#include "base/fixed.h"

#include <gtest/gtest.h>

using namespace ledger;

TEST(Fixed, ReadsSixPlaces) {
  Fixed v;
  ASSERT_EQ(parseDecimal("1.5", v), DecimalError::None);
  EXPECT_EQ(v.raw, 1'500'000);
  ASSERT_EQ(parseDecimal("0.000001", v), DecimalError::None);
  EXPECT_EQ(v.raw, 1);
  ASSERT_EQ(parseDecimal("12", v), DecimalError::None);
  EXPECT_EQ(v.raw, 12'000'000);
}

TEST(Fixed, RefusesASeventhPlace) {
  Fixed v;
  EXPECT_EQ(parseDecimal("0.0000001", v), DecimalError::TooManyPlaces);
}

TEST(Fixed, RefusesWhatANumberCannotHold) {
  Fixed v;
  EXPECT_EQ(parseDecimal("9223372036855", v), DecimalError::TooLarge);
  EXPECT_EQ(parseDecimal("9223372036854", v), DecimalError::None);
  EXPECT_EQ(parseDecimal("9223372036854.775807", v), DecimalError::None);
  EXPECT_EQ(v.raw, INT64_MAX);
  EXPECT_EQ(parseDecimal("9223372036854.775808", v), DecimalError::TooLarge);
  EXPECT_EQ(parseDecimal("9223372036854.9", v), DecimalError::TooLarge);
}

TEST(Fixed, FormatsWithoutTrailingZeros) {
  EXPECT_EQ(formatFixed(Fixed{1'500'000}), "1.5");
  EXPECT_EQ(formatFixed(Fixed{-3'000'000}), "-3");
  EXPECT_EQ(formatFixed(Fixed{1}), "0.000001");
  EXPECT_EQ(formatFixed(Fixed{INT64_MIN}), "-9223372036854.775808");
}
