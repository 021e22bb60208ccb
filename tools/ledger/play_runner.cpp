// The play harness: each play's lines as orders to a world and checks of
// what it holds. A line it can't run fails its play with the line, never the
// whole run.
#include "play_runner.h"

#include "base/fixed.h"
#include "number.h"
#include "world.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

namespace ledger::play {

using pack::Id;
using pack::kNoId;
using rt::Handle;

namespace {

struct Failure {
  uint32_t line;
  std::string why;
};

class Runner {
public:
  Runner(const SyntaxTree &tree, const rt::Pack &pack) : tree_(tree), pack_(pack), t_(pack.tables()) {}

  Result run(NodeId play, std::FILE *journal, std::vector<std::string> *saves) {
    Result result;
    journal_ = journal;
    savesTaken_ = saves;
    world_.emplace(pack_, 0);
    world_->countCoverage({});
    clock_ = 0;
    rounds_ = 0;
    try {
      lines(play);
      checkFaults();
    } catch (const Failure &f) {
      result.passed = false;
      result.failLine = f.line;
      result.why = f.why;
    }
    readOutJournal();
    result.events = world_->journalCount();
    result.genericEvents = world_->genericEvents();
    return result;
  }

private:
  // ---- reading the play's lines ------------------------------------------------
  std::string text(NodeId n, std::string_view label) const {
    const Slot *s = tree_.slot(n, label);
    return s ? std::string(tree_.span(tree_.nodes[n].file, s->begin, s->end)) : std::string();
  }
  uint32_t lineOf(NodeId n) const {
    const Node &node = tree_.nodes[n];
    return tree_.sources->lineCol(tree_.loc(node.file, node.begin)).line;
  }
  [[noreturn]] void fail(NodeId n, std::string why) const { throw Failure{lineOf(n), std::move(why)}; }
  int64_t number(NodeId n, std::string_view label) const {
    const Slot *s = tree_.slot(n, label);
    const Token &tok = tree_.token(tree_.nodes[n].file, s->begin);
    int64_t v = tok.value.raw;
    if (s->begin > 0 && s->end - s->begin == 2 &&
        tree_.token(tree_.nodes[n].file, s->begin).kind == TokenKind::Minus)
      v = -tree_.token(tree_.nodes[n].file, s->begin + 1).value.raw;
    return v;
  }
  // "a formula with a unit": one of numbers and arithmetic, (2 + 1)s, is
  // worked out here; one reading the world is not run yet.
  int64_t constant(NodeId n, ExprId id, rt::NumberFault &fault) const {
    const Expr &e = tree_.exprs[id];
    auto arg = [&](uint32_t i) { return constant(n, tree_.exprArgs[e.firstArg + i], fault); };
    if (e.kind == ExprKind::Number)
      return tree_.token(e.file, e.begin).value.raw;
    if (e.kind == ExprKind::Unary && e.op == ExprOp::Neg)
      return rt::neg(arg(0), fault);
    if (e.kind == ExprKind::Binary) {
      switch (e.op) {
      case ExprOp::Add:
        return rt::add(arg(0), arg(1), fault);
      case ExprOp::Sub:
        return rt::sub(arg(0), arg(1), fault);
      case ExprOp::Mul:
        return rt::mul(arg(0), arg(1), fault);
      case ExprOp::Div:
        return rt::div(arg(0), arg(1), fault);
      default:
        break;
      }
    }
    fail(n, fmt::format("`{}`: a play's duration is worked out from numbers alone, not yet "
                        "from what the world holds",
                        tree_.span(e.file, e.begin, e.end)));
  }
  // "F turns": a count worked out from numbers, whole, none below zero.
  int64_t wholeTurns(NodeId n, std::string_view label) const {
    rt::NumberFault fault = rt::NumberFault::None;
    int64_t v = constant(n, tree_.slot(n, label)->value, fault);
    if (fault != rt::NumberFault::None || v < 0 || v % rt::kOne != 0)
      fail(n, fmt::format("`{}` is no count of turns: turns are counted whole, from 0",
                          text(n, label)));
    return v / rt::kOne;
  }
  // World time said in ticks, to the millionth.
  std::string ticksText(int64_t time) const { return num(time / t_.unitsPerTick) + "t"; }

