// The reference engine's evaluator: a tree walk over expression records and
// a loop over step records, every operation the runtime's own arithmetic.
#include "eval/eval.h"

#include "number.h"

#include <vector>

namespace ledger::eval {

using pack::ExprOp;
using pack::StepOp;

namespace {

constexpr int64_t kTrue = rt::kOne;

class Evaluator {
public:
  Evaluator(const pack::Tables &t, LedgerFrame *f) : t_(t), f_(f) {}

  int64_t eval(uint32_t id) {
    const pack::Expr &e = t_.exprs[id];
    switch (e.op) {
    case ExprOp::Const:
      return e.imm;
    case ExprOp::Local:
      return f_->locals[e.imm];
    case ExprOp::Var:
      return f_->vars[e.imm];
    case ExprOp::Neg:
      return checked(rt::neg(eval(e.a), fault_));
    case ExprOp::Not:
      return eval(e.a) == 0 ? kTrue : 0;
    case ExprOp::Add: {
      int64_t a = eval(e.a);
      return checked(rt::add(a, eval(e.b), fault_));
    }
    case ExprOp::Sub: {
      int64_t a = eval(e.a);
      return checked(rt::sub(a, eval(e.b), fault_));
    }
    case ExprOp::Mul: {
      int64_t a = eval(e.a);
      return checked(rt::mul(a, eval(e.b), fault_));
    }
    case ExprOp::Div: {
      int64_t a = eval(e.a);
      return checked(rt::div(a, eval(e.b), fault_));
    }
    case ExprOp::Eq:
    case ExprOp::Ne:
    case ExprOp::Lt:
    case ExprOp::Le:
    case ExprOp::Gt:
    case ExprOp::Ge: {
      int64_t a = eval(e.a);
      int64_t b = eval(e.b);
      bool r = e.op == ExprOp::Eq   ? a == b
               : e.op == ExprOp::Ne ? a != b
               : e.op == ExprOp::Lt ? a < b
               : e.op == ExprOp::Le ? a <= b
               : e.op == ExprOp::Gt ? a > b
                                    : a >= b;
      return r ? kTrue : 0;
    }
    case ExprOp::And:
      return eval(e.a) != 0 && eval(e.b) != 0 ? kTrue : 0;
    case ExprOp::Or:
      return eval(e.a) != 0 || eval(e.b) != 0 ? kTrue : 0;
    case ExprOp::Min: {
      int64_t a = eval(e.a);
      return rt::min(a, eval(e.b));
    }
    case ExprOp::Max: {
      int64_t a = eval(e.a);
      return rt::max(a, eval(e.b));
    }
    case ExprOp::Floor:
      return checked(rt::floorWhole(eval(e.a), fault_));
    case ExprOp::Ceil:
      return checked(rt::ceilWhole(eval(e.a), fault_));
    case ExprOp::Round:
      return checked(rt::roundWhole(eval(e.a), fault_));
    case ExprOp::Trunc:
      return rt::truncWhole(eval(e.a));
    case ExprOp::Abs:
      return checked(rt::abs(eval(e.a), fault_));
    case ExprOp::Clamp: {
      int64_t a = eval(e.a);
      int64_t lo = eval(e.b);
      return rt::clamp(a, lo, eval(e.c));
    }
    case ExprOp::If:
      return eval(e.a) != 0 ? eval(e.b) : eval(e.c);
    case ExprOp::Pow:
      return f_->api->math(f_, LEDGER_MATH_POW, eval(e.a), e.imm);
    case ExprOp::Root:
      return f_->api->math(f_, LEDGER_MATH_ROOT, eval(e.a), e.imm);
    case ExprOp::Read: {
      Operands args(*this, e.argsBegin, e.argCount);
      return f_->api->read(f_, uint32_t(e.imm), args.data());
    }
    case ExprOp::Fold:
      return fold(e);
    }
    return 0;
  }

  int32_t run(uint32_t begin, uint32_t end) {
    for (uint32_t i = begin; i < end; ++i)
      if (step(t_.steps[i]) != LEDGER_GO)
        return LEDGER_STOP;
    return LEDGER_GO;
  }

private:
  int64_t checked(int64_t value) {
    if (fault_ != rt::NumberFault::None) {
      f_->api->fault(f_, uint32_t(fault_));
      fault_ = rt::NumberFault::None;
    }
    return value;
  }

