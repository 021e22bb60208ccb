// The skirmish benchmark: two sides of N fighters trading Strikes through the
// runtime's host API, on the reference engine and on the compiled one, and
// the same skirmish written by hand in plain C++ (bench/hand), in one run.
// See bench/README.md for what it measures and how.
//
//   ledger_bench_skirmish [--actors N]... [--seconds S] [--catalog PATH] [--pack PATH]
//                         [--whole-second] [--autos] [--repeat K] [--journal-off]
//                         [--engine reference|compiled|hand|both|all]
#include "hand/skirmish_hand.h"
#include "support.h"
#include "world.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#ifndef LEDGER_BENCH_CATALOG
#define LEDGER_BENCH_CATALOG "bench/skirmish.ledger"
#endif

namespace {

using ledger::rt::Handle;
using ledger::rt::JournalMode;
using ledger::rt::World;
using bench::Ids;
using bench::heapBytes;
using bench::idsOf;
using bench::kOne;
using bench::residentBytes;
using Clock = std::chrono::steady_clock;

// How every fighter ended, red ones then blue ones, each in the order made:
// what the engines and the hand code are compared by.
struct EndState {
  std::vector<int64_t> health, mana;
  std::vector<uint8_t> alive;
};

struct Result {
  std::string engine;
  const char *journal = "";  // hashed, off, or none (the hand code keeps none)
  int64_t n = 0;
  double wall = 0;          // seconds, the simulation alone
  double actWall = 0;       // of which giving orders
  double advanceWall = 0;   // of which advancing time
  int64_t events = -1;      // journal entries the simulation added; -1 none counted
  int64_t fallbacks = -1;   // of the compiled engine's events, those the generic kernel ran
  int64_t orders = 0, refused = 0;
  int64_t alive[2] = {0, 0};
  int64_t worldBytes = 0;   // resident growth over the world and its actors
  int64_t worldHeap = 0;    // heap growth over the same
  int64_t endBytes = 0;     // resident growth by the end of the simulation
  uint64_t journalHash = 0;
  EndState end;
};

struct Options {
  std::vector<int64_t> actors;
  int64_t seconds = 60;
  int64_t repeat = 3; // runs of each engine, taken in turn: the ratio is of their medians
  bool wholeSecond = false; // advance(20) once a second instead of advance(1) a tick
  bool autos = false;       // Strike granted auto (Brawler): no orders, the world alone
  bool journalOff = false;  // the compiled engine run with its journal off alone (to profile)
  bool reference = true, compiled = true, hand = true;
  std::string catalog = LEDGER_BENCH_CATALOG;
  std::string pack; // a pack built before from the catalog, loaded instead of building one
};

// Each second's orders, as the driver gives them to any of the runs: each
// living fighter, red and blue in turn, strikes the i-th living foe
// (wrapping), or the next one still alive if that one fell earlier this
// second. `alive` reads a fighter now; `strike` gives the order and says
// whether it was taken.
template <typename Fighter, typename Alive, typename Strike>
void giveOrders(const std::vector<Fighter> (&living)[2], Alive alive, Strike strike, Result &r) {
  size_t most = std::max(living[0].size(), living[1].size());
  for (size_t i = 0; i < most; ++i)
    for (int s = 0; s < 2; ++s) {
      if (i >= living[s].size() || living[1 - s].empty())
        continue;
      Fighter me = living[s][i];
      if (!alive(me))
        continue;
      const std::vector<Fighter> &foes = living[1 - s];
      bool found = false;
      Fighter foe{};
      for (size_t k = 0; k < foes.size(); ++k) {
        Fighter f = foes[(i + k) % foes.size()];
        if (alive(f)) {
          foe = f;
          found = true;
          break;
        }
      }
      if (!found)
        continue;
      ++r.orders;
      if (!strike(me, foe))
        ++r.refused;
    }
}

Result run(const ledger::rt::Pack &pack, const char *engine, JournalMode journal, int64_t n,
           const Options &opt, bool readEnd) {
  Result r;
  r.engine = engine;
  r.journal = journal == JournalMode::Off ? "off" : "hashed";
  r.n = n;
  const ledger::pack::Tables &t = pack.tables();
  Ids ids = idsOf(t);
  const int64_t ticksPerSecond = t.unitsPerSecond / (t.unitsPerTick * 1'000'000);

  malloc_trim(0);
  int64_t rssBefore = residentBytes();
  int64_t heapBefore = heapBytes();
  auto world = std::make_unique<World>(pack, 1);
  // Hashed: the journal as a long run keeps it, every entry counted and
  // hashed in order, which is what the engines are compared by. Off: as a
  // shipping game runs, only counted.
  world->setJournalMode(journal);
  Handle sides[2] = {world->make(ids.team), world->make(ids.team)};
  std::vector<Handle> fighters[2];
  for (int s = 0; s < 2; ++s) {
    fighters[s].reserve(size_t(n));
    for (int64_t i = 0; i < n; ++i)
      fighters[s].push_back(world->make(s == 0 ? ids.red : ids.blue, {{ids.side, sides[s]}}));
  }
  // Staggered health, so fighters fall at different times from about 40s on
  // and their foes turn to the next living one: up to 700 below the maximum.
  for (int s = 0; s < 2; ++s)
    for (size_t i = 0; i < fighters[s].size(); ++i) {
      Handle h = fighters[s][i];
      world->setPool(h, ids.health, world->value(h, ids.health) - int64_t(i % 8) * 100 * kOne);
    }
  r.worldBytes = residentBytes() - rssBefore;
  r.worldHeap = heapBytes() - heapBefore;

  const uint64_t eventsAtStart = world->journalCount();
  // With autos, each fighter strikes by itself from its Brawler on, timed
  // with the advances.
  auto tAutos = Clock::now();
  if (opt.autos)
    for (int s = 0; s < 2; ++s)
      for (Handle h : fighters[s])
        world->apply(ids.brawler, kOne, h, h, ledger::rt::Lifetime{}, {});
  Clock::duration autosWall = Clock::now() - tAutos;
  std::vector<Handle> living[2];
  Clock::duration wall{}, actWall{}, advanceWall{};
  auto alive = [&](Handle h) { return world->alive(h); };
  auto strike = [&](Handle me, Handle foe) { return world->act(me, ids.strike, {foe}).ok(); };
  for (int64_t second = 0; second < opt.seconds; ++second) {
    // The living fighters of each side, in the order they were made.
    for (int s = 0; s < 2; ++s) {
      living[s].clear();
      for (Handle h : fighters[s])
        if (world->alive(h))
          living[s].push_back(h);
    }
    auto t0 = Clock::now();
    if (!opt.autos)
      giveOrders(living, alive, strike, r);
    auto t1 = Clock::now();
    if (opt.wholeSecond)
      world->advance(ticksPerSecond);
    else
      for (int64_t tick = 0; tick < ticksPerSecond; ++tick)
        world->advance(1);
    auto t2 = Clock::now();
    wall += t2 - t0;
    actWall += t1 - t0;
    advanceWall += t2 - t1;
  }
  wall += autosWall;
  advanceWall += autosWall;
  r.wall = std::chrono::duration<double>(wall).count();
  r.actWall = std::chrono::duration<double>(actWall).count();
  r.advanceWall = std::chrono::duration<double>(advanceWall).count();
  r.events = int64_t(world->journalCount() - eventsAtStart);
  r.journalHash = world->journalHash();
  // The reference engine's events are its own, no fallback.
  if (r.engine == "compiled")
    r.fallbacks = int64_t(world->genericEvents());
  for (int s = 0; s < 2; ++s)
    for (Handle h : fighters[s]) {
      bool up = world->alive(h);
      r.alive[s] += up;
      if (readEnd) {
        r.end.health.push_back(world->value(h, ids.health));
        r.end.mana.push_back(world->value(h, ids.mana));
        r.end.alive.push_back(up);
      }
    }
  r.endBytes = residentBytes() - rssBefore;
  world.reset();
  malloc_trim(0);
  return r;
}

// The same skirmish by hand (bench/hand), driven as the engines are: the
// same orders each second, then the second's ticks.
Result runHand(int64_t n, const Options &opt) {
  using skirmish_hand::Side;
  Result r;
  r.engine = "hand";
  r.journal = "none";
  r.n = n;
  const int64_t ticksPerSecond = skirmish_hand::Skirmish::kTicksPerSecond;

  malloc_trim(0);
  int64_t rssBefore = residentBytes();
  int64_t heapBefore = heapBytes();
  auto game = std::make_unique<skirmish_hand::Skirmish>();
  game->reserve(size_t(2 * n));
  std::vector<int32_t> fighters[2];
  for (int s = 0; s < 2; ++s) {
    fighters[s].reserve(size_t(n));
    for (int64_t i = 0; i < n; ++i)
      fighters[s].push_back(game->add(s == 0 ? Side::Red : Side::Blue));
  }
  for (int s = 0; s < 2; ++s)
    for (size_t i = 0; i < fighters[s].size(); ++i) {
      int32_t f = fighters[s][i];
      game->setHealth(f, game->health(f) - int64_t(i % 8) * 100 * kOne);
    }
  r.worldBytes = residentBytes() - rssBefore;
  r.worldHeap = heapBytes() - heapBefore;

  std::vector<int32_t> living[2];
  Clock::duration wall{}, actWall{}, advanceWall{};
  auto alive = [&](int32_t f) { return game->alive(f); };
  auto strike = [&](int32_t me, int32_t foe) { return game->strike(me, foe); };
  for (int64_t second = 0; second < opt.seconds; ++second) {
    for (int s = 0; s < 2; ++s) {
      living[s].clear();
      for (int32_t f : fighters[s])
        if (game->alive(f))
          living[s].push_back(f);
    }
    auto t0 = Clock::now();
    giveOrders(living, alive, strike, r);
    auto t1 = Clock::now();
    if (opt.wholeSecond)
      game->advance(ticksPerSecond);
    else
      for (int64_t tick = 0; tick < ticksPerSecond; ++tick)
        game->advance(1);
    auto t2 = Clock::now();
    wall += t2 - t0;
    actWall += t1 - t0;
    advanceWall += t2 - t1;
  }
  r.wall = std::chrono::duration<double>(wall).count();
  r.actWall = std::chrono::duration<double>(actWall).count();
  r.advanceWall = std::chrono::duration<double>(advanceWall).count();
  for (int s = 0; s < 2; ++s)
    for (int32_t f : fighters[s]) {
      bool up = game->alive(f);
      r.alive[s] += up;
      r.end.health.push_back(game->health(f));
      r.end.mana.push_back(game->mana(f));
      r.end.alive.push_back(up);
    }
  r.endBytes = residentBytes() - rssBefore;
  game.reset();
  malloc_trim(0);
  return r;
}

std::string number(int64_t v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%lld.%06lld", v < 0 ? "-" : "", (long long)(std::llabs(v) / kOne),
                (long long)(std::llabs(v) % kOne));
  return buf;
}

