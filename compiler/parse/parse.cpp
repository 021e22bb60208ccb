#include "parse/parse.h"

#include "diag/nearest.h"
#include "parse/pattern.h"

#include <map>
#include <string>

namespace ledger {

namespace {

// Words a slot must not take because the pattern around it reads them next.
struct Blocked {
  const WordSet *words;
  const Blocked *outer;
  bool has(std::string_view word) const {
    for (const Blocked *b = this; b; b = b->outer)
      if (b->words && b->words->count(word))
        return true;
    return false;
  }
};

// The formula's own words, never names.
bool isFormulaWord(std::string_view w) {
  return w == "and" || w == "or" || w == "not" || w == "except";
}

class Parser {
public:
  Parser(SyntaxTree &tree, DiagnosticEngine &diags) : tree_(tree), diags_(diags), table_(patternTable()) {
    for (const FormPattern &form : table_.forms)
      if (any(form.ctxs, partContexts()))
        partForms_[static_cast<uint32_t>(form.ctxs)].push_back(static_cast<uint32_t>(form.kind));
  }

  void run(uint32_t firstFile) {
    findTemplateKinds();
    tree_.fileFirstNode.resize(tree_.files.size(), kNone);
    for (uint32_t f = firstFile; f < tree_.files.size(); ++f) {
      file_ = f;
      Ctx top = tree_.roles[f] == FileRole::Play ? Ctx::PlayFile : Ctx::File;
      tree_.fileFirstNode[f] = parseLines(tree_.files[f].firstTopLine, top, kNone, Ctx::Steps);
    }
  }

private:
  static Ctx partContexts() {
    return Ctx::PTargets | Ctx::PFilter | Ctx::PWho | Ctx::PKeys | Ctx::POrder | Ctx::PHeld |
           Ctx::PParent | Ctx::PParam | Ctx::PAssign | Ctx::PPlaced | Ctx::PEventSpec |
           Ctx::PCover;
  }

  const LexedFile &lf() const { return tree_.files[file_]; }
  const Token *tok(uint32_t i) const { return i < end_ ? &lf().tokens[i] : nullptr; }
  std::string_view text(uint32_t i) const { return tree_.text(file_, i); }
  bool isName(uint32_t i) const { return i < end_ && lf().tokens[i].kind == TokenKind::Name; }
  bool isKind(uint32_t i, TokenKind kind) const { return i < end_ && lf().tokens[i].kind == kind; }
  bool isWord(uint32_t i, std::string_view w) const { return isName(i) && text(i) == w; }
  bool isLit(uint32_t i, std::string_view lit) const {
    if (i >= end_)
      return false;
    const Token &t = lf().tokens[i];
    if (t.kind == TokenKind::String || t.kind == TokenKind::RawText)
      return false;
    return text(i) == lit;
  }

  void expected(std::string what) {
    if (pos_ > furthest_ || (pos_ == furthest_ && expectedWhat_.empty())) {
      furthest_ = pos_;
      expectedWhat_.clear();
    }
    if (pos_ == furthest_) {
      for (const std::string &w : expectedWhat_)
        if (w == what)
          return;
      expectedWhat_.push_back(std::move(what));
    }
  }

  // ---- template kinds, found before any body is read -------------------
  void findTemplateKinds() {
    for (uint32_t f = 0; f < tree_.files.size(); ++f) {
      const LexedFile &file = tree_.files[f];
      for (uint32_t l = file.firstTopLine; l != kNoLine; l = file.lines[l].nextSibling) {
        const Line &line = file.lines[l];
        if (line.endToken - line.firstToken < 3)
          continue;
        auto word = [&](uint32_t k) { return file.text(*tree_.sources, file.tokens[line.firstToken + k]); };
        if (word(0) != "template")
          continue;
        std::string_view kind = word(1);
        if (kind == "effect" || kind == "ability" || kind == "archetype")
          templateKinds_[std::string(word(2))] = kind == "effect"    ? Ctx::Effect
                                                 : kind == "ability" ? Ctx::Ability
                                                                     : Ctx::Archetype;
        else
          templateKinds_[std::string(kind)] = Ctx::File;
      }
    }
  }

  // ---- lines ------------------------------------------------------------
  Ctx bodyOf(Ctx ctx) const { return ctx == Ctx::Before ? Ctx::Before : Ctx::Steps; }

  NodeId parseLines(uint32_t first, Ctx ctx, NodeId parent, Ctx outer) {
    NodeId head = kNone, last = kNone;
    for (uint32_t l = first; l != kNoLine; l = lf().lines[l].nextSibling) {
      NodeId node = parseLine(l, ctx, parent, outer);
      if (node == kNone)
        continue;
      if (last == kNone)
        head = node;
      else
        tree_.nodes[last].nextSibling = node;
      last = node;
    }
    return head;
  }

