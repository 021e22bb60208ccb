#include "catalog_generator.h"

#include "fuzz_random.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace ledger::fuzz {

namespace {

using Lines = std::vector<Line>;

std::string joined(const std::vector<std::string> &words, const char *between = " ") {
  std::string out;
  for (const std::string &w : words)
    out += (out.empty() ? "" : between) + w;
  return out;
}

// What a body's formulas may read where they stand.
struct Scope {
  bool inEffect = false;    // self.stacks, self.VAR, remove self
  bool inAbility = false;   // X, a takes' props
  bool event = false;       // event.*: a rule hearing one, an ability's lines
  bool change = false;      // event.amount and its kin mean something
  bool amountRefused = false; // after `prevent as`: event.amount is refused
  bool targetOne = false;   // target
  bool targetList = false;  // targets
  bool it = false;          // it: a query's when, a fold's item
  bool modifier = false;    // a modifier's amount: the holder's own stats below one
  size_t statLimit = SIZE_MAX;
  bool constant = false;    // numbers alone
  bool looping = false;     // under a repeat or a for each
  std::vector<std::string> numbers; // let's names
  std::vector<std::string> actors;  // for each's and let's actors
  std::vector<std::string> handles; // held(...) names
  std::vector<std::string> vars;    // the effect's number vars
  std::vector<std::string> actorVars; // and its actor vars
  std::vector<std::string> results; // as NAME: a step's result
};

struct EffectPlan {
  std::string name;
  std::vector<std::string> vars;      // number vars
  std::vector<std::string> actorVars; // actor vars
  bool ordered = false; // says `order N`: it has before rules
};

struct AbilityPlan {
  std::string name;
  enum Target { None, Self, One, Many } target = None;
};

class Author {
public:
  explicit Author(uint64_t seed) : rng_(seed) {}

  CatalogText write() {
    // most catalogs keep to the forms the compiled engine specialises, so its
    // own machinery runs them; the rest take every form, on its generic kernel
    plain_ = rng_.chance(60);
    plan();
    declareFile();
    for (size_t i = 0; i < effects_.size(); ++i)
      out_.lines.push_back(effect(effects_[i]));
    for (const AbilityPlan &a : abilities_)
      out_.lines.push_back(ability(a));
    writeArchetypes();
    return out_;
  }

private:
  Rng rng_;
  CatalogText out_;
  int fresh_ = 0;
  bool plain_ = false; // only forms the compiled engine's machinery runs (codegen's genericBecause)
  bool rich() { return !plain_; }

  // ---- what the catalog declares ------------------------------------------------
  std::vector<std::string> tags_, portions_, events_, links_, stages_, stats_, pools_;
  std::vector<std::string> curves_, props_, categories_, categoryKinds_, counted_;
  std::string turn_, global_, allegiance_, fallsPool_, timeStat_, keptPool_, carried_, byType_;
  std::string damagePool_ = "Health";
  std::vector<EffectPlan> effects_;
  std::vector<AbilityPlan> abilities_;
  std::vector<std::string> archetypes_; // Team first, then the fighters, then Minion
  int nextOrder_ = 1;

  std::string carriedTag() { return !carried_.empty() && rng_.chance(40) ? " " + carried_ : ""; }
  std::string fresh(const char *prefix) { return prefix + std::to_string(++fresh_); }
  void add(std::string text, Lines body = {}) { out_.lines.push_back({std::move(text), std::move(body)}); }
  bool has(const std::vector<std::string> &list, const std::string &name) const {
    return std::find(list.begin(), list.end(), name) != list.end();
  }

  void plan() {
    size_t effectCount = size_t(rng_.range(2, 9));
    for (size_t i = 0; i < effectCount; ++i) {
      EffectPlan e;
      e.name = "Fx" + std::to_string(i + 1);
      if (rng_.chance(35))
        e.vars.push_back("v");
      if (rng_.chance(15))
        e.vars.push_back("w");
      if (rng_.chance(15))
        e.actorVars.push_back("foe");
      effects_.push_back(e);
    }
    size_t abilityCount = size_t(rng_.range(1, 7));
    for (size_t i = 0; i < abilityCount; ++i) {
      AbilityPlan a;
      a.name = "Ab" + std::to_string(i + 1);
      a.target = AbilityPlan::Target(rng_.pick({0, 1, 2, 2, 2, 3}));
      abilities_.push_back(a);
    }
    archetypes_ = {"Team"};
    size_t fighters = size_t(rng_.range(1, 4));
    for (size_t i = 0; i < fighters; ++i)
      archetypes_.push_back("Ar" + std::to_string(i + 1));
    archetypes_.push_back("Minion");
  }

  // ---- the file's lines -----------------------------------------------------------
  void declareFile() {
    add("rate " + rng_.pick<std::string>({"1", "2", "4", "10", "10", "20", "20", "30", "20 / 3", "3 / 2"}));
    tags_ = rng_.some<std::string>({"Hero", "Beast", "Undead", "Spell", "Melee", "Buff", "Debuff",
                                    "Fire", "Frost", "Physical", "Holy", "Echo", "Elem.Storm"},
                                   3, 10);
    if (!has(tags_, "Fire"))
      tags_.push_back("Fire");
    if (!has(tags_, "Physical"))
      tags_.push_back("Physical");
    add("tags " + joined(tags_));
    // a tag carried down chains, which no archetype may give (a Make carries those)
    if (rich() && rng_.chance(20)) {
      carried_ = "Glow";
      add("tags Glow carried");
    }
    if (rng_.chance(60)) {
      for (const char *p : {"Fire", "Frost", "Physical", "Holy"})
        if (has(tags_, p) && rng_.chance(75))
          portions_.push_back(p);
      if (!portions_.empty())
        add("portions " + joined(portions_));
    }
    links_ = {"side"};
    if (rng_.chance(60))
      links_.push_back("owner");
    add("link " + joined(links_));
    if (rng_.chance(85)) {
      allegiance_ = "side";
      add("allegiance side");
    }
    if (rng_.chance(20)) {
      global_ = "room";
      add("link room global");
    }
    events_ = rng_.some<std::string>({"Alarm", "Died", "Down", "Ping"}, 1, 4);
    if (rng_.chance(40)) {
      events_.push_back("Turn");
      turn_ = "Turn";
    }
    add("event " + joined(events_));
    if (!turn_.empty())
      add("turn " + turn_);
    // a count names an event, never the turn event (said as turns)
    counted_ = events_;
    counted_.erase(std::remove(counted_.begin(), counted_.end(), turn_), counted_.end());
    if (counted_.empty())
      counted_.push_back("Damage");
    if (rng_.chance(40)) {
      stages_ = {"Early", "Late"};
      add("stages Early Late");
    }
    if (rng_.chance(30)) {
      categories_ = {"Fortify"};
      categoryKinds_ = {rng_.pick<std::string>({"add", "percent", "factor"})};
      add("categories Fortify");
    }
    if (rich() && rng_.chance(30)) {
      props_ = {"Power"};
      add("prop Power default " + rng_.pick<std::string>({"0", "1", "2"}) + " min 0 max 10");
    }
    declareValues();
    if (rng_.chance(40)) {
      curves_ = {"Ramp"};
      Lines points;
      int64_t x = rng_.range(-5, 2);
      for (int i = 0, n = int(rng_.range(1, 4)); i < n; ++i) {
        points.push_back({std::to_string(x) + " " + literal(), {}});
        x += rng_.range(1, 5);
      }
      add(std::string("curve Ramp") + (rng_.chance(30) ? " steps" : ""), points);
    }
  }

