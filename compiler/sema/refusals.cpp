#include "sema/refusals.h"

#include "sema/words.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace ledger {

namespace {

// The roots a step's name may never be.
constexpr std::string_view kRootWords[] = {"holder", "source", "credit", "target", "it"};

// An activation's own events, raised by its record alone.
constexpr std::string_view kActivationEvents[] = {"Commit", "Stopped", "Pulse", "Finished",
                                                  "Contact"};

using sema::among;

// The three kinds of definition, each with its own namespace.
enum DefKind : uint8_t { EffectDef, AbilityDef, ArchetypeDef, NoDef };

// A definition's lines: what it is made from, its own, its extends'. `open`
// for a template's own lines, which stand for what its uses give, so what
// they lack is unknown here.
struct Group {
  std::vector<NodeId> bodies;
  bool open = false;
};

class Refusals {
public:
  Refusals(const SyntaxTree &tree, const Declarations &decls, DiagnosticEngine &diags)
      : tree_(tree), decls_(decls), diags_(diags) {}

  void run() {
    for (NodeId t = 0; t < tree_.nodes.size(); ++t) {
      hasTurn_ = hasTurn_ || node(t).kind == FormKind::Turn;
      if (node(t).kind == FormKind::Table)
        if (const Slot *name = tree_.slot(t, "name"))
          tableNames_.insert(slotText(t, *name));
    }
    for (NodeId n = 0; n < tree_.nodes.size(); ++n) {
      checkNode(n);
      checkTurnDeclared(n);
    }
    checkFormulas();
    checkReads();
  }

private:
  // ---- helpers -------------------------------------------------------------
  std::string_view text(uint32_t file, uint32_t tok) const { return tree_.text(file, tok); }
  const Node &node(NodeId n) const { return tree_.nodes[n]; }
  std::string_view slotText(NodeId n, const Slot &s) const {
    return tree_.span(node(n).file, s.begin, s.end);
  }
  bool under(NodeId n, FormKind kind) const {
    NodeId p = node(n).parent;
    return p != kNone && node(p).kind == kind;
  }

  // Reports over tokens begin..end of a file, once for each place and kind.
  template <typename... Args>
  bool report(DiagKind kind, uint32_t file, uint32_t begin, uint32_t end, const Args &...args) {
    if (!reported_.insert({file, begin, static_cast<uint16_t>(kind)}).second)
      return false;
    if (end <= begin)
      end = begin + 1;
    const auto &toks = tree_.files[file].tokens;
    uint32_t length = toks[end - 1].end - toks[begin].begin;
    diags_.report(kind, tree_.loc(file, begin), length ? length : 1, args...);
    return true;
  }
  template <typename... Args>
  bool reportSlot(DiagKind kind, NodeId n, const Slot &s, const Args &...args) {
    return report(kind, node(n).file, s.begin, s.end, args...);
  }
  template <typename... Args> bool reportLine(DiagKind kind, NodeId n, const Args &...args) {
    return report(kind, node(n).file, node(n).begin, node(n).begin + 1, args...);
  }

  // A number slot's value, its sign included.
  std::optional<Fixed> number(NodeId n, const Slot &s) const {
    const Node &nd = node(n);
    uint32_t t = s.begin;
    bool negative = false;
    if (t < s.end && tree_.token(nd.file, t).kind == TokenKind::Minus) {
      negative = true;
      ++t;
    }
    if (t >= s.end)
      return std::nullopt;
    const Token &tok = tree_.token(nd.file, t);
    if (tok.kind != TokenKind::Number && tok.kind != TokenKind::Percent)
      return std::nullopt;
    return negative ? Fixed{-tok.value.raw} : tok.value;
  }
  // A formula that is one number literal (a percent too), or a duration of one.
  std::optional<Fixed> literal(ExprId id) const {
    if (id == kNone)
      return std::nullopt;
    const Expr &e = tree_.exprs[id];
    if (e.kind == ExprKind::Duration && e.argCount == 1)
      return literal(tree_.exprArgs[e.firstArg]);
    if (e.kind == ExprKind::Unary && e.op == ExprOp::Neg && e.argCount == 1) {
      auto v = literal(tree_.exprArgs[e.firstArg]);
      return v ? std::optional<Fixed>(Fixed{-v->raw}) : std::nullopt;
    }
    if (e.kind == ExprKind::Number)
      return tree_.token(e.file, e.begin).value;
    return std::nullopt;
  }
  // Numbers and operators alone: nothing read.
  bool constant(ExprId id) const {
    if (id == kNone)
      return false;
    const Expr &e = tree_.exprs[id];
    switch (e.kind) {
    case ExprKind::Number:
      return true;
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Duration:
      for (uint32_t i = 0; i < e.argCount; ++i)
        if (!constant(tree_.exprArgs[e.firstArg + i]))
          return false;
      return true;
    default:
      return false;
    }
  }
  static bool whole(Fixed v) { return v.raw % Fixed::kScale == 0; }

  // The items of a names or tags list: each dotted name's tokens.
  void eachItem(NodeId n, const Slot &s, const std::function<void(uint32_t, uint32_t)> &fn) const {
    tree_.eachItem(node(n).file, s, true, fn);
  }

  static const char *phaseWord(FormKind kind) {
    switch (kind) {
    case FormKind::AbilityWindup:
      return "windup";
    case FormKind::AbilityChannel:
      return "channel";
    case FormKind::AbilityCharge:
      return "charge-up";
    case FormKind::AbilityFlies:
      return "flight";
    default:
      return "phase";
    }
  }

  // ---- definitions -----------------------------------------------------------
  static DefKind defKindOf(std::string_view word) {
    if (word == "effect")
      return EffectDef;
    if (word == "ability")
      return AbilityDef;
    if (word == "archetype")
      return ArchetypeDef;
    return NoDef;
  }
  static DefKind defKindOf(FormKind kind) {
    switch (kind) {
    case FormKind::Effect:
      return EffectDef;
    case FormKind::Ability:
      return AbilityDef;
    case FormKind::Archetype:
      return ArchetypeDef;
    default:
      return NoDef;
    }
  }
  bool insideTemplate(NodeId n) const {
    for (NodeId p = node(n).parent; p != kNone; p = node(p).parent)
      if (node(p).kind == FormKind::Template)
        return true;
    return false;
  }

  // A definition's lines as the checker gathered them: what it is made from
  // (a parent's, a template's written out), its own, its extends'.
  Group group(DefKind kind, std::string_view name) const {
    Namespace ns = kind == EffectDef    ? Namespace::Effect
                   : kind == AbilityDef ? Namespace::Ability
                                        : Namespace::Archetype;
    const Decl *decl = decls_.find(ns, name);
    if (!decl)
      return Group{{}, true}; // undeclared: said where its name is resolved
    return Group{decl->parts, false};
  }

  // The definition a line stands in, as a group; open inside a template.
  Group groupOf(NodeId n) const {
    for (NodeId p = node(n).parent; p != kNone; p = node(p).parent) {
      const Node &pn = node(p);
      if (pn.kind == FormKind::Template) {
        Group g;
        g.bodies.push_back(p);
        g.open = true;
        return g;
      }
      DefKind dk = defKindOf(pn.kind);
      std::string_view name;
      if (dk != NoDef) {
        if (const Slot *s = tree_.slot(p, "name"))
          name = slotText(p, *s);
      } else if (pn.kind == FormKind::Extend || pn.kind == FormKind::Replace) {
        const Slot *k = tree_.slot(p, "kind");
        const Slot *target = tree_.slot(p, "target");
        if (k && target) {
          dk = defKindOf(slotText(p, *k));
          name = slotText(p, *target);
        }
      }
      if (dk == NoDef)
        continue;
      if (insideTemplate(p)) {
        Group g;
        g.bodies.push_back(p);
        g.open = true;
        return g;
      }
      return group(dk, name);
    }
    return Group{{}, true};
  }

  // Every line of a group, the first of each kind found.
  std::vector<NodeId> lines(const Group &g) const {
    std::vector<NodeId> out;
    for (NodeId b : g.bodies)
      for (NodeId c = node(b).firstChild; c != kNone; c = node(c).nextSibling)
        out.push_back(c);
    return out;
  }
  NodeId findLine(const Group &g, std::initializer_list<FormKind> kinds) const {
    for (NodeId c : lines(g))
      for (FormKind k : kinds)
        if (node(c).kind == k)
          return c;
    return kNone;
  }

  bool catalogSaysSlotAll() {
    if (!slotAll_) {
      slotAll_ = false;
      for (NodeId n = 0; n < tree_.nodes.size() && !*slotAll_; ++n)
        if (node(n).kind == FormKind::Phases && tree_.hasFlag(n, "slot all"))
          slotAll_ = true;
    }
    return *slotAll_;
  }