  Ctx childContext(const FormPattern &form, NodeId node, Ctx ctx, Ctx outer) {
    switch (form.child) {
    case Ctx::Body:
      return bodyOf(ctx);
    case Ctx::Outer:
      return outer;
    case Ctx::ByKind: {
      const Slot *kind = tree_.slot(node, "kind");
      std::string_view k = kind ? tree_.span(file_, kind->begin, kind->end) : "";
      if (k == "effect")
        return Ctx::Effect;
      if (k == "ability")
        return Ctx::Ability;
      if (k == "archetype")
        return Ctx::Archetype;
      if (k == "table")
        return Ctx::Table;
      if (form.kind == FormKind::Template)
        return Ctx::File;
      // extend or replace template: its lines read as the template's kind
      const Slot *target = tree_.slot(node, "target");
      if (target) {
        auto it = templateKinds_.find(std::string(tree_.span(file_, target->begin, target->end)));
        if (it != templateKinds_.end())
          return it->second;
      }
      return Ctx::File;
    }
    default:
      return form.child;
    }
  }

  NodeId parseLine(uint32_t lineIndex, Ctx ctx, NodeId parent, Ctx outer) {
    const Line &line = lf().lines[lineIndex];
    uint32_t begin = line.firstToken;
    end_ = line.endToken;

    // A play line's source (`from content: why`, `from v2 PATH`) is kept
    // apart from its form.
    uint32_t sourceBegin = kNone;
    if (ctx == Ctx::Play) {
      for (uint32_t i = end_; i-- > begin + 1;) {
        bool colon = isKind(end_ - 1, TokenKind::RawText) && end_ - i <= 4;
        // `from v2` alone names an actor the play made as v2.
        if (isWord(i, "from") && (colon || (isWord(i + 1, "v2") && i + 2 < end_))) {
          sourceBegin = i;
          break;
        }
      }
      if (sourceBegin != kNone)
        end_ = sourceBegin;
    }

    furthest_ = begin;
    expectedWhat_.clear();
    saidTooDeep_ = false;
    std::vector<uint32_t> candidates;
    std::string_view first = text(begin);
    for (const FormPattern &form : table_.forms) {
      if (!any(form.ctxs, ctx))
        continue;
      for (const std::string &kw : form.keywords)
        if (kw == first) {
          candidates.push_back(static_cast<uint32_t>(form.kind));
          break;
        }
    }
    size_t keyed = candidates.size();
    // A line no keyword names is a keywordless form: a modifier, a row, a point.
    for (const FormPattern &form : table_.forms)
      if (keyed == 0 && any(form.ctxs, ctx))
        for (const std::string &kw : form.keywords)
          if (kw.empty()) {
            candidates.push_back(static_cast<uint32_t>(form.kind));
            break;
          }

    uint32_t bestForm = kNone;
    for (size_t c = 0; c < candidates.size(); ++c) {
      const FormPattern &form = table_.forms[candidates[c]];
      for (size_t a = 0; a < form.alts.size(); ++a) {
        if (!(form.keywords[a] == first || (c >= keyed && form.keywords[a].empty())))
          continue;
        Mark mark = markHere(begin);
        size_t scratchBase = scratch_.size();
        bool matched = matchPat(form.alts[a], nullptr);
        if (matched && pos_ == end_) {
          if (sourceBegin != kNone) {
            Slot source;
            source.label = internLabel("source");
            source.kind = SlotKind::Rest;
            source.begin = sourceBegin + 1;
            source.end = line.endToken;
            scratch_.push_back(source);
          }
          NodeId node = makeNode(form.kind, begin, line.endToken, scratchBase);
          tree_.nodes[node].parent = parent;
          if (line.firstChild != kNoLine) {
            if (form.child == Ctx::None) {
              const Line &child = lf().lines[line.firstChild];
              diags_.report(DiagKind::NothingUnder, tree_.loc(file_, child.firstToken),
                            tokenLength(child.firstToken), first);
            } else {
              Ctx childCtx = childContext(form, node, ctx, outer);
              Ctx childOuter = form.kind == FormKind::StepOutcome ? bodyOf(ctx) : outer;
              Nest nest(*this);
              if (nest.ok)
                tree_.nodes[node].firstChild =
                    parseLines(line.firstChild, childCtx, node, childOuter);
            }
          }
          return node;
        }
        if (matched) // a prefix matched: the rest of the line is what went wrong
          expectedAt(pos_, "the end of the line");
        if (bestForm == kNone || furthest_ >= bestFurthest_) {
          bestForm = candidates[c];
          bestFurthest_ = furthest_;
        }
        reset(mark);
        scratch_.resize(scratchBase);
      }
    }

    // A line too deep to read is refused for that alone: what it fails to
    // match past the depth is no fault of its own.
    if (saidTooDeep_)
      return kNone;
    if (candidates.empty() || (keyed == 0 && (furthest_ == begin || isKeyword(first)))) {
      // The clause or step word of this place nearest the one written.
      std::vector<std::string_view> words;
      for (const FormPattern &form : table_.forms)
        if (any(form.ctxs, ctx))
          for (const std::string &kw : form.keywords)
            if (!kw.empty())
              words.push_back(kw);
      // A word of the language written where it isn't taken is no typo.
      if (std::string_view near = isKeyword(first) ? "" : nearestWord(first, words); !near.empty())
        diags_.report(DiagKind::UnknownFormNear, tree_.loc(file_, begin), tokenLength(begin), first,
                      ctxDescription(ctx), near);
      else
        diags_.report(DiagKind::UnknownForm, tree_.loc(file_, begin), tokenLength(begin), first,
                      ctxDescription(ctx));
    } else {
      uint32_t at = furthest_ < end_ ? furthest_ : (end_ > begin ? end_ - 1 : begin);
      std::string what;
      for (size_t i = 0; i < expectedWhat_.size() && i < 4; ++i)
        what += (i ? (i + 1 == expectedWhat_.size() || i == 3 ? " or " : ", ") : "") + expectedWhat_[i];
      if (what.empty())
        what = "something else";
      if (furthest_ >= end_) {
        diags_.report(DiagKind::FormEndsEarly, tree_.loc(file_, at), tokenLength(at), what);
      } else {
        diags_.report(DiagKind::FormMismatch, tree_.loc(file_, at), tokenLength(at), what,
                      text(at));
      }
      diags_.note(DiagKind::FormReads, tree_.loc(file_, begin), tokenLength(begin),
                  table_.readable(static_cast<FormKind>(bestForm)));
    }
    return kNone;
  }