  // Stats first, each reading only those before it, then pools reading stats.
  void declareValues() {
    add(std::string("stat MaxHealth min ") + rng_.pick<std::string>({"0", "1"}) + valueOptions(false, true));
    stats_.push_back("MaxHealth");
    for (const char *s : {"Power", "Armor", "Regen", "Luck", "Rank"})
      if (rng_.chance(55)) {
        add(std::string("stat ") + s + " default " + smallLiteral() + valueOptions(false));
        stats_.push_back(s);
      }
    // a stat by type: one member for each portion, read bare only in a scale or a convert
    if (rich() && !portions_.empty() && rng_.chance(35)) {
      byType_ = "Resist";
      add("stat Resist by type default 0 max " + rng_.pick<std::string>({"0.75", "1", "2"}));
    }
    if (rich() && rng_.chance(15)) {
      timeStat_ = "Speed";
      add("stat Speed default 1 min " + rng_.pick<std::string>({"0", "0.25", "0.5"}));
      stats_.push_back("Speed");
      add("time Speed");
    }
    add("pool Health max MaxHealth" + poolOptions(false));
    pools_.push_back("Health");
    if (rng_.chance(70)) {
      add("pool Mana max " + rng_.pick<std::string>({"100", "50", "MaxHealth"}) + poolOptions(true));
      pools_.push_back("Mana");
    }
    if (rng_.chance(50)) {
      add("pool Gold min " + rng_.pick<std::string>({"0", "-50"}) + " max " +
          rng_.pick<std::string>({"999", "100"}) + (rng_.chance(20) ? " whole" : ""));
      pools_.push_back("Gold");
    }
    if (rng_.chance(40)) {
      std::string max = stats_.size() > 1 && rng_.chance(50) ? rng_.pick(stats_) : "30";
      add("pool Ward max " + max + poolOptions(true));
      pools_.push_back("Ward");
    }
    if (rng_.chance(12)) {
      keptPool_ = "Tally";
      add("pool Tally min 0 max 1000 kept");
    }
    if (rng_.chance(20)) {
      damagePool_ = rng_.pick(pools_);
      add("damage " + damagePool_);
    }
    if (rich() && rng_.chance(20))
      fallsPool_ = damagePool_;
  }

  std::string valueOptions(bool pool, bool minSaid = false) {
    std::string out;
    if (rng_.chance(15))
      out += " whole" + rng_.pick<std::string>({"", " floor", " ceil", " round", " trunc"});
    if (!pool && !minSaid && rng_.chance(15))
      out += " min " + rng_.pick<std::string>({"0", "1", "-5"});
    if (!pool && rng_.chance(15))
      out += " max " + rng_.pick<std::string>({"100", "1000", "5"});
    return out;
  }

  std::string poolOptions(bool drifts) {
    std::string out = valueOptions(true);
    if (drifts && rng_.chance(50)) {
      if (stats_.size() > 1 && rng_.chance(60)) {
        std::vector<std::string> rates(stats_.begin() + 1, stats_.end());
        rates.erase(std::remove(rates.begin(), rates.end(), timeStat_), rates.end());
        if (!rates.empty())
          out += " regen " + rng_.pick(rates) + (rng_.chance(60) ? " per " + duration(false) : "");
      } else {
        out += " refill " + rng_.pick<std::string>({"1", "5", "2.5"}) + " every " + duration(false);
      }
      if (rng_.chance(20))
        out += " clock world";
    }
    if (rng_.chance(15))
      out += " rise heal";
    if (rng_.chance(10))
      out += " fall clamp";
    return out;
  }

  // ---- numbers and durations ---------------------------------------------------------
  std::string smallLiteral() { return std::to_string(rng_.range(0, 12)); }

  std::string literal() {
    switch (rng_.below(12)) {
    case 0:
    case 1:
    case 2:
      return std::to_string(rng_.range(0, 10));
    case 3:
    case 4:
      return std::to_string(rng_.range(0, 100));
    case 5:
      return rng_.pick<std::string>({"0.5", "1.5", "0.25", "2.75", "0.333333", "0.000001", "1.000001"});
    case 6:
      return std::to_string(rng_.range(1, 15) * 10) + "%";
    case 7:
      return "-" + std::to_string(rng_.range(1, 20));
    case 8:
      return rng_.pick<std::string>({"1000000", "123456789", "9223372036854", "4611686018427",
                                     "3037000", "0.000002"});
    default:
      return std::to_string(rng_.range(1, 30));
    }
  }

  // A duration: a number with its unit, or (rarely) a formula of it.
  std::string duration(bool formula, Scope *scope = nullptr) {
    // a formula's duration kept above none: a lifetime of none that applies
    // itself again as it ends would run in one tick for ever
    if (formula && scope && rng_.chance(15))
      return "(max(0.05, " + number(*scope, 1) + "))s";
    switch (rng_.below(6)) {
    case 0:
      return std::to_string(rng_.range(1, 12)) + "t";
    case 1:
      return std::to_string(rng_.range(1, 20) * 100) + "ms";
    case 2:
      return rng_.pick<std::string>({"0.5s", "1.5s", "2.25s", "0.1s"});
    default:
      return std::to_string(rng_.range(1, 6)) + "s";
    }
  }

  // ---- formulas ------------------------------------------------------------------------
  // An actor a formula may read: the roots that mean something here.
  std::string actor(const Scope &s) {
    std::vector<std::string> roots{"holder"};
    if (s.inEffect)
      roots.push_back("source");
    if (s.targetOne)
      roots.push_back("target");
    if (s.event && !s.inAbility) {
      roots.push_back("event.source");
      roots.push_back("event.subject");
    }
    for (const std::string &a : s.actors)
      roots.push_back(a);
    for (const std::string &v : s.actorVars)
      roots.push_back("self." + v);
    if (!global_.empty())
      roots.push_back(global_);
    std::string a = rng_.pick(roots);
    if (has(links_, "owner") && rng_.chance(15) && a != global_)
      a += ".owner";
    return a;
  }

  std::string statReadable(const Scope &s) {
    size_t limit = std::min(s.statLimit, stats_.size());
    if (limit == 0)
      return "";
    return stats_[rng_.below(limit)];
  }

