#include "sema/stage_order.h"

#include "sema/words.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace ledger {

namespace {

// What a before rule's changes do to the change in flight, by how they
// commute: prevents with prevents, scales with scales, adds with adds; what
// only moves the amount is moot once the change is prevented, and what else
// happens (an absorb spending a shield, a property set) is not.
enum ChangeClass : unsigned {
  Prevents = 1u << 0,
  Scales = 1u << 1,
  Adds = 1u << 2,
  Amount = 1u << 3, // reduce, at most, at least
  Side = 1u << 4,   // absorbs, converts, redirects, properties, durations
  Steps = 1u << 5,  // a step that changes no event (a deal, a raise): a prevent or
                    // a redirect before it stops it running at all
  ReadsEvent = 1u << 6, // and one reading the event: as the rules before it left it
  Stops = 1u << 7,      // a redirect, which like a prevent ends the rules after it
};

// Whether a line reads the event in hand (event.amount, event.source …).
bool readsEvent(const SyntaxTree &tree, NodeId n) {
  const Node &node = tree.nodes[n];
  for (uint32_t t = node.begin; t < node.end; ++t)
    if (tree.span(node.file, t, t + 1) == "event")
      return true;
  return false;
}

// What a filter's first word names: every event, one kind of event (a
// change's name among them), a tag (an event carrying it, of whatever kind),
// or a pool (any change of it, and its Depleted and Filled).
enum class Heard : uint8_t { Any, Kind, Tag, Pool };

struct Rule {
  NodeId node;
  std::string effect;
  std::string stage; // "" where it names none
  std::string event; // the filter's event kind or tag
  Heard heard;
  std::string pool; // the pool it names, "" where none
  bool of, by; // it names `of X` (also where it names neither), `by X`
  std::vector<std::string> having, unless;
  unsigned changes = 0;
  bool ordered = false;   // its effect says `order`
  bool addsPortion = false; // an `add … as`: a portion it makes or adds to
};

std::string spanOf(const SyntaxTree &tree, NodeId n, const Slot *slot) {
  return slot ? std::string(tree.span(tree.nodes[n].file, slot->begin, slot->end)) : std::string();
}

std::vector<std::string> listOf(const SyntaxTree &tree, NodeId n, const char *label) {
  std::vector<std::string> items;
  const Slot *slot = tree.slot(n, label);
  if (!slot)
    return items;
  uint32_t file = tree.nodes[n].file;
  tree.eachItem(file, *slot, true,
                [&](uint32_t b, uint32_t e) { items.emplace_back(tree.span(file, b, e)); });
  return items;
}

bool addsAs(const SyntaxTree &tree, NodeId n) {
  for (NodeId c = tree.nodes[n].firstChild; c != kNone; c = tree.nodes[c].nextSibling)
    if ((tree.nodes[c].kind == FormKind::BeforeAdd && (tree.slot(c, "as") || tree.slot(c, "var"))) || addsAs(tree, c))
      return true;
  return false;
}

unsigned classify(const SyntaxTree &tree, NodeId rule) {
  unsigned classes = 0;
  for (NodeId c = tree.nodes[rule].firstChild; c != kNone; c = tree.nodes[c].nextSibling) {
    switch (tree.nodes[c].kind) {
    case FormKind::BeforePrevent:
      classes |= Prevents;
      break;
    case FormKind::BeforeScale:
      classes |= Scales;
      break;
    case FormKind::BeforeAdd:
      classes |= Adds;
      break;
    case FormKind::BeforeReduce:
    case FormKind::BeforeAtMost:
    case FormKind::BeforeAtLeast:
      classes |= Amount;
      break;
    case FormKind::BeforeConvert:
    case FormKind::BeforeScaleDuration:
    case FormKind::BeforeEvent:
    case FormKind::BeforeAddDuration:
    case FormKind::BeforeAbsorb:
      classes |= Side;
      break;
    case FormKind::BeforeRedirect:
      classes |= Side | Stops;
      break;
    // A change under an if or a loop changes the result as much.
    case FormKind::StepIf:
    case FormKind::StepElse:
    case FormKind::StepForEach:
    case FormKind::StepRepeat:
      classes |= classify(tree, c);
      if (readsEvent(tree, c))
        classes |= ReadsEvent;
      break;
    default:
      classes |= Steps | (readsEvent(tree, c) ? ReadsEvent : 0u);
      break;
    }
  }
  return classes;
}

bool shares(const std::vector<std::string> &a, const std::vector<std::string> &b) {
  for (const std::string &x : a)
    for (const std::string &y : b)
      if (x == y)
        return true;
  return false;
}

Heard heardOf(const Declarations &decls, const std::string &event) {
  if (event == "any")
    return Heard::Any;
  if (const Decl *d = decls.find(Namespace::Value, event); d && d->kind == RefKind::Pool)
    return Heard::Pool;
  // A change's name (Damage, Heal) is one kind of change, of any pool.
  const Decl *declared = decls.find(Namespace::Shared, event);
  if (sema::among(sema::kBuiltinEvents, event) || (declared && declared->kind == RefKind::Event))
    return Heard::Kind;
  return Heard::Tag;
}

// The kinds of event that happen to a pool: its changes, its Depleted and Filled.
bool isPoolEvent(const std::string &kind) {
  for (const char *k : {"Damage", "Heal", "Gain", "Loss", "Set", "Cost", "Depleted", "Filled"})
    if (kind == k)
      return true;
  return false;
}

// Whether one event could reach both rules: kinds that may meet (a tag may
// be carried by an event of any kind, a pool's changes and its Depleted and
// Filled name it), the same pool if both name one, both of whom they name or
// both by them, and no tag one asks for that the other refuses. Whom they
// name doesn't part them: two effects may be held by any two actors, so
// `of holder` meets `of anyone`, and `of enemies` the enemy's own `of holder`.
bool mayHearOneEvent(const Rule &a, const Rule &b) {
  if (!(a.of && b.of) && !(a.by && b.by))
    return false;
  if (!a.pool.empty() && !b.pool.empty() && a.pool != b.pool)
    return false;
  auto meet = [](const Rule &x, const Rule &y) {
    if (x.heard == Heard::Any || x.heard == Heard::Tag)
      return true;
    if (x.heard == Heard::Kind && y.heard == Heard::Kind)
      return x.event == y.event;
    if (x.heard == Heard::Pool && y.heard == Heard::Kind)
      return isPoolEvent(y.event);
    return true; // a pool and a pool: the same one, as above
  };
  if (!meet(a, b) || !meet(b, a))
    return false;
  return !shares(a.having, b.unless) && !shares(b.having, a.unless);
}

// Two rules each naming their own portion of a change ("acts on that portion
// alone"), neither making or moving a portion, change what the other meets
// not at all.
bool ownPortions(const Rule &a, const Rule &b, const std::vector<std::string> &portions) {
  constexpr unsigned kWithinPortion = Prevents | Scales | Adds | Amount;
  if (((a.changes | b.changes) & ~kWithinPortion) != 0 || a.addsPortion || b.addsPortion)
    return false;
  auto named = [&](const Rule &r) {
    std::vector<std::string> out;
    for (const std::string &t : r.having)
      if (std::find(portions.begin(), portions.end(), t) != portions.end())
        out.push_back(t);
    return out;
  };
  std::vector<std::string> pa = named(a), pb = named(b);
  return !pa.empty() && !pb.empty() && !shares(pa, pb);
}

// Whether running them the other way round could change the result.
bool orderMatters(const Rule &a, const Rule &b) {
  unsigned both = a.changes | b.changes;
  if (a.changes == 0 || b.changes == 0)
    return false; // a rule that does nothing leaves the result alone
  // A rule doing steps alone changes no event: beside another it matters
  // where the other stops the rules after it, or changes the event it reads.
  constexpr unsigned kStepsOnly = Steps | ReadsEvent;
  unsigned ea = a.changes & ~kStepsOnly, eb = b.changes & ~kStepsOnly;
  if (ea == 0 || eb == 0) {
    const Rule &quiet = ea == 0 ? a : b;
    unsigned other = ea == 0 ? eb : ea;
    return (other & (Prevents | Stops)) != 0 || ((quiet.changes & ReadsEvent) && other != 0);
  }
  if (both == Prevents || both == Scales || both == Adds)
    return false;
  // Prevented, nothing lands whatever was done to its amount.
  constexpr unsigned kAmountOnly = Scales | Adds | Amount;
  if ((a.changes == Prevents && (b.changes & ~kAmountOnly) == 0) ||
      (b.changes == Prevents && (a.changes & ~kAmountOnly) == 0))
    return false;
  return true;
}

} // namespace

