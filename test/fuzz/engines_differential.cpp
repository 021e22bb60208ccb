// The engines' differential fuzzer: random catalogs (or the repository's,
// changed a little) are checked, built into both packs (the reference
// engine's in process, the compiled one through LLVM), and run through many
// random sequences of host orders on both; the journals are compared entry
// by entry and every actor's reads after each order. Where the engines
// part, or either crashes or throws, the catalog and a play of the orders up
// to there are shrunk and written out as a reproduction.
//
//   ledger_fuzz_engines [--seed N] [--seconds S] [--out DIR] [--corpus DIR]
//                       [--known FILE] [--catalogs N] [--only K] [--findings N]
//                       [--sequences N] [--orders N] [--shrink-seconds S]
//                       [--opt 0|1|2|3] [--verbose] [--plant]
//
//   ledger_fuzz_engines --replay PLAY [--opt 0|1|2|3] [--out DIR] [--shrink-seconds S]
//
// --known lists signatures already reported: counted, not failed on.
// --replay gives a reproduction's play (with its catalog) to both engines
// again, at O2 unless --opt says another level, and shrinks it again.
// --only K runs the K-th catalog of the seed alone, as a finding's header
// says; --opt builds every compiled pack at that level (else most at O0, ten
// times faster, and one in six at O2 as `ledger play` builds them); --plant
// builds the compiled pack from the catalog with every deal a millionth
// more, a difference planted to see the fuzzer find and shrink one.
//
// Each catalog runs in a child process, so a crash in either engine is a
// finding and not the end of the run; so does each trial while shrinking.
// The exit status is 1 when a new finding was made, 0 when none.
#include "catalog_generator.h"
#include "catalog_text.h"
#include "differential_child.h"
#include "differential_findings.h"
#include "differential_packs.h"
#include "differential_shrink.h"
#include "fuzz_random.h"
#include "host_orders.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace ledger;
using namespace ledger::fuzz;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  uint64_t seed = 0;
  bool seedGiven = false;
  double seconds = 20;
  std::string out = "fuzz-engines";
  std::string corpus;
  size_t sequences = 24;
  size_t orders = 60;
  double shrinkSeconds = 120;
  uint64_t catalogs = UINT64_MAX;
  uint64_t only = UINT64_MAX;
  uint64_t findings = UINT64_MAX; // stop after this many new ones
  std::string known;              // a file of signatures already reported
  std::string replay;             // a reproduction's play, run again (and shrunk again)
  int optLevel = -1;              // every pack at this level; -1: mixed
  bool verbose = false;
};

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A child's whole work on one catalog: build it, run the sequences.
// A difference whose signature is in `skip` (known, or found before in this
// run) is counted in the report's "again", and the next sequence runs.
Report fuzzCatalog(const std::string &text, uint64_t catalogSeed, const std::string &so, const Options &opt,
                   double secondsLeft, SharedLog *log, const std::set<std::string> &skip) {
  Report r;
  auto start = Clock::now();
  Packs p = packsOf(text, so, false);
  if (!p.refused.empty()) {
    r.set("refused", p.refused);
    r.set("refusedAs", p.refusedAs);
    return r;
  }
  r.set("accepted", "1");
  if (!p.broken.empty()) {
    r.set("found", "build");
    r.set("what", "pack");
    r.set("reference", "accepted");
    r.set("compiled", p.broken);
    return r;
  }
  r.set("buildMicros", uint64_t(since(start) * 1e6));
  SharedOrderLog orders(log);
  uint64_t sequences = 0, events = 0, given = 0, exhausted = 0, generic = 0;
  std::map<std::string, uint64_t> answers, again;
  // the content run at least once over every sequence: rules fired, abilities used, effects applied
  std::vector<bool> fired(p.reference->tables().rules.size()), used(p.reference->tables().abilities.size()),
      applied(p.reference->tables().effects.size());
  auto tally = [](std::vector<bool> &into, const std::vector<uint64_t> &counts) {
    for (size_t i = 0; i < into.size() && i < counts.size(); ++i)
      into[i] = into[i] || counts[i] > 0;
  };
  for (size_t s = 0; s < opt.sequences; ++s) {
    // the run's time is shared by the catalogs: one ending stops early
    if (s > 0 && since(start) > secondsLeft)
      break;
    log->sequence = s;
    auto sequenceStart = Clock::now();
    SequenceResult run = fuzzSequence(*p.reference, *p.compiled, derive(catalogSeed, s), opt.orders, &orders);
    orders.engine(-1);
    if (opt.verbose && opt.only != UINT64_MAX)
      std::printf("  sequence %zu: %.3f s, %zu orders, %llu events%s\n", s, since(sequenceStart),
                  run.orders.size(), (unsigned long long)run.events, run.exhausted ? ", out of memory" : "");
    ++sequences;
    generic += run.generic;
    for (const auto &[answer, n] : run.answers)
      answers[answer] += n;
    tally(fired, run.fired);
    tally(used, run.used);
    tally(applied, run.applied);
    exhausted += run.exhausted;
    events += run.events;
    given += run.orders.size();
    if (run.difference) {
      // one known or already found is counted, and the next sequence runs
      std::string signature = signatureOf(differenceOf(*run.difference));
      if (skip.count(signature)) {
        ++again[signature];
        continue;
      }
      r.set("sequence", s);
      reportDifference(r, *run.difference, run.orders);
      break;
    }
  }
  std::string agains;
  for (const auto &[signature, n] : again)
    agains += signature + "\t" + std::to_string(n) + "\n";
  r.set("again", agains);
  r.set("sequences", sequences);
  r.set("events", events);
  r.set("given", given);
  r.set("exhausted", exhausted);
  r.set("generic", generic);
  r.set("micros", uint64_t(since(start) * 1e6));
  std::string answered;
  for (const auto &[answer, n] : answers)
    answered += answer + "\t" + std::to_string(n) + "\n";
  r.set("answers", answered);
  auto count = [](const std::vector<bool> &v) { return uint64_t(std::count(v.begin(), v.end(), true)); };
  r.set("rules", fired.size());
  r.set("rulesFired", count(fired));
  r.set("abilities", used.size());
  r.set("abilitiesUsed", count(used));
  r.set("effects", applied.size());
  r.set("effectsApplied", count(applied));
  return r;
}

