// The checker's state and its pieces, one file each: declarations and
// extend/replace (declare.cpp), templates and parents (inherit.cpp), names
// and scopes (names.cpp), the kinds of formulas (kinds.cpp), what a with sets
// (assigns.cpp), a play's expectations (plays.cpp).
#pragma once

#include "diag/diagnostics.h"
#include "parse/tree.h"
#include "sema/check.h"

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ledger::sema {

class Checker {
public:
  Checker(SyntaxTree &tree, SourceManager &sources, DiagnosticEngine &diags)
      : tree_(tree), sources_(sources), diags_(diags) {}
  Declarations run();

private:
  std::string_view text(uint32_t file, uint32_t tok) const { return tree_.text(file, tok); }
  uint32_t length(uint32_t file, uint32_t tok) const {
    const Token &t = tree_.token(file, tok);
    return t.end - t.begin;
  }

  // ---- declarations ----------------------------------------------------------
  void declareName(RefKind kind, uint32_t file, uint32_t tok, NodeId node);
  void declareTag(uint32_t file, uint32_t begin, uint32_t end, NodeId node);
  void eachListItem(const Slot &slot, uint32_t file, bool dotted,
                    const std::function<void(uint32_t, uint32_t)> &fn);
  void onceAcrossCatalog(NodeId n, const char *form, NodeId &seen);
  void alike(NodeId n, const char *form, NodeId &seen);
  bool rateTimes(NodeId a, NodeId b) const;
  void declare(NodeId n);
  void checkUniqueAcrossCatalog();

  // ---- templates and parents -------------------------------------------------
  static const char *kindWord(RefKind kind);
  RefKind templateKind(const Decl &decl) const;
  NodeId templateParams(const Decl &decl) const;
  void inherit(NodeId n, RefKind kind);
  void inheritFrom(NodeId n, RefKind kind);
  void writeFrom(NodeId n);
  void writePendingFroms();
  std::vector<std::string> onceKeys(NodeId n) const;
  void checkClashes(const std::string &name, const Decl &decl);

  // ---- extend and replace ----------------------------------------------------
  Decl *amended(NodeId n, RefKind &kind, std::string &name);
  void amend(NodeId n);
  void refuseAmendment(NodeId n);

  // ---- resolution ------------------------------------------------------------
  // What a line may read besides the catalog's declarations: a template's
  // parameters, the names steps and plays give, a table's arguments and
  // columns, and the vars of the effect it stands in.
  struct Scope {
    std::vector<std::string> locals;
    std::vector<std::string> vars;
    std::vector<std::string> varKinds; // each var's kind word: "" (a number), actor, tag, …
    bool inEffect = false;
    bool inPlay = false;
    // Where the roots mean something.
    bool inAbility = false;
    bool eventInHand = false;    // a rule hearing an event, an ability's lines
    bool it = false;             // a candidate read as it: a query, a sort, a table row
    bool flight = false;         // an ability that flies: projectile
    bool beat = false;           // a channel's every and broken by: self.beats
    bool listTargets = false;    // an ability whose target clause takes a list: targets
    bool byTypeBare = false;     // a scale or a convert: a stat by type read bare
    bool inTemplate = false;     // a template's own lines: `...` joins a term
    bool aimIsDirection = false; // an ability aimed at a direction: its target is no place

    // What a play has named: an actor ('a', make, find, a flight's
    // projectile), an activation it kept ('k', act … as, find … flight), a save
    // ('s').
    std::vector<std::pair<std::string, char>> played;
    // What `as` names last on an apply, a copy, a remove or a cast: its result.
    std::vector<std::string> results;

    bool has(std::string_view name) const {
      for (const std::string &l : locals)
        if (l == name)
          return true;
      return false;
    }
    char playedKind(std::string_view name) const {
      for (const auto &[n, k] : played)
        if (n == name)
          return k;
      return 0;
    }
  };
  static std::string_view head(std::string_view dotted);
  bool declaredAnywhere(std::string_view name) const;
  bool isCooldown(std::string_view name) const;
  void resolveRef(const Slot &slot, uint32_t file, uint32_t begin, uint32_t end,
                  const Scope &scope);
  void resolveHead(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope);
  void checkRootPlace(uint32_t file, uint32_t tok, const Scope &scope);
  static bool readsStat(FormKind form, std::string_view label);
  void notSettable(Loc loc, uint32_t len, const std::string &name, const Decl *shared,
                   const Decl *value, const char *wanted, const char *kindWord);
  void resolveSelfMember(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope,
                         bool assigned = false);
  void resolveCall(const Expr &e, const Scope &scope);
  void checkEffectArg(const Expr &call, std::string_view name, const Scope &scope);
  void checkArchetypeRead(uint32_t file, uint32_t begin, uint32_t end);
  void checkResultRead(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope);
  void resolveExpr(ExprId id, const Scope &scope);
  static bool namesNoActor(std::string_view label);
  void resolveSlots(NodeId n, const Scope &scope);

  // ---- the kinds of formulas -------------------------------------------------
  // What a formula gives, where the checker can tell: a number, an actor, a
  // tag, an ability, a held instance, a list of actors; Unknown where it reads
  // something only its run knows (a local, a property, a var of a grant).
  enum class ValueKind { Unknown, Number, Actor, Tag, Ability, Instance, List };
  static const char *valueKindWithArticle(ValueKind kind);
  ValueKind memberOfActor(uint32_t file, uint32_t tok, uint32_t end) const;
  ValueKind pathKind(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope) const;
  ValueKind exprKind(ExprId id, const Scope &scope) const;
  void wantKind(ExprId id, ValueKind wanted, const Scope &scope, const char *wantedText = nullptr);
  void checkArithmetic(ExprId id, const Scope &scope);
  static bool wantsNumber(std::string_view label);
  static bool wantsActor(FormKind form, std::string_view label);
  static bool wantsInstance(FormKind form, std::string_view label);
  static bool wantsAbility(FormKind form, std::string_view label);
  void checkVarKind(NodeId n, std::string_view wanted, const Scope &scope);
  void wantPathKind(uint32_t file, const Slot &slot, ValueKind wanted, const Scope &scope);
  void wantDeclared(uint32_t file, const Slot &slot, RefKind wanted, const Scope &scope);
  void wantActorOrPool(uint32_t file, const Slot &slot, const Scope &scope);
  void wantHandle(ExprId id, const Scope &scope);
  void checkKinds(NodeId n, const Scope &scope);
  void checkTagHeld(NodeId prop, ExprId id, const Scope &scope);

  // ---- a play's expectations -------------------------------------------------
  void checkSource(NodeId n);
  void checkPlayLine(NodeId n);
  bool holdsNumber(NodeId n) const;
  void checkRowDefinitions(NodeId n);
  void checkPlayLinks(NodeId n);
  void checkCatalogLine(NodeId n);
  void checkPlayedMember(NodeId n, const char *label, std::initializer_list<RefKind> kinds);
  void checkPlayWithValues(NodeId n);
  void checkPlayRepeat(NodeId n);
  void checkRewindHasSave(NodeId n);
  void checkCoverageLine(NodeId n);
  void checkPlayedActors(NodeId n, NodeId play = kNone);
  NodeId playOf(NodeId n) const;
  bool playNamesActor(NodeId play, std::string_view name) const;
  void checkActUsing(NodeId n);

  // ---- what a with sets ------------------------------------------------------
  std::vector<std::string> varsOf(std::string_view effect) const;
  std::vector<std::string> tableArgs(std::string_view table) const;
  void checkAssigns(NodeId n, const Scope &scope);
  void checkModifier(NodeId n, const Scope &scope);

  // ---- scopes ----------------------------------------------------------------
  std::string slotText(NodeId n, std::string_view label) const;
  void addVars(NodeId definition, Scope &scope) const;
  Scope definitionScope(NodeId n, Scope scope);
  static bool namesForItsBody(FormKind kind);
  void addGivenNames(NodeId n, Scope &scope);
  void addNamesWithin(NodeId n, Scope &scope);
  void addPlayedName(NodeId n, const char *label, char kind, Scope &scope);
  void checkPlayedNames(NodeId n, const Scope &scope);
  static bool isDefinition(FormKind kind);
  void placeRoots(NodeId n, Scope &scope) const;
  void checkDurationChangePlace(NodeId n);
  void checkPlace(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope);
  bool isActorMember(std::string_view member) const;
  void checkMembers(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope);
  void checkStatMember(uint32_t file, uint32_t value, uint32_t end);
  void checkStatByTypeBare(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope);
  void resolveTree(NodeId n, Scope scope);
  SyntaxTree &tree_;
  SourceManager &sources_;
  DiagnosticEngine &diags_;
  Declarations decls_;
  std::vector<NodeId> unresolvedAmendments_;
  std::vector<NodeId> pendingFroms_; // a from above its template
  bool declaredAll_ = false;
  bool refusedTagCount_ = false;
  std::vector<std::string> usedTemplates_;
  std::vector<std::string> writing_; // templates being written out, innermost last
  std::vector<std::pair<NodeId, RefKind>> pendingParents_;
  std::vector<NodeId> inheriting_, inherited_;
  // Definitions made from definitions, and templates writing templates, chain
  // at most this deep.
  static constexpr size_t kMaxChain = 100;
  NodeId time_ = kNone, phases_ = kNone, rate_ = kNone, allegiance_ = kNone, damage_ = kNone,
         turn_ = kNone;
};

} // namespace ledger::sema
