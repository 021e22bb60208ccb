#include "differential_findings.h"

#include <fstream>
#include <sstream>

namespace ledger::fuzz {

void reportDifference(Report &r, const Difference &d, const std::vector<Order> &orders) {
  r.set("found", "difference");
  r.set("what", d.what);
  r.set("order", d.order);
  r.set("reference", d.reference);
  r.set("compiled", d.compiled);
  r.set("expect", d.expect);
  r.set("orders", serializeOrders(orders));
}

Finding differenceIn(const Report &r) {
  Finding f;
  f.kind = "difference";
  f.what = r.get("what");
  f.order = r.number("order");
  f.reference = r.get("reference");
  f.compiled = r.get("compiled");
  f.expect = r.get("expect");
  f.sequence = r.number("sequence");
  f.orders = parseOrders(r.get("orders"));
  return f;
}

Finding differenceOf(const Difference &d) {
  Finding f;
  f.kind = "difference";
  f.what = d.what;
  f.order = d.order;
  f.reference = d.reference;
  f.compiled = d.compiled;
  f.expect = d.expect;
  return f;
}

namespace {

std::string firstWords(const std::string &text, size_t n) {
  std::istringstream in(text);
  std::string out, w;
  for (size_t i = 0; i < n && in >> w; ++i)
    out += (i ? " " : "") + w;
  return out;
}

// What a journal line tells: its event, or a fault and its reason; empty
// where there is no entry.
std::string journalWord(const std::string &line) {
  std::string two = firstWords(line, 2);
  std::string event = two.substr(two.find(' ') + 1);
  if (event == "fault")
    return "fault " + firstWords(line, 3).substr(two.size() + 1);
  return event == "entry)" ? "" : event;
}

// The first field two entries of one event differ in, as journalText
// writes them: the tick, then `of`, `by`, `credit`, `effect`, … `tags`.
std::string differingField(const std::string &a, const std::string &b) {
  std::istringstream x(a), y(b);
  std::string label = "tick", u, v;
  while (x >> u && y >> v) {
    if (u != v)
      return label;
    if (u == "of" || u == "by" || u == "credit" || u == "effect" || u == "ability" || u == "pool" ||
        u == "amount" || u == "landed" || u == "tags")
      label = u == "of" ? "subject" : u == "by" ? "source" : u;
  }
  return "length";
}

std::string journalSignature(const std::string &reference, const std::string &compiled) {
  std::string r = journalWord(reference), c = journalWord(compiled);
  if (c.empty())
    return "journal: " + r + " only in the reference engine's";
  if (r.empty())
    return "journal: " + c + " only in the compiled engine's";
  if (r != c)
    return "journal: " + r + " in the reference engine's where the compiled engine's has " + c;
  return "journal: " + r + ", its " + differingField(reference, compiled) + " differs";
}

// What a read reads, its actor and names left out.
std::string readKind(const std::string &side) {
  std::string key = side.substr(0, side.find(" = "));
  key = key.substr(0, key.find(": none"));
  if (key.rfind("max ", 0) == 0)
    return "a maximum";
  for (const char *word : {"alive", "holds", "carries"})
    if (key.find(std::string(" ") + word) != std::string::npos)
      return word;
  if (key.rfind("global ", 0) == 0)
    return "a global link";
  if (key == "now")
    return "now";
  return "a value or link";
}

} // namespace

std::string signatureOf(const Finding &f) {
  // an unoptimised pack's crash, its frames bigger, is told apart from an O2 pack's
  if (f.kind == "crash" && f.compiled == "crashed here" && f.level == 0)
    return f.kind + ": " + f.what + ", its pack unoptimised";
  if (f.kind != "difference")
    return f.kind + ": " + (f.kind == "build" ? firstWords(f.compiled, 6) : f.what);
  if (f.what.rfind("journal", 0) == 0)
    return journalSignature(f.reference, f.compiled);
  if (f.what == "outcome")
    return "outcome: " + firstWords(f.reference, 2) + " / " + firstWords(f.compiled, 2);
  if (f.what.rfind("read", 0) == 0) {
    bool onlyCompiled = f.reference.find(": none") != std::string::npos;
    bool onlyReference = f.compiled.find(": none") != std::string::npos;
    return f.what + ": " + readKind(onlyCompiled ? f.compiled : f.reference) +
           (onlyCompiled ? " (only the compiled engine reads it)"
            : onlyReference ? " (only the reference engine reads it)"
                            : "");
  }
  return f.what;
}

std::set<std::string> readKnown(const std::string &path) {
  std::set<std::string> known;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find(" #"));
    if (line.empty() || line[0] == '#')
      continue;
    line = line.substr(0, line.find_last_not_of(' ') + 1);
    known.insert(line);
  }
  return known;
}

} // namespace ledger::fuzz
