#include "differential_shrink.h"

#include "differential_packs.h"

#include "driver/frontend.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

namespace ledger::fuzz {

namespace fs = std::filesystem;

void writeText(const fs::path &path, const std::string &text) {
  std::ofstream out(path);
  out << text;
}

namespace {

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Whether a play of the orders on the catalog is one the checker accepts, as
// a reproduction must be: written beside the catalog and read back.
bool playAccepted(const fs::path &dir, const std::string &catalog, const std::vector<Order> &orders) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  writeText(dir / "trial.ledger", catalog);
  SequenceResult bare;
  bare.orders = orders;
  writeText(dir / "trial.play", renderPlay("trial.ledger", "trial", 0, bare));
  return runFrontend((dir / "trial.play").string())->ok();
}

// Each order said with less: no from or by, no links made, nothing given,
// no lifetime or types, one stack, one tick.
std::vector<Order> plainer(const Order &o) {
  std::vector<Order> out;
  auto with = [&](auto change) {
    Order p = o;
    change(p);
    out.push_back(p);
  };
  if (!o.other.empty() && (o.kind == OrderKind::Apply || o.kind == OrderKind::Deal || o.kind == OrderKind::Raise))
    with([](Order &p) { p.other.clear(); });
  for (size_t i = 0; i < o.links.size(); ++i)
    with([i](Order &p) { p.links.erase(p.links.begin() + std::ptrdiff_t(i)); });
  for (size_t i = 0; i < o.given.size(); ++i)
    with([i](Order &p) { p.given.erase(p.given.begin() + std::ptrdiff_t(i)); });
  if (o.life != Order::Forever)
    with([](Order &p) { p.life = Order::Forever; });
  if (!o.types.empty())
    with([](Order &p) { p.types.clear(); });
  if (o.hasAmount)
    with([](Order &p) { p.hasAmount = false; });
  if (o.keeping)
    with([](Order &p) { p.keeping = false; });
  if (o.kind == OrderKind::Advance && o.amount > 1)
    with([](Order &p) { p.amount = 1; });
  return out;
}

// A line's text with words taken off, one or two at a time, or a number or
// a dotted read put as 0 or 1.
std::vector<std::string> wordCuts(const std::string &line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;)
    words.push_back(w);
  auto joinedWithout = [&](size_t at, size_t n, const std::string &put) {
    std::string out;
    for (size_t k = 0; k < words.size(); ++k) {
      if (k == at && !put.empty())
        out += (out.empty() ? "" : " ") + put;
      if (k >= at && k < at + n)
        continue;
      out += (out.empty() ? "" : " ") + words[k];
    }
    return out;
  };
  std::vector<std::string> cuts;
  for (size_t k = 1; k + 1 < words.size(); ++k)
    cuts.push_back(joinedWithout(k, 2, ""));
  for (size_t k = 1; k < words.size(); ++k)
    cuts.push_back(joinedWithout(k, 1, ""));
  for (size_t k = 1; k < words.size(); ++k)
    if (words[k].find_first_of(".0123456789(") != std::string::npos && words[k] != "0" && words[k] != "1")
      for (const char *put : {"0", "1"})
        cuts.push_back(joinedWithout(k, 1, put));
  return cuts;
}

} // namespace