void checkStageOrder(const SyntaxTree &tree, const Declarations &decls, DiagnosticEngine &diags) {
  std::vector<std::string> portions;
  for (NodeId n = 0; n < tree.nodes.size(); ++n)
    if (tree.nodes[n].kind == FormKind::Portions)
      for (std::string &t : listOf(tree, n, "tags"))
        portions.push_back(std::move(t));
  std::vector<Rule> rules;
  for (const auto &[name, decl] : decls.byNamespace[size_t(Namespace::Effect)]) {
    bool ordered = false;
    std::vector<NodeId> befores;
    for (NodeId part : decl.parts)
      for (NodeId c = tree.nodes[part].firstChild; c != kNone; c = tree.nodes[c].nextSibling) {
        if (tree.nodes[c].kind == FormKind::EffectOrder)
          ordered = true;
        if (tree.nodes[c].kind == FormKind::EffectBefore)
          befores.push_back(c);
      }
    for (NodeId b : befores) {
      const Slot *filterSlot = tree.slot(b, "filter");
      if (!filterSlot)
        continue;
      NodeId filter = filterSlot->value;
      bool by = tree.slot(filter, "by") != nullptr;
      bool of = tree.slot(filter, "of") != nullptr || !by;
      std::string event = spanOf(tree, filter, tree.slot(filter, "event"));
      Heard heard = heardOf(decls, event);
      std::string pool = heard == Heard::Pool ? event : spanOf(tree, filter, tree.slot(filter, "pool"));
      rules.push_back({b, name, spanOf(tree, b, tree.slot(b, "stage")), event, heard, pool, of, by,
                       listOf(tree, filter, "having"), listOf(tree, filter, "unless"),
                       classify(tree, b), ordered, addsAs(tree, b)});
    }
  }
  // In catalog order, so each clash is said at the later rule.
  std::sort(rules.begin(), rules.end(), [&](const Rule &a, const Rule &b) {
    const Node &x = tree.nodes[a.node];
    const Node &y = tree.nodes[b.node];
    return std::pair(x.file, x.begin) < std::pair(y.file, y.begin);
  });
  // Each rule is told against the first earlier one it clashes with, so a
  // catalog of many unordered rules reads one error a rule.
  for (size_t j = 1; j < rules.size(); ++j) {
    const Rule &b = rules[j];
    for (size_t i = 0; i < j; ++i) {
      const Rule &a = rules[i];
      // One effect's rules run in the order it writes them.
      if (a.effect == b.effect || a.stage != b.stage || (a.ordered && b.ordered))
        continue;
      if (!mayHearOneEvent(a, b) || !orderMatters(a, b) || ownPortions(a, b, portions))
        continue;
      const Node &later = tree.nodes[b.node];
      const Node &earlier = tree.nodes[a.node];
      diags.report(DiagKind::StageOrderOpen, tree.loc(later.file, later.begin), 6, b.effect,
                   a.effect, a.stage.empty() ? std::string("no stage") : "stage " + a.stage);
      diags.note(DiagKind::OtherRuleHere, tree.loc(earlier.file, earlier.begin), 6, a.effect);
      break;
    }
  }
}

} // namespace ledger