  // Whether a word begins a form somewhere, if not here.
  bool isKeyword(std::string_view word) const {
    for (const FormPattern &form : table_.forms)
      if (!any(form.ctxs, partContexts()))
        for (const std::string &kw : form.keywords)
          if (kw == word)
            return true;
    return false;
  }

  void expectedAt(uint32_t at, std::string what) {
    uint32_t saved = pos_;
    pos_ = at;
    expected(std::move(what));
    pos_ = saved;
  }

  uint32_t tokenLength(uint32_t i) const {
    const Token &t = lf().tokens[i];
    return t.end - t.begin;
  }

  // ---- backtracking -----------------------------------------------------
  struct Mark {
    uint32_t pos;
    size_t nodes, slots, exprs, args, scratch;
  };
  Mark markHere(uint32_t pos) {
    pos_ = pos;
    return {pos, tree_.nodes.size(), tree_.slots.size(), tree_.exprs.size(),
            tree_.exprArgs.size(), scratch_.size()};
  }
  Mark mark() const {
    return {pos_, tree_.nodes.size(), tree_.slots.size(), tree_.exprs.size(),
            tree_.exprArgs.size(), scratch_.size()};
  }
  void reset(const Mark &m) {
    pos_ = m.pos;
    tree_.nodes.resize(m.nodes);
    tree_.slots.resize(m.slots);
    tree_.exprs.resize(m.exprs);
    tree_.exprArgs.resize(m.args);
    scratch_.resize(m.scratch);
  }

  NodeId makeNode(FormKind kind, uint32_t begin, uint32_t end, size_t scratchBase) {
    Node node{kind, file_, begin, end, static_cast<uint32_t>(tree_.slots.size()),
              static_cast<uint32_t>(scratch_.size() - scratchBase), kNone, kNone, kNone};
    tree_.slots.insert(tree_.slots.end(), scratch_.begin() + static_cast<ptrdiff_t>(scratchBase),
                       scratch_.end());
    scratch_.resize(scratchBase);
    tree_.nodes.push_back(node);
    return static_cast<NodeId>(tree_.nodes.size() - 1);
  }

  void addSlot(const Pat &pat, SlotKind kind, uint32_t begin, uint32_t end, uint32_t value = kNone) {
    Slot slot;
    slot.label = pat.label;
    slot.kind = kind;
    slot.ref = pat.ref;
    slot.begin = begin;
    slot.end = end;
    slot.value = value;
    scratch_.push_back(slot);
  }

  // ---- matching ---------------------------------------------------------
  // Whether an optional group or a repetition should not be tried here: its
  // next word belongs to the pattern around it.
  bool groupStops(const Pat &group, const Blocked *outer) const {
    if (!isName(pos_))
      return false;
    std::string_view w = text(pos_);
    if (outer && outer->has(w))
      return true;
    return group.after.count(w) && !group.first.count(w);
  }