  // ---- the checks, one form at a time -------------------------------------------
  void checkNode(NodeId n) {
    switch (node(n).kind) {
    case FormKind::Pool:
    case FormKind::Stat:
    case FormKind::ArchetypeBase:
      checkBoundReads(n);
      break;
    case FormKind::Rate:
      checkRate(n);
      break;
    case FormKind::EffectAura:
      checkOpensByApply(n, "effect", "an aura");
      break;
    case FormKind::ArchetypeHas:
      checkOpensByApply(n, "effect", "an archetype's has");
      break;
    case FormKind::ArchetypeGives:
      checkOpensByApply(n, "effects", "an item's gift");
      break;
    case FormKind::Prop:
      checkProp(n);
      break;
    case FormKind::Curve:
      checkCurve(n);
      break;
    case FormKind::Template:
      checkDeclaredWord(n, "param");
      checkParamsOnce(n);
      checkLasts(n);
      break;
    case FormKind::Effect:
    case FormKind::Extend:
    case FormKind::Replace:
      checkLasts(n);
      break;
    case FormKind::EffectFalls:
      checkFalls(n);
      checkRaise(n, true, "event", "falls");
      break;
    case FormKind::EffectDies:
      checkRaise(n, true, "event", "dies");
      break;
    case FormKind::EffectHolds:
      checkRaise(n, true, "raising", "holds");
      break;
    case FormKind::EffectTags:
    case FormKind::AbilityTags:
    case FormKind::ArchetypeTags:
      checkEndTags(n, "tags");
      break;
    case FormKind::EffectGrants:
    case FormKind::ArchetypeGrants:
      checkAutoGrant(n);
      break;
    case FormKind::AbilityTarget:
      checkTargetCount(n);
      break;
    case FormKind::AbilityCost:
      checkUpfront(n);
      if (const Slot *link = tree_.slot(n, "link"); link && isGlobalLink(slotText(n, *link)))
        reportSlot(DiagKind::GlobalLinkOfActor, n, *link, slotText(n, *link),
                   "a cost is paid by the actor a link of its holder names");
      break;
    case FormKind::AbilityOffCast:
      checkOffCast(n);
      break;
    case FormKind::AbilityWith:
      checkWithTaken(n);
      break;
    case FormKind::AbilityChannel:
      checkBeatClocks(n);
      break;
    case FormKind::AbilityCharge:
      checkChargeLines(n);
      break;
    case FormKind::PhasePushedBack:
      checkPushedBack(n);
      checkAreaEventHeard(n);
      break;
    case FormKind::PhaseEvery:
      checkPhaseEvery(n);
      break;
    case FormKind::PhaseTakes:
    case FormKind::PhasePierces:
    case FormKind::PhaseBounces:
    case FormKind::PhaseLands:
      checkFlightLine(n);
      break;
    case FormKind::StepRaise:
      checkRaise(n, true);
      checkEndTags(n, "tagged");
      break;
    case FormKind::PlayRaise:
      checkRaise(n, false);
      break;
    case FormKind::EffectLinkOverride:
      if (const Slot *link = tree_.slot(n, "stat"); link && isGlobalLink(slotText(n, *link)))
        reportSlot(DiagKind::GlobalLinkOfActor, n, *link, slotText(n, *link),
                   "an effect's override points its holder's link");
      break;
    case FormKind::StepSetLink:
      if (const Slot *link = tree_.slot(n, "link");
          link && tree_.slot(n, "on") && isGlobalLink(slotText(n, *link)))
        reportSlot(DiagKind::GlobalLinkOfActor, n, *link, slotText(n, *link),
                   "it is set with no `on`");
      break;
    case FormKind::StepElse:
      if (node(n).parent != kNone)
        checkElse(n);
      break;
    case FormKind::Turn:
      if (const Slot *event = tree_.slot(n, "event");
          event && sema::among(sema::kBuiltinEvents, slotText(n, *event)))
        reportSlot(DiagKind::TurnIsWorldEvent, n, *event, slotText(n, *event));
      break;
    case FormKind::BeforeRedirect:
      if (const Slot *to = tree_.slot(n, "to")) {
        const Decl *value = decls_.find(Namespace::Value, std::string(slotText(n, *to)));
        if (value && value->kind == RefKind::Stat)
          reportSlot(DiagKind::RedirectToStat, n, *to, slotText(n, *to));
      }
      break;
    case FormKind::StepCast:
      checkEndTags(n, "tagged");
      checkStepNames(n);
      checkCastAgain(n);
      break;
    case FormKind::StepRepeat:
      checkRepeat(n);
      break;
    case FormKind::StepOutcome:
      checkOutcomeBands(n);
      break;
    case FormKind::StepForEach:
    case FormKind::StepLet:
    case FormKind::StepPick:
    case FormKind::StepRemove:
    case FormKind::StepCreate:
    case FormKind::StepStop:
    case FormKind::StepCopy:
    case FormKind::BeforePrevent:
    case FormKind::BeforeAbsorb:
      checkStepNames(n);
      if (node(n).kind == FormKind::StepRemove)
        checkRemoveSelf(n);
      if (node(n).kind == FormKind::StepCreate)
        for (const Slot *assign : tree_.slotsNamed(n, "assign"))
          if (const Slot *name = tree_.slot(assign->value, "name");
              name && isGlobalLink(slotText(assign->value, *name)))
            reportSlot(DiagKind::GlobalLinkOfActor, assign->value, *name,
                       slotText(assign->value, *name), "what a create makes takes no link of it");
      break;
    case FormKind::Filter:
      checkFilterWords(n);
      break;
    case FormKind::TableWhen:
      checkExtendTableWhen(n);
      break;
    case FormKind::EffectVar:
      checkDeclaredWord(n, "name");
      break;
    case FormKind::EffectStack:
      checkStackFull(n);
      break;
    case FormKind::StepDeal:
      checkEndTags(n, "types");
      checkEndTags(n, "moreTypes");
      break;
    case FormKind::PlayDeal:
      checkEndTags(n, "types");
      break;
    case FormKind::StepHeal:
    case FormKind::StepGain:
    case FormKind::StepLose:
      checkEndTags(n, "types");
      break;
    case FormKind::Tags:
      checkCarriedEndTags(n);
      checkMakersTagCarried(n);
      break;
    case FormKind::EffectBefore:
      checkBeforeHearsPrevented(n);
      checkPreventKeepsNothing(n);
      checkRedirectOfRemove(n);
      [[fallthrough]];
    case FormKind::EffectEndsOn:
    case FormKind::EffectEach:
    case FormKind::PhaseBrokenBy:
      checkAreaEventHeard(n);
      break;
    case FormKind::EffectAnswers:
      checkAnswersStack(n);
      break;
    case FormKind::AbilityFlies:
      checkFlightTarget(n);
      break;
    case FormKind::EffectLasts:
    case FormKind::StepApply:
    case FormKind::PlayApply:
    case FormKind::BeforeAddDuration:
    case FormKind::BeforeAtMost:
      checkTurnCount(n);
      checkAreaEventCounted(n);
      if (node(n).kind != FormKind::EffectLasts)
        checkCountNamesNoPool(n);
      break;
    case FormKind::ExpectRemaining:
      checkTurnCount(n);
      checkCountNamesNoPool(n);
      break;
    case FormKind::EffectBlocks:
      checkBlocksList(n);
      // from WHO: "from whom: enemies, others, allies or anyone".
      if (const Slot *from = tree_.slot(n, "from"); from && from->value != kNone)
        if (const Slot *actor = tree_.slot(from->value, "actor"))
          reportSlot(DiagKind::BlocksFromActor, from->value, *actor, slotText(from->value, *actor));
      break;
    default:
      break;
    }
  }

  // tags carried: "a maker's tag can't be": the tags an archetype gives its
  // actors, which a Make carries.
  void checkMakersTagCarried(NodeId n) {
    const Slot *tags = tree_.slot(n, "tags");
    if (!tags || !tree_.hasFlag(n, "carried"))
      return;
    eachItem(n, *tags, [&](uint32_t b, uint32_t e) {
      std::string_view tag = tree_.span(node(n).file, b, e);
      for (NodeId a = 0; a < tree_.nodes.size(); ++a) {
        if (node(a).kind != FormKind::ArchetypeTags)
          continue;
        const Slot *given = tree_.slot(a, "tags");
        bool found = false;
        eachItem(a, *given, [&](uint32_t gb, uint32_t ge) {
          found = found || tree_.span(node(a).file, gb, ge) == tag;
        });
        if (found) {
          report(DiagKind::MakersTagCarried, node(n).file, b, e, tag);
          return;
        }
      }
    });
  }

  // extend table: "a table's when stays its writer's"
  void checkExtendTableWhen(NodeId n) {
    NodeId parent = node(n).parent;
    if (parent == kNone || node(parent).kind != FormKind::Extend)
      return;
    report(DiagKind::ExtendTableWhen, node(n).file, node(n).begin, node(n).begin + 1);
  }

  // Enter, Leave and Cross: "each heard by an after rule naming it alone"
  // remove self: "self (the instance running the rule)", in an effect's
  // lines; an ability runs in none.
  void checkRemoveSelf(NodeId n) {
    const Slot *what = tree_.slot(n, "what");
    if (!what || slotText(n, *what) != "self")
      return;
    for (NodeId p = node(n).parent; p != kNone; p = node(p).parent) {
      if (node(p).kind == FormKind::Effect)
        return;
      if (node(p).kind == FormKind::Ability) {
        reportSlot(DiagKind::RootOutOfPlace, n, *what, "self",
                   "in an effect's lines, the instance running the rule (and self.beats in a "
                   "channel's)");
        return;
      }
    }
  }

  // else: "after an if: the steps under it run otherwise".
  void checkElse(NodeId n) {
    NodeId before = kNone;
    for (NodeId c = node(node(n).parent).firstChild; c != n && c != kNone; c = node(c).nextSibling)
      before = c;
    if (before == kNone || node(before).kind != FormKind::StepIf)
      reportLine(DiagKind::ElseWithoutIf, n);
  }

  bool isGlobalLink(std::string_view name) const {
    const Decl *decl = decls_.find(Namespace::Shared, std::string(name));
    return decl && decl->kind == RefKind::Link && decl->node != kNone &&
           tree_.hasFlag(decl->node, "global");
  }

  // A before rule's filter saying `prevented` hears nothing: the before
  // phase ends at the prevent (a warning, as the reference refuses none).
  void checkBeforeHearsPrevented(NodeId n) {
    const Slot *filter = tree_.slot(n, "filter");
    if (!filter)
      return;
    if (const Slot *prevented = tree_.slot(filter->value, "prevented"))
      reportSlot(DiagKind::BeforeHearsPrevented, filter->value, *prevented);
  }

  // A redirect in a rule hearing a Remove by name: there is nowhere to send
  // an instance's end (a warning, as the reference refuses none).
  void checkRedirectOfRemove(NodeId n) {
    const Slot *filter = tree_.slot(n, "filter");
    const Slot *event = filter ? tree_.slot(filter->value, "event") : nullptr;
    if (!event || slotText(filter->value, *event) != "Remove")
      return;
    for (NodeId c = node(n).firstChild; c != kNone; c = node(c).nextSibling)
      if (node(c).kind == FormKind::BeforeRedirect)
        reportLine(DiagKind::RedirectOfRemove, c);
  }

  // A prevent in a rule hearing only the Removes the world raises whatever
  // a rule says (a lifetime run out, a newcomer in its place, a holder
  // destroyed): it stops nothing (a warning, as the reference refuses none).
  void checkPreventKeepsNothing(NodeId n) {
    const Slot *filter = tree_.slot(n, "filter");
    if (!filter)
      return;
    const Slot *having = tree_.slot(filter->value, "having");
    if (!having)
      return;
    bool prevents = false;
    for (NodeId c = node(n).firstChild; c != kNone; c = node(c).nextSibling)
      prevents |= node(c).kind == FormKind::BeforePrevent;
    if (!prevents)
      return;
    eachItem(filter->value, *having, [&](uint32_t b, uint32_t e) {
      std::string_view tag = tree_.span(node(n).file, b, e);
      if (tag == "End.Expired" || tag == "End.Replaced" || tag == "End.Gone")
        report(DiagKind::PreventKeepsNothing, node(n).file, b, e, tag);
    });
  }

