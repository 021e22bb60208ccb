// The world benchmark: what a world costs beside its rules, on both engines.
// See bench/README.md ("The world benchmark").
//
//   ledger_bench_world [--idle N] [--churn PER_SECOND] [--minutes M]
//                      [--engine reference|compiled|both]
//
// Idle: N fighters of the skirmish (bench/skirmish.ledger), their Mana
// regenerating and full, nothing due, advance an hour of ticks, once in one
// call and once a tick at a time.
//
// Churn: a world that makes and destroys actors for M minutes of game time,
// as summons and projectiles come and go: each second it makes PER_SECOND
// fighters a side, each striking one of the other side's made that second or
// one of ten fighters standing all along (whose Bleed outlives the one who
// struck, its source), and destroys those made three seconds before.
// The heap in use is printed every tenth of the run: it holds flat where a
// destroyed actor's slot is reused once nothing refers to it any more.
#include "support.h"
#include "world.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace {

using bench::heapBytes;
using bench::Ids;
using bench::kOne;
using bench::residentBytes;
using ledger::rt::Handle;
using ledger::rt::JournalMode;
using ledger::rt::Pack;
using ledger::rt::World;
using Clock = std::chrono::steady_clock;

struct Options {
  int64_t idle = 100'000;
  int64_t churn = 50;
  int64_t minutes = 60;
  bool reference = true, compiled = true;
};

double micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

void idleRow(const Pack &pack, const char *engine, const Options &opt, int64_t ticksPerSecond) {
  Ids ids = bench::idsOf(pack.tables());
  malloc_trim(0);
  int64_t heapBefore = heapBytes();
  World world(pack, 1);
  world.setJournalMode(JournalMode::Off);
  Handle side = world.make(ids.team);
  for (int64_t i = 0; i < opt.idle; ++i)
    world.make(i % 2 ? ids.blue : ids.red, {{ids.side, side}});
  int64_t heap = heapBytes() - heapBefore;
  const int64_t hour = 3600 * ticksPerSecond;
  uint64_t eventsBefore = world.journalCount();
  auto t0 = Clock::now();
  world.advance(hour);
  auto t1 = Clock::now();
  for (int64_t t = 0; t < hour; ++t)
    world.advance(1);
  auto t2 = Clock::now();
  std::printf("%-9s %8lld %9lld %14.1f %14.1f %8lld %9lld\n", engine, (long long)opt.idle,
              (long long)hour, micros(t1 - t0), micros(t2 - t1),
              (long long)(world.journalCount() - eventsBefore), (long long)(heap / opt.idle));
  std::fflush(stdout);
}

// Prints the heap in use every tenth of the run; answers whether it held
// flat: the last tenth's within a tenth of the first's, or a page.
bool churnRow(const Pack &pack, const char *engine, const Options &opt, int64_t ticksPerSecond) {
  Ids ids = bench::idsOf(pack.tables());
  malloc_trim(0);
  int64_t heapBefore = heapBytes();
  World world(pack, 1);
  world.setJournalMode(JournalMode::Off);
  Handle sides[2] = {world.make(ids.team), world.make(ids.team)};
  // Ten a side standing all along, healed each second.
  std::vector<Handle> anchors[2];
  for (int s = 0; s < 2; ++s)
    for (int k = 0; k < 10; ++k)
      anchors[s].push_back(world.make(s ? ids.blue : ids.red, {{ids.side, sides[s]}}));
  std::deque<std::vector<Handle>> made; // each second's, oldest first
  const int64_t seconds = opt.minutes * 60;
  const int64_t tenth = seconds / 10 > 0 ? seconds / 10 : 1;
  int64_t firstHeap = -1, lastHeap = 0, makes = 0, strikes = 0, refused = 0;
  auto start = Clock::now();
  std::printf("%-9s", engine);
  for (int64_t second = 1; second <= seconds; ++second) {
    std::vector<Handle> now[2];
    for (int s = 0; s < 2; ++s)
      for (int64_t k = 0; k < opt.churn; ++k)
        now[s].push_back(world.make(s ? ids.blue : ids.red, {{ids.side, sides[s]}}));
    makes += 2 * opt.churn;
    for (int s = 0; s < 2; ++s)
      for (int64_t k = 0; k < opt.churn; ++k) {
        Handle foe = k % 2 ? anchors[1 - s][size_t(k % 10)] : now[1 - s][size_t(k)];
        refused += !world.actAt(now[s][size_t(k)], ids.strike, foe).ok();
        ++strikes;
      }
    for (int s = 0; s < 2; ++s)
      for (Handle a : anchors[s])
        world.setPool(a, ids.health, *world.maximum(a, ids.health));
    made.emplace_back();
    for (int s = 0; s < 2; ++s)
      made.back().insert(made.back().end(), now[s].begin(), now[s].end());
    if (made.size() > 3) {
      for (Handle h : made.front())
        world.destroy(h);
      made.pop_front();
    }
    world.advance(ticksPerSecond);
    if (second % tenth == 0) {
      int64_t heap = heapBytes() - heapBefore;
      if (firstHeap < 0)
        firstHeap = heap;
      lastHeap = heap;
      std::printf(" %9lld", (long long)(heap / 1024));
      std::fflush(stdout);
    }
  }
  double wall = std::chrono::duration<double>(Clock::now() - start).count();
  bool flat = lastHeap <= firstHeap + firstHeap / 10 + 4096;
  std::printf("  | %lld made, %lld strikes (%lld refused), %.1f s wall, %s\n", (long long)makes,
              (long long)strikes, (long long)refused, wall, flat ? "flat" : "GROWS");
  std::fflush(stdout);
  return flat;
}