  bool matchPat(uint32_t id, const Blocked *outer) {
    const Pat &p = table_.pats[id];
    switch (p.op) {
    case PatOp::Seq: {
      for (uint32_t kid : p.kids)
        if (!matchPat(kid, outer))
          return false;
      if (p.flag)
        addSlot(p, SlotKind::Flag, pos_ - static_cast<uint32_t>(p.kids.size()), pos_);
      return true;
    }
    case PatOp::Alt: {
      for (uint32_t kid : p.kids) {
        Mark m = mark();
        if (matchPat(kid, outer))
          return true;
        reset(m);
      }
      return false;
    }
    case PatOp::Opt: {
      if (groupStops(p, outer))
        return true;
      Mark m = mark();
      if (!matchPat(p.kids[0], outer))
        reset(m);
      return true;
    }
    case PatOp::Star: {
      while (pos_ < end_ && !groupStops(p, outer)) {
        Mark m = mark();
        if (!matchPat(p.kids[0], outer) || pos_ == m.pos) {
          reset(m);
          break;
        }
      }
      return true;
    }
    case PatOp::Group:
      return matchPat(p.kids[0], outer);
    case PatOp::CommaList: {
      if (!matchPat(p.kids[0], outer))
        return false;
      while (isKind(pos_, TokenKind::Comma)) {
        Mark m = mark();
        ++pos_;
        if (!matchPat(p.kids[0], outer)) {
          reset(m);
          break;
        }
      }
      return true;
    }
    case PatOp::Lit:
      if (isLit(pos_, p.lit)) {
        ++pos_;
        return true;
      }
      expected("`" + p.lit + "`");
      return false;
    case PatOp::Choice: {
      for (const auto &choice : p.choices) {
        uint32_t at = pos_;
        bool ok = true;
        for (const std::string &w : choice) {
          if (!isLit(at, w)) {
            ok = false;
            break;
          }
          ++at;
        }
        if (ok) {
          addSlot(p, SlotKind::Word, pos_, at);
          pos_ = at;
          return true;
        }
      }
      std::string what;
      for (size_t i = 0; i < p.choices.size(); ++i) {
        std::string words;
        for (const std::string &w : p.choices[i])
          words += (words.empty() ? "" : " ") + w;
        what += (i ? ", " : "") + ("`" + words + "`");
      }
      expected("one of " + what);
      return false;
    }
    case PatOp::Slot:
      return matchSlot(p, Blocked{&p.after, outer});
    }
    return false;
  }

  bool nameOk(uint32_t i, const Blocked &blocked) const {
    return isName(i) && !blocked.has(text(i)) && !isFormulaWord(text(i));
  }

  // NAME(.NAME)*
  bool path(const Blocked &blocked) {
    if (!nameOk(pos_, blocked))
      return false;
    ++pos_;
    while (isKind(pos_, TokenKind::Dot) && isName(pos_ + 1))
      pos_ += 2;
    return true;
  }

  bool matchSlot(const Pat &p, const Blocked &blocked) {
    uint32_t begin = pos_;
    switch (p.kind) {
    case SlotKind::Name:
      if (nameOk(pos_, blocked)) {
        ++pos_;
        addSlot(p, SlotKind::Name, begin, pos_);
        return true;
      }
      expected("a name");
      return false;
    case SlotKind::Names:
    case SlotKind::Refs: {
      bool dotted = p.kind == SlotKind::Refs;
      size_t count = 0;
      while (true) {
        uint32_t at = pos_;
        // Inside a call's parentheses a comma parts its arguments, not a list.
        if (count > 0 && isKind(pos_, TokenKind::Comma) && callDepth_ == 0)
          ++pos_;
        if (dotted ? !path(blocked) : !nameOk(pos_, blocked)) {
          pos_ = at;
          break;
        }
        if (!dotted)
          ++pos_;
        ++count;
      }
      if (count == 0) {
        expected(p.kind == SlotKind::Names ? "a name" : refKindWithArticle(p.ref));
        return false;
      }
      addSlot(p, p.kind, begin, pos_);
      return true;
    }
    case SlotKind::Path:
    case SlotKind::Ref:
      if (path(blocked)) {
        addSlot(p, p.kind, begin, pos_);
        return true;
      }
      expected(p.kind == SlotKind::Path ? "a name" : refKindWithArticle(p.ref));
      return false;
    case SlotKind::Formula: {
      ExprId e = formula(blocked);
      if (e == kNone) {
        expected("a formula");
        return false;
      }
      addSlot(p, SlotKind::Formula, begin, pos_, e);
      return true;
    }
    case SlotKind::Duration: {
      ExprId e = duration();
      if (e == kNone) {
        // A number with no unit: say so where the unit would stand.
        if (isKind(pos_, TokenKind::Number))
          expectedAt(pos_ + 1, "its unit right after the number (s, ms or t)");
        expected("a duration (a number with s, ms or t)");
        return false;
      }
      addSlot(p, SlotKind::Duration, begin, pos_, e);
      return true;
    }
    case SlotKind::Number: {
      uint32_t at = pos_;
      if (isKind(at, TokenKind::Minus))
        ++at;
      if (isKind(at, TokenKind::Number) || isKind(at, TokenKind::Percent)) {
        pos_ = at + 1;
        addSlot(p, SlotKind::Number, begin, pos_);
        return true;
      }
      expected("a number");
      return false;
    }
    case SlotKind::Text:
      if (isKind(pos_, TokenKind::String)) {
        ++pos_;
        addSlot(p, SlotKind::Text, begin, pos_);
        return true;
      }
      expected("quoted text");
      return false;
    case SlotKind::Cmp: {
      const Token *t = tok(pos_);
      if (t && (t->kind == TokenKind::Eq || t->kind == TokenKind::EqEq ||
                t->kind == TokenKind::NotEq || t->kind == TokenKind::Less ||
                t->kind == TokenKind::LessEq || t->kind == TokenKind::Greater ||
                t->kind == TokenKind::GreaterEq)) {
        ++pos_;
        addSlot(p, SlotKind::Cmp, begin, pos_);
        return true;
      }
      expected("a comparison");
      return false;
    }
    case SlotKind::Rest:
      if (pos_ < end_) {
        pos_ = end_;
        addSlot(p, SlotKind::Rest, begin, pos_);
        return true;
      }
      expected("more");
      return false;
    case SlotKind::Word:
      if (isName(pos_) || isKind(pos_, TokenKind::Number)) {
        ++pos_;
        addSlot(p, SlotKind::Word, begin, pos_);
        return true;
      }
      expected("a name or a number");
      return false;
    case SlotKind::Args: {
      int depth = 0;
      while (pos_ < end_) {
        TokenKind k = lf().tokens[pos_].kind;
        if (k == TokenKind::RParen && depth == 0)
          break;
        if (k == TokenKind::LParen)
          ++depth;
        if (k == TokenKind::RParen)
          --depth;
        ++pos_;
      }
      addSlot(p, SlotKind::Args, begin, pos_);
      return true;
    }
    case SlotKind::Part: {
      NodeId node = part(p.part, &blocked, false);
      if (node == kNone)
        return false;
      addSlot(p, SlotKind::Part, begin, pos_, node);
      return true;
    }
    case SlotKind::Flag:
      break;
    }
    return false;
  }

