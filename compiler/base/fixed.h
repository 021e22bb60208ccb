// Six-place fixed-point numbers: every number of the language is a signed
// 64-bit count of millionths, so arithmetic is exact and the same everywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ledger {

struct Fixed {
  static constexpr int64_t kScale = 1'000'000;
  int64_t raw = 0;

  static constexpr Fixed fromInt(int64_t whole) { return Fixed{whole * kScale}; }
  friend constexpr bool operator==(Fixed, Fixed) = default;
  friend constexpr auto operator<=>(Fixed, Fixed) = default;
};

// Why a decimal literal could not be read.
enum class DecimalError { None, TooManyPlaces, TooLarge, Malformed };

// Reads digits with an optional fraction ("12", "1.5", "0.000001").
DecimalError parseDecimal(std::string_view text, Fixed &out);

// Six places at most, trailing zeros dropped: 1.5, -3, 0.000001.
std::string formatFixed(Fixed value);

} // namespace ledger
