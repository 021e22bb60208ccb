#include "host_orders.h"

#include "order_maker.h"
#include "played_world.h"

#include <chrono>
#include <sstream>

namespace ledger::fuzz {

std::string fixedText(int64_t v) {
  bool negative = v < 0;
  uint64_t magnitude = negative ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  std::string out = std::to_string(magnitude / 1'000'000);
  uint64_t frac = magnitude % 1'000'000;
  if (frac) {
    std::string digits = std::to_string(frac);
    digits.insert(0, 6 - digits.size(), '0');
    while (digits.back() == '0')
      digits.pop_back();
    out += "." + digits;
  }
  return negative ? "-" + out : out;
}

namespace {

// A sequence past this many entries, or actors in play, stops: both engines
// alike. So does one past its time, a guard against a world grown slow that
// a run on a machine of the project's kind never meets (it would make the
// run depend on the machine).
constexpr size_t kMostEvents = 200'000;
constexpr size_t kMostActors = 400;
constexpr int kSequenceSeconds = 10;

// Gives one order to both engines and compares what they answer.
bool giveBoth(PlayedWorld &ref, PlayedWorld &comp, const Order &o, size_t index, bool reads, SequenceResult &out,
              OrderLog *log) {
  if (log)
    log->engine(0);
  OrderResult a = give(ref, o, reads);
  if (a.invalid) {
    out.invalid = true;
    return false;
  }
  if (log)
    log->engine(1);
  OrderResult b = give(comp, o, reads);
  out.orders.push_back(o);
  static const char *kinds[] = {"make", "act", "apply", "remove", "raise", "deal", "set", "destroy",
                                "link", "advance", "turns", "save", "rewind", "can"};
  std::string said = a.outcome.substr(0, a.outcome.find(' ', a.outcome.find(' ') + 1));
  out.answers[std::string(kinds[int(o.kind)]) + " " + (o.kind == OrderKind::Make ? "made" : said)]++;
  // A world grown past the memory a run may hold: the catalog's doing, not an
  // engine's. Both worlds share the run's one limit and the compiled engine
  // takes each order second, on what the reference's world left it: it alone
  // running out says nothing of it. The reference alone running out, with the
  // most room it will have, is its to answer for.
  if (a.exhausted || b.exhausted) {
    out.exhausted = true;
    if (a.exhausted && !b.exhausted)
      out.difference = Difference{index, "memory: one engine alone ran out of memory", a.outcome, b.outcome, ""};
    return false;
  }
  out.events += a.journal.size();
  out.difference = compare(a, b, index);
  if (b.invalid && !out.difference)
    out.difference = Difference{index, "order", "given", "names what isn't there", ""};
  out.reference.push_back(std::move(a));
  return !out.difference && ref.world->journalCount() < kMostEvents &&
         ref.world->living().size() < kMostActors;
}

} // namespace

SequenceResult fuzzSequence(const rt::Pack &reference, const rt::Pack &compiled, uint64_t seed,
                            size_t count, OrderLog *log) {
  SequenceResult out;
  if (reference.tables().archetypes.empty())
    return out; // no actor can be made: nothing to order
  PlayedWorld ref(reference), comp(compiled);
  OrderMaker maker(reference.tables(), seed);
  if (log)
    log->begin();
  std::vector<Order> opening = maker.opening(ref);
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < opening.size() + count; ++i) {
    // a sequence whose world has grown slow stops: the next one is worth more
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(kSequenceSeconds))
      break;
    if (log)
      log->engine(kMakingOrders);
    Order o = i < opening.size() ? opening[i] : maker.next(ref);
    if (log)
      log->append(o);
    if (!giveBoth(ref, comp, o, i, true, out, log))
      break;
  }
  out.generic = comp.world->genericEvents();
  if (const rt::World::Coverage *c = ref.world->coverage()) {
    out.fired = c->fired;
    out.used = c->used;
    out.applied = c->applied;
  }
  return out;
}

SequenceResult replaySequence(const rt::Pack &reference, const rt::Pack &compiled,
                              const std::vector<Order> &orders, ReadsAt reads, OrderLog *log) {
  SequenceResult out;
  PlayedWorld ref(reference), comp(compiled);
  if (log)
    log->begin();
  for (size_t i = 0; i < orders.size(); ++i) {
    bool readNow = reads == ReadsAt::EachOrder || i + 1 == orders.size();
    if (log)
      log->append(orders[i]);
    if (!giveBoth(ref, comp, orders[i], i, readNow, out, log))
      break;
  }
  return out;
}

