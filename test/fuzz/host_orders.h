// Host orders given to both engines at once: each order a play line would
// give (make, act, apply, remove, raise, deal, set, destroy, link, advance by
// ticks or turns, save, rewind, and the question `expect … can`), carried
// out as tools/ledger/play_runner.cpp carries it out,
// so a sequence that parts the engines is written out as a play that parts
// them the same way. After each order the two journals' new entries, the
// order's outcome and the reads of every actor are compared.
#pragma once

#include "pack.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ledger::fuzz {

// Can: the host asks whether an act would be taken (World::canAct), as a
// play's `expect ACTOR can ABILITY` asks.
enum class OrderKind : uint8_t {
  Make, Act, Apply, Remove, Raise, Deal, SetPool, Destroy, Link, Advance, Turns, Save, Rewind, Can
};

// One order, by names, as its play line says it: names that no longer stand
// for anything (a definition or an actor shrunk away) make the order invalid.
struct Order {
  OrderKind kind = OrderKind::Advance;
  std::string actor;   // the actor ordered, made, applied to, dealt to …; a Link's holder
  std::string name;    // archetype, ability, effect, event, pool, link, save
  std::vector<std::string> targets;             // Act's targets
  std::vector<std::pair<std::string, std::string>> links; // Make's: link, actor
  std::vector<std::pair<std::string, int64_t>> given;     // with NAME = N (millionths)
  std::vector<std::string> types;               // Deal's tags
  std::string other;   // from, by, or the actor a link points at
  int64_t amount = 0;  // millionths: a deal's, a set's, stacks; Advance: ticks; Turns: rounds
  bool hasAmount = false;
  enum Life : uint8_t { Forever, Ticks, Turns, Count } life = Forever;
  int64_t lifeAmount = 0; // ticks, or millionths of turns or of a count
  std::string lifeEvent;  // a count's event or tag
  bool keeping = false;   // Rewind
};

// When reads are compared: after every order, or only after the last (as a
// reproduction's play reads them).
enum class ReadsAt : uint8_t { EachOrder, LastOrder };

// Where the two engines part, first.
struct Difference {
  size_t order = 0;  // the order after which they part
  std::string what;  // "outcome", "journal entry N", "read", "exception", "save"
  std::string reference, compiled;
  std::string expect; // a read's: the play line expecting what the reference read
};

// What one order gave on one engine.
struct Reading {
  std::string key, value;
  std::string expect; // the play line expecting it, or empty where a play can't say it
};
struct OrderResult {
  std::string outcome;              // "done", "refused Reason \"text\"", "made Name#3" …
  std::string expectOutcome;        // its play line: expect done / expect refused Reason;
                                    // a Can's: the whole line, expect … can / cannot …
  std::vector<std::string> journal; // the entries it added, as journalText writes them
  std::vector<std::string> faults;  // of those, the faults' notes
  std::vector<Reading> reads;
  bool invalid = false; // the order names what isn't there
  bool exhausted = false; // memory ran out: the world grew without end
};

struct SequenceResult {
  std::vector<Order> orders;
  std::vector<OrderResult> reference; // the reference engine's, order by order
  std::optional<Difference> difference;
  bool invalid = false;
  bool exhausted = false; // stopped as memory ran out
  uint64_t events = 0;    // journal entries compared
  // What the content did on the reference engine: each rule's firings, each
  // ability's uses, each effect's applies (World::Coverage).
  std::vector<uint64_t> fired, used, applied;
  // Events the compiled engine left to the generic kernel (World::genericEvents):
  // none where its own machinery runs the catalog whole.
  uint64_t generic = 0;
  // How the reference engine answered, by order kind and refusal: "act done"
  std::map<std::string, uint64_t> answers;
};

// A place a run writes each order to before it is given, so the orders up to
// a crash survive the process that crashed (shared memory).
struct OrderLog {
  virtual ~OrderLog() = default;
  virtual void begin() = 0;
  virtual void append(const Order &order) = 0;
  virtual void engine(int which) = 0; // who runs now: 0 reference, 1 compiled, or a phase below
};
// What runs where no engine does, as OrderLog::engine says it.
enum : int { kCheckingCatalog = -1, kBuildingPack = -2, kLoadingPack = -3, kMakingOrders = -4 };

// Makes up `count` orders as it goes, each from the state the reference
// engine is in, and gives each to both engines.
SequenceResult fuzzSequence(const rt::Pack &reference, const rt::Pack &compiled, uint64_t seed,
                            size_t count, OrderLog *log);
// Gives the orders to both engines as they are.
SequenceResult replaySequence(const rt::Pack &reference, const rt::Pack &compiled,
                              const std::vector<Order> &orders, ReadsAt reads, OrderLog *log = nullptr);

// The play of the orders, expecting what the reference engine gave: each
// order's outcome and faults, and the read where the engines part; with
// `everyRead`, every read after every order, so the play reads as the run
// did (a difference some reads take part in).
std::string renderPlay(const std::string &catalogFile, const std::string &title,
                       uint64_t worldSeed, const SequenceResult &run, bool everyRead = false);
std::string orderLine(const Order &order);
// A play's line read back into its order (what orderLine and renderPlay
// write), and a play's orders: its other expect lines pass.
std::optional<Order> parseOrderLine(const std::string &line);
std::vector<Order> parsePlayOrders(const std::string &play);

// Orders as bytes and back, for the log and the pipe.
std::string serializeOrders(const std::vector<Order> &orders);
std::string serializeOrder(const Order &order);
std::vector<Order> parseOrders(const std::string &bytes);

// A number of millionths as the language writes it: 1.5, -3, 0.000001.
std::string fixedText(int64_t millionths);

} // namespace ledger::fuzz
