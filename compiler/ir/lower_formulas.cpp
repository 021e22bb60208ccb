// Lowering, formulas: each checked formula as flat expression records, its
// names resolved to slots, vars and the world's reads.
#include "ir/lowerer.h"

#include "number.h"
#include "pack_abi.h"
#include "refusals.h"

namespace ledger::ir {

Id Lowerer::addExprArgs(pack::Expr e, const std::vector<Id> &args) {
  e.argsBegin = uint32_t(t_.exprArgs.size());
  e.argCount = uint32_t(args.size());
  t_.exprArgs.insert(t_.exprArgs.end(), args.begin(), args.end());
  t_.exprs.push_back(e);
  return Id(t_.exprs.size() - 1);
}

Id Lowerer::addExpr(pack::Expr e, std::initializer_list<Id> args) {
  return addExprArgs(e, std::vector<Id>(args));
}

Lowered Lowerer::read(pack::Read r, std::vector<Id> args, Kind kind) {
  Id id = Id(t_.reads.size());
  t_.reads.push_back(r);
  pack::Expr e{pack::ExprOp::Read};
  e.imm = id;
  return {addExprArgs(e, args), kind};
}

Id Lowerer::constBody(int64_t value) {
  Body b;
  b.kind = BodyKind::Formula;
  b.root = constant(value);
  t_.bodies.push_back(b);
  return Id(t_.bodies.size() - 1);
}

Id Lowerer::formulaBody(uint32_t file, ExprId e, BodyScope scope, uint32_t line) {
  uint32_t slots = scope.nextSlot;
  scope.maxSlot = &slots;
  Lowered l = expr(file, e, scope);
  return formulaBodyOf(file, l.expr, slots, line);
}

Id Lowerer::formulaBodyOf(uint32_t file, Id root, uint32_t slots, uint32_t line) {
  Body b;
  b.kind = BodyKind::Formula;
  b.root = root;
  b.localCount = slots - LEDGER_SLOT_FIRST_LOCAL;
  b.line = line;
  b.file = fileIndex_[tree_.files[file].file];
  t_.bodies.push_back(b);
  return Id(t_.bodies.size() - 1);
}

Id Lowerer::pathBody(NodeId n, std::string_view label, BodyScope scope) {
  uint32_t slots = scope.nextSlot;
  scope.maxSlot = &slots;
  Body b;
  b.kind = BodyKind::Formula;
  b.root = actorOf(n, label, scope).expr;
  b.localCount = slots - LEDGER_SLOT_FIRST_LOCAL;
  b.line = lineOf(n);
  b.file = fileIndex_[tree_.files[tree_.nodes[n].file].file];
  t_.bodies.push_back(b);
  return Id(t_.bodies.size() - 1);
}

static Kind kindOfVar(VarKind k) {
  switch (k) {
  case VarKind::Actor:
    return Kind::Actor;
  case VarKind::Instance:
    return Kind::Instance;
  case VarKind::Tag:
    return Kind::Tag;
  case VarKind::Ability:
    return Kind::Ability;
  default:
    return Kind::Number;
  }
}

// A member read past what the base gives: an actor's link or value, an
// instance's fields and vars, a step result's counts.
Lowered Lowerer::member(Lowered base, std::string_view m, uint32_t file, uint32_t tok) {
  if (base.kind == Kind::Actor) {
    if (Id l = find(links_, m); l != kNoId) {
      Read r{ReadOp::Link};
      r.a = l;
      return read(r, {base.expr}, Kind::Actor);
    }
    if (Id v = valueId(m); v != kNoId) {
      Read r{ReadOp::Value};
      r.a = v;
      return read(r, {base.expr}, Kind::Number);
    }
  }
  if (base.kind == Kind::Instance) {
    static const std::pair<std::string_view, InstanceField> fields[] = {
        {"stacks", InstanceField::Stacks},   {"remaining", InstanceField::Remaining},
        {"elapsed", InstanceField::Elapsed}, {"source", InstanceField::Source},
        {"credit", InstanceField::Credit},   {"holder", InstanceField::Holder},
        {"suspended", InstanceField::Suspended}};
    for (auto [word, field] : fields)
      if (m == word) {
        Read r{ReadOp::InstanceField};
        r.a = Id(field);
        Kind k = field == InstanceField::Source || field == InstanceField::Credit ||
                         field == InstanceField::Holder
                     ? Kind::Actor
                     : Kind::Number;
        return read(r, {base.expr}, k);
      }
    Read r{ReadOp::InstanceVar};
    r.a = name(m);
    return read(r, {base.expr}, Kind::Number);
  }
  if (base.kind == Kind::Result) {
    static const std::string_view counts[] = {"done", "made", "merged", "refused"};
    pack::Expr e = t_.exprs[base.expr];
    for (uint32_t k = 0; k < 4; ++k)
      if (m == counts[k])
        return {local(uint32_t(e.imm) + k), Kind::Number};
    // A refusal by its name: the rows refused for it.
    for (uint32_t r = 1; r < uint32_t(rt::Refusal::Count); ++r)
      if (m == rt::refusalName(rt::Refusal(r)))
        return {local(uint32_t(e.imm) + 4 + r), Kind::Number};
  }
  diags_.report(DiagKind::NotRunYet, tree_.loc(file, tok), uint32_t(m.size()),
                "reading `" + std::string(m) + "` here");
  return {constant(0), Kind::Number};
}

// In an ability, the instance whose grant this use is: its activation's.
Lowered Lowerer::grantOf() {
  Read r{ReadOp::EventActor};
  r.a = Id(EventRole::Grant);
  return read(r, {}, Kind::Instance);
}

Lowered Lowerer::path(uint32_t file, uint32_t begin, uint32_t end, BodyScope &scope, ExprId) {
  std::vector<std::pair<std::string, uint32_t>> parts;
  for (uint32_t t = begin; t < end; ++t)
    if (tree_.token(file, t).kind != TokenKind::Dot)
      parts.emplace_back(std::string(tree_.text(file, t)), t);
  const std::string &h = parts[0].first;
  std::string whole = spanText(file, begin, end);
  size_t i = 1;
  Lowered cur;
  auto root = [&](uint32_t slot, Kind k) { return Lowered{local(slot), k}; };
  if (h == "true" || h == "false")
    return {constant(h == "true" ? Fixed::kScale : 0), Kind::Number};
  if (scope.bareFieldsOfIt && parts.size() == 1 &&
      (h == "stacks" || h == "remaining" || h == "elapsed" || h == "suspended"))
    return member(root(LEDGER_SLOT_IT, Kind::Instance), h, file, parts[0].second);
  if (const BodyScope::Local *l = scope.find(h)) {
    cur = {local(l->slot), l->kind};
  } else if (h == "holder") {
    cur = root(LEDGER_SLOT_HOLDER, Kind::Actor);
  } else if (h == "source") {
    cur = root(LEDGER_SLOT_SOURCE, Kind::Actor);
  } else if (h == "credit") {
    cur = root(LEDGER_SLOT_CREDIT, Kind::Actor);
  } else if (h == "target") {
    cur = root(LEDGER_SLOT_TARGET, Kind::Actor);
  } else if (h == "it") {
    cur = root(LEDGER_SLOT_IT, scope.itIsInstance ? Kind::Instance : Kind::Actor);
  } else if (h == "X") {
    Read r{ReadOp::EventField};
    r.a = Id(EventField::X);
    return read(r, {}, Kind::Number);
  } else if (h == "self") {
    if (parts.size() > 1 && scope.effect != kNoId) {
      const Effect &ef = t_.effects[scope.effect];
      for (uint32_t v = 0; v < ef.varCount; ++v)
        if (t_.names[t_.vars[ef.varsBegin + v].name] == parts[1].first) {
          pack::Expr e{pack::ExprOp::Var};
          e.imm = v;
          cur = {addExpr(e), kindOfVar(t_.vars[ef.varsBegin + v].kind)};
          i = 2;
          break;
        }
    }
    if (i == 1)
      cur = root(LEDGER_SLOT_SELF, Kind::Instance);
  } else if (h == "grant" && scope.ability != kNoId) {
    cur = grantOf();
  } else if (h == "event") {
    if (parts.size() < 2)
      return {local(LEDGER_SLOT_TARGET), Kind::Actor};
    const std::string &f = parts[1].first;
    i = 2;
    static const std::pair<std::string_view, EventField> fields[] = {
        {"amount", EventField::Amount}, {"sent", EventField::Sent},
        {"landed", EventField::Landed}, {"overflow", EventField::Overflow},
        {"before", EventField::Before}, {"after", EventField::After}};
    static const std::pair<std::string_view, EventRole> roles[] = {
        {"source", EventRole::Source}, {"credit", EventRole::Credit},
        {"target", EventRole::Target}, {"subject", EventRole::Subject},
        {"ability", EventRole::Ability},
        {"instance", EventRole::Instance}, {"grant", EventRole::Grant}};
    bool found = false;
    for (auto [word, field] : fields)
      if (f == word) {
        Read r{ReadOp::EventField};
        r.a = Id(field);
        cur = read(r, {}, Kind::Number);
        found = true;
      }
    for (auto [word, role] : roles)
      if (!found && f == word) {
        Read r{ReadOp::EventActor};
        r.a = Id(role);
        cur = read(r, {},
                   role == EventRole::Ability                                     ? Kind::Ability
                   : role == EventRole::Instance || role == EventRole::Grant ? Kind::Instance
                                                                             : Kind::Actor);
        found = true;
      }
    if (!found) {
      if (Id p = find(props_, f); p != kNoId) {
        Read r{ReadOp::EventProp};
        r.a = p;
        cur = read(r, {}, t_.props[p].kind == PropKind::Tag ? Kind::Tag : Kind::Number);
      } else {
        diags_.report(DiagKind::NotRunYet, tree_.loc(file, parts[1].second),
                      uint32_t(f.size()), "`event." + f + "`");
        return {constant(0), Kind::Number};
      }
    }
  } else if (Id gl = find(links_, h); gl != kNoId && t_.links[gl].global) {
    Read r{ReadOp::GlobalLink};
    r.a = gl;
    cur = read(r, {}, Kind::Actor);
  } else if (Id arch = find(archetypes_, h); arch != kNoId && parts.size() >= 2) {
    std::string stat = whole.substr(h.size() + 1);
    Read r{ReadOp::ArchetypeStat};
    r.a = arch;
    r.b = valueId(stat);
    return read(r, {}, Kind::Number);
  } else if (Id v = valueId(whole); v != kNoId) {
    Read r{ReadOp::Value};
    r.a = v;
    return read(r, {local(scope.bareValueOf)}, Kind::Number);
  } else if (Id v1 = valueId(h); v1 != kNoId) {
    Read r{ReadOp::Value};
    r.a = v1;
    return read(r, {local(scope.bareValueOf)}, Kind::Number);
  } else if (Id g = tagId(whole); g != kNoId) {
    return {constant(int64_t(g) + 1), Kind::Tag};
  } else if (Id ab = find(abilities_, h); ab != kNoId) {
    return {constant(int64_t(ab) + 1), Kind::Ability};
  } else {
    diags_.report(DiagKind::NotRunYet, tree_.loc(file, begin), uint32_t(whole.size()),
                  "reading `" + whole + "`");
    return {constant(0), Kind::Number};
  }
  for (; i < parts.size(); ++i) {
    // A member of a stat by type reads as one value: holder.Resist.Magic.Fire
    if (cur.kind == Kind::Actor && i + 1 < parts.size()) {
      bool found = false;
      for (size_t last = parts.size() - 1; last > i && !found; --last) {
        std::string dotted = parts[i].first;
        for (size_t k = i + 1; k <= last; ++k)
          dotted += "." + parts[k].first;
        if (Id v = valueId(dotted); v != kNoId) {
          Read r{ReadOp::Value};
          r.a = v;
          cur = read(r, {cur.expr}, Kind::Number);
          i = last;
          found = true;
        }
      }
      if (found)
        continue;
    }
    cur = member(cur, parts[i].first, file, parts[i].second);
  }
  return cur;
}

Lowered Lowerer::expr(uint32_t file, ExprId id, BodyScope &scope) {
  const Expr &e = tree_.exprs[id];
  auto arg = [&](uint32_t k) { return tree_.exprArgs[e.firstArg + k]; };
  switch (e.kind) {
  case ExprKind::Number:
    return {constant(tree_.token(file, e.begin).value.raw), Kind::Number};
  case ExprKind::Path:
    return path(file, e.begin, e.end, scope, id);
  case ExprKind::Duration: {
    Lowered inner = expr(file, arg(0), scope);
    int64_t factor = e.unit == TimeUnit::Seconds  ? t_.unitsPerSecond
                     : e.unit == TimeUnit::Millis ? t_.unitsPerSecond / 1000
                                                  : t_.unitsPerTick * Fixed::kScale;
    const pack::Expr &in = t_.exprs[inner.expr];
    if (in.op == pack::ExprOp::Const) {
      rt::NumberFault fault = rt::NumberFault::None;
      return {constant(rt::mul(in.imm, factor, fault)), Kind::Number};
    }
    pack::Expr m{pack::ExprOp::Mul};
    m.a = inner.expr;
    m.b = constant(factor);
    return {addExpr(m), Kind::Number};
  }
  case ExprKind::Unary: {
    pack::Expr u{e.op == ledger::ExprOp::Neg ? pack::ExprOp::Neg : pack::ExprOp::Not};
    u.a = expr(file, arg(0), scope).expr;
    const pack::Expr &in = t_.exprs[u.a];
    if (u.op == pack::ExprOp::Neg && in.op == pack::ExprOp::Const)
      return {constant(-in.imm), Kind::Number};
    return {addExpr(u), Kind::Number};
  }
  case ExprKind::Binary: {
    static const std::pair<ledger::ExprOp, pack::ExprOp> ops[] = {
        {ledger::ExprOp::And, pack::ExprOp::And}, {ledger::ExprOp::Or, pack::ExprOp::Or},
        {ledger::ExprOp::Eq, pack::ExprOp::Eq},   {ledger::ExprOp::Ne, pack::ExprOp::Ne},
        {ledger::ExprOp::Lt, pack::ExprOp::Lt},   {ledger::ExprOp::Le, pack::ExprOp::Le},
        {ledger::ExprOp::Gt, pack::ExprOp::Gt},   {ledger::ExprOp::Ge, pack::ExprOp::Ge},
        {ledger::ExprOp::Add, pack::ExprOp::Add}, {ledger::ExprOp::Sub, pack::ExprOp::Sub},
        {ledger::ExprOp::Mul, pack::ExprOp::Mul}, {ledger::ExprOp::Div, pack::ExprOp::Div}};
    pack::Expr b{pack::ExprOp::Add};
    for (auto [from, to] : ops)
      if (e.op == from)
        b.op = to;
    Lowered l = expr(file, arg(0), scope);
    b.a = l.expr;
    b.b = expr(file, arg(1), scope).expr;
    // Equality compares actors, tags and abilities as it does numbers.
    return {addExpr(b), Kind::Number};
  }
  case ExprKind::Call:
    return call(file, e, scope, id);
  case ExprKind::Member: {
    Lowered base = expr(file, arg(0), scope);
    return member(base, tree_.text(file, e.nameEnd), file, e.nameEnd);
  }
  case ExprKind::Except: {
    Lowered base = expr(file, arg(0), scope);
    pack::Expr &x = t_.exprs[base.expr];
    if (x.op != pack::ExprOp::Read || t_.reads[x.imm].op != ReadOp::Value) {
      diags_.report(DiagKind::NotRunYet, tree_.loc(file, e.begin), 1,
                    "`except` past anything but a stat");
      return base;
    }
    std::vector<std::string> tags;
    for (uint32_t t = e.nameEnd; t < e.end; ++t)
      if (tree_.token(file, t).kind == TokenKind::Name) {
        std::string n(tree_.text(file, t));
        while (t + 2 < e.end && tree_.token(file, t + 1).kind == TokenKind::Dot) {
          n += "." + std::string(tree_.text(file, t + 2));
          t += 2;
        }
        tags.push_back(n);
      }
    Read r = t_.reads[x.imm];
    r.op = ReadOp::ValueExcept;
    r.tags = tagSet(tags, false);
    t_.reads[x.imm] = r;
    return base;
  }
  case ExprKind::Part: {
    // held(...) where one is wanted: the first, a handle.
    if (tree_.nodes[e.part].kind != FormKind::Held) {
      diags_.report(DiagKind::NotRunYet, tree_.loc(file, e.begin), 1,
                    "a query outside count, sum, highest or lowest");
      return {constant(0), Kind::Number};
    }
    std::vector<Id> args;
    Read r{ReadOp::FirstOf};
    r.a = heldQuery(e.part, scope, args);
    return read(r, args, Kind::Instance);
  }
  }
  return {constant(0), Kind::Number};
}

Lowered Lowerer::call(uint32_t file, const Expr &e, BodyScope &scope, ExprId) {
  std::string fn = spanText(file, e.begin, e.nameEnd);
  auto argId = [&](uint32_t k) { return tree_.exprArgs[e.firstArg + k]; };
  auto arg = [&](uint32_t k) { return expr(file, argId(k), scope); };
  auto argText = [&](uint32_t k) {
    const Expr &a = tree_.exprs[argId(k)];
    return spanText(file, a.begin, a.end);
  };
  auto simple = [&](pack::ExprOp op, uint32_t n) {
    pack::Expr x{op};
    if (n > 0)
      x.a = arg(0).expr;
    if (n > 1)
      x.b = arg(1).expr;
    if (n > 2)
      x.c = arg(2).expr;
    return Lowered{addExpr(x), Kind::Number};
  };
  if (fn == "min")
    return simple(pack::ExprOp::Min, 2);
  if (fn == "max")
    return simple(pack::ExprOp::Max, 2);
  if (fn == "floor")
    return simple(pack::ExprOp::Floor, 1);
  if (fn == "ceil")
    return simple(pack::ExprOp::Ceil, 1);
  if (fn == "round")
    return simple(pack::ExprOp::Round, 1);
  if (fn == "trunc")
    return simple(pack::ExprOp::Trunc, 1);
  if (fn == "abs")
    return simple(pack::ExprOp::Abs, 1);
  if (fn == "clamp")
    return simple(pack::ExprOp::Clamp, 3);
  if (fn == "if") {
    Lowered r = simple(pack::ExprOp::If, 3);
    return r;
  }
  if (fn == "pow" || fn == "root") {
    pack::Expr x{fn == "pow" ? pack::ExprOp::Pow : pack::ExprOp::Root};
    x.a = arg(0).expr;
    x.imm = 2;
    if (e.argCount > 1)
      x.imm = tree_.token(file, tree_.exprs[argId(1)].begin).value.raw / Fixed::kScale;
    return {addExpr(x), Kind::Number};
  }
  if (Id c = find(curves_, fn); c != kNoId) {
    Read r{ReadOp::Curve};
    r.a = c;
    return read(r, {arg(0).expr}, Kind::Number);
  }
  if (fn == "has") {
    if (e.argCount == 1) {
      Read r{ReadOp::HasHandle};
      return read(r, {arg(0).expr}, Kind::Number);
    }
    Read r{ReadOp::Has};
    std::string what = argText(1);
    r.a = find(effects_, what);
    if (r.a == kNoId && tagId(what) == kNoId) {
      // A tag as a value (self.VAR, tag(...)): an operand.
      r.b = pack::kTagOperand;
      return read(r, {arg(0).expr, arg(1).expr}, Kind::Number);
    }
    if (r.a == kNoId)
      r.tags = tagSet({what}, false);
    return read(r, {arg(0).expr}, Kind::Number);
  }
  if (fn == "stacks" || fn == "highest stacks") {
    Read r{fn == "stacks" ? ReadOp::Stacks : ReadOp::HighestStacks};
    r.a = find(effects_, argText(1));
    std::vector<Id> args{arg(0).expr};
    if (e.argCount > 2) {
      r.b = 1;
      args.push_back(arg(2).expr);
    }
    return read(r, args, Kind::Number);
  }
  if (fn == "tag") {
    Read r{ReadOp::TagOf};
    r.a = tagId(argText(1));
    return read(r, {arg(0).expr}, Kind::Tag);
  }
  if (fn == "portion") {
    Read r{ReadOp::Portion};
    r.a = tagId(argText(0));
    if (r.a == kNoId) { // a tag as a value: an operand
      r.b = pack::kTagOperand;
      return read(r, {arg(0).expr}, Kind::Number);
    }
    return read(r, {}, Kind::Number);
  }
  if (fn == "count" || fn == "sum" || fn == "highest" || fn == "lowest") {
    const Expr &first = tree_.exprs[argId(0)];
    if (fn == "count" && first.kind != ExprKind::Part && e.argCount > 1) {
      std::string what = argText(1);
      std::vector<Id> args{arg(0).expr};
      Read r{ReadOp::CountEffect};
      r.a = find(effects_, what);
      if (r.a == kNoId && tagId(what) == kNoId) {
        r.op = ReadOp::CountTag;
        r.b = pack::kTagOperand;
        args.push_back(arg(1).expr);
      } else if (r.a == kNoId) {
        r.op = ReadOp::CountTag;
        r.tags = tagSet({what}, false);
      } else if (e.argCount > 2) {
        r.b = 1;
        args.push_back(arg(2).expr);
      }
      return read(r, args, Kind::Number);
    }
    Fold f;
    f.kind = fn == "count" ? FoldKind::Count
             : fn == "sum" ? FoldKind::Sum
             : fn == "highest" ? FoldKind::Highest
                               : FoldKind::Lowest;
    std::vector<Id> args;
    bool held = first.kind == ExprKind::Part && tree_.nodes[first.part].kind == FormKind::Held;
    if (first.kind == ExprKind::Part) {
      f.query = held ? heldQuery(first.part, scope, args) : query(first.part, scope, args);
    } else {
      // One actor as the list: TARGETS is "one actor … or a query".
      Query one;
      one.kind = QueryKind::Actor;
      args.push_back(expr(file, argId(0), scope).expr);
      t_.queries.push_back(one);
      f.query = Id(t_.queries.size() - 1);
    }
    if (f.kind != FoldKind::Count) {
      BodyScope inner = scope;
      inner.bindIt(held);
      f.item = expr(file, argId(1), inner).expr;
    }
    t_.folds.push_back(f);
    pack::Expr x{pack::ExprOp::Fold};
    x.imm = int64_t(t_.folds.size() - 1);
    return {addExprArgs(x, args), Kind::Number};
  }
  diags_.report(DiagKind::NotRunYet, tree_.loc(file, e.begin), uint32_t(fn.size()),
                "`" + fn + "(...)`");
  return {constant(0), Kind::Number};
}

} // namespace ledger::ir