// ---- the play ------------------------------------------------------------------------------

std::string orderLine(const Order &o) {
  std::string line;
  auto with = [&]() {
    std::string out;
    for (const auto &[name, value] : o.given)
      out += (out.empty() ? " with " : ", ") + name + " = " + fixedText(value);
    return out;
  };
  switch (o.kind) {
  case OrderKind::Make: {
    line = "make " + o.actor + " " + o.name;
    std::string links;
    for (const auto &[link, to] : o.links)
      links += (links.empty() ? " with " : ", ") + link + " = " + to;
    return line + links;
  }
  case OrderKind::Act:
    line = "act " + o.actor + " " + o.name;
    if (!o.targets.empty()) {
      line += " at";
      for (const std::string &t : o.targets)
        line += " " + t;
    }
    return line + with();
  case OrderKind::Apply:
    line = "apply " + o.name + (o.hasAmount ? " " + fixedText(o.amount) : "") + " to " + o.actor;
    if (o.life == Order::Ticks)
      line += " for " + std::to_string(o.lifeAmount) + "t";
    else if (o.life == Order::Turns)
      line += " for " + fixedText(o.lifeAmount) + " turns";
    else if (o.life == Order::Count)
      line += " for " + fixedText(o.lifeAmount) + " " + o.lifeEvent;
    if (!o.other.empty())
      line += " from " + o.other;
    return line + with();
  case OrderKind::Remove:
    return "remove " + o.name + " from " + o.actor + (o.hasAmount ? " " + fixedText(o.amount) : "");
  case OrderKind::Raise:
    return "raise " + o.name + " of " + o.actor + (o.other.empty() ? "" : " by " + o.other);
  case OrderKind::Deal: {
    line = "deal " + fixedText(o.amount) + " to " + o.actor + (o.other.empty() ? "" : " from " + o.other);
    for (const std::string &t : o.types)
      line += " " + t;
    return line;
  }
  case OrderKind::SetPool:
    return "set " + o.actor + "." + o.name + " = " + fixedText(o.amount);
  case OrderKind::Destroy:
    return "destroy " + o.actor;
  case OrderKind::Link:
    return o.actor.empty() ? "link " + o.name + " " + o.other : "link " + o.actor + " " + o.name + " " + o.other;
  case OrderKind::Advance:
    return "advance " + std::to_string(o.amount) + "t";
  case OrderKind::Turns:
    return "advance " + std::to_string(o.amount) + " turns";
  case OrderKind::Save:
    return "save " + o.name;
  case OrderKind::Rewind:
    return "rewind to " + o.name + (o.keeping ? " keeping" : "");
  case OrderKind::Can:
    return "expect " + o.actor + " can " + o.name + (o.targets.empty() ? "" : " at " + o.targets[0]);
  }
  return line;
}

namespace {

// A number as the language writes it, in millionths: 1.5, -3, 0.000001.
int64_t fixedValue(const std::string &text) {
  bool negative = !text.empty() && text[0] == '-';
  std::string digits = negative ? text.substr(1) : text;
  size_t dot = digits.find('.');
  std::string whole = digits.substr(0, dot), frac = dot == std::string::npos ? "" : digits.substr(dot + 1);
  frac.resize(6, '0');
  int64_t v = std::stoll(whole.empty() ? "0" : whole) * 1'000'000 + std::stoll(frac);
  return negative ? -v : v;
}

// `with NAME = VALUE, …` at the end of a line's words, from `at` on.
std::vector<std::pair<std::string, std::string>> withList(const std::vector<std::string> &w, size_t at) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string rest;
  for (size_t i = at; i < w.size(); ++i)
    rest += w[i] + " ";
  std::istringstream items(rest);
  for (std::string item; std::getline(items, item, ',');) {
    std::istringstream parts(item);
    std::string name, equals, value;
    parts >> name >> equals >> value;
    if (!name.empty())
      out.push_back({name, value});
  }
  return out;
}

} // namespace

