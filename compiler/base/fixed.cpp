#include "base/fixed.h"

#include <limits>

namespace ledger {

DecimalError parseDecimal(std::string_view text, Fixed &out) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t whole = 0;
  size_t i = 0;
  if (text.empty() || text[0] < '0' || text[0] > '9')
    return DecimalError::Malformed;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    int digit = text[i] - '0';
    if (whole > (kMax / Fixed::kScale - digit) / 10)
      return DecimalError::TooLarge;
    whole = whole * 10 + digit;
  }
  int64_t fraction = 0;
  int places = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (i == text.size())
      return DecimalError::Malformed;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      if (++places > 6)
        return DecimalError::TooManyPlaces;
      fraction = fraction * 10 + (text[i] - '0');
    }
  }
  if (i != text.size())
    return DecimalError::Malformed;
  for (int p = places; p < 6; ++p)
    fraction *= 10;
  // The whole part fits; with its fraction the count may not.
  if (whole * Fixed::kScale > kMax - fraction)
    return DecimalError::TooLarge;
  out = Fixed{whole * Fixed::kScale + fraction};
  return DecimalError::None;
}

std::string formatFixed(Fixed value) {
  // Widen first so the most negative count prints without overflow.
  __int128 raw = value.raw;
  std::string sign = raw < 0 ? "-" : "";
  if (raw < 0)
    raw = -raw;
  auto whole = static_cast<unsigned long long>(raw / Fixed::kScale);
  auto fraction = static_cast<unsigned long long>(raw % Fixed::kScale);
  std::string text = sign + std::to_string(whole);
  if (fraction != 0) {
    std::string digits = std::to_string(fraction);
    digits.insert(0, 6 - digits.size(), '0');
    while (digits.back() == '0')
      digits.pop_back();
    text += "." + digits;
  }
  return text;
}

} // namespace ledger
