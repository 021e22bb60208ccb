// The lowering's state, shared by its two halves: the tables
// (lower_tables.cpp) and the bodies, formulas and steps (lower_bodies.cpp).
#pragma once

#include "ir/ir.h"
#include "pack_abi.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ledger::ir {

using pack::Id;
using pack::kNoId;
// The pack format's records, by their own names in the lowering's files; its
// expressions are pack::Expr beside the syntax tree's Expr.
using pack::Action;
using pack::ActionOp;
using pack::Block;
using pack::Body;
using pack::BodyKind;
using pack::BuiltinEvent;
using pack::BuiltinTag;
using pack::ClockKind;
using pack::Cost;
using pack::Curve;
using pack::Effect;
using pack::EventField;
using pack::EventRole;
using pack::Filter;
using pack::Fold;
using pack::FoldKind;
using pack::FullMode;
using pack::InstanceField;
using pack::Lasts;
using pack::LastsKind;
using pack::LinkOverride;
using pack::ModOp;
using pack::Modifier;
using pack::Prop;
using pack::PropKind;
using pack::Quantifier;
using pack::Query;
using pack::QueryKind;
using pack::Read;
using pack::ReadOp;
using pack::Requirement;
using pack::Rise;
using pack::Rounding;
using pack::Rule;
using pack::RuleKind;
using pack::Side;
using pack::StackMode;
using pack::StackPolicy;
using pack::Step;
using pack::StepOp;
using pack::Subject;
using pack::Tag;
using pack::TagSet;
using pack::TargetKind;
using pack::Value;
using pack::ValueKind;
using pack::Var;
using pack::VarKind;
using pack::Who;
using pack::WhoClause;
using pack::Ability;
using pack::Archetype;
using pack::ArchetypeValue;
using namespace pack::flags;

// What a formula gives, as far as the lowering must know to read its members.
// Result: a step's `as NAME`, its row counts in four slots (done, made,
// merged, refused).
enum class Kind : uint8_t { Number, Actor, Instance, Tag, Ability, List, Result };

struct Lowered {
  Id expr = kNoId;
  Kind kind = Kind::Number;
};

// The names a body's lines may read beyond the catalog's.
struct BodyScope {
  Id effect = kNoId;  // its vars are self.VAR
  Id ability = kNoId;
  bool itIsInstance = false;
  // Whose value a bare VALUE reads: the holder's, or in a sort key's bare
  // VALUE, each candidate's (it).
  uint32_t bareValueOf = LEDGER_SLOT_HOLDER;
  // A held(...) ORDER: "stacks, remaining, elapsed and suspended alone are it's".
  bool bareFieldsOfIt = false;
  struct Local {
    std::string name;
    uint32_t slot;
    Kind kind;
  };
  std::vector<Local> locals;
  uint32_t nextSlot = LEDGER_SLOT_FIRST_LOCAL;
  uint32_t *maxSlot = nullptr;

  // `it` bound afresh (a query's candidate, a held instance): the nearer
  // binding hides a for each's unnamed `it`.
  void bindIt(bool instance) {
    itIsInstance = instance;
    std::erase_if(locals, [](const Local &l) { return l.name == "it"; });
  }
  const Local *find(std::string_view name) const {
    for (auto it = locals.rbegin(); it != locals.rend(); ++it)
      if (it->name == name)
        return &*it;
    return nullptr;
  }
  uint32_t add(std::string name, Kind kind, uint32_t width = 1) {
    uint32_t slot = nextSlot;
    nextSlot += width;
    if (maxSlot && *maxSlot < nextSlot)
      *maxSlot = nextSlot;
    locals.push_back({std::move(name), slot, kind});
    return slot;
  }
};

class Lowerer {
public:
  Lowerer(const SyntaxTree &tree, const Declarations &decls, DiagnosticEngine &diags)
      : tree_(tree), decls_(decls), diags_(diags) {}
  pack::Tables run();

private:
  // ---- the syntax tree -------------------------------------------------------
  std::string slotText(NodeId n, std::string_view label) const;
  std::string spanText(uint32_t file, uint32_t begin, uint32_t end) const {
    return std::string(tree_.span(file, begin, end));
  }
  template <typename Fn> void eachChild(NodeId n, Fn fn) const {
    for (NodeId c = tree_.nodes[n].firstChild; c != kNone; c = tree_.nodes[c].nextSibling)
      fn(c);
  }
  uint32_t lineOf(NodeId n) const;
  void notRunYet(NodeId n, const std::string &what);
  std::vector<std::string> listItems(NodeId n, std::string_view label) const;
  // A number slot (N): a literal, maybe signed.
  int64_t literal(NodeId n, std::string_view label) const;
  void lowerPeriod(uint32_t file, const Slot &slot, uint32_t line, int64_t &period, Id &body);

  // ---- names and tables ------------------------------------------------------
  Id name(std::string_view text);
  Id find(const std::map<std::string, Id, std::less<>> &map, std::string_view key) const {
    auto it = map.find(key);
    return it == map.end() ? kNoId : it->second;
  }
  Id tagId(std::string_view name);
  // self.VAR: the index of a var of the effect whose body this is.
  Id varIndex(std::string_view var, const BodyScope &scope) const;
  // A TAG slot of a change, or self.VAR (a tag var) in its place: the tag,
  // or the var's index with kTagInVar set on the action.
  Id tagOrVar(NodeId n, std::string_view label, pack::Action &a, const BodyScope &scope);
  pack::TagSet internSet(const std::vector<uint64_t> &bits);
  pack::TagSet tagSet(const std::vector<std::string> &names, bool closed);
  pack::TagSet tagsOf(NodeId n, std::string_view label, bool closed);
  Id valueId(std::string_view name) const { return find(values_, name); }

