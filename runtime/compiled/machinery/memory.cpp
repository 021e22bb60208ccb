// The byte copies LLVM calls for a large or sized copy, defined in the pack:
// a pack links nothing but compiler-rt's arithmetic. Built with no builtins,
// so these loops are never turned back into calls to themselves.
#include <cstddef>
#include <cstdint>

#define LEDGER_PACK_LOCAL extern "C" __attribute__((visibility("hidden")))

LEDGER_PACK_LOCAL void *memcpy(void *to, const void *from, size_t n) {
  auto *d = static_cast<unsigned char *>(to);
  auto *s = static_cast<const unsigned char *>(from);
  for (size_t i = 0; i < n; ++i)
    d[i] = s[i];
  return to;
}

LEDGER_PACK_LOCAL void *memmove(void *to, const void *from, size_t n) {
  auto *d = static_cast<unsigned char *>(to);
  auto *s = static_cast<const unsigned char *>(from);
  if (d < s)
    for (size_t i = 0; i < n; ++i)
      d[i] = s[i];
  else
    for (size_t i = n; i > 0; --i)
      d[i - 1] = s[i - 1];
  return to;
}

LEDGER_PACK_LOCAL void *memset(void *to, int byte, size_t n) {
  auto *d = static_cast<unsigned char *>(to);
  for (size_t i = 0; i < n; ++i)
    d[i] = static_cast<unsigned char>(byte);
  return to;
}