  // blocks EVENT-OR-TAGS: "an event, or one or more tags an event carries":
  // an event among several names is neither.
  void checkBlocksList(NodeId n) {
    const Slot *what = tree_.slot(n, "what");
    if (!what)
      return;
    std::vector<std::pair<uint32_t, uint32_t>> items;
    eachItem(n, *what, [&](uint32_t b, uint32_t e) { items.push_back({b, e}); });
    if (items.size() < 2)
      return;
    for (auto [b, e] : items) {
      std::string name(tree_.span(node(n).file, b, e));
      const Decl *shared = decls_.find(Namespace::Shared, name);
      bool event = sema::among(sema::kBuiltinEvents, name) || (shared && shared->kind == RefKind::Event);
      if (event && !decls_.find(Namespace::Tag, name))
        report(DiagKind::BlocksEventAmongTags, node(n).file, b, e, name);
    }
  }

  // The event a count counts: an apply's `for N EVENT`, a duration change's,
  // or a lasts' filter; owner is the node holding its slot.
  const Slot *countedEvent(NodeId n, NodeId &owner) const {
    owner = n;
    if (const Slot *event = tree_.slot(n, "event"))
      return event;
    const Slot *filter = tree_.slot(n, "filter");
    if (!filter || filter->value == kNone || !tree_.slot(n, "count"))
      return nullptr;
    owner = filter->value;
    return tree_.slot(owner, "event");
  }

  // A count of Enter, Leave or Cross (lasts N EVENT, for N EVENT): each "is
  // heard by an after rule naming it alone".
  void checkAreaEventCounted(NodeId n) {
    NodeId owner = n;
    const Slot *event = countedEvent(n, owner);
    if (!event || !tree_.slot(n, "count"))
      return;
    std::string_view name = slotText(owner, *event);
    if (name == "Enter" || name == "Leave" || name == "Cross")
      reportSlot(DiagKind::AreaEventHeardByAfter, owner, *event, name);
  }

  void checkAreaEventHeard(NodeId n) {
    const Slot *filter = tree_.slot(n, "filter");
    if (!filter)
      return;
    const Slot *event = tree_.slot(filter->value, "event");
    if (!event)
      return;
    std::string_view name = slotText(filter->value, *event);
    if (name == "Enter" || name == "Leave" || name == "Cross")
      reportSlot(DiagKind::AreaEventHeardByAfter, filter->value, *event, name);
  }

  // answers: "stacks separate unless it says ignore or replace"
  void checkAnswersStack(NodeId n) {
    NodeId def = node(n).parent;
    if (def == kNone)
      return;
    for (NodeId c = node(def).firstChild; c != kNone; c = node(c).nextSibling) {
      if (node(c).kind != FormKind::EffectStack)
        continue;
      const Slot *mode = tree_.slot(c, "mode");
      std::string_view m = mode ? slotText(c, *mode) : "";
      if (m != "separate" && m != "ignore" && m != "replace")
        reportSlot(DiagKind::AnswersStack, c, *mode, m);
    }
  }

  // flies: "Its target clause is target one, what it may hit, … or target
  // point or target direction"
  void checkFlightTarget(NodeId n) {
    NodeId def = node(n).parent;
    if (def == kNone)
      return;
    for (NodeId c = node(def).firstChild; c != kNone; c = node(c).nextSibling) {
      if (node(c).kind != FormKind::AbilityTarget)
        continue;
      const Slot *which = tree_.slot(c, "which");
      std::string_view w = which ? slotText(c, *which) : "";
      if (w != "one" && w != "point" && w != "direction")
        report(DiagKind::FlightTargetClause, node(c).file, node(c).begin, node(c).end);
    }
  }

  // pool: "its bound and drift read its holder's own values, another actor's
  // through a link of its holder's, a global link or its source, one step, and
  // a count of a query finding actors by side, tags and presence"; a stat's
  // bound and an archetype's base read no root but those (readings.md 130).
  void checkBoundReads(NodeId n) {
    if (insideTemplate(n))
      return; // checked where it is written out
    bool pool = node(n).kind == FormKind::Pool;
    const char *where = pool                              ? "a pool's bound"
                        : node(n).kind == FormKind::Stat ? "a stat's bound"
                                                          : "a stat's base";
    // A pool's period formula is its drift's.
    std::set<ExprId> drift;
    for (const char *label : {"per", "every"})
      if (const Slot *period = pool ? tree_.slot(n, label) : nullptr)
        walkExpr(period->value, [&](ExprId id) { drift.insert(id); });
    walkNode(n, [&](ExprId id) {
      const Expr &e = tree_.exprs[id];
      if (e.kind == ExprKind::Part) {
        if (const Slot *when = tree_.slot(e.part, "when");
            pool && when && node(e.part).kind == FormKind::TargetsQuery)
          report(DiagKind::BoundCountsWhen, node(e.part).file, when->begin - 1, when->begin);
        return;
      }
      if (e.kind != ExprKind::Path || tree_.token(e.file, e.begin).kind != TokenKind::Name)
        return;
      std::string_view head = text(e.file, e.begin);
      if (head == "target" || head == "credit" || head == "self")
        report(DiagKind::BoundReadsRoot, e.file, e.begin, e.begin + 1, head,
               drift.count(id) ? "a pool's drift" : where);
    });
    if (!pool)
      return;
    // "one step", in the bound and drift, and in the base of a stat they read
    // ("under a pool's bound or drift it may read another actor through a
    // link of its holder's or a global link").
    checkStepsAway(n);
    std::set<std::string_view> stats;
    if (const Slot *regen = tree_.slot(n, "regen"))
      stats.insert(slotText(n, *regen));
    walkNode(n, [&](ExprId id) {
      const Expr &e = tree_.exprs[id];
      if (e.kind != ExprKind::Path)
        return;
      uint32_t at = e.end == e.begin + 1                                          ? e.begin
                    : e.end == e.begin + 3 && text(e.file, e.begin) == "holder" ? e.begin + 2
                                                                                 : kNone;
      if (at != kNone)
        stats.insert(text(e.file, at));
    });
    for (NodeId b = 0; b < tree_.nodes.size(); ++b)
      if (const Slot *stat = tree_.slot(b, "stat");
          node(b).kind == FormKind::ArchetypeBase && stat && stats.count(slotText(b, *stat)) &&
          !insideTemplate(b))
        checkStepsAway(b);
  }

  // The steps to the actor a bound's formula reads: its holder none; its
  // source, a global link or a link of its holder's one; each link after it
  // one more.
  void checkStepsAway(NodeId n) {
    auto isLink = [&](std::string_view name) {
      const Decl *d = decls_.find(Namespace::Shared, name);
      return name == "next" || (d && d->kind == RefKind::Link);
    };
    walkNode(n, [&](ExprId id) {
      const Expr &e = tree_.exprs[id];
      if (e.kind != ExprKind::Path || tree_.token(e.file, e.begin).kind != TokenKind::Name)
        return;
      std::string_view head = text(e.file, e.begin);
      uint32_t steps = head == "source" || isLink(head) ? 1 : 0;
      if (head != "holder" && steps == 0)
        return;
      for (uint32_t t = e.begin + 2; t < e.end && isLink(text(e.file, t)); t += 2)
        ++steps;
      if (steps > 1)
        report(DiagKind::BoundReadsDeep, e.file, e.begin, e.end, exprText(id), steps);
    });
  }

  // rate: "ticks per second, as whole ticks over whole seconds"; a tick is
  // counted in up to that many units of time (docs/readings.md 135).
  static constexpr int64_t kMostRateSeconds = 1'000'000;
  void checkRate(NodeId n) {
    for (const char *label : {"ticks", "seconds"}) {
      const Slot *s = tree_.slot(n, label);
      if (!s)
        continue;
      if (auto v = number(n, *s); v && (!whole(*v) || v->raw <= 0))
        reportSlot(DiagKind::RateNotWhole, n, *s, slotText(n, *s));
      else if (v && std::string_view(label) == "seconds" && v->raw > kMostRateSeconds * Fixed::kScale)
        reportSlot(DiagKind::RateTooSlow, n, *s, slotText(n, *s));
    }
  }

  // prop: "one under a parent at any depth and never the parent (under), or one of
  // a set of two or more (among)"
  void checkProp(NodeId n) {
    const Slot *dflt = tree_.slot(n, "default");
    if (const Slot *u = tree_.slot(n, "under"); u && dflt) {
      std::string parent(slotText(n, *u));
      std::string_view d = slotText(n, *dflt);
      if (d.rfind(parent + ".", 0) != 0)
        reportSlot(DiagKind::PropDefaultNotUnder, n, *dflt, d, parent);
    }
    if (const Slot *a = tree_.slot(n, "among")) {
      std::vector<std::string_view> tags;
      eachItem(n, *a,
               [&](uint32_t b, uint32_t e) { tags.push_back(tree_.span(node(n).file, b, e)); });
      // a set: a tag named twice is one of it
      std::vector<std::string_view> distinct;
      for (std::string_view t : tags)
        if (std::find(distinct.begin(), distinct.end(), t) == distinct.end())
          distinct.push_back(t);
      if (distinct.size() < 2)
        reportSlot(DiagKind::PropAmongOne, n, *a);
      if (dflt) {
        std::string_view d = slotText(n, *dflt);
        bool found = false;
        for (std::string_view t : tags)
          found = found || t == d;
        if (!found)
          reportSlot(DiagKind::PropDefaultNotAmong, n, *dflt, d);
      }
    }
    if (!tree_.slot(n, "under") && !tree_.slot(n, "among"))
      checkPropRange(n);
  }

  // prop: "a number outside its range ... is refused": its own default among them
  void checkPropRange(NodeId n) {
    const Slot *dflt = tree_.slot(n, "default");
    const Slot *mn = tree_.slot(n, "min");
    const Slot *mx = tree_.slot(n, "max");
    std::optional<Fixed> d = dflt ? number(n, *dflt) : std::nullopt;
    std::optional<Fixed> lo = mn ? number(n, *mn) : std::nullopt;
    std::optional<Fixed> hi = mx ? number(n, *mx) : std::nullopt;
    if (lo && hi && *lo > *hi) {
      reportSlot(DiagKind::PropRangeEmpty, n, *mx, slotText(n, *mn), slotText(n, *mx));
      return;
    }
    // whole: no whole number between them is as empty a range.
    if (lo && hi && tree_.hasFlag(n, "whole")) {
      auto ceilWhole = [](int64_t raw) {
        return raw >= 0 ? (raw + Fixed::kScale - 1) / Fixed::kScale : -((-raw) / Fixed::kScale);
      };
      auto floorWhole = [](int64_t raw) {
        return raw >= 0 ? raw / Fixed::kScale : -((-raw + Fixed::kScale - 1) / Fixed::kScale);
      };
      if (ceilWhole(lo->raw) > floorWhole(hi->raw)) {
        reportSlot(DiagKind::PropRangeNoWhole, n, *mx, slotText(n, *mn), slotText(n, *mx));
        return;
      }
    }
    if (d && ((lo && *d < *lo) || (hi && *d > *hi)))
      reportSlot(DiagKind::PropDefaultOutOfRange, n, *dflt, slotText(n, *dflt));
    if (d && tree_.hasFlag(n, "whole") && !whole(*d))
      reportSlot(DiagKind::PropDefaultOutOfRange, n, *dflt, slotText(n, *dflt));
  }

