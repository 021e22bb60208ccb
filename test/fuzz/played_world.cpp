#include "played_world.h"

#include <exception>
#include <new>
#include <sstream>

namespace ledger::fuzz {

using pack::Id;
using pack::kNoId;

namespace {

constexpr int64_t kOne = 1'000'000;

template <typename T> Id find(const pack::Tables &t, const std::vector<T> &list, const std::string &n) {
  return t.find(list, n);
}

// What an order's `with` gives: an effect's vars by name, or props (X too).
rt::Given givenOf(const pack::Tables &t, const Order &o, Id effect, bool &invalid) {
  rt::Given g;
  for (const auto &[name, value] : o.given) {
    Id id = kNoId;
    if (effect != kNoId) {
      const pack::Effect &ef = t.effects[effect];
      for (uint32_t k = 0; k < ef.varCount; ++k)
        if (t.name(t.vars[ef.varsBegin + k].name) == name)
          id = k;
      if (id == kNoId)
        invalid = true;
    } else if (name != "X") {
      id = find(t, t.props, name);
      if (id == kNoId)
        invalid = true;
    }
    g.values.push_back(rt::Given::number(id, value));
  }
  return g;
}

std::string outcomeText(const rt::Outcome &o) {
  if (o.ok())
    return "done";
  std::string out = std::string("refused ") + rt::refusalName(o.refusal);
  if (!o.text.empty())
    out += " \"" + o.text + "\"";
  if (o.hasNumbers)
    out += " need " + fixedText(o.need) + " have " + fixedText(o.have);
  return out;
}

std::string expectOf(const rt::Outcome &o) {
  return o.ok() ? "expect done" : std::string("expect refused ") + rt::refusalName(o.refusal);
}

// Carries out one order as the play harness would; what it answered.
OrderResult perform(PlayedWorld &e, const Order &o) {
  OrderResult r;
  const pack::Tables &t = e.t;
  rt::World &w = *e.world;
  bool &bad = r.invalid;
  auto actor = [&](const std::string &name) { return e.named(name, bad); };
  auto answered = [&](const rt::Outcome &out) {
    r.outcome = outcomeText(out);
    r.expectOutcome = expectOf(out);
  };
  switch (o.kind) {
  case OrderKind::Make: {
    Id arch = find(t, t.archetypes, o.name);
    std::vector<std::pair<Id, Handle>> links;
    for (const auto &[link, to] : o.links) {
      Id l = find(t, t.links, link);
      if (l == kNoId)
        bad = true;
      links.push_back({l, actor(to)});
    }
    if (arch == kNoId || bad || e.actors.count(o.actor)) {
      bad = true;
      break;
    }
    Handle h = w.make(arch, links);
    e.actors[o.actor] = h;
    e.made.push_back(o.actor);
    r.outcome = "made " + w.handleName(h);
    break;
  }
  case OrderKind::Act: {
    Id ab = find(t, t.abilities, o.name);
    std::vector<Handle> targets;
    for (const std::string &name : o.targets)
      targets.push_back(actor(name));
    rt::Given g = givenOf(t, o, kNoId, bad);
    Handle by = actor(o.actor);
    if (ab == kNoId || bad) {
      bad = true;
      break;
    }
    answered(w.act(by, ab, targets, g));
    break;
  }
  case OrderKind::Can: {
    Id ab = find(t, t.abilities, o.name);
    std::vector<Handle> targets;
    for (const std::string &name : o.targets)
      targets.push_back(actor(name));
    Handle by = actor(o.actor);
    if (ab == kNoId || bad || targets.size() > 1) {
      bad = true;
      break;
    }
    rt::Outcome out = w.canAct(by, ab, targets, !targets.empty());
    r.outcome = outcomeText(out);
    r.expectOutcome = "expect " + o.actor + (out.ok() ? " can " : " cannot ") + o.name +
                      (targets.empty() ? "" : " at " + o.targets[0]) +
                      (out.ok() ? "" : std::string(" ") + rt::refusalName(out.refusal));
    break;
  }
  case OrderKind::Apply: {
    Id ef = find(t, t.effects, o.name);
    if (ef == kNoId) {
      bad = true;
      break;
    }
    rt::Lifetime life;
    if (o.life == Order::Ticks) {
      life.time = o.lifeAmount * t.unitsPerTick * kOne;
    } else if (o.life == Order::Turns) {
      life.turns = o.lifeAmount;
    } else if (o.life == Order::Count) {
      life.count = o.lifeAmount;
      life.countEvent = find(t, t.events, o.lifeEvent);
      if (life.countEvent == kNoId)
        life.countTag = find(t, t.tags, o.lifeEvent);
      if (life.countEvent == kNoId && life.countTag == kNoId)
        bad = true;
    }
    Handle from = o.other.empty() ? 0 : actor(o.other);
    Handle to = actor(o.actor);
    rt::Given g = givenOf(t, o, ef, bad);
    if (bad)
      break;
    answered(w.apply(ef, o.hasAmount ? o.amount : kOne, to, from, life, g));
    break;
  }
  case OrderKind::Remove: {
    Id ef = find(t, t.effects, o.name);
    Handle from = actor(o.actor);
    if (ef == kNoId || bad) {
      bad = true;
      break;
    }
    answered(w.remove(ef, from, o.hasAmount ? o.amount : rt::World::kWhole));
    break;
  }
  case OrderKind::Raise: {
    Id ev = find(t, t.events, o.name);
    Handle of = actor(o.actor);
    Handle by = o.other.empty() ? 0 : actor(o.other);
    if (ev == kNoId || bad) {
      bad = true;
      break;
    }
    answered(w.raise(ev, of, by));
    break;
  }
  case OrderKind::Deal: {
    std::vector<pack::TagSet> types;
    for (const std::string &tag : o.types) {
      Id g = find(t, t.tags, tag);
      if (g == kNoId)
        bad = true;
      else
        types.push_back(t.tags[g].closure);
    }
    Handle to = actor(o.actor);
    Handle from = o.other.empty() ? 0 : actor(o.other);
    if (bad)
      break;
    answered(w.deal(o.amount, to, from, types));
    break;
  }
  case OrderKind::SetPool: {
    Id p = find(t, t.values, o.name);
    Handle a = actor(o.actor);
    if (p == kNoId || t.values[p].kind != pack::ValueKind::Pool || bad) {
      bad = true;
      break;
    }
    answered(w.setPool(a, p, o.amount));
    break;
  }
  case OrderKind::Destroy: {
    Handle a = actor(o.actor);
    if (bad)
      break;
    answered(w.destroy(a));
    break;
  }
  case OrderKind::Link: {
    Id l = find(t, t.links, o.name);
    Handle a = o.actor.empty() ? 0 : actor(o.actor);
    Handle to = actor(o.other);
    if (l == kNoId || bad || t.links[l].global != o.actor.empty()) {
      bad = true;
      break;
    }
    answered(w.link(a, l, to));
    break;
  }
  case OrderKind::Advance:
    w.advance(o.amount);
    r.outcome = "advanced";
    break;
  case OrderKind::Turns:
    if (t.turnEvent == kNoId) {
      bad = true;
      break;
    }
    // a round: every actor living as it begins takes its turn, in the order made
    for (int64_t round = 0; round < o.amount; ++round)
      for (Handle a : w.living())
        if (w.alive(a))
          w.raise(t.turnEvent, a, 0);
    r.outcome = "turns";
    break;
  case OrderKind::Save: {
    // through the bytes, and on from the world read back, as a play's save
    std::string why;
    std::optional<rt::World> restored = rt::World::loadSave(e.pack, w.saveBytes(), why);
    if (!restored) {
      r.outcome = "save refused: " + why;
      break;
    }
    e.replaceWorld(*restored);
    e.saves.insert_or_assign(o.name, PlayedWorld::Saved{std::move(*restored), e.actors, e.made});
    r.outcome = "saved";
    break;
  }
  case OrderKind::Rewind: {
    auto it = e.saves.find(o.name);
    if (it == e.saves.end()) {
      bad = true;
      break;
    }
    rt::World replaced = *e.world;
    e.replaceWorld(it->second.world);
    if (o.keeping)
      e.world->keepFrom(replaced);
    e.actors = it->second.actors;
    e.made = it->second.made;
    r.outcome = "rewound";
    break;
  }
  }
  return r;
}

// The new journal entries, then forgotten, as a play's step forgets them.
void takeJournal(rt::World &w, OrderResult &r) {
  std::string text = w.journalText();
  w.forgetJournal();
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t fault = line.find(" fault ");
    if (fault != std::string::npos && line.find_first_not_of("0123456789") == fault)
      r.faults.push_back(line.substr(fault + 7));
    r.journal.push_back(std::move(line));
  }
}

// Reads of every actor the play named (alive, values, maximums, effects held,
// tags carried, links), then of the actors content made, then global links.
void readAll(PlayedWorld &e, OrderResult &r) {
  rt::World &w = *e.world;
  const pack::Tables &t = e.t;
  auto nameOf = [&](Handle h) -> std::string {
    if (!h)
      return "none";
    for (const auto &[name, handle] : e.actors)
      if (handle == h)
        return name;
    return "";
  };
  const std::string source = " from a run: the reference engine";
  auto readActor = [&](Handle h, const std::string &name) {
    std::string who = name.empty() ? w.handleName(h) : name;
    bool playable = !name.empty();
    bool alive = w.alive(h);
    r.reads.push_back({who + " alive", alive ? "yes" : "no",
                       playable ? "expect " + name + (alive ? " alive" : " gone") : ""});
    for (Id v = 0; v < t.values.size(); ++v) {
      std::string value(t.name(t.values[v].name));
      std::string amount = fixedText(w.value(h, v));
      r.reads.push_back({who + "." + value, amount,
                         playable ? "expect " + name + "." + value + " = " + amount + source : ""});
      if (std::optional<int64_t> most = w.maximum(h, v))
        r.reads.push_back({"max " + who + "." + value, fixedText(*most),
                           playable ? "expect max " + name + "." + value + " = " + fixedText(*most) + source : ""});
    }
    for (Id ef = 0; ef < t.effects.size(); ++ef) {
      bool holds = w.holds(h, ef);
      int64_t stacks = w.stacksOf(h, ef);
      if (!holds && stacks == 0)
        continue;
      std::string effect(t.name(t.effects[ef].name));
      bool sayable = playable && !t.effects[ef].isCooldown;
      r.reads.push_back({who + " holds " + effect, holds ? fixedText(stacks) : "none " + fixedText(stacks),
                         sayable ? "expect " + name + (holds ? " has " + effect + " " + fixedText(stacks) + source
                                                             : " lacks " + effect)
                                 : ""});
    }
    for (Id g = Id(pack::BuiltinTag::Count); g < t.tags.size(); ++g)
      if (w.carries(h, g)) {
        std::string tag(t.name(t.tags[g].name));
        r.reads.push_back({who + " carries " + tag, "yes", playable ? "expect " + name + " has " + tag : ""});
      }
    for (Id l = 0; l < t.links.size(); ++l) {
      if (t.links[l].global)
        continue;
      Handle to = w.linkOf(h, l);
      std::string link(t.name(t.links[l].name));
      std::string other = nameOf(to);
      r.reads.push_back({who + "." + link, w.handleName(to),
                         playable && !other.empty() ? "expect " + name + "." + link + " = " + other : ""});
    }
  };
  for (const std::string &name : e.made)
    readActor(e.actors.at(name), name);
  for (Handle h : w.living()) {
    bool named = false;
    for (const auto &[n, handle] : e.actors)
      named = named || handle == h;
    if (!named)
      readActor(h, "");
  }
  for (Id l = 0; l < t.links.size(); ++l)
    if (t.links[l].global)
      r.reads.push_back({"global " + std::string(t.name(t.links[l].name)), w.handleName(w.linkOf(0, l)), ""});
  r.reads.push_back({"now", std::to_string(w.now()), ""});
}

} // namespace

