// The IR as text: each table's records by index, then each body, its
// expressions as nested terms and its steps indented, so a FileCheck test
// can pin what a line lowered to.
#include "ir/ir.h"

#include "base/fixed.h"

#include <fmt/format.h>

#include <algorithm>

namespace ledger::ir {

using pack::Ability;
using pack::Action;
using pack::Archetype;
using pack::ArchetypeValue;
using pack::Body;
using pack::BodyKind;
using pack::BuiltinEvent;
using pack::BuiltinTag;
using pack::Cost;
using pack::Effect;
using pack::Filter;
using pack::Fold;
using pack::Id;
using pack::kNoId;
using pack::Modifier;
using pack::ReadOp;
using pack::Requirement;
using pack::Rule;
using pack::RuleKind;
using pack::Step;
using pack::StepOp;
using pack::TagSet;
using pack::Tables;
using pack::TargetKind;
using pack::Value;
using pack::ValueKind;
using pack::Who;
using pack::WhoClause;

namespace {

class Printer {
public:
  explicit Printer(const Tables &t) : t_(t) {}
  std::string run();

private:
  std::string num(int64_t v) const { return formatFixed(Fixed{v}); }
  // World time: ticks, or the pack's units where a tick is several.
  std::string time(int64_t v) const { return num(v) + (t_.unitsPerTick == 1 ? "t" : "u"); }
  // A pool's period: world time, or the body that reads it.
  std::string period(int64_t v, Id body) const {
    return body != kNoId ? "body" + std::to_string(body) : time(v);
  }
  std::string id(Id i, const char *prefix) const {
    return i == kNoId ? std::string("-") : fmt::format("{}{}", prefix, i);
  }
  std::string tags(TagSet set) const;
  std::string filter(const Filter &f) const;
  std::string who(const char *word, const WhoClause &w) const;
  std::string expr(Id e) const;
  void steps(uint32_t begin, uint32_t end, int depth);
  std::string args(uint32_t begin, uint32_t count) const;