  // curve point: "each point's number is greater than the one before"
  // and a curve with none is refused (docs/readings.md 86)
  void checkCurve(NodeId n) {
    std::optional<Fixed> before;
    std::string_view beforeText;
    bool anyPoint = false;
    for (NodeId c = node(n).firstChild; c != kNone; c = node(c).nextSibling)
      anyPoint |= node(c).kind == FormKind::CurvePoint;
    if (const Slot *name = tree_.slot(n, "name"); name && !anyPoint)
      reportSlot(DiagKind::CurveWithoutPoints, n, *name, slotText(n, *name));
    for (NodeId c = node(n).firstChild; c != kNone; c = node(c).nextSibling) {
      const Slot *x = node(c).kind == FormKind::CurvePoint ? tree_.slot(c, "x") : nullptr;
      std::optional<Fixed> v = x ? number(c, *x) : std::nullopt;
      if (!v)
        continue;
      if (before && *v <= *before)
        reportSlot(DiagKind::CurvePointNotGreater, c, *x, slotText(c, *x), beforeText);
      before = v;
      beforeText = slotText(c, *x);
    }
  }

  // effect lasts: "it may count a time and one kind of event"
  void checkLasts(NodeId n) {
    DefKind dk = defKindOf(node(n).kind);
    if (dk == NoDef) {
      const Slot *k = tree_.slot(n, "kind");
      if (!k || defKindOf(slotText(n, *k)) != EffectDef)
        return;
    } else if (dk != EffectDef) {
      return;
    }
    if (node(n).firstChild == kNone)
      return;
    Group g = groupOf(node(n).firstChild);
    NodeId time = kNone, events = kNone;
    for (NodeId c : lines(g)) {
      if (node(c).kind != FormKind::EffectLasts)
        continue;
      bool isTime = tree_.slot(c, "time") != nullptr;
      NodeId &first = isTime ? time : events;
      if (first == kNone) {
        first = c;
        continue;
      }
      if (reportLine(DiagKind::LastsCountsTwice, c, isTime ? "time" : "kind of event"))
        diags_.note(DiagKind::LastsFirstHere, tree_.loc(node(first).file, node(first).begin), 5);
    }
  }

  // effect falls: "a catalog's falls name one pool"
  void checkFalls(NodeId n) {
    const Slot *pool = tree_.slot(n, "pool");
    if (!pool)
      return;
    if (firstFalls_ == kNone) {
      firstFalls_ = n;
      return;
    }
    const Slot *first = tree_.slot(firstFalls_, "pool");
    if (!first || slotText(firstFalls_, *first) == slotText(n, *pool))
      return;
    if (reportSlot(DiagKind::FallsOnePool, n, *pool, slotText(n, *pool),
                   slotText(firstFalls_, *first)))
      diags_.note(DiagKind::FallsFirstHere, tree_.loc(node(firstFalls_).file, first->begin),
                  static_cast<uint32_t>(slotText(firstFalls_, *first).size()),
                  slotText(firstFalls_, *first));
  }

  // tags: "nothing else may carry an End tag"
  void checkEndTags(NodeId n, std::string_view label) {
    const Slot *s = tree_.slot(n, label);
    if (!s)
      return;
    eachItem(n, *s, [&](uint32_t b, uint32_t e) {
      std::string_view tag = tree_.span(node(n).file, b, e);
      if (tag == "End" || tag.rfind("End.", 0) == 0)
        report(DiagKind::EndTagCarried, node(n).file, b, e, tag);
    });
  }

  // charge up: "with holds ... an auto may not be granted it"
  void checkAutoGrant(NodeId n) {
    const Slot *abilities = tree_.slot(n, "abilities");
    if (!abilities || !tree_.slot(n, "auto"))
      return;
    eachItem(n, *abilities, [&](uint32_t b, uint32_t e) {
      std::string_view name = tree_.span(node(n).file, b, e);
      Group g = group(AbilityDef, name);
      for (NodeId c : lines(g))
        if (node(c).kind == FormKind::AbilityCharge && tree_.hasFlag(c, "holds")) {
          report(DiagKind::AutoGrantedHolds, node(n).file, b, e, name);
          return;
        }
    });
  }

  // target: "a list of them, exactly N (2 or more) or up to N"
  void checkTargetCount(NodeId n) {
    const Slot *count = tree_.slot(n, "count");
    if (!count)
      return;
    std::optional<Fixed> v = number(n, *count);
    if (!v)
      return;
    bool upTo = tree_.hasFlag(n, "up to");
    if (!whole(*v) || *v < Fixed::fromInt(upTo ? 1 : 2))
      reportSlot(upTo ? DiagKind::TargetUpToCount : DiagKind::TargetListCount, n, *count,
                 slotText(n, *count));
  }

  // cost: "upfront is refused on an ability with neither [a windup nor a charge-up],
  // a channel among them"
  void checkUpfront(NodeId n) {
    const Slot *upfront = tree_.slot(n, "upfront");
    if (!upfront)
      return;
    Group g = groupOf(n);
    if (findLine(g, {FormKind::AbilityWindup, FormKind::AbilityCharge}) != kNone)
      return;
    NodeId phase = findLine(g, {FormKind::AbilityChannel, FormKind::AbilityFlies});
    if (phase != kNone)
      reportSlot(DiagKind::UpfrontRefusedOn, n, *upfront, phaseWord(node(phase).kind));
    else if (!g.open)
      reportSlot(DiagKind::UpfrontWithoutPhase, n, *upfront);
  }

  // off cast: "Refused in a catalog not saying slot all, and on an ability whose phase
  // holds the slot"
  void checkOffCast(NodeId n) {
    if (!catalogSaysSlotAll()) {
      report(DiagKind::OffCastWithoutSlotAll, node(n).file, node(n).begin, node(n).end);
      return;
    }
    Group g = groupOf(n);
    NodeId phase =
        findLine(g, {FormKind::AbilityWindup, FormKind::AbilityChannel, FormKind::AbilityCharge});
    if (phase != kNone)
      report(DiagKind::OffCastHoldsSlot, node(n).file, node(n).begin, node(n).end,
             phaseWord(node(phase).kind));
  }

  // with: "a property the ability takes is refused"
  void checkWithTaken(NodeId n) {
    Group g = groupOf(n);
    std::set<std::string_view> taken;
    for (NodeId c : lines(g))
      if (node(c).kind == FormKind::AbilityTakes)
        for (const Slot *p : tree_.slotsNamed(c, "prop"))
          taken.insert(slotText(c, *p));
    for (const Slot *a : tree_.slotsNamed(n, "assign")) {
      if (a->value == kNone)
        continue;
      const Slot *name = tree_.slot(a->value, "name");
      if (name && taken.count(slotText(a->value, *name)))
        reportSlot(DiagKind::WithSetsTaken, a->value, *name, slotText(a->value, *name));
    }
  }

  // phase every: "the channel's every blocks all name one clock or none does"
  void checkBeatClocks(NodeId n) {
    std::optional<std::string> first;
    for (NodeId c = node(n).firstChild; c != kNone; c = node(c).nextSibling) {
      if (node(c).kind != FormKind::PhaseEvery)
        continue;
      std::string clock;
      if (const Slot *s = tree_.slot(c, "clock"))
        clock = slotText(c, *s);
      else if (tree_.hasFlag(c, "clock world"))
        clock = "world";
      if (!first)
        first = clock;
      else if (*first != clock)
        reportLine(DiagKind::BeatClocksDiffer, c);
    }
  }

  // charge up: "Only broken by is written under it" ("an aura under it keeps its effect
  // while it holds"); the phase lines with a refusal of their own say theirs
  void checkChargeLines(NodeId n) {
    for (NodeId c = node(n).firstChild; c != kNone; c = node(c).nextSibling) {
      switch (node(c).kind) {
      case FormKind::PhaseBrokenBy:
      case FormKind::EffectAura:
      case FormKind::PhasePushedBack:
      case FormKind::PhaseEvery:
      case FormKind::PhaseTakes:
      case FormKind::PhasePierces:
      case FormKind::PhaseBounces:
      case FormKind::PhaseLands:
        break;
      default:
        reportLine(DiagKind::ChargeOnlyBrokenBy, c, text(node(c).file, node(c).begin));
      }
    }
  }

  // pushed back: "under a windup only", "D a constant longer than none", "at most N,
  // a whole number 1 to 1000"
  void checkPushedBack(NodeId n) {
    NodeId p = node(n).parent;
    if (p != kNone && node(p).kind != FormKind::AbilityWindup)
      reportLine(DiagKind::PushedBackUnderWindupOnly, n, phaseWord(node(p).kind));
    if (const Slot *t = tree_.slot(n, "time")) {
      std::optional<Fixed> v = literal(t->value);
      if (!constant(t->value) || (v && v->raw <= 0))
        reportSlot(DiagKind::PushedBackConstant, n, *t, slotText(n, *t));
    }
    if (const Slot *most = tree_.slot(n, "most")) {
      std::optional<Fixed> v = number(n, *most);
      if (v && (!whole(*v) || *v < Fixed::fromInt(1) || *v > Fixed::fromInt(1000)))
        reportSlot(DiagKind::PushedBackAtMost, n, *most, slotText(n, *most));
    }
  }

