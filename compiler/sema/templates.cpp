#include "sema/templates.h"

#include "lex/lex.h"
#include "parse/parse.h"

namespace ledger {

namespace {

struct Param {
  std::string name;
  bool list = false;
};

class Writer {
public:
  Writer(const SyntaxTree &tree, DiagnosticEngine &diags, const TemplateUse &use)
      : tree_(tree), diags_(diags), use_(use) {}

  bool run(std::string &out) {
    readParams();
    if (!bindValues())
      return false;
    if (!use_.header.empty())
      out += use_.header + "\n";
    for (NodeId part : use_.parts) {
      NodeId first = tree_.nodes[part].firstChild;
      if (first == kNone)
        continue;
      // Whole definitions start at the left; clauses keep their indentation.
      uint32_t dedent = use_.header.empty() ? column(first) : 0;
      for (NodeId c = first; c != kNone; c = tree_.nodes[c].nextSibling)
        writeLines(c, dedent, 0, out);
    }
    return ok_;
  }

private:
  uint32_t column(NodeId n) const {
    const Node &node = tree_.nodes[n];
    return tree_.sources->lineCol(tree_.loc(node.file, node.begin)).column - 1;
  }

  void readParams() {
    for (const Slot *p : tree_.slotsNamed(use_.params, "param")) {
      const Node &param = tree_.nodes[p->value];
      const Slot *name = tree_.slot(p->value, "name");
      if (name)
        params_.push_back({std::string(tree_.text(param.file, name->begin)),
                           tree_.slot(p->value, "list") != nullptr});
    }
  }

  bool bindValues() {
    size_t given = use_.values.size() + (use_.block.empty() ? 0 : 1);
    bool list = !params_.empty() && params_.back().list;
    bool fits = list ? given + 1 >= params_.size() : given == params_.size();
    if (!fits) {
      std::string names;
      for (const Param &p : params_)
        names += (names.empty() ? "" : ", ") + p.name + (p.list ? "..." : "");
      diags_.report(DiagKind::TemplateArgumentCount, use_.origin, 1, use_.templateName,
                    params_.size(), names, given);
      return false;
    }
    values_.assign(params_.size(), {});
    for (size_t i = 0; i < use_.values.size(); ++i)
      values_[std::min(i, params_.size() - 1)].push_back(use_.values[i]);
    return true;
  }

  int paramIndex(std::string_view name) const {
    for (size_t i = 0; i < params_.size(); ++i)
      if (params_[i].name == name)
        return static_cast<int>(i);
    return -1;
  }

  void writeLines(NodeId n, uint32_t dedent, uint32_t extraIndent, std::string &out) {
    const Node &node = tree_.nodes[n];
    uint32_t col = column(n);
    uint32_t indent = (col >= dedent ? col - dedent : 0) + extraIndent;

    // A line that is the last parameter alone is the row's own lines.
    if (node.end == node.begin + 1 && !use_.block.empty()) {
      int p = paramIndex(tree_.text(node.file, node.begin));
      if (p == static_cast<int>(params_.size()) - 1) {
        for (NodeId b : use_.block) {
          uint32_t blockCol = column(use_.block.front());
          writeLines(b, blockCol, indent, out);
        }
        return;
      }
    }

    std::vector<bool> inSlot(node.end - node.begin, false);
    markSlotTokens(n, inSlot, node.begin);
    std::vector<Join> joins;
    if (!findJoins(n, inSlot, joins))
      return;
    // A line naming a list outside a joined term is written once for each value.
    int list = -1;
    for (uint32_t t = node.begin; t < node.end; ++t) {
      bool joined = false;
      for (const Join &j : joins)
        joined = joined || (t >= j.termBegin && t <= j.ellipsis);
      const Token &tok = tree_.token(node.file, t);
      if (!joined && tok.kind == TokenKind::Name && inSlot[t - node.begin]) {
        int p = paramIndex(tree_.text(node.file, t));
        if (p >= 0 && params_[p].list)
          list = p;
      }
    }
    size_t copies = list >= 0 ? values_[list].size() : 1;
    for (size_t copy = 0; copy < copies; ++copy) {
      out.append(indent, ' ');
      writeTokens(n, inSlot, joins, list, copy, out);
      out += '\n';
    }
    for (NodeId c = node.firstChild; c != kNone; c = tree_.nodes[c].nextSibling)
      writeLines(c, dedent, extraIndent, out);
  }