std::optional<Order> parseOrderLine(const std::string &line) {
  std::vector<std::string> w;
  std::istringstream in(line);
  for (std::string word; in >> word;)
    w.push_back(word);
  if (w.size() < 2)
    return std::nullopt;
  Order o;
  auto find = [&](const std::string &word, size_t from) {
    for (size_t i = from; i < w.size(); ++i)
      if (w[i] == word)
        return i;
    return w.size();
  };
  size_t with = find("with", 1);
  const std::string &verb = w[0];
  if (verb == "make" && w.size() >= 3) {
    o.kind = OrderKind::Make;
    o.actor = w[1];
    o.name = w[2];
    for (const auto &[link, to] : withList(w, with + 1))
      o.links.push_back({link, to});
  } else if (verb == "act" && w.size() >= 3) {
    o.kind = OrderKind::Act;
    o.actor = w[1];
    o.name = w[2];
    for (size_t i = 4; i < with && w.size() > 3 && w[3] == "at"; ++i)
      o.targets.push_back(w[i]);
    for (const auto &[name, value] : withList(w, with + 1))
      o.given.push_back({name, fixedValue(value)});
  } else if (verb == "apply" && w.size() >= 4) {
    o.kind = OrderKind::Apply;
    o.name = w[1];
    size_t to = find("to", 2);
    if (to > 2) {
      o.hasAmount = true;
      o.amount = fixedValue(w[2]);
    }
    o.actor = to + 1 < w.size() ? w[to + 1] : "";
    size_t at = to + 2;
    if (at + 1 < w.size() && w[at] == "for") {
      std::string amount = w[at + 1];
      if (amount.back() == 't') {
        o.life = Order::Ticks;
        o.lifeAmount = std::stoll(amount.substr(0, amount.size() - 1));
        at += 2;
      } else if (at + 2 < w.size()) {
        o.lifeAmount = fixedValue(amount);
        o.life = w[at + 2] == "turns" || w[at + 2] == "turn" ? Order::Turns : Order::Count;
        if (o.life == Order::Count)
          o.lifeEvent = w[at + 2];
        at += 3;
      }
    }
    if (at + 1 < w.size() && w[at] == "from")
      o.other = w[at + 1];
    for (const auto &[name, value] : withList(w, with + 1))
      o.given.push_back({name, fixedValue(value)});
  } else if (verb == "remove" && w.size() >= 4) {
    o.kind = OrderKind::Remove;
    o.name = w[1];
    o.actor = w[3];
    if (w.size() >= 5) {
      o.hasAmount = true;
      o.amount = fixedValue(w[4]);
    }
  } else if (verb == "raise" && w.size() >= 4) {
    o.kind = OrderKind::Raise;
    o.name = w[1];
    o.actor = w[3];
    if (w.size() >= 6)
      o.other = w[5];
  } else if (verb == "deal" && w.size() >= 4) {
    o.kind = OrderKind::Deal;
    o.amount = fixedValue(w[1]);
    o.actor = w[3];
    size_t at = 4;
    if (at + 1 < w.size() && w[at] == "from") {
      o.other = w[at + 1];
      at += 2;
    }
    o.types.assign(w.begin() + std::ptrdiff_t(std::min(at, w.size())), w.end());
  } else if (verb == "set" && w.size() >= 4) {
    o.kind = OrderKind::SetPool;
    o.actor = w[1].substr(0, w[1].rfind('.'));
    o.name = w[1].substr(w[1].rfind('.') + 1);
    o.amount = fixedValue(w[3]);
  } else if (verb == "destroy") {
    o.kind = OrderKind::Destroy;
    o.actor = w[1];
  } else if (verb == "link" && w.size() >= 3) {
    o.kind = OrderKind::Link;
    if (w.size() >= 4) {
      o.actor = w[1];
      o.name = w[2];
      o.other = w[3];
    } else {
      o.name = w[1];
      o.other = w[2];
    }
  } else if (verb == "advance") {
    bool turns = w.size() >= 3 && (w[2] == "turns" || w[2] == "turn");
    o.kind = turns ? OrderKind::Turns : OrderKind::Advance;
    o.amount = std::stoll(turns ? w[1] : w[1].substr(0, w[1].size() - 1));
  } else if (verb == "save") {
    o.kind = OrderKind::Save;
    o.name = w[1];
  } else if (verb == "rewind" && w.size() >= 3) {
    o.kind = OrderKind::Rewind;
    o.name = w[2];
    o.keeping = w.size() >= 4 && w[3] == "keeping";
  } else if (verb == "expect" && w.size() >= 4 && (w[2] == "can" || w[2] == "cannot")) {
    o.kind = OrderKind::Can;
    o.actor = w[1];
    o.name = w[3];
    if (w.size() >= 6 && w[4] == "at")
      o.targets.push_back(w[5]);
  } else {
    return std::nullopt;
  }
  return o;
}