  // phase every: "under a channel only"; "a beat ... Under it go cost clauses, then steps";
  // "Its interval is a constant longer than none, or a formula"
  void checkPhaseEvery(NodeId n) {
    NodeId p = node(n).parent;
    if (p != kNone && node(p).kind != FormKind::AbilityChannel)
      reportLine(DiagKind::EveryUnderChannelOnly, n, phaseWord(node(p).kind));
    if (const Slot *t = tree_.slot(n, "interval"))
      if (auto v = literal(t->value); v && v->raw <= 0)
        reportSlot(DiagKind::EveryIntervalNone, n, *t, slotText(n, *t));
    bool step = false;
    for (NodeId c = node(n).firstChild; c != kNone; c = node(c).nextSibling) {
      if (node(c).kind != FormKind::BeatCost)
        step = true;
      else if (step)
        reportLine(DiagKind::BeatCostAfterSteps, c);
    }
  }

  // takes, pierces, bounces, lands: "under a flight only"; flies: "pierces and bounces
  // are refused with it [at F]"
  void checkFlightLine(NodeId n) {
    NodeId p = node(n).parent;
    if (p == kNone)
      return;
    const Node &nd = node(n);
    std::string_view word = text(nd.file, nd.begin);
    if (node(p).kind != FormKind::AbilityFlies) {
      reportLine(DiagKind::UnderFlightOnly, n, word, phaseWord(node(p).kind));
      return;
    }
    bool timed = tree_.slot(p, "speed") != nullptr;
    if (timed && (nd.kind == FormKind::PhasePierces || nd.kind == FormKind::PhaseBounces))
      reportLine(DiagKind::TimedFlightRefuses, n, word);
    if (const Slot *count = tree_.slot(n, "count"))
      if (auto v = number(n, *count); v && (!whole(*v) || v->raw <= 0))
        reportSlot(DiagKind::FlightCountWhole, n, *count, word, slotText(n, *count));
  }

  // raise: "An activation's own events, a Commit, a Stopped, a Pulse, a Finished and a
  // Contact, ... and the Resolved that follows one ...; each is refused here"
  // A dies', a falls' or a holds' `raising` (form) names what it raises as a
  // raise step does: it has no change, apply or activation to give it.
  void checkRaise(NodeId n, bool step, const char *label = "event",
                  const char *form = nullptr) {
    const Slot *event = tree_.slot(n, label);
    if (!event)
      return;
    std::string_view name = slotText(n, *event);
    if (among(kActivationEvents, name) || (step && name == "Resolved")) {
      reportSlot(DiagKind::RaiseActivationEvent, n, *event, name);
      return;
    }
    // The world's own events and a pool's changes carry what happened (an
    // instance, a pool and an amount): a raise has none to give them.
    // A tag, a stat or a pool of the content is no event at all, which the
    // name's own check says.
    bool worlds = sema::among(sema::kBuiltinEvents, name) ||
                  sema::among(sema::kBuiltinEvents, name.substr(0, name.find('.')));
    if (worlds && form)
      reportSlot(DiagKind::RaisingWorldEvent, n, *event, name, form);
    else if (worlds)
      reportSlot(DiagKind::RaiseWorldEvent, n, *event, name);
  }

  // cast again: "in a rule on Activate, Commit or Resolved, the activation
  // heard once more"; anywhere else there is no activation heard to cast.
  void checkCastAgain(NodeId n) {
    const Slot *again = tree_.slot(n, "again");
    if (!again || insideTemplate(n))
      return; // a template's rule may hear what its use names
    NodeId p = node(n).parent;
    // Steps under an if, an else, a loop, a pick or an outcome's band are the
    // rule's around them.
    auto body = [&](NodeId b) {
      switch (node(b).kind) {
      case FormKind::StepIf:
      case FormKind::StepElse:
      case FormKind::StepForEach:
      case FormKind::StepRepeat:
      case FormKind::StepPick:
      case FormKind::StepOutcome:
      case FormKind::OutcomeBand:
        return true;
      default:
        return false;
      }
    };
    while (p != kNone && body(p))
      p = node(p).parent;
    std::string why = "this is no rule hearing an event";
    if (p != kNone &&
        (node(p).kind == FormKind::EffectBefore || node(p).kind == FormKind::EffectAfter)) {
      const Slot *filter = tree_.slot(p, "filter");
      const Slot *event = filter ? tree_.slot(filter->value, "event") : nullptr;
      if (!event)
        return;
      std::string_view heard = slotText(filter->value, *event);
      if (heard == "Activate" || heard == "Commit" || heard == "Resolved")
        return;
      why = "this rule hears `" + std::string(heard) + "`";
    }
    report(DiagKind::CastAgainOutOfRule, node(n).file, again->begin, again->end, why);
  }

  // repeat: "the count worked out once (at most 1,000)"
  void checkRepeat(NodeId n) {
    const Slot *count = tree_.slot(n, "count");
    if (!count)
      return;
    if (auto v = literal(count->value); v && *v > Fixed::fromInt(1000))
      reportSlot(DiagKind::RepeatAtMost, n, *count, slotText(n, *count));
  }

  // outcome band: "the last band takes the rest and says no bound"
  void checkOutcomeBands(NodeId n) {
    NodeId last = kNone;
    for (NodeId c = node(n).firstChild; c != kNone; c = node(c).nextSibling)
      if (node(c).kind == FormKind::OutcomeBand)
        last = c;
    if (last == kNone)
      return;
    if (const Slot *below = tree_.slot(last, "below"))
      report(DiagKind::LastBandBound, node(last).file, below->begin - 1, below->end);
  }

  // for each: "A name a step gives, here or by let or as, is never a root's word:
  // holder, source, credit, target and it are refused"
  void checkStepNames(NodeId n) {
    const Node &nd = node(n);
    for (uint32_t i = 0; i < nd.slotCount; ++i) {
      const Slot &s = tree_.slots[nd.firstSlot + i];
      std::string_view label = labelText(s.label);
      if (s.kind != SlotKind::Name || (label != "name" && label != "as"))
        continue;
      std::string_view name = slotText(n, s);
      if (among(kRootWords, name))
        reportSlot(DiagKind::StepNameIsRoot, n, s, name);
      else if (among(sema::kReserved, name))
        reportSlot(DiagKind::ReservedName, n, s, name, sema::reservedWhat(name));
      else if (const Decl *decl = declaredName(name))
        reportSlot(DiagKind::StepNameDeclared, n, s, name, refKindWithArticle(decl->kind));
    }
  }
  // let NAME: "a new name, declared here": no name the catalog declares, which
  // the step's own would hide from the steps after it (readings.md 129).
  const Decl *declaredName(std::string_view name) const {
    for (const auto &map : decls_.byNamespace)
      if (auto it = map.find(name); it != map.end())
        return &it->second;
    return nullptr;
  }

  // syntax.md: "The language's own words can't be declared": a var, a
  // template's parameter.
  void checkDeclaredWord(NodeId n, const char *label) {
    for (const Slot *s : tree_.slotsNamed(n, label)) {
      const Slot *name = s->kind == SlotKind::Part ? tree_.slot(s->value, "name") : s;
      NodeId owner = s->kind == SlotKind::Part ? s->value : n;
      if (name && among(sema::kReserved, slotText(owner, *name)))
        reportSlot(DiagKind::ReservedName, owner, *name, slotText(owner, *name),
                   sema::reservedWhat(slotText(owner, *name)));
    }
  }

  // template: each parameter once.
  void checkParamsOnce(NodeId n) {
    std::vector<std::string_view> seen;
    for (const Slot *s : tree_.slotsNamed(n, "param")) {
      const Slot *name = tree_.slot(s->value, "name");
      if (!name)
        continue;
      std::string_view text = slotText(s->value, *name);
      for (std::string_view earlier : seen)
        if (earlier == text)
          reportSlot(DiagKind::ParamTwice, s->value, *name, text);
      seen.push_back(text);
    }
  }

  // tags carried: "nothing else may carry an End tag"
  void checkCarriedEndTags(NodeId n) {
    if (tree_.hasFlag(n, "carried"))
      checkEndTags(n, "tags");
  }

  // stack then: "separate instances refuse a newcomer or make room by the
  // oldest or shortest, and added stacks refuse it or refresh the clock":
  // only those two fill, so a refresh, extend, ignore or replace says no then.
  void checkStackFull(NodeId n) {
    const Slot *mode = tree_.slot(n, "mode");
    const Slot *full = tree_.slot(n, "full");
    if (!mode || !full)
      return;
    std::string_view m = slotText(n, *mode), f = slotText(n, *full);
    bool ok = (m == "separate" && (f == "refuse" || f == "oldest" || f == "shortest")) ||
              (m == "add" && (f == "refuse" || f == "refresh"));
    if (!ok)
      reportSlot(DiagKind::StackFullWord, n, *full, f, m);
  }

  // turns: "an effect that lasts turns ends after that many of its
  // holder's" turns: the catalog's turn event; with none, no turn comes.
  void checkTurnDeclared(NodeId n) {
    if (hasTurn_ || !countsTurns(n))
      return;
    report(DiagKind::TurnsWithoutTurn, node(n).file, node(n).begin, node(n).end);
  }
  bool countsTurns(NodeId n) const {
    for (const char *label : {"unit", "until"})
      if (const Slot *s = tree_.slot(n, label); s && s->kind == SlotKind::Word) {
        std::string_view w = slotText(n, *s);
        if (w == "turns" || w == "turn")
          return true;
      }
    // A name the line gives or reads (a save called turn) is no count of turns.
    auto named = [&](uint32_t tok) {
      for (uint32_t s = node(n).firstSlot; s < node(n).firstSlot + node(n).slotCount; ++s) {
        const Slot &slot = tree_.slots[s];
        bool names = slot.kind == SlotKind::Name || slot.kind == SlotKind::Names ||
                     slot.kind == SlotKind::Path || slot.kind == SlotKind::Ref ||
                     slot.kind == SlotKind::Refs || slot.kind == SlotKind::Text;
        if (names && tok >= slot.begin && tok < slot.end)
          return true;
      }
      return false;
    };
    for (uint32_t i = node(n).begin; i < node(n).end; ++i) {
      std::string_view w = tree_.text(node(n).file, i);
      if ((w == "turns" || w == "turn") && tree_.token(node(n).file, i).kind == TokenKind::Name &&
          node(n).kind != FormKind::Turn && node(n).kind != FormKind::EffectHolds && !named(i))
        return true;
    }
    return false;
  }