  std::string leaf(Scope &s) {
    if (s.constant)
      return literal();
    for (int tries = 0; tries < 4; ++tries) {
      switch (rng_.below(16)) {
      case 0:
      case 1:
      case 2:
      case 3:
        return literal();
      case 4:
      case 5: {
        std::string stat = statReadable(s);
        if (stat.empty())
          break;
        if (s.modifier)
          return rng_.chance(80) || plain_ ? stat : "source." + stat;
        return rng_.chance(40) ? stat : actor(s) + "." + stat;
      }
      case 6:
        if (s.modifier)
          break;
        return actor(s) + "." + rng_.pick(pools_);
      case 7:
        if (!s.inEffect)
          break;
        if (!s.vars.empty() && rng_.chance(60))
          return "self." + rng_.pick(s.vars);
        return "self." + rng_.pick<std::string>({"stacks", "stacks", "remaining", "elapsed"});
      case 8:
        if (!s.event || s.modifier)
          break;
        if (s.change && !s.amountRefused)
          return "event." + rng_.pick<std::string>({"amount", "amount", "landed", "sent", "overflow",
                                                    "before", "after"});
        if (!props_.empty())
          return "event.Power";
        break;
      case 9:
        if (s.inAbility && !s.modifier && rich())
          return "X";
        if (!s.numbers.empty())
          return rng_.pick(s.numbers);
        break;
      case 10:
        if (s.modifier || effects_.empty())
          break;
        return rng_.pick<std::string>({"stacks", "has", "count"}) + "(" + actor(s) + ", " +
               rng_.pick(effects_).name + ")";
      case 11:
        if (s.modifier)
          break;
        return "has(" + actor(s) + ", " + rng_.pick(tags_) + ")";
      case 12:
        if (s.modifier || s.it)
          break;
        return fold(s);
      case 13:
        if (curves_.empty())
          break;
        return curves_[0] + "(" + number(s, 1) + ")";
      case 14:
        if (!s.it)
          break;
        return "it." + rng_.pick(stats_);
      case 15:
        return rarerLeaf(s);
      default:
        if (!s.numbers.empty())
          return rng_.pick(s.numbers);
        if (!s.handles.empty() && !s.modifier)
          return rng_.pick(s.handles) + "." + rng_.pick<std::string>({"stacks", "remaining", "elapsed"});
        break;
      }
    }
    return literal();
  }

  // The words read less often: a stat less some terms, an archetype's base,
  // a step's result, what a change holds of a type, a handle's presence, the
  // event's own actors and list.
  std::string rarerLeaf(Scope &s) {
    switch (rng_.below(9)) {
    case 0: {
      if (plain_)
        break;
      std::string stat = statReadable(s);
      if (stat.empty() || s.modifier)
        break;
      // parenthesised: its tags are a list, which a comma after it would go on
      return "(" + (rng_.chance(50) ? stat : actor(s) + "." + stat) + " except " + rng_.pick(tags_) + ")";
    }
    case 1:
      if (s.modifier || plain_)
        break;
      return archetypes_[1 + rng_.below(archetypes_.size() - 1)] + "." + rng_.pick(stats_);
    case 2:
      if (s.results.empty())
        break;
      return rng_.pick(s.results) + "." +
             rng_.pick<std::string>({"done", "refused", "made", "merged", "Blocked", "OnCooldown", "NotGranted",
                                     "Gone", "BadTarget"});
    case 3:
      if (!s.event || !s.change || portions_.empty() || s.modifier)
        break;
      return "portion(" + rng_.pick(portions_) + ")";
    case 4:
      if (s.handles.empty() || s.modifier)
        break;
      return "has(" + rng_.pick(s.handles) + ")";
    case 5:
      if (s.modifier || effects_.empty())
        break;
      return "highest stacks(" + actor(s) + ", " + rng_.pick(effects_).name + ")";
    case 6:
      if (!s.event || s.inAbility || s.modifier)
        break;
      return "event.target." + rng_.pick(stats_);
    case 7:
      if (!s.event || s.modifier)
        break;
      if (rng_.chance(50))
        return "count(event.targets)";
      return rng_.pick<std::string>({"sum", "highest", "lowest"}) + "(event.targets, it." + rng_.pick(stats_) + ")";
    default:
      if (s.actorVars.empty() || s.modifier)
        break;
      return "self." + rng_.pick(s.actorVars) + "." + rng_.pick(stats_);
    }
    return literal();
  }

  // count(...), sum(...), highest(...), lowest(...) over a query of actors or held(...).
  std::string fold(Scope &s) {
    Scope inner = s;
    inner.it = true;
    if (rng_.chance(30) && !effects_.empty()) {
      std::string held = "held(" + actor(s) + (rng_.chance(50) ? " having " + rng_.pick(tags_) : "") + ")";
      if (rng_.chance(50))
        return "count(" + held + ")";
      return rng_.pick<std::string>({"sum", "highest", "lowest"}) + "(" + held + ", it.stacks)";
    }
    std::string query = actorQuery(s, true);
    if (rng_.chance(50))
      return "count(" + query + ")";
    return rng_.pick<std::string>({"sum", "highest", "lowest"}) + "(" + query + ", it." +
           rng_.pick(stats_) + ")";
  }

  std::string number(Scope &s, int depth) {
    if (depth <= 0 || rng_.chance(35))
      return leaf(s);
    std::string a = number(s, depth - 1);
    switch (rng_.below(14)) {
    case 0:
    case 1:
      return "(" + a + " + " + number(s, depth - 1) + ")";
    case 2:
      return "(" + a + " - " + number(s, depth - 1) + ")";
    case 3:
    case 4:
      return "(" + a + " * " + number(s, depth - 1) + ")";
    case 5:
      return "(" + a + " / " + number(s, depth - 1) + ")";
    case 6:
      return rng_.pick<std::string>({"min", "max"}) + "(" + a + ", " + number(s, depth - 1) + ")";
    case 7:
      return rng_.pick<std::string>({"abs", "floor", "ceil", "round", "trunc"}) + "(" + a + ")";
    case 8:
      return "clamp(" + a + ", " + number(s, depth - 1) + ", " + number(s, depth - 1) + ")";
    case 9:
      return "if(" + condition(s, depth - 1) + ", " + a + ", " + number(s, depth - 1) + ")";
    case 10:
      return rng_.pick<std::string>({"pow", "root"}) + "(" + a + ", " + std::to_string(rng_.range(1, 9)) + ")";
    case 11:
      return "-" + a;
    case 12:
      return "(" + condition(s, depth - 1) + ")";
    default:
      return a;
    }
  }