  // Tries the part forms of a context in order; `listsOnly` passes over an
  // actor standing alone (count(holder, Burn) is no query).
  NodeId part(Ctx ctx, const Blocked *outer, bool listsOnly) {
    auto it = partForms_.find(static_cast<uint32_t>(ctx));
    if (it == partForms_.end())
      return kNone;
    for (uint32_t formIndex : it->second) {
      const FormPattern &form = table_.forms[formIndex];
      if (listsOnly && form.kind == FormKind::TargetsActor)
        continue;
      for (uint32_t alt : form.alts) {
        Mark m = mark();
        size_t scratchBase = scratch_.size();
        if (matchPat(alt, outer))
          return makeNode(form.kind, m.pos, pos_, scratchBase);
        reset(m);
      }
    }
    return kNone;
  }

  // ---- formulas ---------------------------------------------------------
  ExprId addExpr(Expr e, const std::vector<ExprId> &args = {}) {
    e.file = file_;
    e.firstArg = static_cast<uint32_t>(tree_.exprArgs.size());
    e.argCount = static_cast<uint32_t>(args.size());
    tree_.exprArgs.insert(tree_.exprArgs.end(), args.begin(), args.end());
    tree_.exprs.push_back(e);
    return static_cast<ExprId>(tree_.exprs.size() - 1);
  }

  ExprId duration() {
    uint32_t begin = pos_;
    if (isKind(pos_, TokenKind::Duration)) {
      Expr num{ExprKind::Number};
      num.begin = pos_;
      num.end = pos_ + 1;
      ExprId n = addExpr(num);
      Expr d{ExprKind::Duration};
      d.unit = lf().tokens[pos_].unit;
      d.begin = begin;
      d.end = ++pos_;
      return addExpr(d, {n});
    }
    if (isKind(pos_, TokenKind::LParen)) {
      Mark m = mark();
      ++pos_;
      Blocked inner{nullptr, nullptr};
      ExprId f = formula(inner);
      if (f != kNone && isKind(pos_, TokenKind::RParen) && isName(pos_ + 1) &&
          lf().tokens[pos_ + 1].touchesPrev) {
        std::string_view unit = text(pos_ + 1);
        TimeUnit u = unit == "s" ? TimeUnit::Seconds
                     : unit == "ms" ? TimeUnit::Millis
                     : unit == "t"  ? TimeUnit::Ticks
                                    : TimeUnit::None;
        if (u != TimeUnit::None) {
          pos_ += 2;
          Expr d{ExprKind::Duration};
          d.unit = u;
          d.begin = begin;
          d.end = pos_;
          return addExpr(d, {f});
        }
      }
      reset(m);
    }
    return kNone;
  }

  // Formulas and blocks nest at most this deep, so no input runs the
  // parser (or a later pass walking what it built) out of stack.
  static constexpr uint32_t kMaxNesting = 200;

  // Counts a level of nesting for the life of a call; false once too deep,
  // said once a line.
  struct Nest {
    Parser &p;
    bool ok;
    explicit Nest(Parser &parser) : p(parser), ok(++parser.nesting_ <= kMaxNesting) {
      if (!ok)
        p.sayTooDeep();
    }
    ~Nest() { --p.nesting_; }
  };
  // A long run of one operator is a deep tree too; it is said as a run, not
  // as brackets the author never wrote.
  void sayTooDeep(bool inRun = false) {
    if (saidTooDeep_)
      return;
    saidTooDeep_ = true;
    diags_.report(inRun ? DiagKind::FormulaRunTooLong : DiagKind::NestedTooDeep,
                  tree_.loc(file_, std::min(pos_, end_ - 1)), 1, kMaxNesting);
  }

  ExprId formula(const Blocked &blocked) {
    Nest nest(*this);
    return nest.ok ? orExpr(blocked) : kNone;
  }