  // turn: "a count of it is said as turns (or turn ...), never by the event's name"
  void checkTurnCount(NodeId n) {
    if (node(n).kind == FormKind::StepApply)
      checkStepNames(n);
    std::string_view turn = turnEvent();
    if (turn.empty())
      return;
    NodeId owner = n;
    const Slot *event = countedEvent(n, owner);
    if (event && slotText(owner, *event) == turn)
      reportSlot(DiagKind::TurnCountedByName, owner, *event, turn);
  }
  // A count of an event an apply, a duration change or an expect names:
  // "EVENT: a declared event, or a built-in one …, with a pool's change
  // named by its tag": a pool's own name is a filter's (lasts 2 Gold) alone.
  void checkCountNamesNoPool(NodeId n) {
    const Slot *event = tree_.slot(n, "event");
    if (!event || !tree_.slot(n, "count"))
      return;
    std::string name(slotText(n, *event));
    if (const Decl *value = decls_.find(Namespace::Value, name); value && value->kind == RefKind::Pool)
      reportSlot(DiagKind::CountNamesPool, n, *event, name);
  }
  std::string_view turnEvent() const {
    for (NodeId n = 0; n < tree_.nodes.size(); ++n)
      if (node(n).kind == FormKind::Turn)
        if (const Slot *s = tree_.slot(n, "event"))
          return slotText(n, *s);
    return {};
  }

  // answers: "it opens by an apply, never an aura, an item's gift or an archetype's has"
  void checkOpensByApply(NodeId n, std::string_view label, const char *how) {
    const Slot *s = tree_.slot(n, label);
    if (!s)
      return;
    eachItem(n, *s, [&](uint32_t b, uint32_t e) {
      std::string_view name = tree_.span(node(n).file, b, e);
      if (findLine(group(EffectDef, name), {FormKind::EffectAnswers}) != kNone)
        report(DiagKind::ChoiceOpensByApply, node(n).file, b, e, name, how);
    });
  }

  // event filter: "to for of and from for by are refused"
  void checkFilterWords(NodeId n) {
    const Node &nd = node(n);
    for (auto [label, instead] : {std::pair{"to", "of"}, std::pair{"from", "by"}}) {
      for (const Slot *s : tree_.slotsNamed(n, label)) {
        uint32_t word = s->begin > nd.begin ? s->begin - 1 : s->begin;
        report(DiagKind::FilterWordRefused, nd.file, word, word + 1, label, instead);
      }
    }
  }

  // pow, root: "N a whole number 1 to 9 written here"
  void checkFormulas() {
    for (ExprId id = 0; id < tree_.exprs.size(); ++id) {
      const Expr &e = tree_.exprs[id];
      if (e.kind != ExprKind::Call || e.nameEnd != e.begin + 1)
        continue;
      std::string_view name = text(e.file, e.begin);
      if ((name != "pow" && name != "root") || e.argCount < 2)
        continue;
      const Expr &arg = tree_.exprs[tree_.exprArgs[e.firstArg + 1]];
      const Token &tok = tree_.token(arg.file, arg.begin);
      bool ok = arg.kind == ExprKind::Number && tok.kind == TokenKind::Number && whole(tok.value) &&
                tok.value >= Fixed::fromInt(1) && tok.value <= Fixed::fromInt(9);
      if (!ok)
        report(DiagKind::PowerWrittenHere, arg.file, arg.begin, arg.end, name,
               tree_.span(arg.file, arg.begin, arg.end));
    }
  }

  // ---- formulas read: draws, names, fields -----------------------------------
  using ExprFn = std::function<void(ExprId)>;
  // Every formula of a line's own slots, the parts it is made of included, and
  // every formula inside them, the parts a formula holds (a query, a held(...))
  // included; not the lines under it.
  void walkExpr(ExprId id, const ExprFn &fn) const {
    if (id == kNone || id >= tree_.exprs.size())
      return;
    fn(id);
    const Expr &e = tree_.exprs[id];
    for (uint32_t i = 0; i < e.argCount; ++i)
      walkExpr(tree_.exprArgs[e.firstArg + i], fn);
    if (e.kind == ExprKind::Part && e.part != kNone)
      walkNode(e.part, fn);
  }
  void walkNode(NodeId n, const ExprFn &fn) const {
    const Node &nd = node(n);
    for (uint32_t i = 0; i < nd.slotCount; ++i) {
      const Slot &s = tree_.slots[nd.firstSlot + i];
      if (s.kind == SlotKind::Formula || s.kind == SlotKind::Duration)
        walkExpr(s.value, fn);
      else if (s.kind == SlotKind::Part && s.value != kNone)
        walkNode(s.value, fn);
    }
  }
  // A line and every line under it.
  void walkLines(NodeId n, const ExprFn &fn) const {
    walkNode(n, fn);
    for (NodeId c = node(n).firstChild; c != kNone; c = node(c).nextSibling)
      walkLines(c, fn);
  }
  std::string_view exprText(ExprId id) const {
    const Expr &e = tree_.exprs[id];
    return tree_.span(e.file, e.begin, e.end);
  }
  // A call of a one-word function: chance, sum.
  std::string_view callName(ExprId id) const {
    const Expr &e = tree_.exprs[id];
    if (e.kind != ExprKind::Call || e.nameEnd != e.begin + 1)
      return {};
    return text(e.file, e.begin);
  }
  // "a draw, journaled": chance(), roll(), draw()
  bool isDraw(ExprId id) const {
    std::string_view name = callName(id);
    return name == "chance" || name == "roll" || name == "draw";
  }
  ExprId firstDraw(ExprId root) const {
    ExprId found = kNone;
    walkExpr(root, [&](ExprId id) {
      if (found == kNone && isDraw(id))
        found = id;
    });
    return found;
  }
  // A path's last name: `Resist` of holder.Resist.
  std::string_view lastName(ExprId id) const {
    const Expr &e = tree_.exprs[id];
    return text(e.file, e.end - 1);
  }
  template <typename... Args> bool reportExpr(DiagKind kind, ExprId id, const Args &...args) {
    const Expr &e = tree_.exprs[id];
    return report(kind, e.file, e.begin, e.end, args...);
  }
  std::vector<NodeId> lineNodes() const {
    std::vector<NodeId> out;
    std::function<void(NodeId)> add = [&](NodeId n) {
      for (; n != kNone; n = node(n).nextSibling) {
        out.push_back(n);
        add(node(n).firstChild);
      }
    };
    for (NodeId first : tree_.fileFirstNode)
      add(first);
    return out;
  }
  std::string_view declaredTimeStat() const {
    for (NodeId n = 0; n < tree_.nodes.size(); ++n)
      if (node(n).kind == FormKind::Time)
        if (const Slot *s = tree_.slot(n, "stat"))
          return slotText(n, *s);
    return {};
  }

  void checkReads() {
    std::set<std::string_view> kept, drifting, maxima;
    std::map<std::string_view, NodeId> stats;
    std::map<std::string_view, std::string_view> regenStats; // stat -> a pool drifting at it
    std::vector<ExprId> periodReads; // the names pools' periods read
    for (NodeId n = 0; n < tree_.nodes.size(); ++n) {
      const Node &nd = node(n);
      if (nd.kind != FormKind::Stat && nd.kind != FormKind::Pool)
        continue;
      const Slot *name = tree_.slot(n, "name");
      if (!name)
        continue;
      std::string_view nm = slotText(n, *name);
      if (nd.kind == FormKind::Stat) {
        stats.emplace(nm, n);
      } else {
        if (tree_.hasFlag(n, "kept"))
          kept.insert(nm);
        if (tree_.slot(n, "regen") || tree_.slot(n, "refill"))
          drifting.insert(nm);
        if (const Slot *regen = tree_.slot(n, "regen"))
          regenStats.emplace(slotText(n, *regen), nm);
        // A period written as a formula: what it reads is what the drift reads.
        for (const char *label : {"per", "every"})
          if (const Slot *period = tree_.slot(n, label))
            walkExpr(period->value, [&](ExprId id) {
              if (tree_.exprs[id].kind == ExprKind::Path) {
                periodReads.push_back(id);
                regenStats.emplace(lastName(id), nm);
              }
            });
        if (tree_.hasFlag(n, "kept") && (tree_.slot(n, "regen") || tree_.slot(n, "refill")))
          report(DiagKind::KeptDrifts, nd.file, name->begin, name->end, nm);
        if (const Slot *mx = tree_.slot(n, "max"); mx && !literal(mx->value))
          maxima.insert(slotText(n, *mx));
      }
    }
    for (ExprId id : periodReads)
      if (kept.count(lastName(id)))
        reportExpr(DiagKind::KeptWaitedOn, id, lastName(id), "drift");
    std::set<std::string_view> autos;
    for (NodeId n = 0; n < tree_.nodes.size(); ++n) {
      const Node &nd = node(n);
      if (nd.kind != FormKind::EffectGrants && nd.kind != FormKind::ArchetypeGrants)
        continue;
      const Slot *abilities = tree_.slot(n, "abilities");
      if (abilities && tree_.slot(n, "auto"))
        eachItem(n, *abilities,
                 [&](uint32_t b, uint32_t e) { autos.insert(tree_.span(nd.file, b, e)); });
    }
    std::string_view timeStat = declaredTimeStat();
    std::map<std::pair<std::string_view, std::string_view>, const char *> categoryKinds;

    for (NodeId n : lineNodes()) {
      switch (node(n).kind) {
      case FormKind::TableWhen:
        checkTableWhen(n);
        break;
      case FormKind::AbilityWith:
        checkWithReads(n);
        break;
      case FormKind::BeforePrevent:
        checkPreventAmount(n);
        break;
      case FormKind::BeforeAbsorb:
        checkAbsorbRead(n);
        break;
      case FormKind::AbilityFlies:
        checkFlightClock(n, stats);
        break;
      case FormKind::EffectAura:
        checkAuraLines(n, kept);
        checkAuraLineReads(n);
        break;
      case FormKind::BeforeAddDuration:
        checkAddDurationCount(n);
        break;
      case FormKind::AbilityRequires:
        checkAutoRequirement(n, autos, kept);
        break;
      case FormKind::EffectModifier:
        checkClockModifier(n, timeStat);
        checkCategoryKind(n, categoryKinds);
        checkModifierReadsKept(n, kept);
        checkDriftReadsKept(n, regenStats, kept);
        break;
      case FormKind::ArchetypeBase:
        checkDriftReadsKept(n, regenStats, kept);
        break;
      default:
        break;
      }
    }
    if (!timeStat.empty())
      checkTimeStatReads(timeStat, drifting, maxima);
    for (NodeId n = 0; n < tree_.nodes.size(); ++n)
      if (node(n).kind == FormKind::Keys)
        checkKeysDraw(n);
    checkAggregates();
  }

  // table when: "read for each row ...; it can't draw"
  void checkTableWhen(NodeId n) {
    if (const Slot *w = tree_.slot(n, "when"))
      if (ExprId d = firstDraw(w->value); d != kNone)
        reportExpr(DiagKind::TableWhenDraws, d, callName(d));
  }

