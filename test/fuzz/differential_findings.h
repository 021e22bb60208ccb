// What the differential fuzzer finds, and its signature: what parted, in
// words that stay the same however the catalog and the orders that found it
// were made, so that one found again, or already reported, is counted and
// not shrunk again.
#pragma once

#include "differential_child.h"
#include "host_orders.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace ledger::fuzz {

struct Finding {
  std::string kind;   // difference, crash, build
  std::string what;   // where they part: "journal entry 2 of the order", "read", a death
  std::string reference, compiled;
  std::string expect; // a read's: the play line expecting the reference's
  size_t order = 0;   // the order after which they part
  uint64_t sequence = 0;
  int level = 2;      // the optimisation level its compiled pack was built at
  std::vector<Order> orders;
};

// A difference, with the orders up to it, into a child's report, and back.
void reportDifference(Report &r, const Difference &d, const std::vector<Order> &orders);
Finding differenceIn(const Report &r);
Finding differenceOf(const Difference &d);

// "journal: Change only in the reference engine's", "journal: Filled, its
// tick differs", "read of a gone actor: carries (only the reference engine
// reads it)", "crash: signal 11 … in the compiled engine".
std::string signatureOf(const Finding &f);

// The signatures a file lists, one a line; `#` starts a comment.
std::set<std::string> readKnown(const std::string &path);

} // namespace ledger::fuzz
