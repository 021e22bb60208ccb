#include "parse/pattern.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace ledger {

namespace {

struct KindSpec {
  std::string_view word;
  SlotKind kind;
  RefKind ref;
  Ctx part;
};

constexpr KindSpec kKinds[] = {
    {"F", SlotKind::Formula, RefKind::None, Ctx::None},
    {"D", SlotKind::Duration, RefKind::None, Ctx::None},
    {"N", SlotKind::Number, RefKind::None, Ctx::None},
    {"TEXT", SlotKind::Text, RefKind::None, Ctx::None},
    {"CMP", SlotKind::Cmp, RefKind::None, Ctx::None},
    {"NAME", SlotKind::Name, RefKind::None, Ctx::None},
    {"NAMES", SlotKind::Names, RefKind::None, Ctx::None},
    {"PATH", SlotKind::Path, RefKind::None, Ctx::None},
    {"REST", SlotKind::Rest, RefKind::None, Ctx::None},
    {"WORD", SlotKind::Word, RefKind::None, Ctx::None},
    {"ARGS", SlotKind::Args, RefKind::None, Ctx::None},
    {"TAG", SlotKind::Ref, RefKind::Tag, Ctx::None},
    {"TAGS", SlotKind::Refs, RefKind::Tag, Ctx::None},
    {"EFFECT", SlotKind::Ref, RefKind::Effect, Ctx::None},
    {"EFFECTS", SlotKind::Refs, RefKind::Effect, Ctx::None},
    {"ABILITY", SlotKind::Ref, RefKind::Ability, Ctx::None},
    {"ABILITIES", SlotKind::Refs, RefKind::Ability, Ctx::None},
    {"ARCHETYPE", SlotKind::Ref, RefKind::Archetype, Ctx::None},
    {"STAT", SlotKind::Ref, RefKind::Stat, Ctx::None},
    {"POOL", SlotKind::Ref, RefKind::Pool, Ctx::None},
    {"POOLS", SlotKind::Refs, RefKind::Pool, Ctx::None},
    {"EVENT", SlotKind::Ref, RefKind::Event, Ctx::None},
    {"LINK", SlotKind::Ref, RefKind::Link, Ctx::None},
    {"STAGE", SlotKind::Ref, RefKind::Stage, Ctx::None},
    {"PROP", SlotKind::Ref, RefKind::Prop, Ctx::None},
    {"PROPS", SlotKind::Refs, RefKind::Prop, Ctx::None},
    {"CATEGORY", SlotKind::Ref, RefKind::Category, Ctx::None},
    {"STREAM", SlotKind::Ref, RefKind::Stream, Ctx::None},
    {"TABLE", SlotKind::Ref, RefKind::Table, Ctx::None},
    {"COMMAND", SlotKind::Ref, RefKind::Command, Ctx::None},
    {"FACT", SlotKind::Ref, RefKind::Fact, Ctx::None},
    {"TEMPLATE", SlotKind::Ref, RefKind::Template, Ctx::None},
    {"EVENTORTAG", SlotKind::Ref, RefKind::EventOrTag, Ctx::None},
    {"EFFECTORTAG", SlotKind::Ref, RefKind::EffectOrTag, Ctx::None},
    {"RULE", SlotKind::Ref, RefKind::Rule, Ctx::None},
    {"EVENTORTAGS", SlotKind::Refs, RefKind::EventOrTag, Ctx::None},
    {"TARGETS", SlotKind::Part, RefKind::None, Ctx::PTargets},
    {"FILTER", SlotKind::Part, RefKind::None, Ctx::PFilter},
    {"WHO", SlotKind::Part, RefKind::None, Ctx::PWho},
    {"KEYS", SlotKind::Part, RefKind::None, Ctx::PKeys},
    {"ORDER", SlotKind::Part, RefKind::None, Ctx::POrder},
    {"HELD", SlotKind::Part, RefKind::None, Ctx::PHeld},
    {"PARENT", SlotKind::Part, RefKind::None, Ctx::PParent},
    {"PARAM", SlotKind::Part, RefKind::None, Ctx::PParam},
    {"ASSIGN", SlotKind::Part, RefKind::None, Ctx::PAssign},
    {"PLACED", SlotKind::Part, RefKind::None, Ctx::PPlaced},
    {"EVENTSPEC", SlotKind::Part, RefKind::None, Ctx::PEventSpec},
    {"COVER", SlotKind::Part, RefKind::None, Ctx::PCover},
};

[[noreturn]] void badPattern(std::string_view form, std::string_view why) {
  // forms.def is the compiler's own table: a mistake in it is a build bug.
  std::fprintf(stderr, "internal error: pattern of %.*s: %.*s\n", int(form.size()), form.data(),
               int(why.size()), why.data());
  std::abort();
}

class Compiler {
public:
  Compiler(PatternTable &table, std::string_view form, std::string_view text)
      : table_(table), form_(form) {
    tokenize(text);
  }

