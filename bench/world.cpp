// The world benchmark: what a world costs beside its rules, on both engines.
// See bench/README.md ("The world benchmark").
//
//   ledger_bench_world [--idle N] [--churn PER_SECOND] [--minutes M]
//                      [--soak-hours H] [--only idle|churn|soak]
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
//
// Soak: two worlds of the same seed given the churn's orders for H hours of
// game time, world B saved to a file every minute and played on from the
// world read back; their hashed journals must agree at every minute. World
// B's heap is printed every hour (every tenth of a run under ten hours) and
// holds flat.
#include "support.h"
#include "world.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iterator>
#include <optional>
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
  int64_t soakHours = 24;
  std::string_view only; // one row's name, or empty for every row
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

// The churn's orders, given alike to every world it drives: two sides, ten
// fighters a side standing all along, and each second's made, destroyed three
// seconds later. The world is passed in, not held: the soak's world B is
// another one after each load.
class Churn {
public:
  Churn(World &world, const Ids &ids, int64_t perSecond) : ids_(ids), perSecond_(perSecond) {
    for (Handle &side : sides_)
      side = world.make(ids.team);
    for (int s = 0; s < 2; ++s)
      for (int k = 0; k < 10; ++k)
        anchors_[s].push_back(world.make(s ? ids.blue : ids.red, {{ids.side, sides_[s]}}));
  }

  // A second of it: the second's fighters made, each striking, the standing
  // healed, those made three seconds before destroyed, then its ticks.
  void second(World &world, int64_t ticksPerSecond) {
    std::vector<Handle> now[2];
    for (int s = 0; s < 2; ++s)
      for (int64_t k = 0; k < perSecond_; ++k)
        now[s].push_back(world.make(s ? ids_.blue : ids_.red, {{ids_.side, sides_[s]}}));
    makes += 2 * perSecond_;
    for (int s = 0; s < 2; ++s)
      for (int64_t k = 0; k < perSecond_; ++k) {
        Handle foe = k % 2 ? anchors_[1 - s][size_t(k % 10)] : now[1 - s][size_t(k)];
        refused += !world.actAt(now[s][size_t(k)], ids_.strike, foe).ok();
        ++strikes;
      }
    for (int s = 0; s < 2; ++s)
      for (Handle a : anchors_[s])
        world.setPool(a, ids_.health, *world.maximum(a, ids_.health));
    made_.emplace_back();
    for (int s = 0; s < 2; ++s)
      made_.back().insert(made_.back().end(), now[s].begin(), now[s].end());
    if (made_.size() > 3) {
      for (Handle h : made_.front())
        world.destroy(h);
      made_.pop_front();
    }
    world.advance(ticksPerSecond);
  }

  int64_t makes = 0, strikes = 0, refused = 0;

private:
  Ids ids_;
  int64_t perSecond_;
  Handle sides_[2];
  std::vector<Handle> anchors_[2];       // healed each second
  std::deque<std::vector<Handle>> made_; // each second's, oldest first
};

// Whether a heap held flat: the last reading within a tenth of the first, or
// a page.
bool flatFrom(int64_t first, int64_t last) { return last <= first + first / 10 + 4096; }

// Prints the heap in use every tenth of the run; answers whether it held
// flat.
bool churnRow(const Pack &pack, const char *engine, const Options &opt, int64_t ticksPerSecond) {
  Ids ids = bench::idsOf(pack.tables());
  malloc_trim(0);
  int64_t heapBefore = heapBytes();
  World world(pack, 1);
  world.setJournalMode(JournalMode::Off);
  Churn churn(world, ids, opt.churn);
  const int64_t seconds = opt.minutes * 60;
  const int64_t tenth = seconds / 10 > 0 ? seconds / 10 : 1;
  int64_t firstHeap = -1, lastHeap = 0;
  auto start = Clock::now();
  std::printf("%-9s", engine);
  for (int64_t second = 1; second <= seconds; ++second) {
    churn.second(world, ticksPerSecond);
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
  bool flat = flatFrom(firstHeap, lastHeap);
  std::printf("  | %lld made, %lld strikes (%lld refused), %.1f s wall, %s\n",
              (long long)churn.makes, (long long)churn.strikes, (long long)churn.refused, wall,
              flat ? "flat" : "GROWS");
  std::fflush(stdout);
  return flat;
}

// A save's round trip through the disk: written to a file, then read back
// whole; false where the file can't be written or opened again.
bool throughDisk(const std::string &bytes, const std::string &file, std::string &read) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  std::ifstream in(file, std::ios::binary);
  read.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !out.fail() && in.is_open();
}