  std::string condition(Scope &s, int depth) {
    switch (rng_.below(8)) {
    case 0:
      if (!s.constant && !s.modifier && !effects_.empty())
        return "has(" + actor(s) + ", " + rng_.pick(effects_).name + ")";
      [[fallthrough]];
    case 1:
      if (depth > 0)
        return "(" + condition(s, depth - 1) + " " + rng_.pick<std::string>({"and", "or"}) + " " +
               condition(s, depth - 1) + ")";
      [[fallthrough]];
    case 2:
      if (depth > 0)
        return "not " + condition(s, depth - 1);
      [[fallthrough]];
    default:
      return number(s, depth) + " " + rng_.pick<std::string>({">", "<", ">=", "<=", "=", "!="}) + " " +
             number(s, depth);
    }
  }

  // ---- targets ---------------------------------------------------------------------------
  std::string side(bool plural) {
    if (allegiance_.empty())
      return plural ? "actors" : "actor";
    return plural ? rng_.pick<std::string>({"enemies", "allies", "other allies", "others", "actors"})
                  : rng_.pick<std::string>({"enemy", "ally", "other ally", "other", "actor"});
  }

  std::string actorQuery(Scope &s, bool forFold) {
    std::string q = rng_.chance(75) ? "all " + side(true) : "up to " + std::to_string(rng_.range(1, 3)) + " " + side(true);
    if (rng_.chance(30))
      q += " having " + rng_.pick(tags_);
    if (rng_.chance(15))
      q += " unless " + rng_.pick(tags_);
    if (!forFold && rng_.chance(15)) {
      Scope inner = s;
      inner.it = true;
      q += " when it." + rng_.pick(stats_) + " > " + smallLiteral();
    }
    return q;
  }

  std::string targets(Scope &s) {
    int roll = int(rng_.below(10));
    if (roll < 2)
      return actorQuery(s, false);
    if (roll < 3 && s.targetList)
      return "targets";
    return actor(s);
  }

  // ---- steps -------------------------------------------------------------------------------
  Lines steps(Scope &s, int depth, int count) {
    Lines out;
    for (int i = 0; i < count; ++i)
      out.push_back(step(s, depth, out));
    return out;
  }

  std::string pool() { return rng_.pick(pools_); }

  std::string typesOf() {
    if (portions_.empty() || rng_.chance(40))
      return rng_.chance(30) ? " " + rng_.pick(tags_) : "";
    return " " + rng_.pick(portions_);
  }

  std::string withVars(const EffectPlan &e, Scope &s) {
    if (e.vars.empty() || rng_.chance(40))
      return "";
    std::vector<std::string> parts;
    for (const std::string &v : e.vars)
      if (rng_.chance(70))
        parts.push_back(v + " = " + number(s, 1));
    return parts.empty() ? "" : " with " + joined(parts, ", ");
  }

  Line step(Scope &s, int depth, const Lines &before) {
    for (;;) {
      switch (rng_.below(30)) {
      case 0:
      case 1:
      case 2: {
        std::string amount = number(s, 2) + typesOf();
        if (!portions_.empty() && rng_.chance(20))
          amount += " + " + number(s, 1) + " " + rng_.pick(portions_);
        std::string from = rng_.chance(15) ? " from " + actor(s) : rng_.chance(5) ? " sourceless" : "";
        std::string with = !props_.empty() && rng_.chance(15) ? " with Power = " + smallLiteral() : "";
        return {"deal " + amount + " to " + targets(s) + from + with, {}};
      }
      case 3:
        return {"heal " + number(s, 2) + " to " + targets(s) +
                    (rng_.chance(20) ? " up to " + number(s, 1) : ""),
                {}};
      case 4:
        return {"gain " + pool() + " " + number(s, 1) + (rng_.chance(60) ? " on " + targets(s) : "") +
                    (rng_.chance(15) ? " up to " + number(s, 1) : ""),
                {}};
      case 5:
        return {"lose " + pool() + " " + number(s, 1) + (rng_.chance(60) ? " on " + targets(s) : ""), {}};
      case 6:
        return {"set " + pool() + " " + number(s, 1) + (rng_.chance(60) ? " on " + targets(s) : ""), {}};
      case 7:
      case 8:
      case 9: {
        const EffectPlan &e = rng_.pick(effects_);
        std::string line = "apply " + e.name;
        if (rng_.chance(30))
          line += " " + rng_.pick<std::string>({"2", "3", "-1", "0"});
        line += " to " + targets(s);
        switch (rng_.below(6)) {
        case 0:
          line += " for " + duration(true, &s);
          break;
        case 1:
          if (!turn_.empty())
            line += " for " + std::to_string(rng_.range(1, 3)) + " turns";
          break;
        case 2:
          line += " for " + std::to_string(rng_.range(1, 4)) + " " +
                  rng_.pick<std::string>({"Damage", "Heal", "Apply", rng_.pick(counted_)});
          break;
        default:
          break;
        }
        if (rng_.chance(20))
          line += " from " + actor(s);
        line += withVars(e, s);
        return {line + resultName(s), {}};
      }
      case 10:
      case 11: {
        int roll = int(rng_.below(6));
        if (roll == 0 && s.inEffect && depth < 2 && rng_.chance(30))
          return {"remove self", {}};
        if (roll == 1)
          return {"remove all " + rng_.pick(tags_) + (rng_.chance(30) ? " unless " + rng_.pick(tags_) : "") +
                      " from " + targets(s),
                  {}};
        if (roll == 2 && !abilities_.empty())
          return {"remove cooldown of " + rng_.pick(abilities_).name + " from " + targets(s), {}};
        if (roll == 3 && !s.handles.empty())
          return {"remove " + rng_.pick(s.handles), {}};
        return {"remove " + rng_.pick(effects_).name + (rng_.chance(30) ? " " + smallLiteral() : "") +
                    " from " + targets(s) + resultName(s),
                {}};
      }
      case 12: {
        std::string line = "raise " + rng_.pick(events_);
        if (rng_.chance(70))
          line += " of " + targets(s);
        if (rng_.chance(30))
          line += " by " + actor(s);
        if (rng_.chance(20))
          line += " tagged " + rng_.pick(tags_);
        return {line, {}};
      }
      case 13: {
        // a create in a loop, or a rule hearing what it makes, grows the world without end
        if (depth >= 1 || s.looping || s.event || plain_)
          break;
        std::string line = "create " + rng_.pick(archetypes_);
        if (rng_.chance(20))
          line += " 2";
        std::vector<std::string> with;
        if (rng_.chance(30))
          with.push_back("side = " + actor(s) + ".side");
        if (has(links_, "owner") && rng_.chance(30))
          with.push_back("owner = holder");
        if (rng_.chance(20))
          with.push_back(damagePool_ + " = " + number(s, 1));
        if (!with.empty())
          line += " with " + joined(with, ", ");
        return {line, {}};
      }
      case 14:
        if (rng_.chance(40))
          return {"destroy " + targets(s), {}};
        break;
      case 15:
        if (fallsPool_.empty() || plain_)
          break;
        return {"revive " + targets(s) + (rng_.chance(40) ? " at " + number(s, 1) : ""), {}};
      case 16: {
        std::string name = fresh("n");
        std::string value = number(s, 2);
        s.numbers.push_back(name);
        return {"let " + name + " = " + value, {}};
      }
      case 17:
        if (!s.inEffect || s.vars.empty())
          break;
        return {"self." + rng_.pick(s.vars) + " " + rng_.pick<std::string>({"=", "+=", "-="}) + " " + number(s, 2), {}};
      case 18: {
        if (depth >= 2)
          break;
        // a count kept small: a repeat under a rule that fires often multiplies
        std::string count = rng_.chance(70) ? rng_.pick<std::string>({"2", "3", "0", "1"})
                                            : "clamp(" + number(s, 1) + ", 0, 3)";
        Scope inner = s;
        inner.looping = true;
        return {"repeat " + count, steps(inner, depth + 1, int(rng_.range(1, 2)))};
      }
      case 19:
      case 20: {
        if (depth >= 2)
          break;
        Line line{"if " + condition(s, 1), blockOf(s, depth)};
        return line;
      }
      case 21:
        if (before.empty() || before.back().text.rfind("if ", 0) != 0 || depth >= 2)
          break;
        return {"else", blockOf(s, depth)};
      case 22: {
        if (depth >= 2)
          break;
        Scope inner = s;
        std::string name = fresh("a");
        if (rng_.chance(30) && !effects_.empty()) {
          std::string held = "held(" + actor(s) + (rng_.chance(50) ? " having " + rng_.pick(tags_) : "") + ")";
          inner.handles.push_back(name);
          inner.looping = true;
          return {"for each " + held + " as " + name, steps(inner, depth + 1, int(rng_.range(1, 2)))};
        }
        std::string query = rng_.chance(20) && s.targetList ? "targets" : actorQuery(s, false);
        inner.actors.push_back(name);
        inner.looping = true;
        return {"for each " + query + " as " + name, steps(inner, depth + 1, int(rng_.range(1, 2)))};
      }
      case 23:
        if (abilities_.empty() || depth >= 2)
          break;
        if (plain_) // the cast's words the machinery runs: no `tagged` … only the plain cast
          return {"cast " + rng_.pick(abilities_).name + (rng_.chance(60) ? " at " + targets(s) : "") +
                      (rng_.chance(50) ? " free" : "") + (rng_.chance(50) ? " nocooldown" : "") + resultName(s),
                  {}};
        return {"cast " + rng_.pick(abilities_).name + (rng_.chance(60) ? " at " + targets(s) : "") +
                    (rng_.chance(50) ? " free" : "") + (rng_.chance(50) ? " nocooldown" : "") +
                    (rng_.chance(20) ? " tagged " + rng_.pick(tags_) : "") + resultName(s),
                {}};
      case 24: {
        if (plain_)
          break;
        std::string link = rng_.pick(links_);
        std::string to = rng_.chance(20) ? "none" : link == "side" ? actor(s) + ".side" : actor(s);
        return {"set link " + link + (rng_.chance(60) ? " on " + targets(s) : "") + " to " + to, {}};
      }
      case 25:
        if (s.handles.empty() || plain_)
          break;
        if (rng_.chance(50))
          return {"scale duration " + rng_.pick<std::string>({"0.5", "2", "1.5"}) + " on " + rng_.pick(s.handles), {}};
        return {"add duration " + duration(false) + " on " + rng_.pick(s.handles), {}};
      case 26: {
        std::string name = fresh("h");
        if (effects_.empty() || depth >= 2)
          break;
        s.handles.push_back(name);
        return {"let " + name + " = held(" + actor(s) + ")", {}};
      }
      case 27:
        if (keptPool_.empty())
          break;
        return {"gain " + keptPool_ + " " + number(s, 1) + " on " + targets(s), {}};
      default: {
        // a deal at the one target: the common case, most worth running
        if (s.targetOne)
          return {"deal " + number(s, 1) + typesOf() + " to target", {}};
        break;
      }
      }
    }
  }