std::vector<Order> parsePlayOrders(const std::string &play) {
  std::vector<Order> out;
  std::istringstream in(play);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != ' ')
      continue; // the catalog line, a play's own line
    if (std::optional<Order> o = parseOrderLine(line))
      out.push_back(*o);
  }
  return out;
}

namespace {
std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}
} // namespace

std::string renderPlay(const std::string &catalogFile, const std::string &title, uint64_t worldSeed,
                       const SequenceResult &run, bool everyRead) {
  std::string out = "catalog " + catalogFile + "\n\nplay " + quoted(title) + "\n";
  if (worldSeed)
    out += "    seed " + std::to_string(worldSeed) + "\n";
  for (size_t i = 0; i < run.orders.size(); ++i) {
    bool asking = run.orders[i].kind == OrderKind::Can;
    if (i >= run.reference.size()) {
      out += "    " + orderLine(run.orders[i]) + "\n";
      continue;
    }
    const OrderResult &r = run.reference[i];
    // a question's line is its answer: expect … can, or cannot and why
    if (!asking || r.expectOutcome.empty())
      out += "    " + orderLine(run.orders[i]) + "\n";
    if (!r.expectOutcome.empty())
      out += "    " + r.expectOutcome + "\n";
    // the reads the run made, where they take part, as the lines making them
    std::string readLines;
    if (everyRead)
      for (const Reading &read : r.reads)
        if (!read.expect.empty())
          readLines += "    " + read.expect + "\n";
    // after the order where the engines part: what the reference read there
    if (run.difference && run.difference->order == i && !run.difference->expect.empty() &&
        readLines.find("    " + run.difference->expect + "\n") == std::string::npos)
      readLines += "    " + run.difference->expect + "\n";
    out += readLines;
    // last: a fault a read made is journaled by then
    for (const std::string &fault : r.faults)
      out += "    expect fault " + quoted(fault) + "\n";
  }
  return out;
}

// ---- orders as bytes -------------------------------------------------------------------------
namespace {
constexpr char kField = '\x1f', kItem = '\x1e', kOrder = '\n';

std::string listOf(const std::vector<std::string> &items) {
  std::string out;
  for (const std::string &s : items)
    out += s + kItem;
  return out;
}
std::vector<std::string> split(const std::string &s, char by) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == by) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty())
    out.push_back(cur);
  return out;
}
} // namespace

std::string serializeOrder(const Order &o) {
  std::vector<std::string> links, given;
  for (const auto &[l, a] : o.links)
    links.push_back(l + "=" + a);
  for (const auto &[n, v] : o.given)
    given.push_back(n + "=" + std::to_string(v));
  std::ostringstream out;
  out << int(o.kind) << kField << o.actor << kField << o.name << kField << listOf(o.targets) << kField
      << listOf(links) << kField << listOf(given) << kField << listOf(o.types) << kField << o.other
      << kField << o.amount << kField << int(o.hasAmount) << kField << int(o.life) << kField
      << o.lifeAmount << kField << o.lifeEvent << kField << int(o.keeping) << kOrder;
  return out.str();
}

std::string serializeOrders(const std::vector<Order> &orders) {
  std::string out;
  for (const Order &o : orders)
    out += serializeOrder(o);
  return out;
}

std::vector<Order> parseOrders(const std::string &bytes) {
  std::vector<Order> out;
  for (const std::string &line : split(bytes, kOrder)) {
    std::vector<std::string> f;
    std::string cur;
    for (char c : line) {
      if (c == kField) {
        f.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    f.push_back(cur);
    if (f.size() != 14)
      break; // a record cut short by a crash
    Order o;
    o.kind = OrderKind(std::stoi(f[0]));
    o.actor = f[1];
    o.name = f[2];
    o.targets = split(f[3], kItem);
    for (const std::string &s : split(f[4], kItem))
      o.links.push_back({s.substr(0, s.find('=')), s.substr(s.find('=') + 1)});
    for (const std::string &s : split(f[5], kItem))
      o.given.push_back({s.substr(0, s.find('=')), std::stoll(s.substr(s.find('=') + 1))});
    o.types = split(f[6], kItem);
    o.other = f[7];
    o.amount = std::stoll(f[8]);
    o.hasAmount = f[9] == "1";
    o.life = Order::Life(std::stoi(f[10]));
    o.lifeAmount = std::stoll(f[11]);
    o.lifeEvent = f[12];
    o.keeping = f[13] == "1";
    out.push_back(o);
  }
  return out;
}

} // namespace ledger::fuzz