  // A duration in world time: millionths of the pack's unit of time, a tick
  // at a whole rate (pack::Tables::unitsPerTick).
  int64_t ticks(NodeId n, std::string_view label) const {
    const Slot *s = tree_.slot(n, label);
    const Expr &e = tree_.exprs[s->value];
    if (e.kind != ExprKind::Duration)
      fail(n, "a duration here must be a number with its unit");
    rt::NumberFault fault = rt::NumberFault::None;
    int64_t v = constant(n, tree_.exprArgs[e.firstArg], fault);
    switch (e.unit) {
    case TimeUnit::Seconds:
      v = rt::mul(v, t_.unitsPerSecond, fault);
      break;
    case TimeUnit::Millis:
      v = rt::div(rt::mul(v, t_.unitsPerSecond, fault), 1000 * rt::kOne, fault);
      break;
    default:
      v = rt::mul(v, t_.unitsPerTick * rt::kOne, fault);
      break;
    }
    if (fault != rt::NumberFault::None)
      fail(n, fmt::format("`{}` can't be worked out: {}", tree_.span(e.file, e.begin, e.end),
                          fault == rt::NumberFault::DivideByZero ? "a division by zero"
                                                                 : "past the numbers' range"));
    // Time runs one way: a duration moves a clock on or measures what is left.
    if (v < 0)
      fail(n, fmt::format("`{}` is a negative duration: a duration is never below zero",
                          tree_.span(e.file, e.begin, e.end)));
    return v;
  }
  Id effect(std::string_view n) const { return t_.find(t_.effects, n); }
  Id ability(std::string_view n) const { return t_.find(t_.abilities, n); }
  Id archetype(std::string_view n) const { return t_.find(t_.archetypes, n); }
  Id value(std::string_view n) const { return t_.find(t_.values, n); }
  Id link(std::string_view n) const { return t_.find(t_.links, n); }
  Id event(std::string_view n) const { return t_.find(t_.events, n); }
  Id tag(std::string_view n) const { return t_.find(t_.tags, n); }
  Id prop(std::string_view n) const { return t_.find(t_.props, n); }
  // The tags a line names, each as its own set (itself and its ancestors):
  // an event carries them all.
  std::vector<pack::TagSet> tagSetsOf(NodeId n, std::string_view label) const {
    std::vector<pack::TagSet> sets;
    const Node &node = tree_.nodes[n];
    for (const Slot *s : tree_.slotsNamed(n, label))
      tree_.eachItem(node.file, *s, true, [&](uint32_t b, uint32_t e) {
        Id g = tag(tree_.span(node.file, b, e));
        if (g != kNoId)
          sets.push_back(t_.tags[g].closure);
      });
    return sets;
  }


  Handle actorNamed(NodeId n, std::string_view name) const {
    auto it = actors_.find(std::string(name));
    if (it == actors_.end())
      fail(n, fmt::format("`{}` names no actor of this play", name));
    return it->second;
  }
  // PLAYED.LINK.LINK...: an actor; a global link's name reads its actor.
  Handle actorPath(NodeId n, const std::string &path) const {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1)
      parts.push_back(path.substr(start, dot - start));
    parts.push_back(path.substr(start));
    Handle h;
    if (actors_.count(parts[0])) {
      h = actors_.at(parts[0]);
    } else if (Id l = link(parts[0]); l != kNoId && t_.links[l].global) {
      h = world_->linkOf(0, l);
    } else {
      fail(n, fmt::format("`{}` names no actor of this play", parts[0]));
    }
    for (size_t i = 1; i < parts.size(); ++i) {
      Id l = link(parts[i]);
      if (l == kNoId)
        fail(n, fmt::format("`{}` is no link", parts[i]));
      h = world_->linkOf(h, l);
    }
    return h;
  }
  // The actor a PLAYED.VALUE reads: a link pointing nowhere on the way fails
  // the line, where the world would read an absent actor's values as 0.
  Handle holderOf(NodeId n, const std::string &path) const {
    Handle h = actorPath(n, path);
    if (h == 0)
      fail(n, fmt::format("`{}` is no actor: a link on the way points at none", path));
    return h;
  }
  // PLAYED.VALUE (through links): the actor and the value.
  std::pair<Handle, Id> valueOf(NodeId n, const std::string &path) {
    for (size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', dot + 1)) {
      Id v = value(path.substr(dot + 1));
      if (v != kNoId)
        return {holderOf(n, path.substr(0, dot)), v};
    }
    fail(n, fmt::format("`{}` reads no stat or pool", path));
  }
  // PLAYED.VALUE (through links): a number.
  int64_t valuePath(NodeId n, const std::string &path) {
    // The longest dotted tail naming a value (d.Resist.Magic.Fire), the rest
    // an actor through links.
    for (size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', dot + 1)) {
      Id v = value(path.substr(dot + 1));
      if (v != kNoId)
        return world_->value(holderOf(n, path.substr(0, dot)), v);
    }
    fail(n, fmt::format("`{}` reads no stat or pool", path));
  }

  static bool compare(std::string_view cmp, int64_t a, int64_t b) {
    return cmp == "=" ? a == b : cmp == "!=" ? a != b : cmp == "<" ? a < b : cmp == "<=" ? a <= b : cmp == ">" ? a > b : a >= b;
  }
  static std::string num(int64_t v) { return formatFixed(Fixed{v}); }

  // What a line's with gives, each a number or a tag, said as which.
  rt::Given given(NodeId n, bool vars, Id effectId) {
    rt::Given g;
    for (const Slot *s : tree_.slotsNamed(n, "assign")) {
      NodeId as = s->value;
      std::string name = text(as, "name");
      const Slot *v = tree_.slot(as, "value");
      uint32_t file = tree_.nodes[as].file;
      const Expr &e = tree_.exprs[v->value];
      int64_t value;
      bool isTag = false;
      std::string valueText(tree_.span(file, e.begin, e.end));
      if (e.kind == ExprKind::Number) {
        value = tree_.token(file, e.begin).value.raw;
      } else if (e.kind == ExprKind::Unary && tree_.exprs[tree_.exprArgs[e.firstArg]].kind == ExprKind::Number) {
        value = -tree_.token(file, tree_.exprs[tree_.exprArgs[e.firstArg]].begin).value.raw;
      } else if (Id g_ = tag(valueText); g_ != kNoId) {
        value = int64_t(g_) + 1;
        isTag = true;
      } else {
        fail(n, fmt::format("`{}` is no number and no tag", valueText));
      }
      Id id = kNoId;
      if (vars) {
        const pack::Effect &ef = t_.effects[effectId];
        for (uint32_t k = 0; k < ef.varCount; ++k)
          if (t_.name(t_.vars[ef.varsBegin + k].name) == name)
            id = k;
      } else if (name == "X") {
        id = kNoId;
      } else {
        id = prop(name);
        if (id == kNoId)
          fail(n, fmt::format("`{}` is no property", name));
      }
      g.values.push_back({id, value, isTag});
    }
    return g;
  }