  // `as NAME` now and then: the step's result, for the steps after it to read.
  std::string resultName(Scope &s) {
    if (!rng_.chance(20))
      return "";
    std::string name = fresh("r");
    s.results.push_back(name);
    return " as " + name;
  }

  Lines blockOf(Scope &s, int depth) {
    Scope inner = s;
    return steps(inner, depth + 1, int(rng_.range(1, 2)));
  }

  // ---- event filters -----------------------------------------------------------------
  enum class Heard { Change, Apply, Other };

  std::string who(bool self) {
    if (plain_)
      return "holder";
    if (self || allegiance_.empty())
      return rng_.pick<std::string>({"holder", "holder", "anyone"});
    return rng_.pick<std::string>({"holder", "holder", "holder", "anyone", "enemies", "allies", "others"});
  }

  // An event filter; an after rule hears no `any`: its steps would hear themselves.
  std::string filter(Heard &heard, bool forBefore, bool forAfter = false) {
    std::string f;
    int roll = int(rng_.below(forBefore ? 12 : 16));
    if (roll < 5) {
      heard = Heard::Change;
      f = rng_.pick<std::string>({"Damage", "Damage", "Damage", "Heal", "Gain", "Loss", "Cost", "Set"});
      if (rng_.chance(20))
        f += " " + pool();
    } else if (roll < 7) {
      heard = Heard::Apply;
      f = "Apply";
    } else if (roll < 9) {
      heard = Heard::Other;
      f = rng_.pick(events_);
    } else if (roll < 10) {
      heard = Heard::Other;
      f = rng_.pick<std::string>({"Remove", "Activate", "Create", "Destroy"});
    } else if (roll < 11) {
      heard = Heard::Other;
      f = rng_.pick<std::string>({"Depleted", "Filled"}) + " " + pool();
    } else if (roll < 12) {
      heard = Heard::Other;
      f = rng_.pick(tags_);
    } else if (!forAfter) {
      heard = Heard::Other;
      f = "any";
    } else {
      heard = Heard::Other;
      f = rng_.pick(events_);
    }
    std::string whose = rng_.pick<std::string>({" of ", " of ", " by ", " of ", " by ", plain_ ? " of " : " targeting "});
    if (f == "Destroy" || f == "Create")
      whose = " of ";
    if (!(f == "any" && rng_.chance(50)))
      f += whose + who(false);
    if (rng_.chance(20))
      f += " having " + rng_.pick(tags_);
    if (rng_.chance(10))
      f += " unless " + rng_.pick(tags_);
    if (!forBefore && rng_.chance(5))
      f += " prevented";
    return f;
  }

  // ---- effects ---------------------------------------------------------------------
  Scope effectScope(const EffectPlan &e) {
    Scope s;
    s.inEffect = true;
    s.vars = e.vars;
    s.actorVars = e.actorVars;
    return s;
  }