  // Top-level alternatives, each a Seq.
  std::vector<uint32_t> compileTop() {
    std::vector<uint32_t> alts;
    alts.push_back(seq());
    while (peek() == "|") {
      ++pos_;
      alts.push_back(seq());
    }
    if (pos_ != words_.size())
      badPattern(form_, "unexpected " + words_[pos_]);
    return alts;
  }

private:
  std::string_view peek() const {
    return pos_ < words_.size() ? std::string_view(words_[pos_]) : std::string_view();
  }

  void tokenize(std::string_view text) {
    size_t i = 0;
    auto structural = [](char c) { return c == '[' || c == ']' || c == '<' || c == '>' || c == '|'; };
    while (i < text.size()) {
      char c = text[i];
      if (c == ' ') {
        ++i;
        continue;
      }
      if (structural(c)) {
        std::string word(1, c);
        ++i;
        if ((c == ']' && i < text.size() && text[i] == '*') ||
            (c == '>' && i < text.size() && text[i] == ',')) {
          word += text[i];
          ++i;
        }
        words_.push_back(word);
        continue;
      }
      size_t begin = i;
      while (i < text.size() && text[i] != ' ' && !structural(text[i])) {
        if (text[i] == '{') {
          while (i < text.size() && text[i] != '}')
            ++i;
        }
        ++i;
      }
      words_.emplace_back(text.substr(begin, i - begin));
    }
  }

  uint32_t add(Pat pat) {
    table_.pats.push_back(std::move(pat));
    return static_cast<uint32_t>(table_.pats.size() - 1);
  }

  uint32_t alt() {
    std::vector<uint32_t> alts{seq()};
    while (peek() == "|") {
      ++pos_;
      alts.push_back(seq());
    }
    if (alts.size() == 1)
      return alts[0];
    Pat pat;
    pat.op = PatOp::Alt;
    pat.kids = std::move(alts);
    return add(std::move(pat));
  }

  uint32_t seq() {
    Pat pat;
    pat.op = PatOp::Seq;
    while (pos_ < words_.size()) {
      std::string_view w = peek();
      if (w == "|" || w == "]" || w == "]*" || w == ">" || w == ">,")
        break;
      pat.kids.push_back(item());
    }
    return add(std::move(pat));
  }

  uint32_t item() {
    std::string word = words_[pos_++];
    if (word == "[" || word == "<") {
      uint32_t inner = alt();
      std::string_view close = peek();
      Pat pat;
      if (word == "[" && close == "]")
        pat.op = PatOp::Opt;
      else if (word == "[" && close == "]*")
        pat.op = PatOp::Star;
      else if (word == "<" && close == ">")
        pat.op = PatOp::Group;
      else if (word == "<" && close == ">,")
        pat.op = PatOp::CommaList;
      else
        badPattern(form_, "unbalanced group");
      ++pos_;
      pat.kids.push_back(inner);
      return add(std::move(pat));
    }
    size_t colon = word.find(':');
    if (colon == std::string::npos || word.size() == 1) {
      Pat pat;
      pat.op = PatOp::Lit;
      pat.lit = word;
      return add(std::move(pat));
    }
    std::string label = word.substr(0, colon);
    std::string kind = word.substr(colon + 1);
    Pat pat;
    pat.label = internLabel(label);
    if (!kind.empty() && kind.front() == '{') {
      pat.op = PatOp::Choice;
      std::string body = kind.substr(1, kind.size() - 2);
      size_t start = 0;
      while (start <= body.size()) {
        size_t bar = body.find('|', start);
        if (bar == std::string::npos)
          bar = body.size();
        std::vector<std::string> choice;
        std::string part = body.substr(start, bar - start);
        size_t s = 0;
        while (s < part.size()) {
          size_t sp = part.find(' ', s);
          if (sp == std::string::npos)
            sp = part.size();
          if (sp > s)
            choice.push_back(part.substr(s, sp - s));
          s = sp + 1;
        }
        pat.choices.push_back(std::move(choice));
        start = bar + 1;
      }
      return add(std::move(pat));
    }
    pat.op = PatOp::Slot;
    for (const KindSpec &spec : kKinds) {
      if (spec.word == kind) {
        pat.kind = spec.kind;
        pat.ref = spec.ref;
        pat.part = spec.part;
        pat.anyWord = spec.kind == SlotKind::Word;
        return add(std::move(pat));
      }
    }
    badPattern(form_, "unknown slot kind " + kind);
  }

