#include "number.h"

#include <limits>

namespace ledger::rt {

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

int64_t failed(NumberFault &fault, NumberFault why) {
  fault = why;
  return 0;
}

int64_t fits(__int128 v, NumberFault &fault) {
  if (v > kMax || v < kMin)
    return failed(fault, NumberFault::Overflow);
  return static_cast<int64_t>(v);
}

// n / d rounded to the nearest, a half to the even one.
__int128 divideHalfEven(__int128 n, __int128 d) {
  bool negative = (n < 0) != (d < 0);
  unsigned __int128 un = n < 0 ? -static_cast<unsigned __int128>(n) : n;
  unsigned __int128 ud = d < 0 ? -static_cast<unsigned __int128>(d) : d;
  unsigned __int128 q = un / ud;
  unsigned __int128 r = un % ud;
  if (r * 2 > ud || (r * 2 == ud && (q & 1)))
    ++q;
  return negative ? -static_cast<__int128>(q) : static_cast<__int128>(q);
}

// A magnitude over a magnitude, rounded to the nearest, a half to the even
// one, in 64 bits: the case of nearly every product and quotient, which the
// 128-bit path would send through a library division.
uint64_t divideMagnitudes(uint64_t n, uint64_t d) {
  uint64_t q = n / d, r = n % d;
  if (r > d - r || (r == d - r && (q & 1)))
    ++q;
  return q;
}

uint64_t magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : v; }

// A rounded quotient of magnitudes given its sign, or the overflow fault.
int64_t signedFit(uint64_t q, bool negative, NumberFault &fault) {
  if (q > static_cast<uint64_t>(kMax) + negative)
    return failed(fault, NumberFault::Overflow);
  return negative ? static_cast<int64_t>(0 - q) : static_cast<int64_t>(q);
}

// A non-negative integer of up to 18 32-bit limbs: enough for a six-place
// number to the ninth power, compared exactly.
struct Wide {
  uint32_t limb[20] = {};
  int size = 0;

  static Wide of(unsigned __int128 v) {
    Wide w;
    while (v) {
      w.limb[w.size++] = static_cast<uint32_t>(v);
      v >>= 32;
    }
    return w;
  }
  void times(uint64_t m) {
    unsigned __int128 carry = 0;
    for (int i = 0; i < size; ++i) {
      unsigned __int128 p = static_cast<unsigned __int128>(limb[i]) * m + carry;
      limb[i] = static_cast<uint32_t>(p);
      carry = p >> 32;
    }
    while (carry) {
      limb[size++] = static_cast<uint32_t>(carry);
      carry >>= 32;
    }
  }
  friend bool operator<=(const Wide &a, const Wide &b) {
    if (a.size != b.size)
      return a.size < b.size;
    for (int i = a.size - 1; i >= 0; --i)
      if (a.limb[i] != b.limb[i])
        return a.limb[i] < b.limb[i];
    return true;
  }
};

// How (x / 10^6)^n stands to f / 10^6, exactly: x^n against f * 10^(6(n-1));
// below zero, equal, above.
int comparePower(uint64_t x, int n, uint64_t f) {
  Wide lhs = Wide::of(x);
  for (int i = 1; i < n; ++i)
    lhs.times(x);
  Wide rhs = Wide::of(f);
  for (int i = 1; i < n; ++i)
    rhs.times(static_cast<uint64_t>(kOne));
  bool within = lhs <= rhs;
  bool reaches = rhs <= lhs;
  return within && reaches ? 0 : within ? -1 : 1;
}

// The largest x (in millionths) whose n-th power doesn't pass f: at most
// max(f, 1), found by halving.
uint64_t largestRoot(uint64_t f, int n) {
  uint64_t lo = 0, hi = f < static_cast<uint64_t>(kOne) ? kOne : f;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo + 1) / 2;
    if (comparePower(mid, n, f) <= 0)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

} // namespace

int64_t neg(int64_t a, NumberFault &fault) { return fits(-static_cast<__int128>(a), fault); }

int64_t mul(int64_t a, int64_t b, NumberFault &fault) {
  if (int64_t product; !__builtin_mul_overflow(a, b, &product))
    return signedFit(divideMagnitudes(magnitude(product), kOne), product < 0, fault);
  return fits(divideHalfEven(static_cast<__int128>(a) * b, kOne), fault);
}

int64_t div(int64_t a, int64_t b, NumberFault &fault) {
  if (b == 0)
    return failed(fault, NumberFault::DivideByZero);
  if (int64_t scaled; !__builtin_mul_overflow(a, kOne, &scaled))
    return signedFit(divideMagnitudes(magnitude(scaled), magnitude(b)), (scaled < 0) != (b < 0),
                     fault);
  return fits(divideHalfEven(static_cast<__int128>(a) * kOne, b), fault);
}

int64_t pow(int64_t a, int n, NumberFault &fault) {
  if (n < 1 || n > 9)
    return failed(fault, NumberFault::BadPower);
  int64_t result = kOne;
  int64_t base = a;
  bool first = true;
  while (n > 0) {
    if (n & 1) {
      result = first ? base : mul(result, base, fault);
      first = false;
      if (fault != NumberFault::None)
        return 0;
    }
    n >>= 1;
    if (n > 0) { // square only what is still to be used
      base = mul(base, base, fault);
      if (fault != NumberFault::None)
        return 0;
    }
  }
  return result;
}

int64_t root(int64_t a, int n, NumberFault &fault) {
  if (n < 1 || n > 9)
    return failed(fault, NumberFault::BadPower);
  if (n == 1)
    return a;
  if (a >= 0)
    return static_cast<int64_t>(largestRoot(static_cast<uint64_t>(a), n));
  if (n % 2 == 0)
    return failed(fault, NumberFault::EvenRootOfNegative);
  // Odd, below zero: the largest x = -y with -y^n <= a is the smallest y
  // whose power reaches |a|.
  uint64_t magnitude = static_cast<uint64_t>(-(a + 1)) + 1;
  uint64_t r = largestRoot(magnitude, n);
  bool exact = comparePower(r, n, magnitude) == 0;
  return -static_cast<int64_t>(r + (exact ? 0 : 1));
}

int64_t floorWhole(int64_t a, NumberFault &fault) {
  int64_t r = a % kOne;
  return r < 0 ? sub(a - r, kOne, fault) : a - r;
}

int64_t ceilWhole(int64_t a, NumberFault &fault) {
  int64_t r = a % kOne;
  return r > 0 ? add(a - r, kOne, fault) : a - r;
}

int64_t truncWhole(int64_t a) { return a - a % kOne; }

int64_t roundWhole(int64_t a, NumberFault &fault) {
  return fits(divideHalfEven(a, kOne) * kOne, fault);
}

int64_t abs(int64_t a, NumberFault &fault) { return a < 0 ? neg(a, fault) : a; }

} // namespace ledger::rt