  void checkFaults() {
    for (const auto &[note, matched] : spilledFaults_)
      if (!matched)
        throw Failure{lastStepLine_, "a fault no line expects: " + note};
    const auto &j = world_->journal();
    for (size_t i = 0; i < j.size(); ++i)
      if (j[i].fault && !faultMatched_.count(i))
        throw Failure{lastStepLine_, "a fault no line expects: " + world_->journalNote(j[i].note)};
  }

  // A step: its faults since the last step must each have been expected.
  // What the lines since then read of the journal is read, so it is written
  // out (--journal) and forgotten: a long play holds one step's entries.
  void step(NodeId n) {
    checkFaults();
    readOutJournal();
    faultMatched_.clear();
    spilledFaults_.clear();
    stepSpilled_ = false;
    lastStepLine_ = lineOf(n);
  }

  void readOutJournal() {
    if (journal_)
      std::fputs(world_->journalText().c_str(), journal_);
    world_->forgetJournal();
  }

  // A step whose journal grows past kStepJournalKept entries streams: what
  // it journaled so far is written out and forgotten, its faults kept by
  // their words for the lines expecting them, so a long advance runs in
  // bounded memory (reading 163).
  void spillIfLong() {
    if (world_->journal().size() <= kStepJournalKept)
      return;
    const auto &j = world_->journal();
    for (size_t i = 0; i < j.size(); ++i)
      if (j[i].fault)
        spilledFaults_.emplace(world_->journalNote(j[i].note), false);
    readOutJournal();
    stepSpilled_ = true;
  }

  void advanceTicks(int64_t ticks) {
    while (ticks > 0) {
      int64_t stretch = std::min(ticks, kAdvanceStretch);
      world_->advance(stretch);
      ticks -= stretch;
      spillIfLong();
    }
  }

  void refuseSpilledStep(NodeId n) {
    if (stepSpilled_)
      fail(n, fmt::format("the step before journaled more than {} entries, more than an event line "
                          "reads: split it into shorter steps",
                          kStepJournalKept));
  }

  void lines(NodeId parent) {
    for (NodeId n = tree_.nodes[parent].firstChild; n != kNone; n = tree_.nodes[n].nextSibling)
      line(n);
  }

  // Where turns are counted, a play's clock is its rounds: in each, every
  // actor living as it begins takes its turn in the world's order (their
  // slots'), its turn event raised of it as the game would; one destroyed
  // before its turn comes takes none. The world's time doesn't move
  // (docs/readings.md 132, 157).
  void advanceTurns(NodeId n) {
    bool to = tree_.slot(n, "rounds") != nullptr;
    int64_t count = wholeTurns(n, to ? "rounds" : "turns");
    for (int64_t r = to ? rounds_ : 0; r < count; ++r) {
      for (Handle a : world_->living())
        if (world_->alive(a))
          world_->raise(t_.turnEvent, a, 0);
      ++rounds_;
      spillIfLong();
    }
  }

  // The world played on from another (a save read back, a rewind's): the
  // coverage instrument counts over the whole play, so what it counted
  // goes on with it.
  void replaceWorld(const rt::World &next) {
    rt::World::Coverage counted = *world_->coverage();
    world_.emplace(next);
    world_->countCoverage(std::move(counted));
  }

  // expect coverage: what the instrument counted of an effect's rules (the
  // Nth it writes, or all of them), its applies, an ability's uses and
  // refusals, an archetype's actors made.
  void expectCoverage(NodeId n) {
    std::string name = text(n, "name"), what = text(n, "what");
    const rt::World::Coverage &c = *world_->coverage();
    uint64_t count = 0;
    bool ofRules = what == "heard" || what == "fired" || what == "changed";
    if (tree_.slot(n, "rule") && !ofRules)
      fail(n, fmt::format("`rule N` counts what a rule heard, fired or changed, not `{}`", what));
    if (ofRules || what == "applied") {
      Id e = effect(name);
      if (e == kNoId)
        fail(n, fmt::format("`{}` is no effect: `{}` counts an effect's", name, what));
      const pack::Effect &ef = t_.effects[e];
      if (what == "applied") {
        count = c.applied[e];
      } else {
        const std::vector<uint64_t> &by = what == "heard" ? c.heard : what == "fired" ? c.fired : c.changed;
        uint32_t from = ef.rulesBegin, to = ef.rulesBegin + ef.ruleCount;
        if (tree_.slot(n, "rule")) {
          int64_t nth = number(n, "rule");
          if (nth % rt::kOne != 0 || nth < rt::kOne || nth / rt::kOne > ef.ruleCount)
            fail(n, fmt::format("`{}` writes {} rules: rule {} is none of them", name,
                                ef.ruleCount, text(n, "rule")));
          from = ef.rulesBegin + uint32_t(nth / rt::kOne) - 1;
          to = from + 1;
        }
        for (uint32_t r = from; r < to; ++r)
          count += by[r];
      }
    } else if (what == "used" || what == "refused") {
      Id ab = ability(name);
      if (ab == kNoId)
        fail(n, fmt::format("`{}` is no ability: `{}` counts an ability's", name, what));
      count = (what == "used" ? c.used : c.refused)[ab];
    } else {
      Id arch = archetype(name);
      if (arch == kNoId)
        fail(n, fmt::format("`{}` is no archetype: `made` counts an archetype's", name));
      count = c.made[arch];
    }
    if (!compare(text(n, "cmp"), int64_t(count) * rt::kOne, number(n, "number")))
      fail(n, fmt::format("expected coverage {} {} {} {}, found {}", name, what, text(n, "cmp"),
                          num(number(n, "number")), count));
  }