  ExprId binaryChain(const Blocked &blocked, ExprId (Parser::*next)(const Blocked &),
                     ExprOp (Parser::*opAt)() const) {
    uint32_t begin = pos_;
    ExprId lhs = (this->*next)(blocked);
    if (lhs == kNone)
      return kNone;
    // Each link deepens the tree the later passes walk: a level of nesting.
    uint32_t links = 0;
    auto done = [&](ExprId result) {
      nesting_ -= links;
      return result;
    };
    while (true) {
      ExprOp op = (this->*opAt)();
      if (op == ExprOp::None)
        return done(lhs);
      ++nesting_;
      ++links;
      if (nesting_ > kMaxNesting) {
        sayTooDeep(true);
        return done(kNone);
      }
      Mark m = mark();
      ++pos_;
      ExprId rhs = (this->*next)(blocked);
      if (rhs == kNone) {
        reset(m);
        return done(lhs);
      }
      Expr e{ExprKind::Binary};
      e.op = op;
      e.begin = begin;
      e.end = pos_;
      lhs = addExpr(e, {lhs, rhs});
    }
  }

  ExprOp orOp() const { return isWord(pos_, "or") ? ExprOp::Or : ExprOp::None; }
  ExprOp andOp() const { return isWord(pos_, "and") ? ExprOp::And : ExprOp::None; }
  ExprOp sumOp() const {
    return isKind(pos_, TokenKind::Plus)    ? ExprOp::Add
           : isKind(pos_, TokenKind::Minus) ? ExprOp::Sub
                                            : ExprOp::None;
  }
  ExprOp productOp() const {
    return isKind(pos_, TokenKind::Star)    ? ExprOp::Mul
           : isKind(pos_, TokenKind::Slash) ? ExprOp::Div
                                            : ExprOp::None;
  }
  ExprOp cmpOp() const {
    const Token *t = tok(pos_);
    if (!t)
      return ExprOp::None;
    switch (t->kind) {
    case TokenKind::Eq:
    case TokenKind::EqEq: return ExprOp::Eq;
    case TokenKind::NotEq: return ExprOp::Ne;
    case TokenKind::Less: return ExprOp::Lt;
    case TokenKind::LessEq: return ExprOp::Le;
    case TokenKind::Greater: return ExprOp::Gt;
    case TokenKind::GreaterEq: return ExprOp::Ge;
    default: return ExprOp::None;
    }
  }

  ExprId orExpr(const Blocked &b) { return binaryChain(b, &Parser::andExpr, &Parser::orOp); }
  ExprId andExpr(const Blocked &b) { return binaryChain(b, &Parser::notExpr, &Parser::andOp); }

  // `not a` and `-a`: the operator, then its own level again.
  ExprId prefix(const Blocked &b, ExprOp op, ExprId (Parser::*self)(const Blocked &)) {
    Nest nest(*this);
    if (!nest.ok)
      return kNone;
    uint32_t begin = pos_++;
    ExprId inner = (this->*self)(b);
    if (inner == kNone) {
      pos_ = begin;
      return kNone;
    }
    Expr e{ExprKind::Unary};
    e.op = op;
    e.begin = begin;
    e.end = pos_;
    return addExpr(e, {inner});
  }

  ExprId notExpr(const Blocked &b) {
    return isWord(pos_, "not") ? prefix(b, ExprOp::Not, &Parser::notExpr) : cmpExpr(b);
  }

  // One comparison a level: a = b < c is no formula.
  ExprId cmpExpr(const Blocked &b) {
    uint32_t begin = pos_;
    ExprId lhs = sumExpr(b);
    if (lhs == kNone)
      return kNone;
    ExprOp op = cmpOp();
    if (op == ExprOp::None)
      return lhs;
    Mark m = mark();
    ++pos_;
    ExprId rhs = sumExpr(b);
    if (rhs == kNone) {
      reset(m);
      return lhs;
    }
    Expr e{ExprKind::Binary};
    e.op = op;
    e.begin = begin;
    e.end = pos_;
    return addExpr(e, {lhs, rhs});
  }

  ExprId sumExpr(const Blocked &b) { return binaryChain(b, &Parser::productExpr, &Parser::sumOp); }
  ExprId productExpr(const Blocked &b) {
    return binaryChain(b, &Parser::signExpr, &Parser::productOp);
  }

  ExprId signExpr(const Blocked &b) {
    return isKind(pos_, TokenKind::Minus) ? prefix(b, ExprOp::Neg, &Parser::signExpr)
                                          : postfixExpr(b);
  }

  ExprId postfixExpr(const Blocked &b) {
    uint32_t begin = pos_;
    ExprId e = atom(b);
    if (e == kNone)
      return kNone;
    while (isKind(pos_, TokenKind::Dot) && isName(pos_ + 1) &&
           tree_.exprs[e].kind != ExprKind::Path) {
      Expr m{ExprKind::Member};
      m.begin = begin;
      m.nameEnd = pos_ + 1;
      pos_ += 2;
      m.end = pos_;
      e = addExpr(m, {e});
    }
    if (isWord(pos_, "except") && !b.has("except")) {
      uint32_t tagsBegin = ++pos_;
      while (true) {
        uint32_t at = pos_;
        if (pos_ > tagsBegin && isKind(pos_, TokenKind::Comma))
          ++pos_;
        if (!path(b)) {
          pos_ = at;
          break;
        }
      }
      if (pos_ == tagsBegin) {
        expected("a tag");
        pos_ = tagsBegin - 1;
        return e;
      }
      Expr x{ExprKind::Except};
      x.begin = begin;
      x.nameEnd = tagsBegin;
      x.end = pos_;
      e = addExpr(x, {e});
    }
    return e;
  }