  Line effect(EffectPlan &e) {
    Line def{"effect " + e.name, {}};
    Lines &body = def.body;
    if (rng_.chance(50))
      body.push_back({"tags " + joined(rng_.some(tags_, 1, 2)) + carriedTag(), {}});
    for (const std::string &v : e.vars) {
      Scope s = effectScope(e);
      s.vars.clear();
      s.actorVars.clear();
      body.push_back({"var " + v + (rng_.chance(80) ? " = " + number(s, 1) : ""), {}});
    }
    if (!plain_)
      for (const std::string &v : e.actorVars)
        body.push_back({"var " + v + " actor = " + rng_.pick<std::string>({"source", "holder", "source"}), {}});
    if (rng_.chance(55))
      body.push_back({stackLine(e), {}});
    if (plain_ && !e.actorVars.empty())
      body.push_back({"var foe actor = source", {}});
    bool timed = false;
    if (rng_.chance(50)) {
      Scope s = effectScope(e);
      body.push_back({"lasts " + duration(true, &s) + (rng_.chance(10) ? " one at a time" : ""), {}});
      timed = true;
    }
    if (rng_.chance(20)) {
      if (!turn_.empty() && rng_.chance(40))
        body.push_back({"lasts " + std::to_string(rng_.range(1, 3)) + " turns", {}});
      else
        body.push_back({"lasts " + std::to_string(rng_.range(1, 4)) + " " +
                            rng_.pick<std::string>({"Damage", "Heal", rng_.pick(counted_)}),
                        {}});
    }
    bool movesTime = false, clockSaid = false;
    std::vector<std::string> said; // clauses a definition says once
    auto once = [&](const std::string &clause) {
      if (has(said, clause))
        return false;
      said.push_back(clause);
      return true;
    };
    int clauses = int(rng_.range(1, 4));
    for (int i = 0; i < clauses; ++i) {
      switch (rng_.below(20)) {
      case 0:
      case 1:
      case 2:
      case 3:
        body.push_back(modifier(e, movesTime));
        break;
      case 4:
      case 5:
      case 6:
        body.push_back(beforeRule(e));
        break;
      case 7:
      case 8:
      case 9:
        body.push_back(afterRule(e));
        break;
      case 10: {
        Scope s = effectScope(e);
        body.push_back({"every " + duration(false) + (rng_.chance(15) ? " credit holder" : ""),
                        steps(s, 0, int(rng_.range(1, 2)))});
        break;
      }
      case 11: {
        Scope s = effectScope(e);
        std::string head = rng_.pick<std::string>({"start", "end", "expire"});
        if (head == "end" && rng_.chance(30))
          head += rng_.pick<std::string>({" having End.Expired", " unless End.Replaced", " having End.Removed"});
        body.push_back({head, steps(s, 0, int(rng_.range(1, 2)))});
        break;
      }
      case 12: {
        Heard heard;
        Scope s = effectScope(e);
        s.event = true;
        std::string f = filter(heard, false);
        s.change = heard == Heard::Change;
        body.push_back({"ends on " + f + (rng_.chance(30) ? " when " + condition(s, 1) : ""), {}});
        break;
      }
      case 13: {
        Heard heard;
        Scope s = effectScope(e);
        body.push_back({"each " + filter(heard, false) + " removes " + rng_.pick<std::string>({"1", "2", "self.stacks"}), {}});
        break;
      }
      case 14:
        if (!abilities_.empty() && once("grants"))
          body.push_back({"grants " + joined(rng_.some(names(abilities_), 1, 2)) + (rng_.chance(25) ? " auto" : ""), {}});
        break;
      case 15:
        if (rich())
          body.push_back({blockLine(), {}});
        break;
      case 16:
        if (plain_)
          break;
        if (rng_.chance(40)) {
          if (once("suspends"))
            body.push_back({"suspends all" + (rng_.chance(40) ? " except " + rng_.pick(tags_) : ""), {}});
        } else if (once("exclusive")) {
          body.push_back({"exclusive " + rng_.pick(tags_), {}});
        }
        break;
      case 17:
        if (!fallsPool_.empty() && rng_.chance(50)) {
          if (once("falls"))
            body.push_back({"falls at no " + fallsPool_ + (rng_.chance(50) ? " raising " + rng_.pick(counted_) : ""), {}});
        } else if (rng_.chance(50)) {
          if (once("dies"))
            body.push_back({"dies at no " + damagePool_ + (rng_.chance(50) ? " raising " + rng_.pick(counted_) : ""), {}});
        } else if (once("prevents")) {
          body.push_back({"prevents death", {}});
        }
        break;
      case 18:
        if (plain_ || !once("override"))
          break;
        if (has(links_, "owner"))
          body.push_back({"owner = " + rng_.pick<std::string>({"source", "holder", "source.owner"}), {}});
        else
          body.push_back({"side = source.side", {}});
        break;
      default:
        if (!timed)
          break;
        if (clockSaid)
          break;
        body.push_back({"clock " + rng_.pick<std::string>({"world", "holder"}), {}});
        clockSaid = true;
        break;
      }
    }
    if (movesTime && !clockSaid)
      body.push_back({"clock world", {}});
    if (e.ordered)
      body.push_back({"order " + std::to_string(nextOrder_++), {}});
    return def;
  }

  static std::vector<std::string> names(const std::vector<AbilityPlan> &list) {
    std::vector<std::string> out;
    for (const AbilityPlan &a : list)
      out.push_back(a.name);
    return out;
  }

  std::string stackLine(const EffectPlan &e) {
    std::string mode = rng_.pick<std::string>({"add", "add", "separate", "refresh", "extend", "ignore", "replace"});
    if (plain_ && mode == "separate")
      mode = "add";
    std::string line = "stack " + mode;
    if ((mode == "add" || mode == "separate") && rng_.chance(60)) {
      // a cap read from whoever applies it, now and then (but a captured read is the kernel's)
      bool fromSource = rich() && has(stats_, "Rank") && rng_.chance(20);
      line += " max " + (fromSource ? std::string("source.Rank") : std::to_string(rng_.range(1, 6)));
      if (rng_.chance(40))
        line += " then " + (mode == "add" ? rng_.pick<std::string>({"refuse", "refresh"})
                                          : rng_.pick<std::string>({"refuse", "oldest", "shortest"}));
    }
    if (rich() && rng_.chance(25))
      line += " per source";
    if (mode == "add" && rng_.chance(15))
      line += " signed";
    if (rng_.chance(10))
      line += " stronger by " + (e.vars.empty() ? std::string("source.MaxHealth") : "self." + e.vars[0]);
    if (mode == "refresh" && rng_.chance(30))
      line += " keep up to " + std::to_string(rng_.range(1, 9) * 10) + "%";
    return line;
  }

  std::string blockLine() {
    switch (rng_.below(6)) {
    case 0:
      return "blocks all";
    case 1:
      return "blocks " + rng_.pick<std::string>({"Damage", "Heal", "Apply", rng_.pick(counted_)});
    case 2:
      return "blocks " + rng_.pick(tags_) + " by holder";
    case 3:
      return "blocks " + rng_.pick(tags_) + (rng_.chance(50) ? " unless " + rng_.pick(tags_) : "") +
             (allegiance_.empty() ? "" : " from " + rng_.pick<std::string>({"enemies", "allies", "anyone", "others"}));
    default:
      return "blocks " + rng_.pick(tags_) + (rng_.chance(40) ? " having " + rng_.pick(tags_) : "");
    }
  }

