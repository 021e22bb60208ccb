// The differential fuzzer runs each catalog, and each trial while shrinking,
// in a child process of its own: a crash or a hang in either engine is then
// a finding, not the end of the run. A child answers with a Report; the
// orders it gives are written, as it gives them, to memory its parent
// shares, so the orders up to a crash survive it.
#pragma once

#include "host_orders.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace ledger::fuzz {

// How long a child may take over an order on each engine, and over the rest
// (a build): the reference engine past its time is a catalog too slow to
// fuzz, the compiled engine past its longer time a hang.
inline constexpr unsigned kReferenceSeconds = 20, kCompiledSeconds = 60, kChildSeconds = 300;

// What the parent reads of a child that died: the orders it gave, and where it was.
struct SharedLog {
  static constexpr size_t kBytes = 8 << 20;
  volatile uint64_t sequence;
  volatile int engine; // 0 reference, 1 compiled, or a phase (host_orders.h)
  volatile size_t used;
  char bytes[kBytes];
};

// The shared memory for the log, one for the whole run.
SharedLog *makeSharedLog();

class SharedOrderLog : public OrderLog {
public:
  explicit SharedOrderLog(SharedLog *log) : log_(log) {}
  void begin() override;
  void append(const Order &order) override;
  // Each engine has its time for an order (an alarm), the rest its own.
  void engine(int which) override;

private:
  SharedLog *log_;
};

// A child's answer, as named fields.
class Report {
public:
  void set(const std::string &key, const std::string &value) { fields_[key] = value; }
  void set(const std::string &key, uint64_t value) { fields_[key] = std::to_string(value); }
  std::string get(const std::string &key) const;
  uint64_t number(const std::string &key) const;
  bool has(const std::string &key) const { return fields_.count(key) != 0; }
  // Key, length, bytes: the pipe's format.
  std::string bytes() const;
  static Report parse(const std::string &bytes);

private:
  std::map<std::string, std::string> fields_;
};

// What a child process came to: its report, or how it died.
struct ChildEnd {
  Report report;
  int signal = 0; // killed by it: SIGALRM where it ran past its time
  bool exitedBadly = false;
};

// Runs `work` in a child process with at most `timeoutSeconds` (until an
// order's own time takes over) and 2 GB of memory.
ChildEnd inChild(const std::function<Report()> &work, unsigned timeoutSeconds);

std::string signalName(int sig);
// A child's death: by what, and where (SharedLog::engine).
std::string deathOf(int sig, int engine);

} // namespace ledger::fuzz