  const Tables &t_;
  std::string out_;
};

std::string Printer::tags(TagSet set) const {
  std::string s;
  const uint64_t *bits = t_.tagSet(set);
  for (Id g = 0; g < t_.tags.size(); ++g)
    if (bits[g / 64] >> (g % 64) & 1)
      s += (s.empty() ? "" : " ") + std::string(t_.name(t_.tags[g].name));
  return "{" + s + "}";
}

std::string Printer::who(const char *word, const WhoClause &w) const {
  static const char *names[] = {"", "holder", "actor", "anyone", "enemies", "allies", "other-allies", "others"};
  if (w.who == Who::Unsaid)
    return "";
  std::string s = fmt::format(" {} {}", word, names[size_t(w.who)]);
  if (w.who == Who::Actor)
    s += " body" + std::to_string(w.body);
  return s;
}

std::string Printer::filter(const Filter &f) const {
  std::string s = f.any ? "any"
                  : f.event != kNoId ? std::string(t_.name(t_.events[f.event].name))
                                     : "tag " + std::string(t_.name(t_.tags[f.tag].name));
  if (f.pool != kNoId)
    s += " pool " + std::string(t_.name(t_.values[f.pool].name));
  if (f.having)
    s += " having " + tags(f.having);
  if (f.unless)
    s += " unless " + tags(f.unless);
  if (f.prevented)
    s += " prevented";
  s += who("of", f.of) + who("by", f.by) + who("credited", f.credited) +
       who("targeting", f.targeting);
  return s;
}

std::string Printer::args(uint32_t begin, uint32_t count) const {
  std::string s;
  for (uint32_t i = 0; i < count; ++i)
    s += (i ? ", " : "") + expr(t_.exprArgs[begin + i]);
  return s;
}

std::string Printer::expr(Id i) const {
  static const char *ops[] = {"const", "local", "var",   "neg",  "not",  "add",   "sub",   "mul",
                              "div",   "eq",    "ne",    "lt",   "le",   "gt",    "ge",    "and",
                              "or",    "min",   "max",   "floor", "ceil", "round", "trunc", "abs",
                              "clamp", "if",    "pow",   "root", "read", "fold"};
  static const char *reads[] = {"value",  "value-except", "link",   "global-link", "curve",
                                "has",    "has-handle",   "stacks", "highest-stacks",
                                "count-effect", "count-tag", "event-field", "event-prop",
                                "event-actor", "instance-field", "instance-var", "archetype-stat",
                                "tag-of", "portion", "first-of", "event-kind", "event-pool",
                                "event-tags", "event-prevented", "relation", "event-targeting"};
  const pack::Expr &e = t_.exprs[i];
  switch (e.op) {
  case pack::ExprOp::Const:
    return num(e.imm);
  case pack::ExprOp::Local:
    return fmt::format("local{}", e.imm);
  case pack::ExprOp::Var:
    return fmt::format("var{}", e.imm);
  case pack::ExprOp::Read: {
    const pack::Read &r = t_.reads[e.imm];
    std::string what;
    if (r.op == ReadOp::Value || r.op == ReadOp::ValueExcept)
      what = std::string(t_.name(t_.values[r.a].name));
    else if (r.op == ReadOp::Link || r.op == ReadOp::GlobalLink)
      what = std::string(t_.name(t_.links[r.a].name));
    else if (r.op == ReadOp::Curve)
      what = std::string(t_.name(t_.curves[r.a].name));
    else if (r.op == ReadOp::EventProp)
      what = std::string(t_.name(t_.props[r.a].name));
    else if ((r.op == ReadOp::Has || r.op == ReadOp::Stacks || r.op == ReadOp::CountEffect ||
              r.op == ReadOp::HighestStacks) &&
             r.a != kNoId)
      what = std::string(t_.name(t_.effects[r.a].name));
    else if (r.op == ReadOp::EventField) {
      static const char *fields[] = {"amount", "sent", "landed", "overflow", "before", "after", "X"};
      what = fields[r.a];
    } else if (r.op == ReadOp::EventActor) {
      static const char *roles[] = {"subject", "source", "credit", "ability", "instance", "grant", "target"};
      what = roles[r.a];
    } else if (r.op == ReadOp::InstanceField) {
      static const char *fields[] = {"stacks", "remaining", "elapsed", "source", "credit", "holder", "suspended"};
      what = fields[r.a];
    } else if (r.a != kNoId)
      what = std::to_string(r.a);
    if (r.tags)
      what += (what.empty() ? "" : " ") + tags(r.tags);
    std::string s = std::string("(") + reads[size_t(r.op)];
    if (!what.empty())
      s += " " + what;
    if (e.argCount)
      s += " " + args(e.argsBegin, e.argCount);
    return s + ")";
  }
  case pack::ExprOp::Fold: {
    static const char *kinds[] = {"sum", "highest", "lowest", "count"};
    const Fold &f = t_.folds[e.imm];
    return fmt::format("({} query{}{}{}{})", kinds[size_t(f.kind)], f.query,
                       e.argCount ? " " : "", args(e.argsBegin, e.argCount),
                       f.item == kNoId ? "" : " " + expr(f.item));
  }
  case pack::ExprOp::Pow:
  case pack::ExprOp::Root:
    return fmt::format("({} {} {})", ops[size_t(e.op)], expr(e.a), e.imm);
  default: {
    std::string s = std::string("(") + ops[size_t(e.op)];
    for (Id k : {e.a, e.b, e.c})
      if (k != kNoId)
        s += " " + expr(k);
    return s + ")";
  }
  }
}

void Printer::steps(uint32_t begin, uint32_t end, int depth) {
  static const char *ops[] = {"if", "for-each", "repeat", "let", "set-var", "action"};
  static const char *actions[] = {
      "deal", "heal", "gain", "lose", "set-pool", "apply", "remove-effect", "remove-handle",
      "remove-tag", "remove-cooldown", "raise", "create", "destroy", "revive", "cast", "set-link",
      "scale-duration", "add-duration", "at-most-duration", "set-instance-var", "prevent",
      "convert", "scale", "set-prop", "add", "reduce", "at-most", "at-least", "absorb", "redirect"};
  for (uint32_t i = begin; i < end; ++i) {
    const Step &s = t_.steps[i];
    std::string indent(size_t(depth) * 2, ' ');
    std::string head = ops[size_t(s.op)];
    if (s.op == StepOp::Action) {
      const Action &a = t_.actions[s.info];
      head = actions[size_t(a.op)];
      if (a.a != kNoId)
        head += fmt::format(" a={}", a.a);
      if (a.b != kNoId)
        head += fmt::format(" b={}", a.b);
      if (a.c != kNoId && a.c != 0)
        head += fmt::format(" c={}", a.c);
      if (a.query != kNoId)
        head += fmt::format(" query{}/{}", a.query, a.queryArgCount);
      if (a.tags)
        head += " " + tags(a.tags);
      if (a.flags)
        head += fmt::format(" flags={:#x}", a.flags);
    } else if (s.op == StepOp::ForEach) {
      head += fmt::format(" query{} as local{}", s.info, s.slot);
    } else if (s.op == StepOp::Let) {
      head += fmt::format(" local{}", s.slot);
    } else if (s.op == StepOp::SetVar) {
      head += fmt::format(" var{} {}", s.slot, s.info == 0 ? "=" : s.info == 1 ? "+=" : "-=");
    }
    out_ += fmt::format("{}{} [{}] @{}\n", indent, head, args(s.argsBegin, s.argCount), s.line);
    steps(s.bodyBegin, s.bodyEnd, depth + 1);
    if (s.elseEnd > s.elseBegin) {
      out_ += indent + "else\n";
      steps(s.elseBegin, s.elseEnd, depth + 1);
    }
  }
}

std::string Printer::run() {
  if (t_.unitsPerTick == 1)
    out_ += fmt::format("rate {} ticks/s\n", num(t_.unitsPerSecond));
  else
    out_ += fmt::format("rate {} units/s, {} units a tick\n", num(t_.unitsPerSecond),
                        t_.unitsPerTick);
  for (Id i = 0; i < t_.tags.size(); ++i)
    if (i >= Id(BuiltinTag::Count))
      out_ += fmt::format("tag{} {}{}\n", i, t_.name(t_.tags[i].name),
                          t_.tags[i].carried ? " carried" : "");
  for (Id i = Id(BuiltinEvent::Count); i < t_.events.size(); ++i)
    out_ += fmt::format("event{} {}\n", i, t_.name(t_.events[i].name));
  for (Id i = 0; i < t_.values.size(); ++i) {
    const Value &v = t_.values[i];
    out_ += fmt::format("value{} {} {}{}{}{}{}{}\n", i, v.kind == ValueKind::Pool ? "pool" : "stat",
                        t_.name(v.name), v.defaultValue ? " default " + num(v.defaultValue) : "",
                        v.minBody != kNoId ? " min body" + std::to_string(v.minBody) : "",
                        v.maxBody != kNoId ? " max body" + std::to_string(v.maxBody) : "",
                        v.regenStat != kNoId ? fmt::format(" regen value{} per {}", v.regenStat,
                                                           period(v.regenPeriod, v.regenPeriodBody))
                                             : "",
                        v.refills() ? fmt::format(" refill {} every {}", num(v.refillAmount),
                                                  period(v.refillPeriod, v.refillPeriodBody))
                                    : "");
  }
  for (Id i = 0; i < t_.links.size(); ++i)
    out_ += fmt::format("link{} {}{}\n", i, t_.name(t_.links[i].name),
                        t_.links[i].global ? " global" : "");
  for (Id i = 0; i < t_.effects.size(); ++i) {
    const Effect &e = t_.effects[i];
    static const char *modes[] = {"unsaid", "add", "separate", "refresh", "extend", "ignore", "replace"};
    static const char *lasts[] = {"forever", "time", "turns", "count"};
    out_ += fmt::format("effect{} {} tags {} stack {} lasts {}\n", i, t_.name(e.name),
                        tags(e.tags), modes[size_t(e.stack.mode)], lasts[size_t(e.lasts.kind)]);
    for (uint32_t m = 0; m < e.modifierCount; ++m) {
      const Modifier &mod = t_.modifiers[e.modifiersBegin + m];
      static const char *mops[] = {"+", "-", "x", "=", "base", "at-least", "at-most"};
      out_ += fmt::format("  modifier {} {}{} body{}{}{}\n", t_.name(t_.values[mod.stat].name),
                          mops[size_t(mod.op)], mod.percent ? "%" : "", mod.amountBody,
                          mod.flat ? " flat" : "", mod.captured ? " captured" : "");
    }
    for (uint32_t r = 0; r < e.ruleCount; ++r) {
      const Rule &rule = t_.rules[e.rulesBegin + r];
      static const char *kinds[] = {"before", "after", "every", "start", "end", "expire", "ends-on", "each"};
      std::string s = kinds[size_t(rule.kind)];
      if (rule.kind == RuleKind::Before || rule.kind == RuleKind::After ||
          rule.kind == RuleKind::EndsOn || rule.kind == RuleKind::Each)
        s += " " + filter(rule.filter);
      if (rule.matchBody != kNoId)
        s += " match " + id(rule.matchBody, "body");
      out_ += fmt::format("  rule{} {} steps {}\n", e.rulesBegin + r, s, id(rule.steps, "body"));
    }
  }
  for (Id i = 0; i < t_.abilities.size(); ++i) {
    const Ability &a = t_.abilities[i];
    out_ += fmt::format("ability{} {} tags {} steps {} cooldown {}\n", i, t_.name(a.name),
                        tags(a.tags), id(a.steps, "body"), id(a.cooldownEffect, "effect"));
    static const char *targets[] = {"none", "self", "one", "many", "point", "direction"};
    static const char *sides[] = {"", " enemy", " ally"};
    out_ += fmt::format("  target {}{}{}{}{}{}\n", targets[size_t(a.target)], sides[size_t(a.side)],
                        a.target == TargetKind::Many ? fmt::format(" {}{}", a.upTo ? "up to " : "", a.targetCount) : "",
                        a.targetHaving ? " having " + tags(a.targetHaving) : "",
                        a.targetUnless ? " unless " + tags(a.targetUnless) : "",
                        a.distinct ? " distinct" : "");
    for (uint32_t k = 0; k < a.takeCount; ++k)
      out_ += fmt::format("  takes {}\n", t_.name(t_.props[t_.idLists[a.takesBegin + k]].name));
    for (uint32_t k = 0; k < a.requireCount; ++k) {
      const Requirement &r = t_.requirements[a.requiresBegin + k];
      out_ += fmt::format("  requires body{} sides {} {}{}\n", r.body, id(r.leftBody, "body"),
                          id(r.rightBody, "body"),
                          r.text == kNoId ? "" : fmt::format(" \"{}\"", t_.name(r.text)));
    }
    for (uint32_t k = 0; k < a.costCount; ++k) {
      const Cost &c = t_.costs[a.costsBegin + k];
      out_ += fmt::format("  cost {} body{}{}\n", t_.name(t_.values[c.pool].name), c.amountBody,
                          c.link == kNoId ? "" : " on holder." + std::string(t_.name(t_.links[c.link].name)));
    }
  }
  for (Id i = 0; i < t_.archetypes.size(); ++i) {
    const Archetype &a = t_.archetypes[i];
    out_ += fmt::format("archetype{} {} tags {}\n", i, t_.name(a.name), tags(a.tags));
    for (uint32_t k = 0; k < a.baseCount; ++k) {
      const ArchetypeValue &v = t_.archetypeValues[a.basesBegin + k];
      out_ += fmt::format("  base {} body{}\n", t_.name(t_.values[v.value].name), v.body);
    }
    for (uint32_t k = 0; k < a.withCount; ++k) {
      const ArchetypeValue &v = t_.archetypeValues[a.withBegin + k];
      out_ += fmt::format("  with {} body{}\n",
                          v.value != kNoId ? t_.name(t_.values[v.value].name) : t_.name(t_.links[v.link].name),
                          v.body);
    }
    for (uint32_t k = 0; k < a.poolCount; ++k)
      out_ += fmt::format("  pool {}{}\n", t_.name(t_.values[t_.idLists[a.poolsBegin + k]].name),
                          std::count(t_.idLists.begin() + a.fullBegin,
                                     t_.idLists.begin() + a.fullBegin + a.fullCount,
                                     t_.idLists[a.poolsBegin + k])
                              ? " full"
                              : "");
    for (uint32_t k = 0; k < a.hasCount; ++k) {
      const ArchetypeValue &v = t_.archetypeValues[a.hasBegin + k];
      out_ += fmt::format("  has {} body{}\n", t_.name(t_.effects[v.value].name), v.body);
    }
    for (uint32_t k = 0; k < a.grantCount; ++k)
      out_ += fmt::format("  grants {}\n", t_.name(t_.abilities[t_.idLists[a.grantsBegin + k]].name));
    for (uint32_t k = 0; k < a.autoCount; ++k)
      out_ += fmt::format("  auto {} keys {}\n", t_.name(t_.abilities[t_.autos[a.autosBegin + k].ability].name),
                          t_.autos[a.autosBegin + k].keyCount);
  }
  for (Id i = 0; i < t_.bodies.size(); ++i) {
    const Body &b = t_.bodies[i];
    if (b.kind == BodyKind::Formula) {
      out_ += fmt::format("body{} formula @{}: {}\n", i, b.line, expr(b.root));
    } else {
      out_ += fmt::format("body{} steps @{} locals {}\n", i, b.line, b.localCount);
      steps(b.stepsBegin, b.stepsEnd, 1);
    }
  }
  return out_;
}

} // namespace

std::string print(const pack::Tables &tables) { return Printer(tables).run(); }

} // namespace ledger::ir