  ExprId atom(const Blocked &b) {
    uint32_t begin = pos_;
    // `...` in a template's term joins it over a list parameter.
    if (isKind(pos_, TokenKind::Ellipsis)) {
      Expr e{ExprKind::Path};
      e.begin = begin;
      e.end = ++pos_;
      return addExpr(e);
    }
    if (isKind(pos_, TokenKind::Number) || isKind(pos_, TokenKind::Percent)) {
      Expr e{ExprKind::Number};
      e.begin = begin;
      e.end = ++pos_;
      return addExpr(e);
    }
    if (isKind(pos_, TokenKind::LParen)) {
      Mark m = mark();
      ++pos_;
      Blocked inner{nullptr, nullptr};
      ExprId e = formula(inner);
      if (e != kNone && isKind(pos_, TokenKind::RParen) &&
          !(isName(pos_ + 1) && lf().tokens[pos_ + 1].touchesPrev)) {
        ++pos_;
        return e;
      }
      reset(m);
      expected("a formula");
      return kNone;
    }
    if (!nameOk(pos_, b)) {
      return kNone;
    }
    std::string_view name = text(pos_);
    if (name == "held" && isKind(pos_ + 1, TokenKind::LParen)) {
      NodeId held = part(Ctx::PHeld, nullptr, false);
      if (held == kNone)
        return kNone;
      Expr e{ExprKind::Part};
      e.begin = begin;
      e.end = pos_;
      e.part = held;
      return addExpr(e);
    }
    uint32_t nameEnd = pos_ + 1;
    if (name == "highest" && isWord(pos_ + 1, "stacks") && isKind(pos_ + 2, TokenKind::LParen))
      nameEnd = pos_ + 2;
    if (isKind(nameEnd, TokenKind::LParen))
      return call(begin, nameEnd);
    path(b);
    Expr e{ExprKind::Path};
    e.begin = begin;
    e.end = pos_;
    return addExpr(e);
  }

  ExprId call(uint32_t begin, uint32_t nameEnd) {
    Mark m = mark();
    std::string_view name = text(begin);
    bool aggregate = nameEnd == begin + 1 &&
                     (name == "count" || name == "sum" || name == "highest" || name == "lowest");
    pos_ = nameEnd + 1;
    std::vector<ExprId> args;
    Blocked none{nullptr, nullptr};
    struct Depth {
      uint32_t &depth;
      explicit Depth(uint32_t &d) : depth(d) { ++depth; }
      ~Depth() { --depth; }
    } inCall(callDepth_);
    if (!isKind(pos_, TokenKind::RParen)) {
      while (true) {
        ExprId arg = kNone;
        if (args.empty() && aggregate) {
          // count(all enemies having Down), sum(held(holder), it.stacks)
          Mark before = mark();
          NodeId q = part(Ctx::PTargets, nullptr, true);
          if (q != kNone && (isKind(pos_, TokenKind::Comma) || isKind(pos_, TokenKind::RParen))) {
            Expr e{ExprKind::Part};
            e.begin = before.pos;
            e.end = pos_;
            e.part = q;
            arg = addExpr(e);
          } else {
            reset(before);
          }
        }
        if (arg == kNone)
          arg = formula(none);
        if (arg == kNone) {
          reset(m);
          return kNone;
        }
        args.push_back(arg);
        if (isKind(pos_, TokenKind::Comma)) {
          ++pos_;
          continue;
        }
        break;
      }
    }
    if (!isKind(pos_, TokenKind::RParen)) {
      expected("`)`");
      reset(m);
      return kNone;
    }
    ++pos_;
    Expr e{ExprKind::Call};
    e.begin = begin;
    e.nameEnd = nameEnd;
    e.end = pos_;
    return addExpr(e, args);
  }