  // grants KEYS: "a key reads only, so it can't draw"
  void checkKeysDraw(NodeId n) {
    for (const char *label : {"highest", "lowest"})
      for (const Slot *s : tree_.slotsNamed(n, label))
        if (ExprId d = firstDraw(s->value); d != kNone)
          reportExpr(DiagKind::SortKeyDraws, d, callName(d));
  }

  // sum, highest, lowest: "It is read once for each, can't draw, and holds no other
  // aggregate over a query"
  void checkAggregates() {
    for (ExprId id = 0; id < tree_.exprs.size(); ++id) {
      std::string_view name = callName(id);
      if (name != "sum" && name != "highest" && name != "lowest")
        continue;
      const Expr &e = tree_.exprs[id];
      if (e.argCount < 2)
        continue;
      ExprId f = tree_.exprArgs[e.firstArg + 1];
      if (ExprId d = firstDraw(f); d != kNone)
        reportExpr(DiagKind::AggregateDraws, d, name, callName(d));
      walkExpr(f, [&](ExprId inner) {
        std::string_view in = callName(inner);
        if (in != "sum" && in != "highest" && in != "lowest" && in != "count")
          return;
        const Expr &ie = tree_.exprs[inner];
        if (ie.argCount < 1)
          return;
        const Expr &arg = tree_.exprs[tree_.exprArgs[ie.firstArg]];
        if (arg.kind == ExprKind::Part && arg.part != kNone &&
            node(arg.part).kind == FormKind::TargetsQuery)
          reportExpr(DiagKind::AggregateNested, inner, name, in);
      });
    }
  }

  // with: "so is one its requirements, costs, reach or phase's length read ...; it can't
  // draw"
  void checkWithReads(NodeId n) {
    std::map<std::string, const Slot *> props;
    std::map<std::string, NodeId> owners;
    for (const Slot *a : tree_.slotsNamed(n, "assign")) {
      if (a->value == kNone)
        continue;
      if (const Slot *v = tree_.slot(a->value, "value"))
        if (ExprId d = firstDraw(v->value); d != kNone)
          reportExpr(DiagKind::WithDraws, d, callName(d));
      if (const Slot *name = tree_.slot(a->value, "name")) {
        std::string key = "event.";
        key += slotText(a->value, *name);
        props[key] = name;
        owners[key] = a->value;
      }
    }
    if (props.empty())
      return;
    Group g = groupOf(n);
    for (NodeId c : lines(g)) {
      std::vector<std::pair<const char *, const char *>> reads;
      switch (node(c).kind) {
      case FormKind::AbilityRequires:
        reads = {{"cond", "requirement"}};
        break;
      case FormKind::AbilityCost:
        reads = {{"amount", "cost"}};
        break;
      case FormKind::AbilityTarget:
        reads = {{"within", "reach"}};
        break;
      case FormKind::AbilityWindup:
      case FormKind::AbilityChannel:
      case FormKind::AbilityCharge:
        reads = {{"time", "phase's length"}};
        break;
      case FormKind::AbilityFlies:
        reads = {{"cap", "phase's length"}};
        break;
      default:
        break;
      }
      for (auto [label, what] : reads)
        if (const Slot *s = tree_.slot(c, label))
          walkExpr(s->value, [&](ExprId id) {
            if (tree_.exprs[id].kind != ExprKind::Path)
              return;
            auto it = props.find(std::string(exprText(id)));
            if (it != props.end())
              reportSlot(DiagKind::WithReadBeforeActivate, owners[it->first], *it->second,
                         slotText(owners[it->first], *it->second), what);
          });
    }
  }

  // prevent: "as NAME keeps what it took for the steps below, where event.amount, which
  // it leaves nothing, is refused"
  void checkPreventAmount(NodeId n) {
    const Slot *as = tree_.slot(n, "as");
    if (!as)
      return;
    for (NodeId c = node(n).nextSibling; c != kNone; c = node(c).nextSibling)
      walkLines(c, [&](ExprId id) {
        if (tree_.exprs[id].kind == ExprKind::Path && exprText(id) == "event.amount")
          reportExpr(DiagKind::PreventAmountRead, id, slotText(n, *as));
      });
  }

  // absorb: "as NAME keeps what it took for the steps below, which must read it"
  void checkAbsorbRead(NodeId n) {
    const Slot *as = tree_.slot(n, "as");
    if (!as)
      return;
    std::string_view name = slotText(n, *as);
    bool read = false, steps = false;
    for (NodeId c = node(n).nextSibling; c != kNone && !read; c = node(c).nextSibling) {
      steps = steps || !isBeforeChange(node(c).kind);
      walkLines(c, [&](ExprId id) {
        const Expr &e = tree_.exprs[id];
        if (e.kind == ExprKind::Path && text(e.file, e.begin) == name)
          read = true;
      });
    }
    // (read: with no step below, there is nothing it keeps the name for)
    if (steps && !read)
      reportSlot(DiagKind::AbsorbNameUnread, n, *as, name);
  }
  static bool isBeforeChange(FormKind k) {
    switch (k) {
    case FormKind::BeforePrevent:
    case FormKind::BeforeConvert:
    case FormKind::BeforeScale:
    case FormKind::BeforeEvent:
    case FormKind::BeforeAdd:
    case FormKind::BeforeReduce:
    case FormKind::BeforeAtLeast:
    case FormKind::BeforeAtMost:
    case FormKind::BeforeAbsorb:
    case FormKind::BeforeRedirect:
      return true;
    default:
      return false;
    }
  }

  // flies: "and so is a clock STAT its archetype has no base for and the stat no default"
  void checkFlightClock(NodeId n, const std::map<std::string_view, NodeId> &stats) {
    const Slot *clock = tree_.slot(n, "clock");
    const Slot *arch = tree_.slot(n, "archetype");
    if (!clock || !arch)
      return;
    std::string_view stat = slotText(n, *clock);
    auto st = stats.find(stat);
    if (st == stats.end() || tree_.slot(st->second, "default"))
      return;
    Group g = group(ArchetypeDef, slotText(n, *arch));
    if (g.open)
      return;
    for (NodeId c : lines(g))
      if (node(c).kind == FormKind::ArchetypeBase)
        if (const Slot *s = tree_.slot(c, "stat"); s && slotText(c, *s) == stat)
          return;
    reportSlot(DiagKind::FlightClockNoBase, n, *clock, stat, slotText(n, *arch));
  }

  // aura: "one the pool's bounds keep it from passing (< 0 on a pool whose least is 0) is
  // refused ... two constant lines some reading holds both of ... are refused";
  // stat kept: "nothing may wait on it: no ... band ... reading it"
  // aura while/until: "a line reads its holder's own values, not what it
  // holds (has, stacks, count) or a table": no held(...), no query, no
  // aggregate, no table, and no actor but the holder.
  void checkAuraLineReads(NodeId n) {
    for (const char *label : {"line", "untilLine"}) {
      const Slot *line = tree_.slot(n, label);
      if (!line)
        continue;
      walkExpr(line->value, [&](ExprId id) {
        const Expr &e = tree_.exprs[id];
        std::string_view what;
        if (e.kind == ExprKind::Part) {
          what = tree_.span(e.file, e.begin, e.end);
        } else if (e.kind == ExprKind::Call) {
          std::string_view f = tree_.span(e.file, e.begin, e.nameEnd);
          bool held = f == "has" || f == "stacks" || f == "highest stacks" || f == "count" ||
                      f == "sum" || f == "highest" || f == "lowest" || f == "ordered";
          bool table = !held && tableNames_.count(f);
          if (held || table)
            what = f;
        } else if (e.kind == ExprKind::Path && e.end > e.begin + 1) {
          std::string_view head = tree_.text(e.file, e.begin);
          // holder.VALUE is the holder's own; anything further reads another.
          if (head != "holder" || e.end > e.begin + 3)
            what = tree_.span(e.file, e.begin, e.end);
        }
        if (!what.empty())
          report(DiagKind::AuraLineReadsMore, e.file, e.begin, e.end, what);
      });
    }
  }

  void checkAuraLines(NodeId n, const std::set<std::string_view> &kept) {
    struct Line {
      const Slot *pool, *cmp, *line;
    };
    Line first{tree_.slot(n, "pool"), tree_.slot(n, "cmp"), tree_.slot(n, "line")};
    Line until{tree_.slot(n, "untilPool"), tree_.slot(n, "untilCmp"), tree_.slot(n, "untilLine")};
    if (!first.pool || !first.cmp || !first.line)
      return;
    auto cmpOf = [&](const Line &l) { return slotText(n, *l.cmp); };
    auto holds = [](std::string_view cmp, int64_t x, int64_t c) {
      if (cmp == "<")
        return x < c;
      if (cmp == "<=")
        return x <= c;
      if (cmp == ">")
        return x > c;
      if (cmp == ">=")
        return x >= c;
      if (cmp == "=" || cmp == "==")
        return x == c;
      return x != c;
    };
    for (const Line &l : {first, until}) {
      if (!l.pool || !l.cmp || !l.line)
        continue;
      std::string_view pool = slotText(n, *l.pool);
      if (kept.count(pool))
        reportSlot(DiagKind::KeptWaitedOn, n, *l.pool, pool, "band");
      std::optional<Fixed> c = literal(l.line->value);
      if (!c)
        continue;
      // The pool's bounds, where they are numbers written.
      std::optional<Fixed> least = Fixed{0}, most;
      for (NodeId p = 0; p < tree_.nodes.size(); ++p) {
        if (node(p).kind != FormKind::Pool)
          continue;
        const Slot *name = tree_.slot(p, "name");
        if (!name || slotText(p, *name) != pool)
          continue;
        if (const Slot *mn = tree_.slot(p, "min"))
          least = literal(mn->value);
        if (const Slot *mx = tree_.slot(p, "max"))
          most = literal(mx->value);
      }
      std::string_view cmp = cmpOf(l);
      bool never = (least && (cmp == "<" || cmp == "<=" || cmp == "=" || cmp == "==") &&
                    !holds(cmp, least->raw, c->raw) && c->raw <= least->raw) ||
                   (most && (cmp == ">" || cmp == ">=" || cmp == "=" || cmp == "==") &&
                    !holds(cmp, most->raw, c->raw) && c->raw >= most->raw);
      if (never)
        report(DiagKind::AuraLineNeverCrossed, node(n).file, l.cmp->begin, l.line->end, pool, cmp,
               slotText(n, *l.line));
    }
    if (!until.pool || !until.cmp || !until.line ||
        slotText(n, *first.pool) != slotText(n, *until.pool))
      return;
    std::optional<Fixed> a = literal(first.line->value), b = literal(until.line->value);
    if (!a || !b)
      return;
    std::string_view ca = cmpOf(first), cb = cmpOf(until);
    bool both = false;
    for (int64_t base : {a->raw, b->raw})
      for (int64_t d : {-1, 0, 1})
        both = both || (holds(ca, base + d, a->raw) && holds(cb, base + d, b->raw));
    for (int64_t far : {INT64_MIN / 2, INT64_MAX / 2})
      both = both || (holds(ca, far, a->raw) && holds(cb, far, b->raw));
    if (both)
      report(DiagKind::AuraLinesOverlap, node(n).file, until.cmp->begin, until.line->end,
             tree_.span(node(n).file, first.cmp->begin, first.line->end),
             tree_.span(node(n).file, until.cmp->begin, until.line->end));
  }