  void line(NodeId n) {
    FormKind k = tree_.nodes[n].kind;
    switch (k) {
    case FormKind::PlaySeed:
      world_.emplace(pack_, uint64_t(number(n, "seed") / rt::kOne));
      world_->countCoverage({});
      clock_ = 0;
      rounds_ = 0;
      return;
    case FormKind::PlayMake: {
      step(n);
      Id arch = archetype(text(n, "archetype"));
      std::vector<std::pair<Id, Handle>> links;
      for (const Slot *s : tree_.slotsNamed(n, "assign")) {
        Id l = link(text(s->value, "name"));
        if (l == kNoId)
          fail(n, fmt::format("`{}` is no link", text(s->value, "name")));
        links.push_back({l, actorPath(n, text(s->value, "value"))});
      }
      Handle made = world_->make(arch, links);
      actors_[text(n, "name")] = made;
      // The play's plane, the host's space: one number is N 0.
      if (tree_.slot(n, "x"))
        places_[made] = {number(n, "x"), tree_.slot(n, "y") ? number(n, "y") : 0};
      return;
    }
    case FormKind::PlayAct: {
      step(n);
      if (tree_.slot(n, "x") || tree_.slot(n, "dx") || tree_.slot(n, "id") ||
          tree_.slot(n, "answering") || tree_.slot(n, "as") || tree_.slot(n, "projectile"))
        fail(n, "this act's place, id, choice or kept activation is not run by the engines yet");
      // using names the grant: an effect the caster holds (an item's gift
      // comes with piles).
      Id usingEffect = kNoId;
      if (tree_.slot(n, "using")) {
        usingEffect = effect(text(n, "using"));
        if (usingEffect == kNoId)
          fail(n, "`using` an item (piles) is not run by the engines yet");
      }
      std::vector<Handle> targets;
      for (const Slot *s : tree_.slotsNamed(n, "targets"))
        targets.push_back(actorPath(n, std::string(tree_.span(tree_.nodes[n].file, s->begin, s->end))));
      rt::Given g = given(n, false, kNoId);
      last_ = world_->act(actorPath(n, text(n, "actor")), ability(text(n, "ability")), targets, g,
                          usingEffect);
      return;
    }
    case FormKind::PlayApply: {
      step(n);
      Id e = effect(text(n, "effect"));
      int64_t stacks = tree_.slot(n, "stacks") ? number(n, "stacks") : rt::kOne;
      rt::Lifetime life;
      if (tree_.slot(n, "time")) {
        life.time = ticks(n, "time");
      } else if (tree_.slot(n, "turns")) {
        life.turns = number(n, "turns");
      } else if (tree_.slot(n, "count")) {
        life.count = number(n, "count");
        life.countEvent = event(text(n, "event"));
        // Else a pool's change named by its tag (Damage).
        if (life.countEvent == kNoId)
          life.countTag = tag(text(n, "event"));
      }
      Handle from = tree_.slot(n, "from") ? actorPath(n, text(n, "from")) : 0;
      last_ = world_->apply(e, stacks, actorPath(n, text(n, "to")), from, life,
                             given(n, true, e));
      return;
    }
    case FormKind::PlayRemove:
      step(n);
      last_ = world_->remove(effect(text(n, "effect")), actorPath(n, text(n, "from")),
                              tree_.slot(n, "stacks") ? number(n, "stacks") : rt::World::kWhole);
      return;
    case FormKind::PlayRaise:
      step(n);
      last_ = world_->raise(event(text(n, "event")), actorPath(n, text(n, "of")),
                             tree_.slot(n, "by") ? actorPath(n, text(n, "by")) : 0);
      return;
    case FormKind::PlayDeal:
      step(n);
      last_ = world_->deal(number(n, "amount"), actorPath(n, text(n, "to")),
                            tree_.slot(n, "from") ? actorPath(n, text(n, "from")) : 0,
                            tagSetsOf(n, "types"));
      return;
    case FormKind::PlaySet: {
      step(n);
      std::string target = text(n, "target");
      size_t dot = target.rfind('.');
      Id pool = value(target.substr(dot + 1));
      if (pool == kNoId || t_.values[pool].kind != pack::ValueKind::Pool)
        fail(n, fmt::format("`{}` is no pool: a stat's base and its modifiers make it",
                            target.substr(dot + 1)));
      last_ = world_->setPool(actorPath(n, target.substr(0, dot)), pool, number(n, "value"));
      return;
    }
    case FormKind::PlayDestroy:
      step(n);
      last_ = world_->destroy(actorPath(n, text(n, "actor")));
      return;
    case FormKind::PlayLink: {
      step(n);
      Id l = link(text(n, "link"));
      Handle a = tree_.slot(n, "actor") ? actorPath(n, text(n, "actor")) : 0;
      last_ = world_->link(a, l, actorPath(n, text(n, "to")));
      return;
    }
    case FormKind::PlayAdvance: {
      step(n);
      if (tree_.slot(n, "unit")) {
        advanceTurns(n);
        return;
      }
      // The play's clock moves exactly; the world runs each whole tick it
      // passes, so half a tick twice is one tick (docs/readings.md).
      int64_t to = tree_.slot(n, "until") ? ticks(n, "until") : clock_ + ticks(n, "by");
      clock_ = std::max(clock_, to);
      int64_t whole = clock_ / (t_.unitsPerTick * rt::kOne) - world_->now();
      if (whole > 0)
        advanceTicks(whole);
      return;
    }
    case FormKind::PlayRepeat: {
      int64_t times = number(n, "count") / rt::kOne;
      for (int64_t i = 0; i < times; ++i)
        lines(n);
      return;
    }
    case FormKind::PlaySave: {
      step(n);
      // "saves the world and plays on from the restored copy, as a quickload
      // would": through the bytes a save on disk holds, so every play's save
      // checks them, and on from the world read back.
      std::string why, bytes = world_->saveBytes();
      if (savesTaken_)
        savesTaken_->push_back(bytes);
      std::optional<rt::World> restored = rt::World::loadSave(pack_, bytes, why);
      if (!restored)
        fail(n, "the save isn't read back: " + why);
      replaceWorld(*restored);
      saves_.insert_or_assign(text(n, "name"),
                              Saved{std::move(*restored), actors_, places_, clock_, rounds_});
      lastSave_ = text(n, "name");
      return;
    }
    case FormKind::PlayRewind: {
      step(n);
      std::string name = tree_.slot(n, "name") ? text(n, "name") : lastSave_;
      auto it = saves_.find(name);
      if (it == saves_.end())
        fail(n, "there is no save to rewind to");
      rt::World replaced = *world_;
      replaceWorld(it->second.world);
      if (tree_.hasFlag(n, "keeping"))
        world_->keepFrom(replaced);
      actors_ = it->second.actors;
      places_ = it->second.places;
      clock_ = it->second.clock;
      rounds_ = it->second.rounds;
      lastSave_ = name;
      return;
    }
    case FormKind::PlayCovers:
      return;
    default:
      expect(n, k);
    }
  }