OrderResult give(PlayedWorld &e, const Order &o, bool reads) {
  OrderResult r;
  try {
    r = perform(e, o);
    if (r.invalid)
      return r;
    // the reads first: a read that faults journals as a play's expect line does, under the order
    if (reads)
      readAll(e, r);
    takeJournal(*e.world, r);
  } catch (const std::bad_alloc &) {
    r.outcome = "out of memory";
    r.exhausted = true;
  } catch (const std::exception &ex) {
    r.outcome = std::string("exception: ") + ex.what();
  } catch (...) {
    r.outcome = "exception of no known type";
  }
  return r;
}

namespace {

// The actor a read is of: "u2" of "u2.Health", "max u2.Health", "u2 holds Fx1".
std::string actorOfKey(std::string key) {
  if (key.rfind("max ", 0) == 0)
    key = key.substr(4);
  return key.substr(0, key.find_first_of(" ."));
}

// "read", or "read of a gone actor" where the reference reads it destroyed.
std::string readWhat(const OrderResult &reference, const std::string &key) {
  std::string alive = actorOfKey(key) + " alive";
  for (const Reading &r : reference.reads)
    if (r.key == alive && r.value == "no")
      return "read of a gone actor";
  return "read";
}

} // namespace

std::optional<Difference> compare(const OrderResult &a, const OrderResult &b, size_t order) {
  auto differs = [&](std::string what, std::string x, std::string y) {
    return Difference{order, std::move(what), std::move(x), std::move(y), ""};
  };
  if (a.outcome.rfind("exception", 0) == 0 || b.outcome.rfind("exception", 0) == 0)
    return differs("exception", a.outcome, b.outcome);
  if (a.outcome.rfind("save refused", 0) == 0 || b.outcome.rfind("save refused", 0) == 0)
    return differs("save", a.outcome, b.outcome);
  for (size_t i = 0; i < std::max(a.journal.size(), b.journal.size()); ++i) {
    std::string x = i < a.journal.size() ? a.journal[i] : "(no entry)";
    std::string y = i < b.journal.size() ? b.journal[i] : "(no entry)";
    if (x != y)
      return differs("journal entry " + std::to_string(i + 1) + " of the order", x, y);
  }
  if (a.outcome != b.outcome)
    return differs("outcome", a.outcome, b.outcome);
  // the reads by what they read: a fact one engine has and the other hasn't
  // (an effect held, a tag carried) is read on one side alone
  std::map<std::string, const Reading *> theirs;
  for (const Reading &r : b.reads)
    theirs[r.key] = &r;
  for (const Reading &r : a.reads) {
    auto it = theirs.find(r.key);
    if (it == theirs.end() || it->second->value != r.value) {
      Difference d = differs(readWhat(a, r.key), r.key + " = " + r.value,
                             it == theirs.end() ? r.key + ": none" : r.key + " = " + it->second->value);
      d.expect = r.expect;
      return d;
    }
    theirs.erase(it);
  }
  for (const Reading &r : b.reads)
    if (theirs.count(r.key)) {
      Difference d = differs(readWhat(a, r.key), r.key + ": none", r.key + " = " + r.value);
      // what the reference lacks, as a play expects it
      size_t space = r.key.find(' ');
      bool lacking = space != std::string::npos && r.expect.rfind("expect ", 0) == 0 &&
                     (r.key.compare(space, 9, " carries ") == 0 || r.key.compare(space, 7, " holds ") == 0);
      if (lacking)
        d.expect = "expect " + r.key.substr(0, space) + " lacks " + r.key.substr(r.key.rfind(' ') + 1);
      return d;
    }
  return std::nullopt;
}

} // namespace ledger::fuzz