// ---- the run ---------------------------------------------------------------------
std::string fileSafe(std::string s) {
  for (char &c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
      c = '_';
  return s;
}

struct Totals {
  uint64_t catalogs = 0, generated = 0, mutated = 0, accepted = 0, sequences = 0, orders = 0, events = 0;
  uint64_t findings = 0, repeats = 0, exhausted = 0, slow = 0;
  uint64_t specialised = 0, specialisedEvents = 0; // run whole by the compiled engine's own machinery
  double buildSeconds = 0;
  std::map<std::string, uint64_t> known;     // findings of signatures listed as known, by signature
  std::map<std::string, uint64_t> refusedAs; // catalogs the front end refused, by diagnostic
  std::map<std::string, uint64_t> content;   // rules, abilities and effects, and how many ran
  std::map<std::string, uint64_t> answers;   // orders by kind and how the reference answered
};

// Lines of "NAME\tCOUNT", as a child reports its tallies.
std::map<std::string, uint64_t> tallyLines(const std::string &text) {
  std::map<std::string, uint64_t> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    out[line.substr(0, line.find('\t'))] += std::stoull(line.substr(line.find('\t') + 1));
  return out;
}

void addUp(Totals &totals, const Report &r, const std::set<std::string> &known) {
  totals.sequences += r.number("sequences");
  totals.orders += r.number("given");
  totals.events += r.number("events");
  totals.exhausted += r.number("exhausted");
  totals.buildSeconds += double(r.number("buildMicros")) / 1e6;
  if (r.has("generic") && r.number("generic") == 0) {
    ++totals.specialised;
    totals.specialisedEvents += r.number("events");
  }
  for (const auto &[signature, n] : tallyLines(r.get("again")))
    (known.count(signature) ? totals.known[signature] : totals.repeats) += n;
  for (const auto &[answer, n] : tallyLines(r.get("answers")))
    totals.answers[answer] += n;
  for (const char *key : {"rules", "rulesFired", "abilities", "abilitiesUsed", "effects", "effectsApplied"})
    totals.content[key] += r.number(key);
}

void printSummary(const Totals &totals, const Options &opt, double wall) {
  auto n = [](uint64_t v) { return (unsigned long long)v; };
  double perMinute = wall > 0 ? 60.0 / wall : 0;
  std::printf("\nledger_fuzz_engines: seed %llu, %.1f s\n", n(opt.seed), wall);
  std::printf("  catalogs: %llu (%llu generated, %llu from the corpus), %llu accepted (%.0f%%)\n",
              n(totals.catalogs), n(totals.generated), n(totals.mutated), n(totals.accepted),
              totals.catalogs ? 100.0 * double(totals.accepted) / double(totals.catalogs) : 0.0);
  std::printf("  order sequences run: %llu, orders given: %llu, events compared: %llu\n", n(totals.sequences),
              n(totals.orders), n(totals.events));
  std::printf("  run whole by the compiled engine's own machinery (no generic fallback): %llu catalogs, "
              "%llu events\n",
              n(totals.specialised), n(totals.specialisedEvents));
  auto share = [&](const char *ran, const char *all) {
    auto a = totals.content.find(all), r = totals.content.find(ran);
    return a != totals.content.end() && a->second ? 100.0 * double(r->second) / double(a->second) : 0.0;
  };
  std::printf("  content run: %.0f%% of rules fired, %.0f%% of abilities used, %.0f%% of effects applied\n",
              share("rulesFired", "rules"), share("abilitiesUsed", "abilities"), share("effectsApplied", "effects"));
  if (totals.slow)
    std::printf("  catalogs cut short, an order too slow on the reference engine: %llu\n", n(totals.slow));
  if (totals.exhausted)
    std::printf("  sequences stopped as their world outgrew memory: %llu\n", n(totals.exhausted));
  std::printf("  a minute: %.0f catalogs, %.0f sequences, %.0f events; compiled packs built in %.2f s on average\n",
              double(totals.catalogs) * perMinute, double(totals.sequences) * perMinute,
              double(totals.events) * perMinute, totals.accepted ? totals.buildSeconds / double(totals.accepted) : 0.0);
  if (!totals.refusedAs.empty()) {
    std::printf("  refused, by kind:");
    for (const auto &[kind, count] : totals.refusedAs)
      std::printf(" %s %llu", kind.c_str(), n(count));
    std::printf("\n");
  }
  if (opt.verbose) {
    std::printf("  the reference engine's answers:\n");
    for (const auto &[answer, count] : totals.answers)
      std::printf("    %-40s %llu\n", answer.c_str(), n(count));
  }
  for (const auto &[signature, count] : totals.known)
    std::printf("  known, listed in %s: %s, %llu times\n", opt.known.c_str(), signature.c_str(), n(count));
  if (totals.repeats)
    std::printf("  findings of a signature found before in this run: %llu\n", n(totals.repeats));
  std::printf("  differences found: %llu%s\n", n(totals.findings),
              totals.findings ? (", written under " + opt.out).c_str() : "");
}

int usage(const char *why) {
  std::fprintf(stderr,
               "ledger_fuzz_engines: %s\n"
               "usage: ledger_fuzz_engines [--seed N] [--seconds S] [--out DIR] [--corpus DIR]\n"
               "                           [--known FILE] [--catalogs N] [--only K] [--findings N]\n"
               "                           [--sequences N] [--orders N] [--shrink-seconds S]\n"
               "                           [--opt 0|1|2|3] [--verbose] [--plant]\n"
               "       ledger_fuzz_engines --replay PLAY [--opt 0|1|2|3] [--out DIR] [--shrink-seconds S]\n",
               why);
  return 2;
}

// The options, or the exit status where the command line is refused.
std::optional<int> parseOptions(int argc, char **argv, Options &opt) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool valued = i + 1 < argc;
    auto value = [&]() { return std::string(argv[++i]); };
    if (a == "--verbose")
      opt.verbose = true;
    else if (a == "--plant")
      planting = true;
    else if (a == "--help" || a == "-h")
      return usage("the engines' differential fuzzer"), 0;
    else if (!valued)
      return usage((a + " is no option, or takes a value").c_str());
    else if (a == "--seed")
      opt.seed = std::stoull(value()), opt.seedGiven = true;
    else if (a == "--seconds")
      opt.seconds = std::stod(value());
    else if (a == "--out")
      opt.out = value();
    else if (a == "--corpus")
      opt.corpus = value();
    else if (a == "--known")
      opt.known = value();
    else if (a == "--replay")
      opt.replay = value();
    else if (a == "--sequences")
      opt.sequences = std::stoull(value());
    else if (a == "--orders")
      opt.orders = std::stoull(value());
    else if (a == "--shrink-seconds")
      opt.shrinkSeconds = std::stod(value());
    else if (a == "--catalogs")
      opt.catalogs = std::stoull(value());
    else if (a == "--only")
      opt.only = std::stoull(value());
    else if (a == "--findings")
      opt.findings = std::stoull(value());
    else if (a == "--opt") {
      std::string level = value();
      if (level.size() != 1 || level[0] < '0' || level[0] > '3')
        return usage("--opt takes 0, 1, 2 or 3");
      opt.optLevel = level[0] - '0';
    } else
      return usage(("unknown argument " + a).c_str());
  }
  if (!opt.seedGiven)
    opt.seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000000;
  if (opt.sequences == 0 || opt.orders == 0)
    return usage("--sequences and --orders take a whole number of at least 1");
  return std::nullopt;
}