  // ---- expectations ------------------------------------------------------------------
  void expect(NodeId n, FormKind k) {
    switch (k) {
    case FormKind::ExpectDone:
      if (!last_.ok())
        fail(n, fmt::format("expected done, found refused {}{}", rt::refusalName(last_.refusal),
                            last_.text.empty() ? "" : " \"" + last_.text + "\""));
      return;
    case FormKind::ExpectRefused: {
      if (last_.ok())
        fail(n, "expected refused, found done");
      std::string reason = text(n, "reason");
      if (!reason.empty() && reason != rt::refusalName(last_.refusal))
        fail(n, fmt::format("expected refused {}, found refused {}", reason,
                            rt::refusalName(last_.refusal)));
      if (tree_.slot(n, "text")) {
        std::string quoted = text(n, "text");
        std::string want = quoted.size() >= 2 ? quoted.substr(1, quoted.size() - 2) : quoted;
        if (last_.text.find(want) == std::string::npos)
          fail(n, fmt::format("expected the refusal to say \"{}\", found \"{}\"", want, last_.text));
      }
      if (tree_.slot(n, "need") && (!last_.hasNumbers || last_.need != number(n, "need")))
        fail(n, fmt::format("expected need {}, found {}", num(number(n, "need")),
                            last_.hasNumbers ? num(last_.need) : "none"));
      if (tree_.slot(n, "have") && (!last_.hasNumbers || last_.have != number(n, "have")))
        fail(n, fmt::format("expected have {}, found {}", num(number(n, "have")),
                            last_.hasNumbers ? num(last_.have) : "none"));
      if (tree_.slot(n, "element") && int64_t(last_.element) * rt::kOne != number(n, "element"))
        fail(n, fmt::format("expected element {}, found {}", num(number(n, "element")), last_.element));
      return;
    }
    case FormKind::ExpectFault: {
      const auto &j = world_->journal();
      std::string want = tree_.slot(n, "reason") ? text(n, "reason") : text(n, "text");
      if (want.size() >= 2 && want.front() == '"')
        want = want.substr(1, want.size() - 2);
      // in RULE: the effect or ability whose rule the fault names, last.
      std::string in = tree_.slot(n, "in") ? " in " + text(n, "in") : "";
      auto names = [&](const std::string &note) {
        return note.find(want) != std::string::npos &&
               (in.empty() || (note.size() >= in.size() &&
                               note.compare(note.size() - in.size(), in.size(), in) == 0));
      };
      // "each line expecting the faults it matches": every one since the
      // last step, so one line covers two faults of one step.
      bool found = false;
      for (auto &[note, matched] : spilledFaults_)
        if (names(note))
          found = matched = true;
      for (size_t i = 0; i < j.size(); ++i)
        if (j[i].fault && names(world_->journalNote(j[i].note)))
          found = faultMatched_[i] = true;
      if (!found)
        fail(n, fmt::format("expected a fault {}{}, found none", want, in));
      return;
    }
    case FormKind::ExpectValue: {
      int64_t v = valuePath(n, text(n, "value"));
      std::string cmp = text(n, "cmp");
      int64_t want = number(n, "number");
      if (!compare(cmp, v, want))
        fail(n, fmt::format("expected {} {} {}, found {}", text(n, "value"), cmp, num(want), num(v)));
      return;
    }
    case FormKind::ExpectMax: {
      auto [h, v] = valueOf(n, text(n, "value"));
      std::optional<int64_t> most = world_->maximum(h, v);
      std::string cmp = text(n, "cmp");
      int64_t want = number(n, "number");
      if (!most)
        fail(n, fmt::format("expected max {} {} {}, found it has no maximum", text(n, "value"), cmp, num(want)));
      if (!compare(cmp, *most, want))
        fail(n, fmt::format("expected max {} {} {}, found {}", text(n, "value"), cmp, num(want), num(*most)));
      return;
    }
    case FormKind::ExpectAt: {
      Handle a = actorPath(n, text(n, "actor"));
      std::pair<int64_t, int64_t> want{number(n, "x"), tree_.slot(n, "y") ? number(n, "y") : 0};
      auto it = places_.find(a);
      if (it == places_.end())
        fail(n, fmt::format("expected {} at {} {}, found it on no place", text(n, "actor"),
                            num(want.first), num(want.second)));
      if (it->second != want)
        fail(n, fmt::format("expected {} at {} {}, found it at {} {}", text(n, "actor"),
                            num(want.first), num(want.second), num(it->second.first),
                            num(it->second.second)));
      return;
    }
    case FormKind::ExpectDistance: {
      Handle a = actorPath(n, text(n, "actor")), b = actorPath(n, text(n, "other"));
      auto pa = places_.find(a), pb = places_.find(b);
      // The plane's distance, exact to the millionth as root() is; -1 where
      // either has no place.
      int64_t d = -rt::kOne;
      if (pa != places_.end() && pb != places_.end()) {
        rt::NumberFault fault = rt::NumberFault::None;
        int64_t dx = rt::sub(pa->second.first, pb->second.first, fault);
        int64_t dy = rt::sub(pa->second.second, pb->second.second, fault);
        d = rt::root(rt::add(rt::mul(dx, dx, fault), rt::mul(dy, dy, fault), fault), 2, fault);
      }
      std::string cmp = text(n, "cmp");
      if (!compare(cmp, d, number(n, "number")))
        fail(n, fmt::format("expected distance {} {} {}, found {}", cmp, num(number(n, "number")),
                            text(n, "actor") + " " + text(n, "other"), num(d)));
      return;
    }
    case FormKind::ExpectAlready:
      if (last_.refusal != rt::Refusal::AlreadyHas)
        fail(n, fmt::format("expected already, found {}",
                            last_.ok() ? std::string("done") : std::string("refused ") + rt::refusalName(last_.refusal)));
      return;
    case FormKind::ExpectLink: {
      Handle a = actorPath(n, text(n, "value"));
      std::string other = text(n, "other");
      Handle b = other == "none" ? 0 : actorPath(n, other);
      bool same = a == b;
      if ((text(n, "cmp") == "=") != same)
        fail(n, fmt::format("expected {} {} {}, found {}", text(n, "value"), text(n, "cmp"), other,
                            world_->handleName(a)));
      return;
    }
    case FormKind::ExpectHas:
    case FormKind::ExpectLacks: {
      Handle a = actorPath(n, text(n, "actor"));
      std::string held = text(n, "held");
      Id e = effect(held);
      bool has;
      int64_t stacks = 0;
      if (e != kNoId) {
        Handle from = tree_.slot(n, "from") ? actorPath(n, text(n, "from")) : 0;
        stacks = world_->stacksOf(a, e, from);
        has = world_->holds(a, e) && (from == 0 || stacks != 0);
      } else {
        Id g = tag(held);
        if (g == kNoId)
          fail(n, fmt::format("`{}` is no effect or tag", held));
        has = world_->carries(a, g);
      }
      if (k == FormKind::ExpectLacks) {
        if (has)
          fail(n, fmt::format("expected {} to lack {}, found it held", text(n, "actor"), held));
        return;
      }
      if (!has)
        fail(n, fmt::format("expected {} to have {}, found none", text(n, "actor"), held));
      if (tree_.slot(n, "stacks") && stacks != number(n, "stacks"))
        fail(n, fmt::format("expected {} stacks of {}, found {}", num(number(n, "stacks")), held,
                            num(stacks)));
      return;
    }
    case FormKind::ExpectGone:
      if (world_->alive(actorPath(n, text(n, "actor"))))
        fail(n, fmt::format("expected {} gone, found it alive", text(n, "actor")));
      return;
    case FormKind::ExpectAlive:
      if (!world_->alive(actorPath(n, text(n, "actor"))))
        fail(n, fmt::format("expected {} alive, found it gone", text(n, "actor")));
      return;
    case FormKind::ExpectCoverage:
      expectCoverage(n);
      return;
    case FormKind::ExpectCount: {
      Id arch = archetype(text(n, "archetype"));
      int64_t count = world_->countOf(arch);
      if (!compare(text(n, "cmp"), count * rt::kOne, number(n, "number")))
        fail(n, fmt::format("expected count {} {} {}, found {}", text(n, "archetype"),
                            text(n, "cmp"), num(number(n, "number")), count));
      return;
    }
    case FormKind::ExpectCan:
    case FormKind::ExpectCannot: {
      Handle a = actorPath(n, text(n, "actor"));
      std::vector<Handle> targets;
      if (tree_.slot(n, "at"))
        targets.push_back(actorPath(n, text(n, "at")));
      rt::Outcome o = world_->canAct(a, ability(text(n, "ability")), targets, !targets.empty());
      if (k == FormKind::ExpectCan && !o.ok())
        fail(n, fmt::format("expected {} can {}, found refused {}", text(n, "actor"),
                            text(n, "ability"), rt::refusalName(o.refusal)));
      if (k == FormKind::ExpectCannot) {
        if (o.ok())
          fail(n, fmt::format("expected {} cannot {}, found it can", text(n, "actor"), text(n, "ability")));
        std::string reason = text(n, "reason");
        if (!reason.empty() && reason != rt::refusalName(o.refusal))
          fail(n, fmt::format("expected cannot {}, found refused {}", reason, rt::refusalName(o.refusal)));
      }
      return;
    }
    case FormKind::ExpectRemaining: {
      Handle a = actorPath(n, text(n, "actor"));
      Id e = effect(text(n, "effect"));
      std::string cmp = tree_.slot(n, "cmp") ? text(n, "cmp") : "=";
      if (!world_->holds(a, e))
        fail(n, fmt::format("expected {} to hold {}, found none", text(n, "actor"), text(n, "effect")));
      if (tree_.slot(n, "never")) {
        bool never = world_->remainingOf(a, e, rt::DurationUnit::Time) < 0;
        if ((cmp == "=") != never)
          fail(n, fmt::format("expected remaining {} never", cmp));
        return;
      }
      rt::DurationUnit unit = tree_.slot(n, "time") ? rt::DurationUnit::Time
                              : tree_.slot(n, "turns") ? rt::DurationUnit::Turns
                                                       : rt::DurationUnit::Count;
      int64_t want = unit == rt::DurationUnit::Time    ? ticks(n, "time")
                     : unit == rt::DurationUnit::Turns ? number(n, "turns")
                                                       : number(n, "count");
      Id counted = unit == rt::DurationUnit::Count ? event(text(n, "event")) : kNoId;
      Id countedTag = unit == rt::DurationUnit::Count && counted == kNoId ? tag(text(n, "event")) : kNoId;
      int64_t left = world_->remainingOf(a, e, unit, counted, countedTag);
      if (unit != rt::DurationUnit::Time)
        left = left < 0 ? -1 : left * rt::kOne;
      if (!compare(cmp, left, want))
        fail(n, fmt::format("expected remaining {} {}, found {}", cmp,
                            unit == rt::DurationUnit::Time ? ticksText(want) : num(want),
                            left < 0 ? std::string("never")
                                     : unit == rt::DurationUnit::Time ? ticksText(left) : num(left)));
      return;
    }
    case FormKind::ExpectEvent: {
      bool no = tree_.hasFlag(n, "no");
      int64_t count = countEvents(n, tree_.slot(n, "spec")->value, tagSetsOf(n, "tagged"));
      if (tree_.slot(n, "times")) {
        int64_t want = number(n, "times") / rt::kOne;
        if (count != want)
          fail(n, fmt::format("expected the event {} times, found it {} times", want, count));
        return;
      }
      if (no && count)
        fail(n, fmt::format("expected no such event, found {}", count));
      if (!no && !count)
        fail(n, "expected the event, found none since the last step");
      return;
    }
    case FormKind::ExpectEventOrder: {
      size_t a = firstEvent(n, tree_.slot(n, "first")->value);
      size_t b = firstEvent(n, tree_.slot(n, "second")->value);
      if (a == SIZE_MAX || b == SIZE_MAX)
        fail(n, "expected both events, found at least one missing");
      if (a >= b)
        fail(n, "expected the first event before the second, found it after");
      return;
    }
    default:
      fail(n, fmt::format("`{}` is not run by the engines yet",
                          std::string(tree_.text(tree_.nodes[n].file, tree_.nodes[n].begin)) +
                              (tree_.nodes[n].end > tree_.nodes[n].begin + 1
                                   ? " " + std::string(tree_.text(tree_.nodes[n].file, tree_.nodes[n].begin + 1))
                                   : "")));
    }
  }

