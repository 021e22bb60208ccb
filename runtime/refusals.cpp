#include "refusals.h"

#include <cstddef>

namespace ledger::rt {

const char *refusalName(Refusal r) {
  static const char *names[] = {
#define X(Name) #Name,
      LEDGER_REFUSALS(X)
#undef X
  };
  return names[size_t(r)];
}

} // namespace ledger::rt