std::string readText(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<CatalogText> readCorpus(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec) && it->path().extension() == ".ledger")
      files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  std::vector<CatalogText> out;
  for (const std::string &f : files)
    out.push_back(parseCatalogText(readText(f)));
  return out;
}

// One catalog of the run: where it came from, and the level its compiled
// pack is built at.
struct Catalog {
  uint64_t index = 0, seed = 0;
  CatalogText text;
  std::string origin;
  std::string command; // the fuzzer's arguments that make it again
  int level = 0;
};

class Run {
public:
  Run(const Options &opt, std::vector<CatalogText> corpus)
      : opt_(opt), corpus_(std::move(corpus)), log_(makeSharedLog()),
        temp_(fs::temp_directory_path() / ("ledger-fuzz-" + std::to_string(getpid()))) {
    phase = &log_->engine;
    std::error_code ec;
    fs::create_directories(opt_.out, ec);
    fs::create_directories(temp_, ec);
    if (!opt_.known.empty())
      known_ = readKnown(opt_.known);
  }
  ~Run() {
    std::error_code ec;
    fs::remove_all(temp_, ec);
  }

  int go() {
    std::printf("ledger_fuzz_engines: seed %llu, %.0f s, %zu sequences of %zu orders a catalog%s\n",
                (unsigned long long)opt_.seed, opt_.seconds, opt_.sequences, opt_.orders,
                corpus_.empty() ? "" : (", corpus of " + std::to_string(corpus_.size()) + " catalogs").c_str());
    std::fflush(stdout);
    auto start = Clock::now();
    uint64_t first = opt_.only != UINT64_MAX ? opt_.only : 0;
    uint64_t stop = opt_.only != UINT64_MAX ? opt_.only + 1 : opt_.catalogs;
    for (uint64_t k = first; k < stop && since(start) < opt_.seconds && totals_.findings < opt_.findings; ++k)
      fuzz(catalogFor(k), std::max(0.0, opt_.seconds - since(start)));
    printSummary(totals_, opt_, since(start));
    return totals_.findings ? 1 : 0;
  }