  // The tokens a parameter may stand in: a slot's, never the form's own
  // words (a parameter named `cost` leaves `cost Mana cost`'s keyword be).
  void markSlotTokens(NodeId n, std::vector<bool> &mark, uint32_t base) const {
    const Node &node = tree_.nodes[n];
    for (uint32_t i = 0; i < node.slotCount; ++i) {
      const Slot &slot = tree_.slots[node.firstSlot + i];
      if (slot.kind == SlotKind::Flag || slot.kind == SlotKind::Word)
        continue;
      if (slot.kind == SlotKind::Part) {
        markSlotTokens(slot.value, mark, base);
        continue;
      }
      for (uint32_t t = slot.begin; t < slot.end; ++t)
        mark[t - base] = true;
    }
  }

  // "a term naming one before an operator and ... once for each, joined by
  // it": the term runs back from the operator to the same operator, an open
  // parenthesis, or the formula's start.
  struct Join {
    uint32_t termBegin, op, ellipsis;
    int list;
  };

  void formulaRanges(NodeId n, std::vector<std::pair<uint32_t, uint32_t>> &ranges) const {
    const Node &node = tree_.nodes[n];
    for (uint32_t i = 0; i < node.slotCount; ++i) {
      const Slot &slot = tree_.slots[node.firstSlot + i];
      if (slot.kind == SlotKind::Formula)
        ranges.push_back({slot.begin, slot.end});
      else if (slot.kind == SlotKind::Part)
        formulaRanges(slot.value, ranges);
    }
  }

  bool findJoins(NodeId n, const std::vector<bool> &inSlot, std::vector<Join> &joins) {
    const Node &node = tree_.nodes[n];
    std::vector<std::pair<uint32_t, uint32_t>> ranges;
    formulaRanges(n, ranges);
    for (uint32_t e = node.begin; e < node.end; ++e) {
      if (tree_.token(node.file, e).kind != TokenKind::Ellipsis)
        continue;
      uint32_t start = node.begin;
      for (const auto &[b, en] : ranges)
        if (e >= b && e < en)
          start = b;
      uint32_t op = e - 1;
      std::string_view opText = tree_.text(node.file, op);
      int depth = 0;
      uint32_t termBegin = start;
      for (uint32_t t = op; t-- > start;) {
        TokenKind kind = tree_.token(node.file, t).kind;
        if (kind == TokenKind::RParen)
          ++depth;
        else if (kind == TokenKind::LParen && depth-- == 0) {
          termBegin = t + 1;
          break;
        } else if (depth == 0 && tree_.text(node.file, t) == opText) {
          termBegin = t + 1;
          break;
        }
      }
      int list = -1;
      for (uint32_t t = termBegin; t < op; ++t)
        if (tree_.token(node.file, t).kind == TokenKind::Name && inSlot[t - node.begin]) {
          int p = paramIndex(tree_.text(node.file, t));
          if (p >= 0 && params_[p].list)
            list = p;
        }
      if (list < 0 || op <= termBegin) {
        diags_.report(DiagKind::JoinNamesNoList, tree_.loc(node.file, e), 3, opText);
        ok_ = false;
        return false;
      }
      joins.push_back({termBegin, op, e, list});
    }
    return true;
  }

  // Tokens begin..end as written, each parameter read as its value (a list's
  // as the value `copy` picks, where the line is written once for each).
  void writeRange(const Node &node, uint32_t begin, uint32_t end, const std::vector<bool> &inSlot,
                  int list, const std::string *listValue, std::string &out) const {
    std::string_view text = tree_.sources->file(tree_.files[node.file].file).text;
    for (uint32_t t = begin; t < end; ++t) {
      const Token &tok = tree_.token(node.file, t);
      if (t > begin) {
        const Token &prev = tree_.token(node.file, t - 1);
        out += text.substr(prev.end, tok.begin - prev.end);
      }
      std::string_view word = text.substr(tok.begin, tok.end - tok.begin);
      int p = tok.kind == TokenKind::Name && inSlot[t - node.begin] ? paramIndex(word) : -1;
      if (p < 0) {
        out += word;
      } else if (p == list && listValue) {
        out += *listValue;
      } else {
        std::string joined;
        for (const std::string &v : values_[p])
          joined += (joined.empty() ? "" : " ") + v;
        out += joined;
      }
    }
  }