// Whether an engine's end state is the hand code's; the first few fighters
// that differ are told on stderr.
bool sameEnd(const Result &engine, const Result &hand) {
  const EndState &a = engine.end, &b = hand.end;
  if (a.health.size() != b.health.size()) {
    std::fprintf(stderr, "ledger_bench_skirmish: N=%lld: %s (journal %s) read %zu fighters, the hand code %zu\n",
                 (long long)engine.n, engine.engine.c_str(), engine.journal, a.health.size(),
                 b.health.size());
    return false;
  }
  int told = 0, differ = 0;
  for (size_t i = 0; i < a.health.size(); ++i) {
    if (a.health[i] == b.health[i] && a.mana[i] == b.mana[i] && a.alive[i] == b.alive[i])
      continue;
    ++differ;
    if (told++ < 5) {
      size_t n = size_t(engine.n);
      std::fprintf(stderr,
                   "ledger_bench_skirmish: N=%lld: %s fighter %zu: %s (journal %s) ends Health %s, Mana %s, %s;"
                   " the hand code Health %s, Mana %s, %s\n",
                   (long long)engine.n, i < n ? "red" : "blue", i % n, engine.engine.c_str(),
                   engine.journal, number(a.health[i]).c_str(), number(a.mana[i]).c_str(),
                   a.alive[i] ? "alive" : "dead", number(b.health[i]).c_str(),
                   number(b.mana[i]).c_str(), b.alive[i] ? "alive" : "dead");
    }
  }
  if (differ)
    std::fprintf(stderr, "ledger_bench_skirmish: N=%lld: %s (journal %s) and the hand code end apart: %d of %zu fighters differ\n",
                 (long long)engine.n, engine.engine.c_str(), engine.journal, differ, a.health.size());
  return differ == 0;
}