  // A play the fuzzer wrote, with its catalog, given again to both engines:
  // where they part, shrunk again into --out. 1 where they part, 0 where not.
  int replay(const std::string &playPath) {
    std::string play = readText(playPath);
    std::istringstream lines(play);
    std::string first;
    std::getline(lines, first);
    if (first.rfind("catalog ", 0) != 0) {
      std::fprintf(stderr, "ledger_fuzz_engines: %s names no catalog on its first line\n", playPath.c_str());
      return 2;
    }
    Catalog c;
    c.text = parseCatalogText(readText((fs::path(playPath).parent_path() / first.substr(8)).string()));
    c.origin = "replayed from " + fs::path(playPath).filename().string();
    c.command = "--replay " + fs::path(playPath).filename().string();
    c.level = opt_.optLevel >= 0 ? opt_.optLevel : 2;
    Finding given;
    given.kind = "difference";
    given.orders = parsePlayOrders(play);
    buildOptions.optLevel = codegen::OptLevel(c.level);
    // whatever parts them: a crash, a build or a difference of any kind
    for (const char *kind : {"difference", "crash", "build"}) {
      given.kind = kind;
      Shrinker probe(opt_.shrinkSeconds, temp_.string(), given, log_);
      if (std::optional<Finding> found = probe.trial(c.text, given.orders, ReadsAt::EachOrder)) {
        found->level = c.level;
        ++totals_.findings;
        std::printf("%s at O%d: the engines part at order %zu (%s)\n  reference: %s\n  compiled:  %s\n",
                    playPath.c_str(), c.level, found->order + 1, found->what.c_str(), found->reference.c_str(),
                    found->compiled.c_str());
        std::string name = fileSafe(fs::path(playPath).stem().string());
        fs::path dir = fs::path(opt_.out) / name;
        std::error_code ec;
        fs::create_directories(dir, ec);
        shrinkAndWrite(c, *found, dir, name);
        return 1;
      }
    }
    std::printf("%s at O%d: the engines agree\n", playPath.c_str(), c.level);
    return 0;
  }

private:
  const Options &opt_;
  std::vector<CatalogText> corpus_;
  SharedLog *log_;
  fs::path temp_;
  Totals totals_;
  std::set<std::string> known_; // signatures listed as reported
  std::set<std::string> seen_;  // and found in this run