int usage(const char *why) {
  std::fprintf(stderr,
               "ledger_bench_world: %s\n"
               "usage: ledger_bench_world [--idle N] [--churn PER_SECOND] [--minutes M]\n"
               "                          [--engine reference|compiled|both]\n",
               why);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--idle" && i + 1 < argc)
      opt.idle = std::atoll(argv[++i]);
    else if (a == "--churn" && i + 1 < argc)
      opt.churn = std::atoll(argv[++i]);
    else if (a == "--minutes" && i + 1 < argc)
      opt.minutes = std::atoll(argv[++i]);
    else if (a == "--engine" && i + 1 < argc) {
      std::string_view e = argv[++i];
      opt.reference = e == "reference" || e == "both";
      opt.compiled = e == "compiled" || e == "both";
      if (!opt.reference && !opt.compiled)
        return usage("--engine is reference, compiled or both");
    } else if (a == "--help" || a == "-h")
      return usage("the world benchmark"), 0;
    else
      return usage(("unknown argument " + std::string(a)).c_str());
  }
  if (opt.idle < 1 || opt.churn < 1 || opt.minutes < 1)
    return usage("--idle, --churn and --minutes take a whole number of at least 1");

  bench::Packs packs = bench::buildPacks(LEDGER_BENCH_CATALOG, opt.reference, opt.compiled);
  if (!packs.ok) {
    std::fprintf(stderr, "ledger_bench_world: %s\n", packs.error.c_str());
    return 1;
  }
  const int64_t ticksPerSecond =
      packs.tables.unitsPerSecond / (packs.tables.unitsPerTick * 1'000'000);
  struct Engine {
    const char *name;
    const Pack *pack;
  };
  std::vector<Engine> engines;
  if (opt.reference)
    engines.push_back({"reference", packs.reference.get()});
  if (opt.compiled)
    engines.push_back({"compiled", packs.compiled.get()});

  std::printf("idle: %lld fighters, Mana regenerating and full, nothing due; an hour of ticks\n",
              (long long)opt.idle);
  std::printf("%-9s %8s %9s %14s %14s %8s %9s\n", "engine", "actors", "ticks", "one call us",
              "tick by tick us", "events", "heap B/a");
  for (const Engine &e : engines)
    idleRow(*e.pack, e.name, opt, ticksPerSecond);

  std::printf("\nchurn: %lld fighters a side made each second, destroyed 3 s later, for %lld "
              "game minutes;\nheap in use (KiB) each tenth of the run\n",
              (long long)opt.churn, (long long)opt.minutes);
  bool flat = true;
  for (const Engine &e : engines)
    flat = churnRow(*e.pack, e.name, opt, ticksPerSecond) && flat;
  std::printf("idle: one call, advance(hour); tick by tick, advance(1) an hour's times; events:\n"
              "journal entries the hour added. churn: flat where the last tenth's heap is within\n"
              "a tenth of the first's.\n");
  return flat ? 0 : 1;
}