  bool entryMatches(NodeId n, NodeId spec, const rt::JournalEntry &j,
                    const std::vector<pack::TagSet> &tagged, const std::vector<pack::TagSet> &specTagged) {
    if (j.fault)
      return false;
    std::string name = text(spec, "event");
    Id ev = event(name);
    const uint64_t *tags = world_->journalTags().data() + j.tagsAt;
    auto carries = [&](Id g) { return (tags[g / 64] >> (g % 64)) & 1; };
    if (ev != kNoId && ev != Id(pack::BuiltinEvent::Change)) {
      if (j.event != ev)
        return false;
    } else if (Id g = tag(name); g != kNoId) {
      if (!carries(g))
        return false;
    } else if (Id p = value(name); p != kNoId) {
      if (j.event != Id(pack::BuiltinEvent::Change) || j.pool != p)
        return false;
    } else {
      fail(n, fmt::format("`{}` is no event", name));
    }
    if (tree_.slot(spec, "of") && j.subject != actorPath(n, text(spec, "of")))
      return false;
    if (tree_.slot(spec, "credited") && j.credit != actorPath(n, text(spec, "credited")))
      return false;
    if (tree_.hasFlag(spec, "landed") && (j.prevented || j.landed == 0))
      return false;
    if (!tree_.hasFlag(spec, "landed") && j.prevented)
      return false;
    for (const std::vector<pack::TagSet> *sets : {&tagged, &specTagged})
      for (pack::TagSet set : *sets) {
        const uint64_t *w = t_.tagSet(set);
        for (uint32_t i = 0; i < t_.tagWords; ++i)
          if ((tags[i] & w[i]) != w[i])
            return false;
      }
    return true;
  }