  // The k-th catalog of the seed: a third from the repository's, changed
  // or not, where given one; the rest written afresh.
  Catalog catalogFor(uint64_t k) {
    Catalog c;
    c.index = k;
    c.seed = derive(opt_.seed, k);
    c.command = "--seed " + std::to_string(opt_.seed) + " --only " + std::to_string(k);
    Rng choose(c.seed);
    if (!corpus_.empty() && choose.chance(35)) {
      size_t which = choose.below(corpus_.size());
      c.text = choose.chance(70) ? mutateCatalog(corpus_[which], c.seed) : corpus_[which];
      c.origin = "corpus catalog " + std::to_string(which);
      ++totals_.mutated;
    } else {
      c.text = generateCatalog(c.seed);
      c.origin = "generated";
      ++totals_.generated;
    }
    ++totals_.catalogs;
    // most packs unoptimised, ten times faster to build; one in six as `ledger play` builds it
    c.level = opt_.optLevel >= 0 ? opt_.optLevel : choose.chance(17) ? 2 : 0;
    return c;
  }

  void fuzz(const Catalog &c, double secondsLeft) {
    std::string text = c.text.render();
    if (opt_.verbose && opt_.only != UINT64_MAX)
      std::printf("%s", text.c_str());
    buildOptions.optLevel = codegen::OptLevel(c.level);
    std::string so = (temp_ / ("catalog-" + std::to_string(c.index) + ".so")).string();
    log_->engine = kCheckingCatalog;
    log_->used = 0;
    std::set<std::string> skip = known_;
    skip.insert(seen_.begin(), seen_.end());
    ChildEnd end = inChild([&]() { return fuzzCatalog(text, c.seed, so, opt_, secondsLeft, log_, skip); },
                           kChildSeconds);
    std::error_code ec;
    fs::remove(so, ec);
    const Report &r = end.report;
    if (opt_.verbose)
      std::printf("catalog %llu: %.2f s, %llu sequences, %llu orders, %llu events\n", (unsigned long long)c.index,
                  double(r.number("micros")) / 1e6, (unsigned long long)r.number("sequences"),
                  (unsigned long long)r.number("given"), (unsigned long long)r.number("events"));
    if (r.has("refused")) {
      ++totals_.refusedAs[r.get("refusedAs")];
      if (opt_.verbose)
        std::printf("catalog %llu refused: %s", (unsigned long long)c.index, r.get("refused").c_str());
      return;
    }
    if (r.has("accepted") || end.signal)
      ++totals_.accepted;
    addUp(totals_, r, known_);
    if (end.signal == SIGALRM && log_->engine == 0) {
      // an order the reference engine takes past its time on: content too slow to fuzz
      ++totals_.slow;
      if (opt_.verbose)
        std::printf("catalog %llu: too slow, an order past %u s on the reference engine\n",
                    (unsigned long long)c.index, kReferenceSeconds);
      return;
    }
    if (std::optional<Finding> found = findingIn(end))
      onFinding(c, text, *found);
  }

