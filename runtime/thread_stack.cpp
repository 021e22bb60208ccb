#include "thread_stack.h"

#include <pthread.h>

namespace ledger::rt {

namespace {
uintptr_t askedStackLow() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0)
    return 0;
  void *at = nullptr;
  size_t size = 0;
  bool told = pthread_attr_getstack(&attr, &at, &size) == 0;
  pthread_attr_destroy(&attr);
  return told ? uintptr_t(at) : 0;
}
} // namespace

uintptr_t threadStackLow() {
  // Constant-initialised, so that reading them takes no guard: every order
  // reads them.
  thread_local uintptr_t low = 0;
  thread_local bool asked = false;
  if (!asked) [[unlikely]] {
    low = askedStackLow();
    asked = true;
  }
  return low;
}

} // namespace ledger::rt