  int64_t countEvents(NodeId n, NodeId spec, const std::vector<pack::TagSet> &tagged) {
    refuseSpilledStep(n);
    int64_t count = 0;
    const auto &j = world_->journal();
    std::vector<pack::TagSet> specTagged = tagSetsOf(spec, "tagged");
    for (size_t i = 0; i < j.size(); ++i)
      count += entryMatches(n, spec, j[i], tagged, specTagged);
    return count;
  }

  size_t firstEvent(NodeId n, NodeId spec) {
    refuseSpilledStep(n);
    const auto &j = world_->journal();
    std::vector<pack::TagSet> specTagged = tagSetsOf(spec, "tagged");
    for (size_t i = 0; i < j.size(); ++i)
      if (entryMatches(n, spec, j[i], {}, specTagged))
        return i;
    return SIZE_MAX;
  }

  const SyntaxTree &tree_;
  const rt::Pack &pack_;
  const pack::Tables &t_;
  std::optional<rt::World> world_;
  std::map<std::string, Handle> actors_;
  std::map<Handle, std::pair<int64_t, int64_t>> places_; // the play's plane
  int64_t clock_ = 0; // the play's time, in millionths of a unit: the world's runs in whole ticks
  int64_t rounds_ = 0; // the rounds of turns the play has advanced
  // A save: the world, the play's names and its plane, put back together.
  struct Saved {
    rt::World world;
    std::map<std::string, Handle> actors;
    std::map<Handle, std::pair<int64_t, int64_t>> places;
    int64_t clock;
    int64_t rounds;
  };
  std::map<std::string, Saved> saves_;
  std::string lastSave_;
  rt::Outcome last_;
  // A step's journal kept whole, and the ticks a long advance runs between
  // looks at it.
  static constexpr size_t kStepJournalKept = 100'000;
  static constexpr int64_t kAdvanceStretch = 256;