  // A call's operands, evaluated in order: held in place up to a few, so a
  // body allocates nothing as it runs.
  class Operands {
  public:
    Operands(Evaluator &ev, uint32_t begin, uint32_t count) {
      if (count > kInPlace) {
        heap_.resize(count);
        values_ = heap_.data();
      }
      for (uint32_t i = 0; i < count; ++i)
        values_[i] = ev.eval(ev.t_.exprArgs[begin + i]);
    }
    Operands(const Operands &) = delete;
    Operands &operator=(const Operands &) = delete;
    const int64_t *data() const { return values_; }

  private:
    static constexpr uint32_t kInPlace = 8;
    int64_t inPlace_[kInPlace];
    std::vector<int64_t> heap_;
    int64_t *values_ = inPlace_;
  };

  int64_t fold(const pack::Expr &e) {
    const pack::Fold &f = t_.folds[e.imm];
    Operands args(*this, e.argsBegin, e.argCount);
    int64_t n = f_->api->listOpen(f_, f.query, args.data());
    int64_t acc = 0;
    if (f.kind == pack::FoldKind::Count) {
      acc = n * rt::kOne;
    } else {
      int64_t saved = f_->locals[LEDGER_SLOT_IT];
      for (int64_t i = 0; i < n; ++i) {
        f_->locals[LEDGER_SLOT_IT] = f_->api->listItem(f_, i);
        int64_t v = eval(f.item);
        if (f.kind == pack::FoldKind::Sum)
          acc = checked(rt::add(acc, v, fault_));
        else if (i == 0)
          acc = v;
        else
          acc = f.kind == pack::FoldKind::Highest ? rt::max(acc, v) : rt::min(acc, v);
      }
      f_->locals[LEDGER_SLOT_IT] = saved;
    }
    f_->api->listClose(f_);
    return acc;
  }

  int32_t step(const pack::Step &s) {
    auto arg = [&](uint32_t k) { return eval(t_.exprArgs[s.argsBegin + k]); };
    switch (s.op) {
    case StepOp::If:
      return arg(0) != 0 ? run(s.bodyBegin, s.bodyEnd) : run(s.elseBegin, s.elseEnd);
    case StepOp::ForEach: {
      Operands args(*this, s.argsBegin, s.argCount);
      int64_t n = f_->api->listOpen(f_, s.info, args.data());
      for (int64_t i = 0; i < n; ++i) {
        f_->locals[s.slot] = f_->api->listItem(f_, i);
        if (run(s.bodyBegin, s.bodyEnd) != LEDGER_GO) {
          f_->api->listClose(f_);
          return LEDGER_STOP;
        }
      }
      f_->api->listClose(f_);
      return LEDGER_GO;
    }
    case StepOp::Repeat: {
      int64_t times = arg(0) / rt::kOne;
      times = times < 0 ? 0 : times > 1000 ? 1000 : times;
      times = f_->api->repeat(f_, times);
      for (int64_t i = 0; i < times; ++i)
        if (run(s.bodyBegin, s.bodyEnd) != LEDGER_GO)
          return LEDGER_STOP;
      return LEDGER_GO;
    }
    case StepOp::Let:
      f_->locals[s.slot] = arg(0);
      return LEDGER_GO;
    case StepOp::SetVar: {
      int64_t v = arg(0);
      int64_t &var = f_->vars[s.slot];
      var = s.info == 0 ? v
            : s.info == 1 ? checked(rt::add(var, v, fault_))
                          : checked(rt::sub(var, v, fault_));
      return LEDGER_GO;
    }
    case StepOp::Action: {
      Operands args(*this, s.argsBegin, s.argCount);
      return f_->api->step(f_, s.info, args.data());
    }
    }
    return LEDGER_GO;
  }

  const pack::Tables &t_;
  LedgerFrame *f_;
  rt::NumberFault fault_ = rt::NumberFault::None;
};

} // namespace

int64_t formula(const pack::Tables &tables, uint32_t body, LedgerFrame *frame) {
  return Evaluator(tables, frame).eval(tables.bodies[body].root);
}

int32_t steps(const pack::Tables &tables, uint32_t body, LedgerFrame *frame) {
  const pack::Body &b = tables.bodies[body];
  return Evaluator(tables, frame).run(b.stepsBegin, b.stepsEnd);
}

} // namespace ledger::eval