std::optional<Finding> Shrinker::trial(const CatalogText &catalog, const std::vector<Order> &orders,
                                     ReadsAt reads) {
  ++trials_;
  std::string text = catalog.render();
  auto cached = built_.find(text);
  bool built = cached != built_.end();
  std::string so = built ? cached->second : temp_ + "/trial-" + std::to_string(trials_) + ".so";
  SharedOrderLog orderLog(log_);
  log_->used = 0;
  log_->engine = kCheckingCatalog;
  ChildEnd end = inChild(
      [&]() {
        Report r;
        if (!playAccepted(fs::path(temp_) / "trial", text, orders)) {
          r.set("refused", "the play");
          return r;
        }
        Packs p = packsOf(text, so, built);
        if (!p.refused.empty() || !p.broken.empty()) {
          r.set(p.refused.empty() ? "broken" : "refused", p.refused.empty() ? p.broken : p.refused);
          return r;
        }
        r.set("built", "1");
        SequenceResult run = replaySequence(*p.reference, *p.compiled, orders, reads, &orderLog);
        orderLog.engine(-1);
        if (run.invalid)
          r.set("invalid", "1");
        else if (run.difference)
          reportDifference(r, *run.difference, run.orders);
        return r;
      },
      60);
  if (end.report.get("built") == "1" || (end.signal && log_->used > 0))
    built_[text] = so;
  Finding f;
  f.orders = orders;
  if (end.signal) {
    f.kind = "crash";
    f.what = deathOf(end.signal, log_->engine);
    size_t reached = parseOrders(std::string(log_->bytes, log_->used)).size();
    f.order = reached ? reached - 1 : 0;
    f.reference = log_->engine == 0 ? "crashed here" : log_->engine == 1 ? "ran" : "-";
    f.compiled = log_->engine == 0 ? "not reached" : log_->engine == 1 ? "crashed here" : "-";
  } else if (end.report.has("broken")) {
    f.kind = "build";
    f.what = "pack";
    f.compiled = end.report.get("broken");
  } else if (end.report.get("found") == "difference") {
    f = differenceIn(end.report);
    f.orders = orders;
  } else {
    return std::nullopt;
  }
  if (!sameKind(f))
    return std::nullopt;
  return f;
}

// Drops orders, then the catalog's lines, then words of its lines, while the
// finding stays.
void Shrinker::shrink(CatalogText &catalog, std::vector<Order> &orders, ReadsAt &reads, Finding &last) {
  start_ = std::chrono::steady_clock::now();
  bool ordersToo = found_.kind != "build";
  // orders past the one where they part can't matter
  if (ordersToo && found_.order + 1 < orders.size())
    orders.resize(found_.order + 1);
  // a play reads only after its last order: try that first
  reads = ReadsAt::LastOrder;
  if (ordersToo) {
    if (auto f = trial(catalog, orders, reads))
      last = *f;
    else
      reads = ReadsAt::EachOrder;
    shrinkOrders(catalog, orders, reads, last);
    simplifyOrders(catalog, orders, reads, last);
  }
  // lines gone free orders, and words taken off free lines: again until nothing goes
  for (bool progress = true; progress && inTime();) {
    progress = shrinkLines(catalog, orders, reads, last);
    if (progress && ordersToo)
      shrinkOrders(catalog, orders, reads, last);
    if (!progress)
      progress = shrinkWords(catalog, orders, reads, last);
  }
  if (ordersToo)
    simplifyOrders(catalog, orders, reads, last);
  if (ordersToo && last.order + 1 < orders.size())
    orders.resize(last.order + 1);
}

bool Shrinker::inTime() const { return since(start_) < seconds_; }

bool Shrinker::sameKind(const Finding &f) const {
  if (f.kind != found_.kind)
    return false;
  if (found_.what.empty())
    return true; // a probe: any finding of its kind
  if (f.kind == "crash")
    return f.what == found_.what;
  if (f.kind == "difference") {
    auto head = [](const std::string &w) { return w.substr(0, w.find(' ')); };
    return head(f.what) == head(found_.what);
  }
  return true;
}

void Shrinker::took(std::vector<Order> &orders, const Finding &f, Finding &last) {
  last = f;
  if (f.kind != "build" && f.order + 1 < orders.size())
    orders.resize(f.order + 1);
}

// Removes runs of orders, halving the run's length as none goes.
void Shrinker::shrinkOrders(const CatalogText &catalog, std::vector<Order> &orders, ReadsAt reads,
                            Finding &last) {
  for (size_t chunk = std::max<size_t>(1, orders.size() / 2);; chunk /= 2) {
    for (size_t end = orders.size(); end > 0 && inTime();) {
      size_t from = end >= chunk ? end - chunk : 0;
      std::vector<Order> fewer(orders.begin(), orders.begin() + std::ptrdiff_t(from));
      fewer.insert(fewer.end(), orders.begin() + std::ptrdiff_t(end), orders.end());
      if (!fewer.empty())
        if (auto f = trial(catalog, fewer, reads)) {
          orders = fewer;
          took(orders, *f, last);
          end = std::min(from, orders.size());
          continue;
        }
      end = from;
    }
    if (chunk <= 1 || !inTime())
      break;
  }
}