  std::FILE *journal_ = nullptr; // where --journal's text goes, if asked
  std::vector<std::string> *savesTaken_ = nullptr; // and --saves' bytes
  std::map<size_t, bool> faultMatched_;
  std::map<std::string, bool> spilledFaults_; // a long step's faults read out, by their words
  bool stepSpilled_ = false;
  uint32_t lastStepLine_ = 0;
};

} // namespace

void runPlays(const SyntaxTree &tree, uint32_t file, const rt::Pack &pack, std::FILE *out,
              Totals &totals, std::FILE *journal, std::vector<std::string> *saves,
              std::string_view named) {
  const std::string &path = tree.sources->file(tree.files[file].file).path;
  for (NodeId n = tree.fileFirstNode[file]; n != kNone; n = tree.nodes[n].nextSibling) {
    if (tree.nodes[n].kind != FormKind::Play)
      continue;
    uint32_t line = tree.sources->lineCol(tree.loc(file, tree.nodes[n].begin)).line;
    const Slot *textSlot = tree.slot(n, "text");
    std::string title = textSlot ? std::string(tree.span(file, textSlot->begin, textSlot->end)) : "\"\"";
    if (!named.empty() && title.find(named) == std::string::npos)
      continue;
    if (journal)
      fmt::print(journal, "play {}:{} {}\n", path, line, title);
    Result r = Runner(tree, pack).run(n, journal, saves);
    totals.events += r.events;
    totals.genericEvents += r.genericEvents;
    if (r.passed) {
      ++totals.passed;
      std::fprintf(out, "PASS %s:%u %s\n", path.c_str(), line, title.c_str());
    } else {
      ++totals.failed;
      std::fprintf(out, "FAIL %s:%u %s: line %u: %s\n", path.c_str(), line, title.c_str(),
                   r.failLine, r.why.c_str());
    }
  }
}

} // namespace ledger::play
