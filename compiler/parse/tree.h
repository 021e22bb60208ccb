// The syntax tree: every line of a catalog or play file as a node of one form
// (forms.def), its slots typed by what they hold. Nodes, slots and formulas
// live in flat arrays indexed by 32-bit ids.
#pragma once

#include "lex/token.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ledger {

// Where a line may stand; parts are the smaller forms slots are made of.
enum class Ctx : uint32_t {
  None = 0,
  File = 1u << 0,
  Effect = 1u << 1,
  Ability = 1u << 2,
  Phase = 1u << 3,
  Beat = 1u << 4,
  Archetype = 1u << 5,
  Steps = 1u << 6,
  Before = 1u << 7,
  Outcome = 1u << 8,
  Table = 1u << 9,
  Curve = 1u << 10,
  FromRows = 1u << 11,
  PlayFile = 1u << 12,
  Play = 1u << 13,
  PTargets = 1u << 14,
  PFilter = 1u << 15,
  PWho = 1u << 16,
  PKeys = 1u << 17,
  POrder = 1u << 18,
  PHeld = 1u << 19,
  PParent = 1u << 20,
  PParam = 1u << 21,
  PAssign = 1u << 22,
  PPlaced = 1u << 23,
  PEventSpec = 1u << 24,
  PCover = 1u << 25,
  // Child contexts that depend on the line: see forms.def.
  Body = 1u << 28,
  ByKind = 1u << 29,
  Outer = 1u << 30,
};
constexpr Ctx operator|(Ctx a, Ctx b) {
  return static_cast<Ctx>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr bool any(Ctx a, Ctx b) {
  return (static_cast<uint32_t>(a) & static_cast<uint32_t>(b)) != 0;
}
const char *ctxDescription(Ctx ctx);

enum class FormKind : uint16_t {
#define FORM(Id, Ctxs, Child, Pattern) Id,
#include "parse/forms.def"
#undef FORM
};
inline constexpr size_t kFormCount = 0
#define FORM(Id, Ctxs, Child, Pattern) +1
#include "parse/forms.def"
#undef FORM
    ;
const char *formName(FormKind kind);

// What a slot holds.
enum class SlotKind : uint8_t {
  Flag,     // literal words that were present: `per source`, `once per chain`
  Word,     // one of a fixed set of words, or any one name or number
  Name,     // a new name
  Names,    // new names
  Path,     // a dotted name: an actor, a var, a member of a stat by type
  Ref,      // a declared name of one kind (RefKind)
  Refs,     // declared names of one kind
  Formula,  // an Expr
  Duration, // an Expr of kind Duration
  Number,   // a literal, maybe signed, maybe a percent
  Text,     // quoted text
  Cmp,      // a comparison
  Rest,     // the line's remaining tokens
  Args,     // a template's arguments, tokens up to the closing paren
  Part,     // a node of a part form
};

// What a Ref or Refs slot names.
enum class RefKind : uint8_t {
  None,
  Tag,
  Effect,
  Ability,
  Archetype,
  Stat,
  Pool,
  Event,
  Link,
  Stage,
  Prop,
  Category,
  Stream,
  Table,
  Command,
  Fact,
  Template,
  Pile,
  Curve,
  EventOrTag,  // `blocks`: an event, or tags an event carries
  EffectOrTag, // what an actor holds: an effect, or a tag it carries
  Rule,        // the effect or ability whose rule raised an event
};
const char *refKindName(RefKind kind);
// "a stat", "an event": the kind with its article, for messages.
std::string refKindWithArticle(RefKind kind);

using NodeId = uint32_t;
using ExprId = uint32_t;
inline constexpr uint32_t kNone = UINT32_MAX;

struct Slot {
  uint16_t label = 0; // an interned label: labelText(label)
  SlotKind kind = SlotKind::Flag;
  RefKind ref = RefKind::None;
  uint32_t begin = 0; // tokens of the slot
  uint32_t end = 0;
  uint32_t value = kNone; // ExprId for Formula/Duration, NodeId for Part
};

struct Node {
  FormKind kind;
  uint32_t file = 0;           // index into SyntaxTree::files
  uint32_t begin = 0, end = 0; // tokens
  uint32_t firstSlot = 0, slotCount = 0;
  NodeId parent = kNone, firstChild = kNone, nextSibling = kNone;
};

enum class ExprKind : uint8_t {
  Number,   // Number or Percent token at begin
  Path,     // dotted names, tokens begin..end
  Call,     // name tokens begin..nameEnd, args
  Member,   // args[0].NAME, the name token at nameEnd
  Unary,    // op: Minus or `not`
  Binary,   // op: the operator
  Except,   // args[0] except tags (tokens nameEnd..end)
  Part,     // part: a Held or a Targets node
  Duration, // args[0] with a unit
};

enum class ExprOp : uint8_t {
  None,
  Neg,
  Not,
  And,
  Or,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Add,
  Sub,
  Mul,
  Div,
};

struct Expr {
  ExprKind kind;
  ExprOp op = ExprOp::None;
  TimeUnit unit = TimeUnit::None;
  uint32_t file = 0;
  uint32_t begin = 0, end = 0; // tokens
  uint32_t nameEnd = 0;
  uint32_t firstArg = 0, argCount = 0; // into SyntaxTree::exprArgs
  NodeId part = kNone;
};

struct SyntaxTree {
  const SourceManager *sources = nullptr;
  std::vector<LexedFile> files;
  std::vector<FileRole> roles;
  std::vector<uint32_t> packages; // each file's package (load.h)
  std::vector<Node> nodes;
  std::vector<Slot> slots;
  std::vector<Expr> exprs;
  std::vector<ExprId> exprArgs;
  std::vector<NodeId> fileFirstNode; // each file's first top-level node

  const Token &token(uint32_t file, uint32_t index) const { return files[file].tokens[index]; }
  std::string_view text(uint32_t file, uint32_t index) const {
    return files[file].text(*sources, files[file].tokens[index]);
  }
  // The source text a token range spans, as written.
  std::string_view span(uint32_t file, uint32_t begin, uint32_t end) const;
  Loc loc(uint32_t file, uint32_t tokenIndex) const {
    return {files[file].file, files[file].tokens[tokenIndex].begin};
  }

  // The first slot of a node with this label, or nullptr.
  const Slot *slot(NodeId node, std::string_view label) const;
  std::vector<const Slot *> slotsNamed(NodeId node, std::string_view label) const;
  bool hasFlag(NodeId node, std::string_view label) const { return slot(node, label) != nullptr; }

  // Calls fn(begin, end) for each item of a list slot (names or dotted names,
  // commas between them or not), its tokens begin..end.
  template <typename Fn> void eachItem(uint32_t file, const Slot &slot, bool dotted, Fn fn) const {
    uint32_t t = slot.begin;
    while (t < slot.end) {
      if (token(file, t).kind == TokenKind::Comma) {
        ++t;
        continue;
      }
      uint32_t begin = t++;
      while (dotted && t + 1 < slot.end && token(file, t).kind == TokenKind::Dot)
        t += 2;
      fn(begin, t);
    }
  }
};

std::string_view labelText(uint16_t label);
uint16_t internLabel(std::string_view text);

} // namespace ledger