// World A plays straight through; world B, at the end of every minute, is
// saved to a file, let go, and read back from it to play on. Both hash their
// journals, and a save carries the count and the hash, so B's go on from
// where they were: at every minute both must equal A's. Prints, each hour
// (each tenth of a run under ten hours), the heap world B handed back when
// let go, the process's heap beside the row's start (both worlds), and the
// save's size. Answers whether the journals matched and both heaps held
// flat.
bool soakRow(const Pack &pack, const char *engine, const Options &opt, int64_t ticksPerSecond) {
  Ids ids = bench::idsOf(pack.tables());
  ledger::TempDir temp("ledger-soak");
  const std::string file = temp.path + "/world.save";
  malloc_trim(0);
  int64_t heapBefore = heapBytes();
  World a(pack, 1);
  std::optional<World> b(std::in_place, pack, 1);
  a.setJournalMode(JournalMode::HashOnly);
  b->setJournalMode(JournalMode::HashOnly);
  Churn churnA(a, ids, opt.churn), churnB(*b, ids, opt.churn);
  const int64_t minutes = opt.soakHours * 60;
  const int64_t every = opt.soakHours >= 10 ? 60 : minutes / 10;
  int64_t firstWorld = -1, lastWorld = 0, firstHeap = -1, lastHeap = 0, saves = 0;
  auto start = Clock::now();
  for (int64_t minute = 1; minute <= minutes; ++minute) {
    for (int second = 0; second < 60; ++second) {
      churnA.second(a, ticksPerSecond);
      churnB.second(*b, ticksPerSecond);
    }
    if (a.journalHash() != b->journalHash() || a.journalCount() != b->journalCount()) {
      std::printf("%-9s minute %lld: journals parted, %llu entries hash %016llx straight, "
                  "%llu hash %016llx saved and loaded\n",
                  engine, (long long)minute, (unsigned long long)a.journalCount(),
                  (unsigned long long)a.journalHash(), (unsigned long long)b->journalCount(),
                  (unsigned long long)b->journalHash());
      return false;
    }
    std::string why;
    int64_t worldB = 0, saveSize = 0;
    {
      std::string saved = b->saveBytes(), read;
      saveSize = int64_t(saved.size());
      int64_t held = heapBytes();
      b.reset();
      worldB = held - heapBytes();
      if (throughDisk(saved, file, read))
        b = World::loadSave(pack, read, why);
      else
        why = "can't write and read " + file;
    }
    ++saves;
    if (!b) {
      std::printf("%-9s minute %lld: the save isn't read back: %s\n", engine, (long long)minute,
                  why.c_str());
      return false;
    }
    if (minute % every == 0) {
      int64_t heap = heapBytes() - heapBefore;
      if (firstHeap < 0)
        firstWorld = worldB, firstHeap = heap;
      lastWorld = worldB, lastHeap = heap;
      std::printf("%-9s %3lld:%02lld %12lld %10lld %9lld %13llu\n", engine,
                  (long long)(minute / 60), (long long)(minute % 60), (long long)(worldB / 1024),
                  (long long)(heap / 1024), (long long)(saveSize / 1024),
                  (unsigned long long)b->journalCount());
      std::fflush(stdout);
    }
  }
  double wall = std::chrono::duration<double>(Clock::now() - start).count();
  bool flat = flatFrom(firstWorld, lastWorld) && flatFrom(firstHeap, lastHeap);
  std::printf("%-9s journals match at all %lld saves (hash %016llx), %lld made, %lld strikes "
              "(%lld refused) a world, %.1f s wall, %s\n",
              engine, (long long)saves, (unsigned long long)a.journalHash(),
              (long long)churnB.makes, (long long)churnB.strikes, (long long)churnB.refused, wall,
              flat ? "flat" : "GROWS");
  std::fflush(stdout);
  return flat;
}

int usage(const char *why) {
  std::fprintf(stderr,
               "ledger_bench_world: %s\n"
               "usage: ledger_bench_world [--idle N] [--churn PER_SECOND] [--minutes M]\n"
               "                          [--soak-hours H] [--only idle|churn|soak]\n"
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
    else if (a == "--soak-hours" && i + 1 < argc)
      opt.soakHours = std::atoll(argv[++i]);
    else if (a == "--only" && i + 1 < argc) {
      opt.only = argv[++i];
      if (opt.only != "idle" && opt.only != "churn" && opt.only != "soak")
        return usage("--only is idle, churn or soak");
    } else if (a == "--engine" && i + 1 < argc) {
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
  if (opt.idle < 1 || opt.churn < 1 || opt.minutes < 1 || opt.soakHours < 1)
    return usage("--idle, --churn, --minutes and --soak-hours take a whole number of at least 1");

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

  auto runs = [&](std::string_view row) { return opt.only.empty() || opt.only == row; };
  bool ok = true;
  if (runs("idle")) {
    std::printf("idle: %lld fighters, Mana regenerating and full, nothing due; an hour of ticks\n",
                (long long)opt.idle);
    std::printf("%-9s %8s %9s %14s %14s %8s %9s\n", "engine", "actors", "ticks", "one call us",
                "tick by tick us", "events", "heap B/a");
    for (const Engine &e : engines)
      idleRow(*e.pack, e.name, opt, ticksPerSecond);
    std::printf("idle: one call, advance(hour); tick by tick, advance(1) an hour's times; events:\n"
                "journal entries the hour added.\n\n");
  }
  if (runs("churn")) {
    std::printf("churn: %lld fighters a side made each second, destroyed 3 s later, for %lld "
                "game minutes;\nheap in use (KiB) each tenth of the run\n",
                (long long)opt.churn, (long long)opt.minutes);
    for (const Engine &e : engines)
      ok = churnRow(*e.pack, e.name, opt, ticksPerSecond) && ok;
    std::printf("churn: flat where the last tenth's heap is within a tenth of the first's.\n\n");
  }
  if (runs("soak")) {
    std::printf("soak: the churn (%lld a side each second) for %lld game hours, twice: world A\n"
                "straight through, world B saved to disk each minute and played on loaded back\n",
                (long long)opt.churn, (long long)opt.soakHours);
    std::printf("%-9s %6s %12s %10s %9s %13s\n", "engine", "at", "world B KiB", "heap KiB",
                "save KiB", "journal");
    for (const Engine &e : engines)
      ok = soakRow(*e.pack, e.name, opt, ticksPerSecond) && ok;
    std::printf("soak: at, the game time (h:mm); world B KiB, the heap it handed back when let go\n"
                "after its save; heap KiB, the process's beside the row's start (both worlds);\n"
                "journal, its entries. Flat where the last reading of both is within a tenth of\n"
                "the first's.\n");
  }
  return ok ? 0 : 1;
}