  PatternTable &table_;
  std::string_view form_;
  std::vector<std::string> words_;
  size_t pos_ = 0;
};

bool isWordLiteral(const std::string &lit) {
  return !lit.empty() && ((lit[0] >= 'a' && lit[0] <= 'z') || (lit[0] >= 'A' && lit[0] <= 'Z'));
}

void computeFirst(std::vector<Pat> &pats, uint32_t id) {
  Pat &p = pats[id];
  for (uint32_t kid : p.kids)
    computeFirst(pats, kid);
  Pat &q = pats[id]; // pats does not grow here, but keep the reference fresh
  switch (q.op) {
  case PatOp::Lit:
    q.first = {q.lit};
    q.nullable = false;
    break;
  case PatOp::Choice:
    for (const auto &choice : q.choices)
      q.first.insert(choice.front());
    q.nullable = false;
    break;
  case PatOp::Slot:
    q.nullable = false;
    break;
  case PatOp::Seq:
    q.nullable = true;
    for (uint32_t kid : q.kids) {
      q.first.insert(pats[kid].first.begin(), pats[kid].first.end());
      if (!pats[kid].nullable) {
        q.nullable = false;
        break;
      }
    }
    break;
  case PatOp::Alt:
    q.nullable = false;
    for (uint32_t kid : q.kids) {
      q.first.insert(pats[kid].first.begin(), pats[kid].first.end());
      q.nullable = q.nullable || pats[kid].nullable;
    }
    break;
  case PatOp::Opt:
  case PatOp::Star:
    q.first = pats[q.kids[0]].first;
    q.nullable = true;
    break;
  case PatOp::Group:
  case PatOp::CommaList:
    q.first = pats[q.kids[0]].first;
    q.nullable = pats[q.kids[0]].nullable;
    break;
  }
}

void computeAfter(std::vector<Pat> &pats, uint32_t id, const WordSet &after) {
  Pat &p = pats[id];
  p.after = after;
  switch (p.op) {
  case PatOp::Seq: {
    WordSet acc = after;
    for (size_t i = p.kids.size(); i-- > 0;) {
      uint32_t kid = pats[id].kids[i];
      computeAfter(pats, kid, acc);
      const Pat &k = pats[kid];
      WordSet next = k.first;
      if (k.nullable)
        next.insert(acc.begin(), acc.end());
      acc = std::move(next);
    }
    break;
  }
  case PatOp::Alt:
  case PatOp::Opt:
  case PatOp::Group:
  case PatOp::CommaList:
    for (uint32_t kid : std::vector<uint32_t>(p.kids))
      computeAfter(pats, kid, after);
    break;
  case PatOp::Star: {
    WordSet loop = pats[p.kids[0]].first;
    loop.insert(after.begin(), after.end());
    computeAfter(pats, p.kids[0], loop);
    break;
  }
  default:
    break;
  }
}

// A Seq of literal words alone, inside a group, is kept as a Flag slot named
// by its words; so is a top-level alternative of more than its keyword.
void markFlags(std::vector<Pat> &pats, uint32_t id, bool topLevel) {
  Pat &p = pats[id];
  if (p.op == PatOp::Seq && !p.kids.empty()) {
    bool literals = true;
    std::string words;
    for (uint32_t kid : p.kids) {
      const Pat &k = pats[kid];
      if (k.op != PatOp::Lit || !isWordLiteral(k.lit)) {
        literals = false;
        break;
      }
      words += (words.empty() ? "" : " ") + k.lit;
    }
    if (literals && (!topLevel || p.kids.size() > 1)) {
      p.flag = true;
      p.label = internLabel(words);
    }
  }
  for (uint32_t kid : std::vector<uint32_t>(pats[id].kids))
    markFlags(pats, kid, false);
}

PatternTable build() {
  PatternTable table;
  struct Raw {
    FormKind kind;
    const char *name;
    Ctx ctxs;
    Ctx child;
    const char *pattern;
  };
  static const Raw kRaw[] = {
#define FORM(Id, Ctxs, Child, Pattern) {FormKind::Id, #Id, Ctxs, Ctx::Child, Pattern},
#include "parse/forms.def"
#undef FORM
  };
  for (const Raw &raw : kRaw) {
    FormPattern form{raw.kind, raw.name, raw.ctxs, raw.child, raw.pattern, {}, {}};
    form.alts = Compiler(table, raw.name, raw.pattern).compileTop();
    for (uint32_t alt : form.alts) {
      computeFirst(table.pats, alt);
      computeAfter(table.pats, alt, {});
      markFlags(table.pats, alt, true);
      const Pat &seq = table.pats[alt];
      std::string keyword;
      if (!seq.kids.empty() && table.pats[seq.kids[0]].op == PatOp::Lit)
        keyword = table.pats[seq.kids[0]].lit;
      form.keywords.push_back(keyword);
    }
    table.forms.push_back(std::move(form));
  }
  return table;
}

} // namespace

const PatternTable &patternTable() {
  static const PatternTable table = build();
  return table;
}

std::string PatternTable::readable(FormKind kind) const {
  const std::string &src = forms[static_cast<size_t>(kind)].source;
  std::string out;
  size_t i = 0;
  while (i < src.size()) {
    // label:KIND reads KIND; label:{a|b} reads a|b
    size_t j = i;
    while (j < src.size() && ((src[j] >= 'a' && src[j] <= 'z') || (src[j] >= 'A' && src[j] <= 'Z')))
      ++j;
    if (j > i && j < src.size() && src[j] == ':' && j + 1 < src.size() && src[j + 1] != ' ') {
      i = j + 1;
      if (src[i] == '{') {
        size_t close = src.find('}', i);
        out += src.substr(i + 1, close - i - 1);
        i = close + 1;
      }
      continue;
    }
    if (j > i) {
      out += src.substr(i, j - i);
      i = j;
      continue;
    }
    out += src[i++];
  }
  return out;
}

} // namespace ledger