  SyntaxTree &tree_;
  DiagnosticEngine &diags_;
  const PatternTable &table_;
  std::map<uint32_t, std::vector<uint32_t>> partForms_;
  std::map<std::string, Ctx, std::less<>> templateKinds_;
  std::vector<Slot> scratch_;
  uint32_t file_ = 0;
  uint32_t pos_ = 0, end_ = 0;
  uint32_t furthest_ = 0, bestFurthest_ = 0;
  uint32_t callDepth_ = 0; // calls whose arguments are being read
  uint32_t nesting_ = 0;   // formulas and blocks open
  bool saidTooDeep_ = false;
  std::vector<std::string> expectedWhat_;
};

// ---- dump -----------------------------------------------------------------

const char *opText(ExprOp op) {
  switch (op) {
  case ExprOp::None: return "?";
  case ExprOp::Neg: return "neg";
  case ExprOp::Not: return "not";
  case ExprOp::And: return "and";
  case ExprOp::Or: return "or";
  case ExprOp::Eq: return "=";
  case ExprOp::Ne: return "!=";
  case ExprOp::Lt: return "<";
  case ExprOp::Le: return "<=";
  case ExprOp::Gt: return ">";
  case ExprOp::Ge: return ">=";
  case ExprOp::Add: return "+";
  case ExprOp::Sub: return "-";
  case ExprOp::Mul: return "*";
  case ExprOp::Div: return "/";
  }
  return "?";
}

const char *unitText(TimeUnit unit) {
  switch (unit) {
  case TimeUnit::Seconds: return "s";
  case TimeUnit::Millis: return "ms";
  case TimeUnit::Ticks: return "t";
  case TimeUnit::None: return "";
  }
  return "";
}

void dumpNode(const SyntaxTree &tree, NodeId id, int depth, std::string &out, bool inLine);

void dumpSlots(const SyntaxTree &tree, NodeId id, std::string &out) {
  const Node &n = tree.nodes[id];
  for (uint32_t i = 0; i < n.slotCount; ++i) {
    const Slot &s = tree.slots[n.firstSlot + i];
    out += ' ';
    out += labelText(s.label);
    if (s.kind == SlotKind::Flag)
      continue;
    out += '=';
    switch (s.kind) {
    case SlotKind::Formula:
    case SlotKind::Duration:
      out += dumpExpr(tree, s.value);
      break;
    case SlotKind::Part:
      dumpNode(tree, s.value, 0, out, true);
      break;
    case SlotKind::Names:
    case SlotKind::Refs:
      out += '[';
      out += tree.span(n.file, s.begin, s.end);
      out += ']';
      break;
    case SlotKind::Number: {
      Fixed v = tree.token(n.file, s.end - 1).value;
      if (s.end - s.begin == 2)
        v.raw = -v.raw;
      out += formatFixed(v);
      break;
    }
    default:
      out += tree.span(n.file, s.begin, s.end);
      break;
    }
  }
}

void dumpNode(const SyntaxTree &tree, NodeId id, int depth, std::string &out, bool inLine) {
  const Node &n = tree.nodes[id];
  if (inLine) {
    out += '(';
    out += formName(n.kind);
    dumpSlots(tree, id, out);
    out += ')';
    return;
  }
  out.append(static_cast<size_t>(depth) * 2, ' ');
  out += formName(n.kind);
  LineCol lc = tree.sources->lineCol(tree.loc(n.file, n.begin));
  out += " @" + std::to_string(lc.line);
  dumpSlots(tree, id, out);
  out += '\n';
  for (NodeId c = n.firstChild; c != kNone; c = tree.nodes[c].nextSibling)
    dumpNode(tree, c, depth + 1, out, false);
}

} // namespace

std::string dumpExpr(const SyntaxTree &tree, ExprId id) {
  const Expr &e = tree.exprs[id];
  auto arg = [&](uint32_t i) { return dumpExpr(tree, tree.exprArgs[e.firstArg + i]); };
  switch (e.kind) {
  case ExprKind::Number: {
    const Token &t = tree.token(e.file, e.begin);
    return formatFixed(t.value);
  }
  case ExprKind::Path:
    return std::string(tree.span(e.file, e.begin, e.end));
  case ExprKind::Call: {
    std::string s = "(call " + std::string(tree.span(e.file, e.begin, e.nameEnd));
    for (uint32_t i = 0; i < e.argCount; ++i)
      s += " " + arg(i);
    return s + ")";
  }
  case ExprKind::Member:
    return "(. " + arg(0) + " " + std::string(tree.text(e.file, e.nameEnd)) + ")";
  case ExprKind::Unary:
    return std::string("(") + opText(e.op) + " " + arg(0) + ")";
  case ExprKind::Binary:
    return std::string("(") + opText(e.op) + " " + arg(0) + " " + arg(1) + ")";
  case ExprKind::Except:
    return "(except " + arg(0) + " [" + std::string(tree.span(e.file, e.nameEnd, e.end)) + "])";
  case ExprKind::Part: {
    std::string s;
    dumpNode(tree, e.part, 0, s, true);
    return s;
  }
  case ExprKind::Duration: {
    // A number touches its unit; anything longer is parenthesised, as written.
    std::string inner = arg(0);
    if (tree.exprs[tree.exprArgs[e.firstArg]].kind != ExprKind::Number && inner.front() != '(')
      inner = "(" + inner + ")";
    return inner + unitText(e.unit);
  }
  }
  return "?";
}

void parse(SyntaxTree &tree, DiagnosticEngine &diags) { Parser(tree, diags).run(0); }

NodeId parseAddedFile(SyntaxTree &tree, DiagnosticEngine &diags) {
  Parser(tree, diags).run(static_cast<uint32_t>(tree.files.size() - 1));
  return tree.fileFirstNode.back();
}

std::string dumpTree(const SyntaxTree &tree) {
  std::string out;
  for (uint32_t f = 0; f < tree.files.size(); ++f) {
    out += "file " + tree.sources->file(tree.files[f].file).path + "\n";
    for (NodeId n = tree.fileFirstNode[f]; n != kNone; n = tree.nodes[n].nextSibling)
      dumpNode(tree, n, 1, out, false);
  }
  return out;
}

} // namespace ledger