  Line modifier(const EffectPlan &e, bool &movesTime) {
    if (!byType_.empty() && rng_.chance(20))
      return {byType_ + (rng_.chance(50) ? "" : "." + rng_.pick(portions_)) + " " +
                  rng_.pick<std::string>({"+ 25%", "+ 0.5", "- 10%", "x 2", "= 0.3"}),
              {}};
    size_t index = rng_.below(stats_.size());
    const std::string &stat = stats_[index];
    if (stat == timeStat_)
      movesTime = true;
    Scope s = effectScope(e);
    s.modifier = true;
    s.statLimit = index;
    s.constant = stat == timeStat_ || rng_.chance(40);
    std::string op = rng_.pick<std::string>({"+", "+", "-", "x", "=", "base", "at least", "at most"});
    std::string amount = number(s, 1);
    if ((op == "+" || op == "-") && rng_.chance(30))
      amount = std::to_string(rng_.range(1, 20) * 5) + "%";
    std::string line = stat + " " + op + " " + amount;
    if (rng_.chance(15))
      line += " flat";
    if (!s.constant && rng_.chance(15))
      line += " live";
    if (!categories_.empty() && rng_.chance(30)) {
      // a category's terms are of one kind
      const std::string &kind = categoryKinds_[0];
      if (kind == "add")
        line = stat + " + " + std::to_string(rng_.range(1, 9)) + " strongest Fortify";
      else if (kind == "percent")
        line = stat + " + " + std::to_string(rng_.range(1, 9) * 10) + "% strongest Fortify";
      else
        line = stat + " x " + rng_.pick<std::string>({"1.5", "2", "0.5"}) + " strongest Fortify";
    }
    return {line, {}};
  }

  Line beforeRule(EffectPlan &e) {
    e.ordered = true;
    Heard heard;
    std::string head = "before " + filter(heard, true);
    if (!stages_.empty() && rng_.chance(50))
      head += " at " + rng_.pick(stages_);
    if (rng_.chance(10))
      head += " once per chain";
    if (rng_.chance(10))
      head += " credit holder";
    Scope s = effectScope(e);
    s.event = true;
    s.change = heard == Heard::Change;
    if (rng_.chance(20))
      head += " when " + condition(s, 1);
    Lines body;
    int changes = int(rng_.range(1, 2));
    for (int i = 0; i < changes; ++i)
      body.push_back(change(heard, e, s));
    if (rng_.chance(40)) {
      Lines more = steps(s, 1, 1);
      body.insert(body.end(), more.begin(), more.end());
    }
    return {head, body};
  }

  Line change(Heard heard, const EffectPlan &e, Scope &s) {
    if (heard == Heard::Apply && rich() && rng_.chance(50)) {
      switch (rng_.below(4)) {
      case 0:
        return {"scale duration " + rng_.pick<std::string>({"0.5", "2", "1.5", "0.1"}) +
                    rng_.pick<std::string>({"", "", " floor", " ceil", " round"}),
                {}};
      case 1:
        return {"add duration " + duration(false), {}};
      case 2:
        if (!turn_.empty())
          return {"add duration 1 turn", {}};
        return {"at most duration " + duration(false), {}};
      default:
        return {"at most duration " + duration(false), {}};
      }
    }
    if (heard == Heard::Other && rng_.chance(60)) {
      if (!props_.empty() && rng_.chance(40))
        return {"event.Power = " + smallLiteral(), {}};
      return {std::string("prevent") + (rng_.chance(20) ? " chain" : ""), {}};
    }
    switch (rng_.below(12)) {
    case 0: {
      if (rng_.chance(50)) {
        std::string name = fresh("p");
        s.amountRefused = true;
        s.numbers.push_back(name);
        return {"prevent as " + name, {}};
      }
      return {std::string("prevent") + (rng_.chance(20) ? " chain" : ""), {}};
    }
    case 1:
      if (!byType_.empty() && heard == Heard::Change && rng_.chance(40))
        return {"scale 1 - holder." + byType_, {}};
      return {"scale " + number(s, 1), {}};
    case 2:
      if (!portions_.empty() && rng_.chance(50))
        return {"add " + number(s, 1) + " as " + rng_.pick(portions_), {}};
      return {"add " + number(s, 1), {}};
    case 3:
      return {"reduce " + number(s, 1), {}};
    case 4:
      return {"at most " + number(s, 1), {}};
    case 5:
      return {"at least " + number(s, 1), {}};
    case 6:
    case 7: {
      std::string line = "absorb";
      if (rng_.chance(40))
        line += " up to " + number(s, 1);
      if (!e.vars.empty() && rng_.chance(60))
        line += " into self." + e.vars[0];
      else if (rng_.chance(50))
        line += " into " + pool();
      return {line, {}};
    }
    case 8:
      if (portions_.size() >= 1 && rich())
        return {"convert " + rng_.pick<std::string>({"50%", "100%", "0.25", "1"}) + " of " +
                    rng_.pick(portions_) + " to " + rng_.pick(portions_),
                {}};
      return {"scale 2", {}};
    case 9:
      if (rich() && rng_.chance(50))
        return {"redirect to " + rng_.pick<std::string>({"source", has(links_, "owner") ? "holder.owner" : "source", pool()}), {}};
      return {"reduce 1", {}};
    case 10:
      if (!props_.empty())
        return {"event.Power = " + number(s, 1), {}};
      return {"at least 0", {}};
    default:
      return {"scale " + rng_.pick<std::string>({"50%", "2", "0", "1.5", "-1"}), {}};
    }
  }

  Line afterRule(const EffectPlan &e) {
    Heard heard;
    if (rich() && rng_.chance(8)) {
      // the ability heard, used once more: a retrigger its own tag keeps from hearing itself
      const std::string &tag = tags_[0];
      Scope s = effectScope(e);
      s.event = true;
      Lines body{{"cast event.ability again" + std::string(rng_.chance(60) ? " free" : "") +
                      (rng_.chance(60) ? " nocooldown" : "") + " tagged " + tag + resultName(s),
                  {}}};
      Lines more = steps(s, 1, int(rng_.range(0, 1)));
      body.insert(body.end(), more.begin(), more.end());
      return {"after Activate by holder unless " + tag, body};
    }
    std::string head = "after " + filter(heard, false, true);
    if (rng_.chance(10))
      head += " once per chain";
    if (rng_.chance(15))
      head += " credit holder";
    Scope s = effectScope(e);
    s.event = true;
    s.change = heard == Heard::Change;
    if (rng_.chance(25))
      head += " when " + condition(s, 1);
    return {head, steps(s, 0, int(rng_.range(1, 3)))};
  }