void Shrinker::simplifyOrders(const CatalogText &catalog, std::vector<Order> &orders, ReadsAt reads,
                              Finding &last) {
  for (size_t i = 0; i < orders.size() && inTime(); ++i)
    for (bool progress = true; progress && i < orders.size() && inTime();) {
      progress = false;
      for (const Order &p : plainer(orders[i])) {
        std::vector<Order> simpler = orders;
        simpler[i] = p;
        if (auto f = trial(catalog, simpler, reads)) {
          orders = simpler;
          took(orders, *f, last);
          progress = true;
          break;
        }
      }
    }
}

// Removes whole lines, definitions first, the last written first (a
// definition reads those before it).
bool Shrinker::shrinkLines(CatalogText &catalog, std::vector<Order> &orders, ReadsAt reads, Finding &last) {
  bool progress = false;
  for (size_t depth = 1;; ++depth) {
    bool any = false;
    std::vector<std::vector<size_t>> paths = catalog.paths();
    for (size_t i = paths.size(); i-- > 0 && inTime();) {
      if (paths[i].size() != depth)
        continue;
      any = true;
      CatalogText smaller = catalog.without(paths[i]);
      if (auto f = trial(smaller, orders, reads)) {
        catalog = smaller;
        took(orders, *f, last);
        progress = true;
      }
    }
    if (!any || !inTime())
      return progress;
  }
}

bool Shrinker::shrinkWords(CatalogText &catalog, std::vector<Order> &orders, ReadsAt reads, Finding &last) {
  bool any = false;
  for (const std::vector<size_t> &path : catalog.paths())
    for (bool progress = true; progress && inTime();) {
      progress = false;
      for (const std::string &text : wordCuts(catalog.at(path).text)) {
        if (!inTime())
          break;
        CatalogText simpler = catalog.rewritten(path, text);
        if (auto f = trial(simpler, orders, reads)) {
          catalog = simpler;
          took(orders, *f, last);
          progress = any = true;
          break;
        }
      }
    }
  return any;
}

// Writes the shrunk catalog and its play, the play expecting what the
// reference engine gave along the way (outcomes, faults, the read where the
// engines part); "" when the checker accepts the play, else why not.
std::string writeReproduction(const fs::path &dir, const std::string &name, const std::string &header,
                              const std::string &catalog, const std::vector<Order> &orders, ReadsAt reads,
                              const Finding &last, const std::string &so) {
  fs::path ledgerPath = dir / (name + ".ledger"), playPath = dir / (name + ".play");
  writeText(ledgerPath, header + catalog);
  std::string title = "the engines part: " + last.kind + ", " + last.what;
  SequenceResult bare;
  bare.orders = orders;
  writeText(playPath, renderPlay(name + ".ledger", title, 0, bare));
  if (last.kind == "build")
    return "";
  ChildEnd end = inChild(
      [&]() {
        Report r;
        Packs p = packsOf(catalog, so, false);
        if (p.reference) {
          // the reference engine alone, and not the order where one crashed
          std::vector<Order> given = orders;
          if (last.kind == "crash" && !given.empty())
            given.pop_back();
          SequenceResult run = replaySequence(*p.reference, *p.reference, given, reads);
          run.orders = orders;
          run.difference = Difference{last.order, last.what, last.reference, last.compiled, last.expect};
          writeText(playPath, renderPlay(name + ".ledger", title, 0, run, reads == ReadsAt::EachOrder));
        }
        auto fe = runFrontend(playPath.string());
        for (const Diagnostic &d : fe->diags.all())
          if (d.severity == Severity::Error) {
            r.set("refused", fe->diags.render(d));
            break;
          }
        return r;
      },
      120);
  return end.signal ? signalName(end.signal) : end.report.get("refused");
}

} // namespace ledger::fuzz