  // add duration: "adds to what an Apply will install in that unit ..., a count a whole
  // number"
  void checkAddDurationCount(NodeId n) {
    for (const char *label : {"turns", "count"})
      if (const Slot *s = tree_.slot(n, label))
        if (auto v = literal(s->value); v && !whole(*v))
          reportSlot(DiagKind::AddDurationCountWhole, n, *s, slotText(n, *s));
  }

  // active(): "An auto's requirement may not read it"; remaining(), elapsed(): "Read
  // where active is, and refused where it is"; stat kept: "nothing may wait on it: no
  // ... auto ... reading it"
  void checkAutoRequirement(NodeId n, const std::set<std::string_view> &autos,
                            const std::set<std::string_view> &kept) {
    const Slot *cond = tree_.slot(n, "cond");
    if (!cond || autos.empty())
      return;
    // The abilities this line's definition is, by its own name and extends.
    std::string_view name;
    for (NodeId p = node(n).parent; p != kNone && name.empty(); p = node(p).parent) {
      if (node(p).kind == FormKind::Ability) {
        if (const Slot *s = tree_.slot(p, "name"))
          name = slotText(p, *s);
      } else if (node(p).kind == FormKind::Extend || node(p).kind == FormKind::Replace) {
        const Slot *k = tree_.slot(p, "kind");
        const Slot *t = tree_.slot(p, "target");
        if (k && t && slotText(p, *k) == "ability")
          name = slotText(p, *t);
      }
    }
    std::string_view granted;
    for (std::string_view a : autos) {
      if (a == name) {
        granted = a;
        break;
      }
      for (NodeId b : group(AbilityDef, a).bodies)
        if (b == node(n).parent)
          granted = a;
      if (!granted.empty())
        break;
    }
    if (granted.empty())
      return;
    walkExpr(cond->value, [&](ExprId id) {
      std::string_view fn = callName(id);
      if (fn == "active" || fn == "remaining" || fn == "elapsed")
        reportExpr(DiagKind::AutoRequirementReadsActive, id, fn, granted);
      const Expr &e = tree_.exprs[id];
      if (e.kind == ExprKind::Path && kept.count(lastName(id)))
        reportExpr(DiagKind::KeptWaitedOn, id, lastName(id), "requirement of an auto");
    });
  }

  // clock: "an effect whose own modifiers move the rate of its clock says which it means"
  void checkClockModifier(NodeId n, std::string_view timeStat) {
    const Slot *stat = tree_.slot(n, "stat");
    if (timeStat.empty() || !stat || slotText(n, *stat) != timeStat)
      return;
    Group g = groupOf(n);
    if (g.open || findLine(g, {FormKind::EffectClock}) != kNone)
      return;
    reportSlot(DiagKind::ClockUnsaid, n, *stat, timeStat);
  }

  // categories: "its terms are of one kind, an add, a percent or a factor"
  // (read of the terms on one stat: only those are weighed against each other)
  void
  checkCategoryKind(NodeId n,
                    std::map<std::pair<std::string_view, std::string_view>, const char *> &seen) {
    const Slot *cat = tree_.slot(n, "category");
    const Slot *stat = tree_.slot(n, "stat");
    const Slot *op = tree_.slot(n, "op");
    const Slot *amount = tree_.slot(n, "amount");
    if (!cat || !stat || !op || !amount || amount->value == kNone)
      return;
    std::string_view o = slotText(n, *op);
    const char *kind = nullptr;
    if (o == "x") {
      kind = "a factor";
    } else if (o == "+" || o == "-") {
      // "+ N% ... (a percent, or a percent times a formula)"; "+ F * N%" adds a share
      ExprId lead = amount->value;
      while (tree_.exprs[lead].kind == ExprKind::Binary && tree_.exprs[lead].argCount > 0)
        lead = tree_.exprArgs[tree_.exprs[lead].firstArg];
      const Expr &le = tree_.exprs[lead];
      bool percent =
          le.kind == ExprKind::Number && tree_.token(le.file, le.begin).kind == TokenKind::Percent;
      kind = percent ? "a percent" : "an add";
    } else {
      reportLine(DiagKind::CategoryTermKind, n, slotText(n, *cat), slotText(n, *stat), o);
      return;
    }
    std::string_view name = slotText(n, *cat);
    auto [it, fresh] = seen.emplace(std::pair{name, slotText(n, *stat)}, kind);
    if (!fresh && std::string_view(it->second) != kind)
      reportLine(DiagKind::CategoryTermsOneKind, n, name, slotText(n, *stat), kind, it->second);
  }

  // stat kept: "nothing may wait on it: no drift, band, auto or modifier reading it"
  // kept: "no drift … reading it": a pool's regen stat made (by a base or a
  // modifier) from a kept pool.
  void checkDriftReadsKept(NodeId n, const std::map<std::string_view, std::string_view> &regenStats,
                           const std::set<std::string_view> &kept) {
    const Slot *stat = tree_.slot(n, "stat");
    if (kept.empty() || !stat || !regenStats.count(slotText(n, *stat)))
      return;
    walkNode(n, [&](ExprId id) {
      if (tree_.exprs[id].kind == ExprKind::Path && kept.count(lastName(id)))
        reportExpr(DiagKind::KeptWaitedOn, id, lastName(id), "drift");
    });
  }

  void checkModifierReadsKept(NodeId n, const std::set<std::string_view> &kept) {
    if (kept.empty())
      return;
    walkNode(n, [&](ExprId id) {
      if (tree_.exprs[id].kind == ExprKind::Path && kept.count(lastName(id)))
        reportExpr(DiagKind::KeptWaitedOn, id, lastName(id), "modifier");
    });
  }

  // time: "the stat reads what a pool's bound reads ..., but no pool's maximum, no pool
  // that drifts and no time", itself or through the stats it reads.
  void checkTimeStatReads(std::string_view timeStat, const std::set<std::string_view> &drifting,
                          const std::set<std::string_view> &maxima) {
    // What a name read is, where the time stat can't read it.
    auto forbidden = [&](ExprId id) -> const char * {
      const Expr &e = tree_.exprs[id];
      if (e.kind == ExprKind::Call && e.nameEnd == e.begin + 1) {
        // An activation's time: elapsed(ACTOR), remaining(ACTOR).
        std::string_view fn = text(e.file, e.begin);
        return fn == "elapsed" || fn == "remaining" ? "time" : nullptr;
      }
      if (e.kind != ExprKind::Path)
        return nullptr;
      std::string_view name = lastName(id);
      bool member = e.end > e.begin + 1; // an effect's time: self.elapsed, it.remaining
      return name == timeStat                                        ? "time"
             : member && (name == "elapsed" || name == "remaining") ? "time"
             : drifting.count(name)                                 ? "a pool that drifts"
             : maxima.count(name)                                   ? "a pool's maximum"
                                                                    : nullptr;
    };
    auto nameOf = [&](ExprId id) {
      const Expr &e = tree_.exprs[id];
      return e.kind == ExprKind::Call ? text(e.file, e.begin) : lastName(id);
    };
    // Each stat's bases and terms.
    std::map<std::string_view, std::vector<ExprId>, std::less<>> readsOf;
    for (NodeId n : lineNodes()) {
      FormKind k = node(n).kind;
      if (k != FormKind::ArchetypeBase && k != FormKind::EffectModifier)
        continue;
      const Slot *stat = tree_.slot(n, "stat");
      const Slot *value = tree_.slot(n, k == FormKind::ArchetypeBase ? "value" : "amount");
      if (stat && value)
        readsOf[slotText(n, *stat)].push_back(value->value);
    }
    // Whether a stat, through what it reads, reads what the time stat can't.
    constexpr const char *kThrough = "a stat reading a pool that drifts, a pool's maximum or time";
    std::map<std::string_view, bool, std::less<>> reachesFrom;
    std::function<bool(std::string_view)> reaches = [&](std::string_view stat) {
      if (auto it = reachesFrom.find(stat); it != reachesFrom.end())
        return it->second;
      reachesFrom[stat] = false; // a loop back ends here
      bool found = false;
      for (ExprId root : readsOf[stat])
        walkExpr(root, [&](ExprId id) {
          found = found || forbidden(id) ||
                  (tree_.exprs[id].kind == ExprKind::Path && readsOf.count(lastName(id)) &&
                   reaches(lastName(id)));
        });
      return reachesFrom[stat] = found;
    };
    reachesFrom[timeStat] = false;
    auto terms = readsOf.find(timeStat);
    if (terms == readsOf.end())
      return;
    for (ExprId root : terms->second)
      walkExpr(root, [&](ExprId id) {
        if (const char *what = forbidden(id))
          reportExpr(DiagKind::TimeStatReads, id, timeStat, nameOf(id), what);
        else if (tree_.exprs[id].kind == ExprKind::Path && readsOf.count(lastName(id)) &&
                 reaches(lastName(id)))
          reportExpr(DiagKind::TimeStatReads, id, timeStat, lastName(id), kThrough);
      });
  }

  bool hasTurn_ = false; // the catalog says `turn EVENT`
  std::set<std::string_view> tableNames_;
  const SyntaxTree &tree_;
  const Declarations &decls_;
  DiagnosticEngine &diags_;
  std::set<std::tuple<uint32_t, uint32_t, uint16_t>> reported_;
  NodeId firstFalls_ = kNone;
  std::optional<bool> slotAll_;
};

} // namespace

void checkRefusals(const SyntaxTree &tree, const Declarations &decls, DiagnosticEngine &diags) {
  Refusals(tree, decls, diags).run();
}

} // namespace ledger
