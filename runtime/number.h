// The arithmetic of the language's numbers, shared by both engines and the
// code they run: six-place decimals held as signed 64-bit counts of
// millionths (architecture: "Numbers"). `+` and `-` are exact; `*`, `/`,
// pow and root round at the millionth, half to even, through 128-bit
// intermediates; a result past what a number holds, a division by zero and an
// even root below zero give 0 and raise the fault flag. Plain functions on
// plain integers, so generated code and a C host can call them.
#pragma once

#include <cstdint>

namespace ledger::rt {

inline constexpr int64_t kOne = 1'000'000; // 1, in millionths

// Why an operation gave 0 instead of its value, or None.
enum class NumberFault : uint8_t { None, Overflow, DivideByZero, EvenRootOfNegative, BadPower };

// Inline: the engines add and subtract on every landing and settle.
inline int64_t add(int64_t a, int64_t b, NumberFault &fault) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) {
    fault = NumberFault::Overflow;
    return 0;
  }
  return sum;
}
inline int64_t sub(int64_t a, int64_t b, NumberFault &fault) {
  int64_t difference;
  if (__builtin_sub_overflow(a, b, &difference)) {
    fault = NumberFault::Overflow;
    return 0;
  }
  return difference;
}
// A pool's move, a + b exactly where the sum is a number, else the end of
// what a number holds that it passed, with `passed` set: the bounds it is
// then kept within may catch it there (reading 160).
inline int64_t addHeld(int64_t a, int64_t b, bool &passed) {
  int64_t sum;
  if (!__builtin_add_overflow(a, b, &sum))
    return sum;
  passed = true;
  return b > 0 ? INT64_MAX : INT64_MIN;
}
// A time a span on from another: past what a time holds, the last time,
// which the world never reaches (reading 135).
inline int64_t timeAfter(int64_t at, int64_t span) {
  bool passed = false;
  return addHeld(at, span, passed);
}
inline int64_t subHeld(int64_t a, int64_t b, bool &passed) {
  int64_t difference;
  if (!__builtin_sub_overflow(a, b, &difference))
    return difference;
  passed = true;
  return b < 0 ? INT64_MAX : INT64_MIN;
}
int64_t neg(int64_t a, NumberFault &fault);
int64_t mul(int64_t a, int64_t b, NumberFault &fault);
int64_t div(int64_t a, int64_t b, NumberFault &fault);

// pow(F, N): N a whole number 1 to 9, by squaring, each product rounded.
int64_t pow(int64_t a, int n, NumberFault &fault);
// root(F, N): the largest six-place number whose N-th power doesn't pass F,
// so an exact root is exact; N a whole number 1 to 9.
int64_t root(int64_t a, int n, NumberFault &fault);

// To a whole number: down, up, toward zero, and to the nearest (a half to
// the even one: 2.5 is 2, 3.5 is 4).
int64_t floorWhole(int64_t a, NumberFault &fault);
int64_t ceilWhole(int64_t a, NumberFault &fault);
int64_t truncWhole(int64_t a);
int64_t roundWhole(int64_t a, NumberFault &fault);
int64_t abs(int64_t a, NumberFault &fault);

inline int64_t min(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t max(int64_t a, int64_t b) { return a > b ? a : b; }
// The first, kept between the second and the third.
inline int64_t clamp(int64_t a, int64_t low, int64_t high) { return max(low, min(a, high)); }

} // namespace ledger::rt