  std::optional<Finding> findingIn(const ChildEnd &end) const {
    Finding found;
    if (end.signal || end.exitedBadly) {
      int where = log_->engine;
      found.kind = "crash";
      found.what = end.signal ? deathOf(end.signal, where) : "the child ended badly";
      found.sequence = log_->sequence;
      found.orders = parseOrders(std::string(log_->bytes, log_->used));
      found.reference = where == 0 ? "crashed here" : where == 1 ? "ran" : "-";
      found.compiled = where == 0 ? "not reached" : where == 1 ? "crashed here" : "-";
      found.order = found.orders.empty() ? 0 : found.orders.size() - 1;
      return found;
    }
    if (end.report.get("found") == "difference")
      return differenceIn(end.report);
    if (end.report.get("found") == "build") {
      found.kind = "build";
      found.what = "pack";
      found.reference = "accepted";
      found.compiled = end.report.get("compiled");
      return found;
    }
    return std::nullopt;
  }

  bool holdsAt(int level, const CatalogText &catalog, const Finding &found) {
    buildOptions.optLevel = codegen::OptLevel(level);
    return Shrinker(opt_.shrinkSeconds, temp_.string(), found, log_)
        .trial(catalog, found.orders, ReadsAt::EachOrder)
        .has_value();
  }

  // Its signature, once it is known whether it comes again from the same
  // orders (twice more) and, found on an unoptimised pack, whether an O2
  // pack gives it too: what an unoptimised pack alone does, however it
  // shows, is told as one, its build's.
  std::string classify(const Catalog &c, const Finding &found, bool &flaky) {
    std::string signature = signatureOf(found);
    flaky = false;
    if (found.kind == "build")
      return signature;
    for (int again = 0; again < 2 && !flaky; ++again)
      flaky = !holdsAt(c.level, c.text, found);
    if (c.level == 0 && !holdsAt(2, c.text, found))
      signature = found.kind + " on an unoptimised pack only, none at O2";
    if (flaky)
      signature += " [comes and goes between runs of the same orders]";
    return signature;
  }

  void onFinding(const Catalog &c, const std::string &text, Finding found) {
    found.level = c.level;
    bool flaky = false;
    std::string signature = classify(c, found, flaky);
    if (known_.count(signature) || seen_.count(signature)) {
      ++(known_.count(signature) ? totals_.known[signature] : totals_.repeats);
      if (opt_.verbose)
        std::printf("catalog %llu: again, %s\n", (unsigned long long)c.index, signature.c_str());
      return;
    }
    seen_.insert(signature);
    ++totals_.findings;
    std::string name = "seed" + std::to_string(opt_.seed) + "_catalog" + std::to_string(c.index);
    std::printf("\nFINDING %llu (%s): seed %llu, catalog %llu (%s), sequence %llu\n",
                (unsigned long long)totals_.findings, found.kind.c_str(), (unsigned long long)opt_.seed,
                (unsigned long long)c.index, c.origin.c_str(), (unsigned long long)found.sequence);
    std::printf("  the engines part at order %zu (%s): %s\n", found.order + 1, found.what.c_str(),
                found.order < found.orders.size() ? orderLine(found.orders[found.order]).c_str() : "-");
    std::printf("  reference: %s\n  compiled:  %s\n", found.reference.c_str(), found.compiled.c_str());
    std::printf("  signature: %s\n  its pack built at O%d\n", signature.c_str(), c.level);
    std::fflush(stdout);
    fs::path dir = fs::path(opt_.out) / fileSafe(name);
    std::error_code ec;
    fs::create_directories(dir, ec);
    writeText(dir / "original.ledger", text);
    SequenceResult original;
    original.orders = found.orders;
    writeText(dir / "original.play", renderPlay("original.ledger", name + ": " + signature, 0, original));
    if (flaky) {
      // nothing to shrink by: a trial can't say whether a cut kept it
      std::printf("  not shrunk, as it comes and goes; as found: %s\n", (dir / "original.play").string().c_str());
      return;
    }
    shrinkAndWrite(c, found, dir, name);
  }