  void writeTokens(NodeId n, const std::vector<bool> &inSlot, const std::vector<Join> &joins,
                   int list, size_t copy, std::string &out) {
    const Node &node = tree_.nodes[n];
    std::string_view text = tree_.sources->file(tree_.files[node.file].file).text;
    const std::string *value = list >= 0 ? &values_[list][copy] : nullptr;
    uint32_t from = node.begin;
    for (const Join &j : joins) {
      writeRange(node, from, j.termBegin, inSlot, list, value, out);
      if (j.termBegin > from) {
        const Token &prev = tree_.token(node.file, j.termBegin - 1);
        out += text.substr(prev.end, tree_.token(node.file, j.termBegin).begin - prev.end);
      }
      const std::vector<std::string> &items = values_[j.list];
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0)
          out += " " + std::string(tree_.text(node.file, j.op)) + " ";
        writeRange(node, j.termBegin, j.op, inSlot, j.list, &items[i], out);
      }
      from = j.ellipsis + 1;
      if (from < node.end) {
        const Token &prev = tree_.token(node.file, j.ellipsis);
        out += text.substr(prev.end, tree_.token(node.file, from).begin - prev.end);
      }
    }
    writeRange(node, from, node.end, inSlot, list, value, out);
  }

  const SyntaxTree &tree_;
  DiagnosticEngine &diags_;
  const TemplateUse &use_;
  std::vector<Param> params_;
  std::vector<std::vector<std::string>> values_;
  bool ok_ = true;
};

} // namespace

NodeId writeOutTemplate(SyntaxTree &tree, SourceManager &sources, DiagnosticEngine &diags,
                        const TemplateUse &use) {
  if (use.parts.empty())
    return kNone;
  std::string text;
  if (!Writer(tree, diags, use).run(text))
    return kNone;
  FileId id =
      sources.addWritten("(" + use.templateName + ", written out)", std::move(text), use.origin);
  tree.files.push_back(lex(sources, id, FileRole::Catalog, diags));
  tree.roles.push_back(FileRole::Catalog);
  tree.packages.push_back(use.package);
  return parseAddedFile(tree, diags);
}

std::vector<std::string> argumentValues(const SyntaxTree &tree, uint32_t file, uint32_t begin,
                                        uint32_t end) {
  std::vector<std::string> values;
  int depth = 0;
  uint32_t start = begin;
  for (uint32_t t = begin; t <= end; ++t) {
    TokenKind kind = t < end ? tree.token(file, t).kind : TokenKind::Comma;
    if (kind == TokenKind::LParen)
      ++depth;
    else if (kind == TokenKind::RParen)
      --depth;
    else if (kind == TokenKind::Comma && depth == 0) {
      if (t > start)
        values.emplace_back(tree.span(file, start, t));
      start = t + 1;
    }
  }
  return values;
}

std::vector<std::string> rowValues(const SyntaxTree &tree, uint32_t file, uint32_t begin,
                                   uint32_t end) {
  std::vector<std::string> values;
  int depth = 0;
  uint32_t start = begin;
  for (uint32_t t = begin; t < end; ++t) {
    const Token &tok = tree.token(file, t);
    if (tok.kind == TokenKind::LParen)
      ++depth;
    if (tok.kind == TokenKind::RParen)
      --depth;
    bool last = t + 1 == end;
    const Token *next = last ? nullptr : &tree.token(file, t + 1);
    bool parts = depth == 0 && (last || !next->touchesPrev || next->kind == TokenKind::Comma);
    if (tok.kind == TokenKind::Comma && depth == 0) {
      start = t + 1;
      continue;
    }
    if (parts) {
      values.emplace_back(tree.span(file, start, t + 1));
      start = t + 1;
    }
  }
  return values;
}

} // namespace ledger