bool sameCatalog(const std::string &a, const std::string &b) {
  std::error_code ec;
  bool same = std::filesystem::equivalent(a, b, ec);
  return ec ? a == b : same;
}

int usage(const char *why) {
  std::fprintf(stderr,
               "ledger_bench_skirmish: %s\n"
               "usage: ledger_bench_skirmish [--actors N]... [--seconds S] [--catalog PATH] [--pack PATH]\n"
               "                             [--whole-second] [--autos] [--repeat K] [--journal-off]\n"
               "                             [--engine reference|compiled|hand|both|all]\n",
               why);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--actors" && i + 1 < argc)
      opt.actors.push_back(std::atoll(argv[++i]));
    else if (a == "--seconds" && i + 1 < argc)
      opt.seconds = std::atoll(argv[++i]);
    else if (a == "--catalog" && i + 1 < argc)
      opt.catalog = argv[++i];
    else if (a == "--pack" && i + 1 < argc)
      opt.pack = argv[++i];
    else if (a == "--repeat" && i + 1 < argc)
      opt.repeat = std::atoll(argv[++i]);
    else if (a == "--whole-second")
      opt.wholeSecond = true;
    else if (a == "--autos")
      opt.autos = true;
    else if (a == "--journal-off")
      opt.journalOff = true;
    else if (a == "--engine" && i + 1 < argc) {
      // both: the two engines; all: them and the hand code.
      std::string_view e = argv[++i];
      opt.reference = e == "reference" || e == "both" || e == "all";
      opt.compiled = e == "compiled" || e == "both" || e == "all";
      opt.hand = e == "hand" || e == "all";
      if (!opt.reference && !opt.compiled && !opt.hand)
        return usage("--engine is reference, compiled, hand, both or all");
    } else if (a == "--help" || a == "-h")
      return usage("the skirmish benchmark"), 0;
    else
      return usage(("unknown argument " + std::string(a)).c_str());
  }
  if (opt.actors.empty())
    opt.actors = {1000, 10000};
  for (int64_t n : opt.actors)
    if (n < 1)
      return usage("--actors takes a whole number of at least 1");
  if (opt.seconds < 1)
    return usage("--seconds takes a whole number of at least 1");
  if (opt.repeat < 1)
    return usage("--repeat takes a whole number of at least 1");

  // The hand code is the default catalog's rules, with orders.
  const char *noHand = nullptr;
  if (opt.autos)
    noHand = "the hand code gives orders, and --autos gives none";
  else if (!sameCatalog(opt.catalog, LEDGER_BENCH_CATALOG))
    noHand = "the hand code is this folder's skirmish.ledger, not another catalog";
  if (opt.hand && noHand) {
    std::printf("skirmish: no hand code run: %s\n", noHand);
    std::fflush(stdout);
    opt.hand = false;
    if (!opt.reference && !opt.compiled)
      return 0;
  }
  // The compiled engine runs with its journal off beside the hand code,
  // which keeps none.
  const bool compiledOff = opt.compiled && (opt.hand || opt.journalOff);
  bool needPacks = opt.reference || opt.compiled;

  // The pipeline `ledger play` runs: front end, lower, then a reference pack
  // over the tables and a compiled pack built from them and loaded.
  auto buildStart = Clock::now();
  bench::Packs packs;
  if (needPacks) {
    packs = opt.pack.empty() ? bench::buildPacks(opt.catalog, opt.reference, opt.compiled)
                             : bench::loadPacks(opt.pack, opt.reference);
    if (!packs.ok) {
      std::fprintf(stderr, "ledger_bench_skirmish: %s\n", packs.error.c_str());
      return 1;
    }
  }
  const ledger::pack::Tables &tables = packs.tables;
  double buildSeconds = std::chrono::duration<double>(Clock::now() - buildStart).count();

  const int64_t ticksPerSecond =
      needPacks ? tables.unitsPerSecond / (tables.unitsPerTick * 1'000'000)
                : skirmish_hand::Skirmish::kTicksPerSecond;
  std::printf("skirmish: %s, %lld simulated s at %lld ticks/s, %s, %s",
              opt.catalog.c_str(), (long long)opt.seconds, (long long)ticksPerSecond,
              opt.wholeSecond ? "advance(rate) once a second" : "advance(1) each tick",
              opt.autos ? "Strike granted auto" : "Strike ordered");
  if (needPacks)
    std::printf("; packs built in %.2f s", buildSeconds);
  std::printf("\n");
  std::printf("%-9s %-7s %6s %12s %10s %9s %8s %8s %8s %9s %8s %8s %11s %9s\n", "engine",
              "journal", "N", "sim s/wall s", "events/s", "events", "generic", "wall s", "order s",
              "advance s", "RSS B/a", "heap B/a", "end RSS B/a", "alive");
  std::fflush(stdout);

  bool allMatch = true;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  // The runs of a round, in turn: the reference engine and the compiled one
  // with their journals hashed, the compiled one with its journal off, and
  // the hand code.
  enum Kind { Reference, Compiled, CompiledOff, Hand, Kinds };
  const bool runs[Kinds] = {opt.reference, opt.compiled && !opt.journalOff, compiledOff, opt.hand};
  const bool readEnd = opt.hand;
  for (int64_t n : opt.actors) {
    Result res[Kinds];
    bool have[Kinds] = {};
    std::vector<double> walls[Kinds];
    // In turn, so a machine's slow spell falls on all of them.
    for (int64_t k = 0; k < opt.repeat; ++k)
      for (int e = 0; e < Kinds; ++e) {
        if (!runs[e])
          continue;
        Result r = e == Hand        ? runHand(n, opt)
                   : e == Reference ? run(*packs.reference, "reference", JournalMode::HashOnly, n, opt, readEnd)
                   : run(*packs.compiled, "compiled", e == CompiledOff ? JournalMode::Off : JournalMode::HashOnly,
                         n, opt, readEnd);
        walls[e].push_back(r.wall);
        if (have[e]) {
          // A run that differs from its own first.
          if (e != CompiledOff && e != Hand &&
              (r.journalHash != res[e].journalHash || r.events != res[e].events))
            allMatch = false;
          if (r.end.health != res[e].end.health || r.end.mana != res[e].end.mana ||
              r.end.alive != res[e].end.alive) {
            std::fprintf(stderr, "ledger_bench_skirmish: N=%lld: %s (journal %s) ended otherwise than its first run\n",
                         (long long)n, r.engine.c_str(), r.journal);
            allMatch = false;
          }
        } else {
          res[e] = r;
          have[e] = true;
        }
        char events[24] = "-", rate[24] = "-", generic[24] = "-";
        if (r.fallbacks >= 0)
          std::snprintf(generic, sizeof generic, "%lld", (long long)r.fallbacks);
        if (e != Hand) {
          std::snprintf(events, sizeof events, "%lld", (long long)r.events);
          std::snprintf(rate, sizeof rate, "%.0f", double(r.events) / r.wall);
        }
        std::printf("%-9s %-7s %6lld %12.2f %10s %9s %8s %8.3f %8.3f %9.3f %8lld %8lld %11lld %5lld/%lld\n",
                    r.engine.c_str(), r.journal, (long long)n, double(opt.seconds) / r.wall, rate,
                    events, generic, r.wall, r.actWall, r.advanceWall, (long long)(r.worldBytes / (2 * n)),
                    (long long)(r.worldHeap / (2 * n)), (long long)(r.endBytes / (2 * n)),
                    (long long)r.alive[0], (long long)r.alive[1]);
        std::fflush(stdout);
      }
    if (have[Reference] && have[Compiled]) {
      const Result &ref = res[Reference], &com = res[Compiled];
      bool match = ref.journalHash == com.journalHash && ref.events == com.events;
      allMatch = allMatch && match;
      std::printf("  N=%lld: compiled/reference %.2fx (median wall s %.3f / %.3f of %lld runs each, "
                  "journals hashed); %lld orders, %lld refused; journals %s (%lld entries, hash "
                  "%016llx / %016llx)\n",
                  (long long)n, median(walls[Reference]) / median(walls[Compiled]),
                  median(walls[Reference]), median(walls[Compiled]), (long long)opt.repeat,
                  (long long)ref.orders, (long long)ref.refused, match ? "match" : "DIFFER",
                  (long long)ref.events, (unsigned long long)ref.journalHash,
                  (unsigned long long)com.journalHash);
    }
    if (have[Hand]) {
      bool ends = true;
      int compared = 0;
      for (int e : {Reference, Compiled, CompiledOff})
        if (have[e]) {
          ends = sameEnd(res[e], res[Hand]) && ends;
          ++compared;
        }
      allMatch = allMatch && ends;
      if (have[CompiledOff])
        std::printf("  N=%lld: compiled (journal off)/hand %.1fx (median wall s %.4f / %.4f of %lld "
                    "runs each)",
                    (long long)n, median(walls[CompiledOff]) / median(walls[Hand]),
                    median(walls[CompiledOff]), median(walls[Hand]), (long long)opt.repeat);
      else
        std::printf("  N=%lld: hand median wall s %.4f of %lld runs", (long long)n,
                    median(walls[Hand]), (long long)opt.repeat);
      if (compared)
        std::printf("; end states %s (%zu fighters' Health and Mana, %lld/%lld alive)\n",
                    ends ? "match" : "DIFFER", res[Hand].end.health.size(),
                    (long long)res[Hand].alive[0], (long long)res[Hand].alive[1]);
      else
        std::printf("\n");
    }
  }
  std::printf("RSS B/a: resident-set growth (/proc/self/statm) over making the world and its 2N+2\n"
              "actors (the hand code: its 2N fighters), divided by 2N; heap B/a: malloc's bytes in\n"
              "use (mallinfo2) over the same; end RSS B/a: resident growth by the end of the run.\n"
              "journal: hashed (counted and hashed, not kept), off (only counted), none (the hand\n"
              "code). generic: the compiled engine's events the generic kernel ran (fallbacks).\n"
              "order s / advance s: the wall time giving orders and advancing. alive: red/blue.\n");
  if (!allMatch)
    std::fprintf(stderr, "ledger_bench_skirmish: the runs differ (see above)\n");
  return allMatch ? 0 : 1;
}
