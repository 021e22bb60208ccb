// The skirmish benchmark: two sides of N fighters trading Strikes through the
// runtime's host API, on the reference engine and on the compiled one, in
// one run. See bench/README.md for what it measures and how.
//
//   ledger_bench_skirmish [--actors N]... [--seconds S] [--catalog PATH]
//                         [--whole-second] [--autos] [--repeat K]
//                         [--engine reference|compiled|both]
#include "codegen/codegen.h"
#include "driver/temp_dir.h"
#include "driver/frontend.h"
#include "eval/eval.h"
#include "ir/ir.h"
#include "pack.h"
#include "world.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#ifndef LEDGER_BENCH_CATALOG
#define LEDGER_BENCH_CATALOG "bench/skirmish.ledger"
#endif

namespace {

using ledger::rt::Handle;
using ledger::rt::World;
using Id = ledger::pack::Id;
using Clock = std::chrono::steady_clock;
constexpr int64_t kOne = 1'000'000; // a number's 1: values are fixed point, six places

// The process's resident set in bytes (/proc/self/statm's second field).
int64_t residentBytes() {
  std::FILE *f = std::fopen("/proc/self/statm", "r");
  if (!f)
    return 0;
  long long size = 0, resident = 0;
  if (std::fscanf(f, "%lld %lld", &size, &resident) != 2)
    resident = 0;
  std::fclose(f);
  return int64_t(resident) * sysconf(_SC_PAGESIZE);
}

// The bytes malloc has handed out and not had back (mallinfo2): the heap the
// world holds, untouched by pages the allocator kept from an earlier run.
int64_t heapBytes() {
  struct mallinfo2 mi = mallinfo2();
  return int64_t(mi.uordblks + mi.hblkhd);
}

struct Ids {
  Id team, red, blue, strike, side, health, brawler;
};

template <typename T>
Id findName(const ledger::pack::Tables &t, const std::vector<T> &list, std::string_view name) {
  Id id = t.find(list, name);
  if (id == ledger::pack::kNoId) {
    std::fprintf(stderr, "ledger_bench_skirmish: the catalog has no `%.*s`\n", int(name.size()),
                 name.data());
    std::exit(1);
  }
  return id;
}

Ids idsOf(const ledger::pack::Tables &t) {
  Ids ids;
  ids.team = findName(t, t.archetypes, "Team");
  ids.red = findName(t, t.archetypes, "Red");
  ids.blue = findName(t, t.archetypes, "Blue");
  ids.strike = findName(t, t.abilities, "Strike");
  ids.side = findName(t, t.links, "side");
  ids.health = findName(t, t.values, "Health");
  ids.brawler = findName(t, t.effects, "Brawler");
  return ids;
}

struct Result {
  std::string engine;
  int64_t n = 0;
  double wall = 0;          // seconds, the simulation alone
  double actWall = 0;       // of which giving orders
  double advanceWall = 0;   // of which advancing time
  int64_t events = 0;       // journal entries the simulation added
  int64_t orders = 0, refused = 0;
  int64_t alive[2] = {0, 0};
  int64_t worldBytes = 0;   // resident growth over the world and its actors
  int64_t worldHeap = 0;    // heap growth over the same
  int64_t endBytes = 0;     // resident growth by the end of the simulation
  uint64_t journalHash = 0;
};

struct Options {
  std::vector<int64_t> actors;
  int64_t seconds = 60;
  int64_t repeat = 3; // runs of each engine, taken in turn: the ratio is of their medians
  bool wholeSecond = false; // advance(20) once a second instead of advance(1) a tick
  bool autos = false;       // Strike granted auto (Brawler): no orders, the world alone
  bool reference = true, compiled = true;
  std::string catalog = LEDGER_BENCH_CATALOG;
};

Result run(const ledger::rt::Pack &pack, const char *engine, int64_t n, const Options &opt) {
  Result r;
  r.engine = engine;
  r.n = n;
  const ledger::pack::Tables &t = pack.tables();
  Ids ids = idsOf(t);
  const int64_t ticksPerSecond = t.unitsPerSecond / (t.unitsPerTick * 1'000'000);

  malloc_trim(0);
  int64_t rssBefore = residentBytes();
  int64_t heapBefore = heapBytes();
  auto world = std::make_unique<World>(pack, 1);
  // The journal as a long run keeps it: every entry counted and hashed in
  // order, which is what the engines are compared by.
  world->setJournalMode(ledger::rt::JournalMode::HashOnly);
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
  for (int64_t second = 0; second < opt.seconds; ++second) {
    // The living fighters of each side, in the order they were made.
    for (int s = 0; s < 2; ++s) {
      living[s].clear();
      for (Handle h : fighters[s])
        if (world->alive(h))
          living[s].push_back(h);
    }
    auto t0 = Clock::now();
    // Each living fighter strikes the i-th living foe (wrapping), or the next
    // one still alive if that one fell earlier this second; red and blue take
    // turns giving orders.
    size_t most = opt.autos ? 0 : std::max(living[0].size(), living[1].size());
    for (size_t i = 0; i < most; ++i)
      for (int s = 0; s < 2; ++s) {
        if (i >= living[s].size() || living[1 - s].empty())
          continue;
        Handle me = living[s][i];
        if (!world->alive(me))
          continue;
        const std::vector<Handle> &foes = living[1 - s];
        Handle foe = 0;
        for (size_t k = 0; k < foes.size(); ++k) {
          Handle f = foes[(i + k) % foes.size()];
          if (world->alive(f)) {
            foe = f;
            break;
          }
        }
        if (!foe)
          continue;
        ++r.orders;
        if (!world->act(me, ids.strike, {foe}).ok())
          ++r.refused;
      }
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
  for (int s = 0; s < 2; ++s)
    for (Handle h : fighters[s])
      r.alive[s] += world->alive(h);
  r.endBytes = residentBytes() - rssBefore;
  world.reset();
  malloc_trim(0);
  return r;
}

int usage(const char *why) {
  std::fprintf(stderr,
               "ledger_bench_skirmish: %s\n"
               "usage: ledger_bench_skirmish [--actors N]... [--seconds S] [--catalog PATH]\n"
               "                             [--whole-second] [--autos] [--repeat K]\n"
               "                             [--engine reference|compiled|both]\n",
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
    else if (a == "--repeat" && i + 1 < argc)
      opt.repeat = std::atoll(argv[++i]);
    else if (a == "--whole-second")
      opt.wholeSecond = true;
    else if (a == "--autos")
      opt.autos = true;
    else if (a == "--engine" && i + 1 < argc) {
      std::string_view e = argv[++i];
      opt.reference = e == "reference" || e == "both";
      opt.compiled = e == "compiled" || e == "both";
      if (!opt.reference && !opt.compiled)
        return usage("--engine is reference, compiled or both");
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

  // The pipeline `ledger play` runs: front end, lower, then a reference pack
  // over the tables and a compiled pack built from them and loaded.
  auto buildStart = Clock::now();
  auto fe = ledger::runFrontend(opt.catalog);
  ledger::pack::Tables tables;
  if (fe->ok())
    tables = ledger::ir::lower(fe->tree, fe->decls, fe->diags);
  fe->diags.print(stderr);
  if (!fe->ok()) {
    std::fprintf(stderr, "ledger_bench_skirmish: %s is refused\n", opt.catalog.c_str());
    return 1;
  }
  ledger::TempDir temp("ledger-bench");
  std::unique_ptr<ledger::rt::Pack> compiled;
  if (opt.compiled) {
    std::string so = temp.path + "/skirmish.so";
    std::string blob = ledger::pack::serialize(tables);
    std::string error;
    if (!ledger::codegen::buildPack(tables, blob, ledger::pack::catalogHash(tables), so, error)) {
      std::fprintf(stderr, "ledger_bench_skirmish: can't build the pack: %s\n", error.c_str());
      return 1;
    }
    compiled = ledger::rt::Pack::load(so, error);
    if (!compiled) {
      std::fprintf(stderr, "ledger_bench_skirmish: the pack is refused: %s\n", error.c_str());
      return 1;
    }
  }
  std::unique_ptr<ledger::rt::Pack> reference;
  if (opt.reference)
    reference = ledger::rt::Pack::reference(tables, ledger::eval::evaluator());
  double buildSeconds = std::chrono::duration<double>(Clock::now() - buildStart).count();

  std::printf("skirmish: %s, %lld simulated s at %lld ticks/s, %s, %s; packs built in %.2f s\n",
              opt.catalog.c_str(), (long long)opt.seconds,
              (long long)(tables.unitsPerSecond / (tables.unitsPerTick * 1'000'000)),
              opt.wholeSecond ? "advance(rate) once a second" : "advance(1) each tick",
              opt.autos ? "Strike granted auto" : "Strike ordered", buildSeconds);
  std::printf("%-9s %6s %12s %10s %9s %8s %8s %9s %8s %8s %9s %9s\n", "engine", "N",
              "sim s/wall s", "events/s", "events", "wall s", "order s", "advance s", "RSS B/a",
              "heap B/a", "end RSS B/a", "alive");
  std::fflush(stdout);

  bool allMatch = true;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  for (int64_t n : opt.actors) {
    Result res[2];
    bool have[2] = {false, false};
    std::vector<double> walls[2];
    // The engines in turn, so a machine's slow spell falls on both.
    for (int64_t k = 0; k < opt.repeat; ++k)
    for (int e = 0; e < 2; ++e) {
      const ledger::rt::Pack *p = e == 0 ? reference.get() : compiled.get();
      if (!p)
        continue;
      Result r = run(*p, e == 0 ? "reference" : "compiled", n, opt);
      walls[e].push_back(r.wall);
      if (have[e] && (r.journalHash != res[e].journalHash || r.events != res[e].events))
        allMatch = false; // a run that differs from the engine's own first
      if (!have[e])
        res[e] = r;
      have[e] = true;
      std::printf("%-9s %6lld %12.2f %10.0f %9lld %8.3f %8.3f %9.3f %8lld %8lld %11lld %5lld/%lld\n",
                  r.engine.c_str(), (long long)n, double(opt.seconds) / r.wall,
                  double(r.events) / r.wall, (long long)r.events, r.wall, r.actWall, r.advanceWall,
                  (long long)(r.worldBytes / (2 * n)), (long long)(r.worldHeap / (2 * n)),
                  (long long)(r.endBytes / (2 * n)),
                  (long long)r.alive[0], (long long)r.alive[1]);
      std::fflush(stdout);
    }
    if (have[0] && have[1]) {
      bool match = res[0].journalHash == res[1].journalHash && res[0].events == res[1].events;
      allMatch = allMatch && match;
      std::printf("  N=%lld: compiled/reference %.2fx (median wall s %.3f / %.3f of %lld runs each); "
                  "%lld orders, %lld refused; journals %s (%lld entries, hash %016llx / %016llx)\n",
                  (long long)n, median(walls[0]) / median(walls[1]), median(walls[0]),
                  median(walls[1]), (long long)opt.repeat, (long long)res[0].orders,
                  (long long)res[0].refused, match ? "match" : "DIFFER", (long long)res[0].events,
                  (unsigned long long)res[0].journalHash, (unsigned long long)res[1].journalHash);
    }
  }
  std::printf("RSS B/a: resident-set growth (/proc/self/statm) over making the world and its 2N+2\n"
              "actors, divided by 2N; heap B/a: malloc's bytes in use (mallinfo2) over the same;\n"
              "end RSS B/a: resident growth by the end of the run (the journal is hashed, not kept).\n"
              "order s / advance s: the wall time inside act() and inside advance(). alive: red/blue.\n");
  return allMatch ? 0 : 1;
}
