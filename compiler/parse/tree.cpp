#include "parse/tree.h"

#include <deque>
#include <mutex>
#include <unordered_map>

namespace ledger {

namespace {
struct LabelTable {
  std::deque<std::string> texts{""};
  std::unordered_map<std::string_view, uint16_t> ids{{"", 0}};
  std::mutex mutex;
};
LabelTable &labels() {
  static LabelTable table;
  return table;
}
} // namespace

uint16_t internLabel(std::string_view text) {
  LabelTable &table = labels();
  std::lock_guard lock(table.mutex);
  if (auto it = table.ids.find(text); it != table.ids.end())
    return it->second;
  table.texts.emplace_back(text);
  auto id = static_cast<uint16_t>(table.texts.size() - 1);
  table.ids.emplace(table.texts.back(), id);
  return id;
}

std::string_view labelText(uint16_t label) {
  LabelTable &table = labels();
  std::lock_guard lock(table.mutex);
  return table.texts[label];
}

const char *formName(FormKind kind) {
  static const char *const kNames[] = {
#define FORM(Id, Ctxs, Child, Pattern) #Id,
#include "parse/forms.def"
#undef FORM
  };
  return kNames[static_cast<size_t>(kind)];
}

const char *refKindName(RefKind kind) {
  switch (kind) {
  case RefKind::None: return "name";
  case RefKind::Tag: return "tag";
  case RefKind::Effect: return "effect";
  case RefKind::Ability: return "ability";
  case RefKind::Archetype: return "archetype";
  case RefKind::Stat: return "stat";
  case RefKind::Pool: return "pool";
  case RefKind::Event: return "event";
  case RefKind::Link: return "link";
  case RefKind::Stage: return "stage";
  case RefKind::Prop: return "property";
  case RefKind::Category: return "category";
  case RefKind::Stream: return "stream";
  case RefKind::Table: return "table";
  case RefKind::Command: return "command";
  case RefKind::Fact: return "fact";
  case RefKind::Template: return "template";
  case RefKind::Pile: return "pile";
  case RefKind::Curve: return "curve";
  case RefKind::EventOrTag: return "event or tag";
  case RefKind::EffectOrTag: return "effect or tag";
  case RefKind::Rule: return "effect or ability";
  }
  return "name";
}

std::string refKindWithArticle(RefKind kind) {
  std::string name = refKindName(kind);
  bool vowel = std::string_view("aeiou").find(name[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + name;
}

const char *ctxDescription(Ctx ctx) {
  switch (ctx) {
  case Ctx::File: return "declaration or definition";
  case Ctx::Effect: return "clause or rule of an effect";
  case Ctx::Ability: return "clause or step of an ability";
  case Ctx::Phase: return "line under a phase";
  case Ctx::Beat: return "cost or step under a channel's every";
  case Ctx::Archetype: return "clause of an archetype";
  case Ctx::Steps: return "step";
  case Ctx::Before: return "step or change of a before rule";
  case Ctx::Outcome: return "band of an outcome";
  case Ctx::Table: return "row of a table";
  case Ctx::Curve: return "point of a curve";
  case Ctx::FromRows: return "row of a from";
  case Ctx::PlayFile: return "line of a play file";
  case Ctx::Play: return "step of a play";
  default: return "form";
  }
}

std::string_view SyntaxTree::span(uint32_t file, uint32_t begin, uint32_t end) const {
  if (begin >= end)
    return {};
  const LexedFile &lf = files[file];
  std::string_view text = sources->file(lf.file).text;
  uint32_t from = lf.tokens[begin].begin;
  uint32_t to = lf.tokens[end - 1].end;
  return text.substr(from, to - from);
}

const Slot *SyntaxTree::slot(NodeId node, std::string_view label) const {
  const Node &n = nodes[node];
  for (uint32_t i = 0; i < n.slotCount; ++i)
    if (labelText(slots[n.firstSlot + i].label) == label)
      return &slots[n.firstSlot + i];
  return nullptr;
}

std::vector<const Slot *> SyntaxTree::slotsNamed(NodeId node, std::string_view label) const {
  std::vector<const Slot *> found;
  const Node &n = nodes[node];
  for (uint32_t i = 0; i < n.slotCount; ++i)
    if (labelText(slots[n.firstSlot + i].label) == label)
      found.push_back(&slots[n.firstSlot + i]);
  return found;
}

} // namespace ledger