  void declareTags();
  void declareNames();
  void lowerValues();
  void lowerProps();
  void lowerCurves();
  void declareEffectVars(Id id, const Decl &decl);
  std::vector<std::vector<NodeId>> effectVarLines_; // by effect: its var lines, laid out
  void lowerEffect(Id id, const Decl &decl);
  void lowerEffectClause(Id id, NodeId c, std::vector<pack::Rule> &rules,
                         std::vector<pack::Modifier> &mods, std::vector<pack::Block> &blocks,
                         std::vector<pack::LinkOverride> &overrides, std::vector<Id> &grants,
                         std::vector<pack::AutoGrant> &autos, std::vector<Id> &grantVars);
  void lowerAbility(Id id, const Decl &decl);
  void autoGrants(NodeId c, std::vector<pack::AutoGrant> &autos);
  void lowerArchetype(Id id, const Decl &decl);
  void refuseValuesReadingThemselves();
  void holderValuesRead(Id body, std::vector<Id> &out) const;
  std::vector<NodeId> baseNodes_; // by archetypeValues index: a base's line
  std::vector<NodeId> modifierNodes_; // by modifiers index: a term's line
  pack::Filter lowerFilter(NodeId filterPart, BodyScope &scope);
  Id matchBody(const pack::Filter &f, NodeId filterPart, BodyScope scope);
  Id targetingTest(NodeId filterPart, const pack::WhoClause &w, BodyScope &scope);
  Id whoTest(NodeId filterPart, std::string_view label, const pack::WhoClause &w,
             pack::EventRole role, BodyScope &scope);
  pack::WhoClause lowerWho(NodeId n, std::string_view label, BodyScope &scope);
  void declareCooldowns();
  void lowerRule(Id effect, NodeId c, pack::RuleKind kind, std::vector<pack::Rule> &rules);
  bool readsBeyondHolder(Id expr) const;

  // ---- bodies ----------------------------------------------------------------
  Id formulaBody(uint32_t file, ExprId e, BodyScope scope, uint32_t line);
  Id formulaBodyOf(uint32_t file, Id root, uint32_t slots, uint32_t line);
  Id constBody(int64_t value);
  Id pathBody(NodeId n, std::string_view label, BodyScope scope);
  pack::TagSet tagSetWith(pack::TagSet set, Id tag);
  Id stepsBody(const std::vector<NodeId> &lines, BodyScope scope, NodeId at);
  std::vector<NodeId> childrenOf(NodeId n) const;
  Lowered expr(uint32_t file, ExprId e, BodyScope &scope);
  Lowered path(uint32_t file, uint32_t begin, uint32_t end, BodyScope &scope, ExprId at);
  Lowered member(Lowered base, std::string_view name, uint32_t file, uint32_t tok);
  Lowered grantOf();
  Lowered call(uint32_t file, const Expr &e, BodyScope &scope, ExprId at);
  Id addExpr(pack::Expr e, std::initializer_list<Id> args = {});
  Id addExprArgs(pack::Expr e, const std::vector<Id> &args);
  Id constant(int64_t v) {
    pack::Expr e{pack::ExprOp::Const};
    e.imm = v;
    return addExpr(e);
  }
  Id local(uint32_t slot) {
    pack::Expr e{pack::ExprOp::Local};
    e.imm = slot;
    return addExpr(e);
  }
  Lowered read(pack::Read r, std::vector<Id> args, Kind kind);
  Id query(NodeId part, BodyScope &scope, std::vector<Id> &args);
  Id heldQuery(NodeId held, BodyScope &scope, std::vector<Id> &args);
  void sortKeys(NodeId keys, const BodyScope &scope);
  Lowered actorOf(NodeId n, std::string_view label, BodyScope &scope);
  Lowered formulaSlot(NodeId n, std::string_view label, BodyScope &scope);

  uint32_t layOut(const std::vector<NodeId> &siblings, BodyScope &scope);
  uint32_t bodyEndOf(uint32_t begin, const std::vector<NodeId> &lines) const;
  void lowerStep(NodeId n, pack::Step &step, BodyScope &scope);
  uint32_t action(pack::Action a, NodeId n);
  void targets(NodeId n, std::string_view label, pack::Action &a, std::vector<Id> &args,
               BodyScope &scope, bool holderIfUnsaid);
  void assigns(NodeId n, pack::Action &a, std::vector<Id> &args, BodyScope &scope, Id effect);
  void durationOperands(NodeId n, pack::Action &a, std::vector<Id> &args, BodyScope &scope);

  const SyntaxTree &tree_;
  const Declarations &decls_;
  DiagnosticEngine &diags_;
  pack::Tables t_;
  std::map<std::string, Id, std::less<>> names_, tags_, events_, values_, links_, props_,
      stages_, categories_, curves_, effects_, abilities_, archetypes_;
  std::map<std::vector<uint64_t>, pack::TagSet> sets_;
  std::map<uint32_t, uint32_t> fileIndex_; // a source file: its place in the tables' files
  std::vector<Id> portions_; // the portions line's tags
};

} // namespace ledger::ir