  // ---- abilities -------------------------------------------------------------------
  Line ability(const AbilityPlan &a) {
    Line def{"ability " + a.name, {}};
    Lines &body = def.body;
    Scope s;
    s.inAbility = true;
    s.event = true;
    if (rng_.chance(50))
      body.push_back({"tags " + joined(rng_.some(tags_, 1, 2)) + carriedTag(), {}});
    switch (a.target) {
    case AbilityPlan::Self:
      body.push_back({"target self", {}});
      s.targetOne = true;
      break;
    case AbilityPlan::One: {
      std::string line = "target one";
      if (!allegiance_.empty() && rng_.chance(70))
        line += " " + rng_.pick<std::string>({"enemy", "enemy", "ally"});
      if (rng_.chance(15))
        line += " having " + rng_.pick(tags_);
      if (rng_.chance(15))
        line += " unless " + rng_.pick(tags_);
      body.push_back({line, {}});
      s.targetOne = true;
      break;
    }
    case AbilityPlan::Many: {
      std::string line = "target ";
      if (rng_.chance(50))
        line += "up to " + std::to_string(rng_.range(1, 3));
      else
        line += std::to_string(rng_.range(2, 3));
      if (!allegiance_.empty() && rng_.chance(60))
        line += " " + rng_.pick<std::string>({"enemies", "allies"});
      if (rng_.chance(20))
        line += " distinct";
      body.push_back({line, {}});
      s.targetList = true;
      break;
    }
    default:
      break;
    }
    if (!props_.empty() && rng_.chance(40))
      body.push_back({"takes Power", {}});
    if (rng_.chance(25)) {
      Scope r = s;
      body.push_back({"requires " + condition(r, 1) + (rng_.chance(50) ? " else \"not now\"" : ""), {}});
    }
    if (rng_.chance(35)) {
      Scope c = s;
      std::string line = "cost " + pool() + " " + number(c, 1);
      if (has(links_, "owner") && rng_.chance(15))
        line += " on holder.owner";
      body.push_back({line, {}});
    }
    if (rng_.chance(35)) {
      if (!turn_.empty() && rng_.chance(25))
        body.push_back({"cooldown " + std::to_string(rng_.range(1, 2)) + " turns", {}});
      else
        body.push_back({"cooldown " + duration(false) + (rng_.chance(20) ? " clock world" : ""), {}});
    }
    Lines more = steps(s, 0, int(rng_.range(1, 4)));
    body.insert(body.end(), more.begin(), more.end());
    return def;
  }

  // ---- archetypes ------------------------------------------------------------------
  void writeArchetypes() {
    add("archetype Team");
    std::vector<std::string> fighters(archetypes_.begin() + 1, archetypes_.end());
    for (const std::string &name : fighters) {
      Line def{"archetype " + name, {}};
      Lines &body = def.body;
      bool minion = name == "Minion";
      if (rng_.chance(60))
        body.push_back({"tags " + joined(rng_.some(tags_, 1, 2)), {}});
      body.push_back({"base MaxHealth " + std::to_string(rng_.range(minion ? 5 : 20, minion ? 20 : 200)), {}});
      for (size_t i = 1; i < stats_.size(); ++i)
        if (stats_[i] != timeStat_ && rng_.chance(40))
          body.push_back({"base " + stats_[i] + " " + literal(), {}});
      std::vector<std::string> full{damagePool_}, empty;
      for (const std::string &p : pools_)
        if (p != damagePool_ && rng_.chance(70))
          (rng_.chance(60) ? full : empty).push_back(p);
      if (!keptPool_.empty())
        empty.push_back(keptPool_);
      body.push_back({"full " + joined(full), {}});
      if (!empty.empty())
        body.push_back({"pools " + joined(empty), {}});
      if (!empty.empty() && rng_.chance(40))
        body.push_back({"with " + empty[0] + " = " + std::to_string(rng_.range(1, 40)), {}});
      for (const EffectPlan &e : rng_.some(effects_, 0, minion ? 1 : 3))
        body.push_back({"has " + e.name + (rng_.chance(20) ? " " + std::to_string(rng_.range(1, 3)) : ""), {}});
      if (!abilities_.empty() && !minion) {
        std::vector<std::string> granted = rng_.some(names(abilities_), 1, abilities_.size());
        body.push_back({"grants " + joined(granted) + (rng_.chance(12) ? " auto" : ""), {}});
      }
      out_.lines.push_back(def);
    }
  }
};

// A number in the text moved: another of its size, a sign, zero.
std::string moveNumbers(const std::string &text, Rng &rng) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    bool starts = std::isdigit(static_cast<unsigned char>(text[i])) &&
                  (i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_' || text[i - 1] == '.'));
    if (!starts) {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
      ++end;
    std::string number = text.substr(i, end - i);
    if (rng.chance(25))
      number = rng.pick<std::string>({"0", "1", "2", "3", "10", "100", "0.5", "1000000", "-1"});
    out += number;
    i = end;
  }
  return out;
}

void mutateLines(std::vector<Line> &lines, Rng &rng, int depth) {
  for (size_t i = 0; i < lines.size();) {
    Line &line = lines[i];
    // the file's own lines go only rarely: most of what follows reads them
    if (rng.chance(depth == 0 ? 2 : 8)) {
      lines.erase(lines.begin() + std::ptrdiff_t(i));
      continue;
    }
    if (rng.chance(15))
      line.text = moveNumbers(line.text, rng);
    // a step said twice (a definition's clauses are said once)
    if (depth > 1 && rng.chance(4)) {
      Line copy = line;
      lines.insert(lines.begin() + std::ptrdiff_t(i), std::move(copy));
      ++i;
    }
    mutateLines(lines[i].body, rng, depth + 1);
    ++i;
  }
}

} // namespace

CatalogText generateCatalog(uint64_t seed) { return Author(seed).write(); }

CatalogText mutateCatalog(const CatalogText &original, uint64_t seed) {
  Rng rng(seed);
  CatalogText copy = original;
  mutateLines(copy.lines, rng, 0);
  // a clause of one definition copied into another of its kind
  std::vector<size_t> defs;
  for (size_t i = 0; i < copy.lines.size(); ++i)
    if (!copy.lines[i].body.empty())
      defs.push_back(i);
  for (int k = 0, n = int(rng.below(3)); k < n && defs.size() >= 2; ++k) {
    Line &from = copy.lines[rng.pick(defs)];
    Line &to = copy.lines[rng.pick(defs)];
    if (from.text.substr(0, from.text.find(' ')) != to.text.substr(0, to.text.find(' ')) || from.body.empty())
      continue;
    // a rule, which a definition may say any number of times
    const Line &clause = from.body[rng.below(from.body.size())];
    if (!clause.body.empty())
      to.body.push_back(clause);
  }
  return copy;
}

} // namespace ledger::fuzz