  void shrinkAndWrite(const Catalog &c, const Finding &found, const fs::path &dir, const std::string &name) {
    auto start = Clock::now();
    // shrunk on unoptimised packs, ten times faster to build, where the finding holds on them
    int level = c.level;
    if (level != 0 && found.kind != "build" && holdsAt(0, c.text, found))
      level = 0;
    buildOptions.optLevel = codegen::OptLevel(level);
    Shrinker shrinker(opt_.shrinkSeconds, temp_.string(), found, log_);
    CatalogText small = c.text;
    std::vector<Order> orders = found.orders;
    ReadsAt reads = ReadsAt::EachOrder;
    Finding last = found;
    shrinker.shrink(small, orders, reads, last);
    std::string header = "# Found by ledger_fuzz_engines " + c.command + " (" + c.origin + ", sequence " +
                         std::to_string(found.sequence) + ", its pack built at O" + std::to_string(c.level) +
                         "), shrunk.\n# The engines part: " + last.kind + ", " + last.what + "\n#   reference: " +
                         last.reference + "\n#   compiled:  " + last.compiled + "\n";
    std::string checked = writeReproduction(dir, name, header, small.render(), orders, reads, last,
                                            (temp_ / ("final-" + std::to_string(c.index) + ".so")).string());
    std::printf("  shrunk in %.1f s (%zu trials) to %zu catalog lines and %zu orders%s: %s\n", since(start),
                shrinker.trials(), small.size(), orders.size(),
                reads == ReadsAt::EachOrder ? " (the reads after every order take part)" : "",
                (dir / (name + ".play")).string().c_str());
    if (!checked.empty())
      std::printf("  the play isn't accepted as written: %s\n", checked.c_str());
    if (level != 2 && last.kind != "build") {
      // `ledger play` builds its packs at O2: does the reproduction hold there?
      buildOptions.optLevel = codegen::OptLevel::O2;
      bool holds = Shrinker(opt_.shrinkSeconds, temp_.string(), last, log_).trial(small, orders, reads).has_value();
      std::printf("  at O2, as `ledger play` builds its pack: %s\n",
                  holds ? "the same difference" : "no such difference: it takes an unoptimised pack");
    }
    if (last.kind != found.kind || last.what != found.what)
      std::printf("  after shrinking: %s, %s\n    reference: %s\n    compiled:  %s\n", last.kind.c_str(),
                  last.what.c_str(), last.reference.c_str(), last.compiled.c_str());
    std::fflush(stdout);
  }
};

} // namespace

int main(int argc, char **argv) {
  Options opt;
  try {
    if (std::optional<int> refused = parseOptions(argc, argv, opt))
      return *refused;
  } catch (const std::exception &) {
    return usage("a number is expected after that option");
  }
  std::vector<CatalogText> corpus;
  if (!opt.corpus.empty()) {
    corpus = readCorpus(opt.corpus);
    if (corpus.empty())
      return usage(("the corpus " + opt.corpus + " holds no .ledger file").c_str());
  }
  Run run(opt, std::move(corpus));
  return opt.replay.empty() ? run.go() : run.replay(opt.replay);
}
