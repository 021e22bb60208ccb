// Bodies to IR: a formula's expression tree, a steps body's steps, with the
// evaluation order, short-circuits and list bracketing of the reference
// engine. Indices are checked as they are met: bad tables are an error, never
// a crash.
#include "codegen/internal.h"

#include "pack_abi.h"

#include <fmt/format.h>
#include <llvm/IR/MDBuilder.h>

#include <functional>

namespace ledger::codegen::detail {

using namespace llvm;
using pack::Expr;
using pack::ExprOp;
using pack::Step;
using pack::StepOp;

namespace {

constexpr int64_t kOne = 1'000'000;
constexpr unsigned kMaxDepth = 2048;              // nesting past this is a cycle
constexpr uint64_t kMaxNodes = uint64_t(1) << 22; // shared subtrees written out past reason
constexpr int64_t kMaxRepeat = 1000;

class BodyLowering {
public:
  BodyLowering(Emitter &e, const pack::Tables &tables, std::string &error)
      : e_(e), b_(e.b), t_(tables), error_(error) {}

  bool lower(pack::Id id, Function *fn);

private:
  // ---- checks ----
  bool fail(std::string why) {
    if (ok_)
      error_ = fmt::format("body {}: {}", body_, why);
    ok_ = false;
    return false;
  }
  Value *bad(std::string why) {
    fail(std::move(why));
    return e_.c64(0);
  }
  bool inRange(uint64_t begin, uint64_t count, size_t size, const char *what) {
    return begin + count <= size ||
           fail(fmt::format("{} [{}, +{}) past {}", what, begin, count, size));
  }

  // ---- frame ----
  Value *slot(FrameField field, Value *index) {
    return b_.CreateInBoundsGEP(e_.i64, e_.frameField(field), index, "slot");
  }
  Value *load(FrameField field, Value *index) { return b_.CreateLoad(e_.i64, slot(field, index)); }
  void store(FrameField field, Value *index, Value *v) { b_.CreateStore(v, slot(field, index)); }

  // ---- expressions ----
  Value *expr(uint32_t id);
  Value *exprOp(const Expr &x);
  Value *args(uint32_t begin, uint32_t count);
  Value *binary(const Expr &x, Value *(*op)(Emitter &, Value *, Value *));
  Value *compare(const Expr &x, CmpInst::Predicate pred);
  Value *logic(const Expr &x, bool isAnd);
  Value *choose(const Expr &x);
  Value *clamp(const Expr &x);
  Value *read(const Expr &x);
  Value *readEventHead(const pack::Read &r);
  Value *fold(const Expr &x);

  // ---- steps ----
  void steps(uint32_t begin, uint32_t end);
  void step(const Step &s);
  void stepIf(const Step &s);
  void stepForEach(const Step &s);
  void stepRepeat(const Step &s);
  void stepSetVar(const Step &s);
  void stepAction(const Step &s);
  Value *firstArg(const Step &s);
  void leaveUnlessGo(Value *status);

  void countedLoop(Value *count, const char *name, const std::function<void(Value *)> &body);

  Emitter &e_;
  IRBuilder<> &b_;
  const pack::Tables &t_;
  std::string &error_;
  pack::Id body_ = 0;
  bool ok_ = true;
  unsigned depth_ = 0;
  uint64_t nodes_ = 0;
  unsigned openLists_ = 0; // ForEach lists a stop must close on its way out
};

// Guards recursion depth for expr() and steps().
struct Nesting {
  Nesting(unsigned &depth) : depth_(depth) { ++depth_; }
  ~Nesting() { --depth_; }
  unsigned &depth_;
};

bool BodyLowering::lower(pack::Id id, Function *fn) {
  body_ = id;
  const pack::Body &body = t_.bodies[id];
  e_.fn = fn;
  e_.frame = fn->getArg(0);
  b_.SetInsertPoint(BasicBlock::Create(e_.ctx, "entry", fn));
  if (body.kind == pack::BodyKind::Formula) {
    b_.CreateRet(expr(body.root));
  } else {
    steps(body.stepsBegin, body.stepsEnd);
    b_.CreateRet(e_.c32(LEDGER_GO));
  }
  return ok_;
}

// ---- expressions ---------------------------------------------------------------

Value *BodyLowering::expr(uint32_t id) {
  Nesting nest(depth_);
  if (id >= t_.exprs.size())
    return bad(fmt::format("expression {} past {}", id, t_.exprs.size()));
  if (depth_ > kMaxDepth || ++nodes_ > kMaxNodes)
    return bad(fmt::format("expression {} nests too deep or too wide", id));
  if (!ok_)
    return e_.c64(0);
  return exprOp(t_.exprs[id]);
}

Value *BodyLowering::exprOp(const Expr &x) {
  switch (x.op) {
  case ExprOp::Const:
    return e_.c64(x.imm);
  case ExprOp::Local:
    return load(FrameField::Locals, e_.c64(x.imm));
  case ExprOp::Var:
    return load(FrameField::Vars, e_.c64(x.imm));
  case ExprOp::Neg:
    return emitNeg(e_, expr(x.a));
  case ExprOp::Not:
    return emitTruth(e_, b_.CreateICmpEQ(expr(x.a), e_.c64(0)));
  case ExprOp::Add:
    return binary(x, emitAdd);
  case ExprOp::Sub:
    return binary(x, emitSub);
  case ExprOp::Mul:
    return binary(x, emitMul);
  case ExprOp::Div:
    return binary(x, emitDiv);
  case ExprOp::Eq:
    return compare(x, CmpInst::ICMP_EQ);
  case ExprOp::Ne:
    return compare(x, CmpInst::ICMP_NE);
  case ExprOp::Lt:
    return compare(x, CmpInst::ICMP_SLT);
  case ExprOp::Le:
    return compare(x, CmpInst::ICMP_SLE);
  case ExprOp::Gt:
    return compare(x, CmpInst::ICMP_SGT);
  case ExprOp::Ge:
    return compare(x, CmpInst::ICMP_SGE);
  case ExprOp::And:
    return logic(x, true);
  case ExprOp::Or:
    return logic(x, false);
  case ExprOp::Min:
    return binary(x, [](Emitter &e, Value *l, Value *r) {
      return emitMin(e, l, r);
    });
  case ExprOp::Max:
    return binary(x, [](Emitter &e, Value *l, Value *r) {
      return emitMax(e, l, r);
    });
  case ExprOp::Floor:
    return emitFloor(e_, expr(x.a));
  case ExprOp::Ceil:
    return emitCeil(e_, expr(x.a));
  case ExprOp::Round:
    return emitRound(e_, expr(x.a));
  case ExprOp::Trunc:
    return emitTrunc(e_, expr(x.a));
  case ExprOp::Abs:
    return emitAbs(e_, expr(x.a));
  case ExprOp::Clamp:
    return clamp(x);
  case ExprOp::If:
    return choose(x);
  case ExprOp::Pow:
  case ExprOp::Root: {
    uint32_t op = x.op == ExprOp::Pow ? LEDGER_MATH_POW : LEDGER_MATH_ROOT;
    Value *a = expr(x.a);
    return e_.callKernel(ApiSlot::Math, {e_.c32(op), a, e_.c64(x.imm)});
  }
  case ExprOp::Read:
    return read(x);
  case ExprOp::Fold:
    return fold(x);
  }
  return bad(fmt::format("unknown expression op {}", unsigned(x.op)));
}

// Evaluated in order into a stack array; a valid pointer even when empty.
Value *BodyLowering::args(uint32_t begin, uint32_t count) {
  AllocaInst *array = e_.entryAlloca(ArrayType::get(e_.i64, count ? count : 1), "args");
  if (!inRange(begin, count, t_.exprArgs.size(), "arguments"))
    return array;
  for (uint32_t k = 0; k < count && ok_; ++k) {
    Value *v = expr(t_.exprArgs[begin + k]);
    b_.CreateStore(v, b_.CreateConstInBoundsGEP1_32(e_.i64, array, k));
  }
  return array;
}

Value *BodyLowering::binary(const Expr &x, Value *(*op)(Emitter &, Value *, Value *)) {
  Value *a = expr(x.a);
  Value *b = expr(x.b);
  return op(e_, a, b);
}

Value *BodyLowering::compare(const Expr &x, CmpInst::Predicate pred) {
  Value *a = expr(x.a);
  Value *b = expr(x.b);
  return emitTruth(e_, b_.CreateICmp(pred, a, b));
}

// And/Or: b is evaluated only when a leaves the answer open.
Value *BodyLowering::logic(const Expr &x, bool isAnd) {
  Value *aTrue = b_.CreateICmpNE(expr(x.a), e_.c64(0));
  BasicBlock *decided = b_.GetInsertBlock();
  BasicBlock *rhs = e_.newBlock(isAnd ? "and.rhs" : "or.rhs");
  BasicBlock *join = e_.newBlock(isAnd ? "and.join" : "or.join");
  if (isAnd)
    b_.CreateCondBr(aTrue, rhs, join);
  else
    b_.CreateCondBr(aTrue, join, rhs);
  b_.SetInsertPoint(rhs);
  Value *bTrue = b_.CreateICmpNE(expr(x.b), e_.c64(0));
  BasicBlock *rhsEnd = b_.GetInsertBlock();
  b_.CreateBr(join);
  b_.SetInsertPoint(join);
  PHINode *result = b_.CreatePHI(e_.i1, 2);
  result->addIncoming(b_.getInt1(!isAnd), decided);
  result->addIncoming(bTrue, rhsEnd);
  return emitTruth(e_, result);
}

// If(a, b, c): only the chosen one is evaluated.
Value *BodyLowering::choose(const Expr &x) {
  Value *cond = b_.CreateICmpNE(expr(x.a), e_.c64(0));
  BasicBlock *then = e_.newBlock("if.then");
  BasicBlock *otherwise = e_.newBlock("if.else");
  BasicBlock *join = e_.newBlock("if.join");
  b_.CreateCondBr(cond, then, otherwise);
  b_.SetInsertPoint(then);
  Value *thenValue = expr(x.b);
  BasicBlock *thenEnd = b_.GetInsertBlock();
  b_.CreateBr(join);
  b_.SetInsertPoint(otherwise);
  Value *elseValue = expr(x.c);
  BasicBlock *elseEnd = b_.GetInsertBlock();
  b_.CreateBr(join);
  b_.SetInsertPoint(join);
  PHINode *result = b_.CreatePHI(e_.i64, 2, "if");
  result->addIncoming(thenValue, thenEnd);
  result->addIncoming(elseValue, elseEnd);
  return result;
}

// max(b, min(a, c)), its operands read a, b, c.
Value *BodyLowering::clamp(const Expr &x) {
  Value *a = expr(x.a);
  Value *low = expr(x.b);
  Value *high = expr(x.c);
  return emitMax(e_, low, emitMin(e_, a, high));
}

Value *BodyLowering::read(const Expr &x) {
  if (x.imm >= 0 && static_cast<uint64_t>(x.imm) < t_.reads.size())
    if (Value *direct = readEventHead(t_.reads[static_cast<size_t>(x.imm)]))
      return direct;
  Value *array = args(x.argsBegin, x.argCount);
  return e_.callKernel(ApiSlot::Read, {e_.c32(static_cast<uint32_t>(x.imm)), array});
}

// What a filter reads of the event in hand, read in place from its head
// (0 with none in hand), as the kernel's read would answer; null for every
// other read.
Value *BodyLowering::readEventHead(const pack::Read &r) {
  enum Field : unsigned { Subject, Source, Credit, Kind, Prevented, Pad, Tags };
  Field field;
  switch (r.op) {
  case pack::ReadOp::EventActor:
    switch (pack::EventRole(r.a)) {
    case pack::EventRole::Subject:
      field = Subject;
      break;
    case pack::EventRole::Source:
      field = Source;
      break;
    case pack::EventRole::Credit:
      field = Credit;
      break;
    default:
      return nullptr;
    }
    break;
  case pack::ReadOp::EventKind:
    field = Kind;
    break;
  case pack::ReadOp::EventPrevented:
    field = Prevented;
    break;
  case pack::ReadOp::EventTags:
    if ((size_t(r.tags) + 1) * t_.tagWords > t_.tagBits.size() ||
        t_.tagWords > LEDGER_EVENT_TAG_WORDS)
      return nullptr;
    field = Tags;
    break;
  default:
    return nullptr;
  }
  Value *head = e_.frameField(FrameField::Event);
  BasicBlock *from = b_.GetInsertBlock();
  BasicBlock *present = e_.newBlock("event.head");
  BasicBlock *join = e_.newBlock("event.read");
  b_.CreateCondBr(b_.CreateIsNull(head), join, present);
  b_.SetInsertPoint(present);
  Value *value;
  auto at = [&](unsigned index) { return b_.CreateStructGEP(e_.eventHeadType, head, index); };
  switch (field) {
  case Subject:
  case Source:
  case Credit:
    value = b_.CreateLoad(e_.i64, at(field));
    break;
  case Kind: // the event's id + 1, 0 none
    value = b_.CreateAdd(b_.CreateZExt(b_.CreateLoad(e_.i32, at(Kind)), e_.i64), e_.c64(1));
    break;
  case Prevented:
    value =
        emitTruth(e_, b_.CreateICmpNE(b_.CreateLoad(b_.getInt8Ty(), at(Prevented)), b_.getInt8(0)));
    break;
  default: {
    // r.a 0: carries them all; else any of them.
    const uint64_t *want = t_.tagSet(r.tags);
    Value *holds = b_.getInt1(r.a == 0);
    for (uint32_t w = 0; w < t_.tagWords; ++w) {
      if (want[w] == 0)
        continue;
      Value *word = b_.CreateLoad(
          e_.i64, b_.CreateConstInBoundsGEP2_32(ArrayType::get(e_.i64, LEDGER_EVENT_TAG_WORDS),
                                                at(Tags), 0, w));
      Value *mask = ConstantInt::get(e_.i64, want[w]);
      Value *masked = b_.CreateAnd(word, mask);
      holds = r.a == 0 ? b_.CreateAnd(holds, b_.CreateICmpEQ(masked, mask))
                       : b_.CreateOr(holds, b_.CreateICmpNE(masked, ConstantInt::get(e_.i64, 0)));
    }
    value = emitTruth(e_, holds);
    break;
  }
  }
  BasicBlock *presentEnd = b_.GetInsertBlock();
  b_.CreateBr(join);
  b_.SetInsertPoint(join);
  PHINode *result = b_.CreatePHI(e_.i64, 2, "event.value");
  result->addIncoming(e_.c64(0), from);
  result->addIncoming(value, presentEnd);
  return result;
}

Value *BodyLowering::fold(const Expr &x) {
  if (x.imm < 0 || static_cast<uint64_t>(x.imm) >= t_.folds.size())
    return bad(fmt::format("fold {} past {}", x.imm, t_.folds.size()));
  const pack::Fold &f = t_.folds[static_cast<size_t>(x.imm)];
  Value *array = args(x.argsBegin, x.argCount);
  Value *n = e_.callKernel(ApiSlot::ListOpen, {e_.c32(f.query), array});
  if (f.kind == pack::FoldKind::Count) {
    e_.callKernel(ApiSlot::ListClose, {});
    return b_.CreateMul(n, e_.c64(kOne), "count");
  }
  Value *it = e_.c64(LEDGER_SLOT_IT);
  Value *saved = load(FrameField::Locals, it);
  AllocaInst *acc = e_.entryAlloca(e_.i64, "fold.acc");
  b_.CreateStore(e_.c64(0), acc);
  countedLoop(n, "fold", [&](Value *i) {
    store(FrameField::Locals, it, e_.callKernel(ApiSlot::ListItem, {i}));
    Value *v = expr(f.item);
    Value *sofar = b_.CreateLoad(e_.i64, acc);
    Value *next = nullptr;
    switch (f.kind) {
    case pack::FoldKind::Sum:
      next = emitAdd(e_, sofar, v);
      break;
    case pack::FoldKind::Highest:
    case pack::FoldKind::Lowest: {
      Value *kept = f.kind == pack::FoldKind::Highest ? emitMax(e_, sofar, v) : emitMin(e_, sofar, v);
      next = b_.CreateSelect(b_.CreateICmpEQ(i, e_.c64(0)), v, kept);
      break;
    }
    case pack::FoldKind::Count:
      break;
    }
    b_.CreateStore(next ? next : sofar, acc);
  });
  store(FrameField::Locals, it, saved);
  e_.callKernel(ApiSlot::ListClose, {});
  return b_.CreateLoad(e_.i64, acc, "fold");
}

// for (i = 0; i < count; ++i) body(i), count signed.
void BodyLowering::countedLoop(Value *count, const char *name,
                               const std::function<void(Value *)> &body) {
  AllocaInst *index = e_.entryAlloca(e_.i64, Twine(name) + ".i");
  b_.CreateStore(e_.c64(0), index);
  BasicBlock *head = e_.newBlock(Twine(name) + ".head");
  BasicBlock *each = e_.newBlock(Twine(name) + ".body");
  BasicBlock *exit = e_.newBlock(Twine(name) + ".exit");
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  Value *i = b_.CreateLoad(e_.i64, index, "i");
  b_.CreateCondBr(b_.CreateICmpSLT(i, count), each, exit);
  b_.SetInsertPoint(each);
  body(i);
  b_.CreateStore(b_.CreateNSWAdd(i, e_.c64(1)), index);
  b_.CreateBr(head);
  b_.SetInsertPoint(exit);
}

// ---- steps -----------------------------------------------------------------------

void BodyLowering::steps(uint32_t begin, uint32_t end) {
  Nesting nest(depth_);
  if (begin > end || end > t_.steps.size()) {
    fail(fmt::format("steps [{}, {}) past {}", begin, end, t_.steps.size()));
    return;
  }
  if (depth_ > kMaxDepth) {
    fail(fmt::format("steps [{}, {}) nest too deep", begin, end));
    return;
  }
  for (uint32_t k = begin; k < end && ok_; ++k)
    step(t_.steps[k]);
}

void BodyLowering::step(const Step &s) {
  switch (s.op) {
  case StepOp::If:
    return stepIf(s);
  case StepOp::ForEach:
    return stepForEach(s);
  case StepOp::Repeat:
    return stepRepeat(s);
  case StepOp::Let: {
    Value *v = firstArg(s);
    return store(FrameField::Locals, e_.c64(s.slot), v);
  }
  case StepOp::SetVar:
    return stepSetVar(s);
  case StepOp::Action:
    return stepAction(s);
  }
  fail(fmt::format("unknown step op {}", unsigned(s.op)));
}

Value *BodyLowering::firstArg(const Step &s) {
  if (s.argCount < 1 || !inRange(s.argsBegin, 1, t_.exprArgs.size(), "arguments"))
    return bad("a step without its operand");
  return expr(t_.exprArgs[s.argsBegin]);
}

// A status other than GO leaves the body at once with STOP (whatever the
// kernel said, as the reference engine does), closing the lists of the
// ForEach steps it stands in, innermost first.
void BodyLowering::leaveUnlessGo(Value *status) {
  BasicBlock *leave = e_.newBlock("stop");
  BasicBlock *go = e_.newBlock("go");
  b_.CreateCondBr(b_.CreateICmpNE(status, e_.c32(LEDGER_GO)), leave, go,
                  MDBuilder(e_.ctx).createUnlikelyBranchWeights());
  b_.SetInsertPoint(leave);
  for (unsigned k = 0; k < openLists_; ++k)
    e_.callKernel(ApiSlot::ListClose, {});
  b_.CreateRet(e_.c32(LEDGER_STOP));
  b_.SetInsertPoint(go);
}

void BodyLowering::stepIf(const Step &s) {
  Value *cond = b_.CreateICmpNE(firstArg(s), e_.c64(0));
  BasicBlock *then = e_.newBlock("step.then");
  BasicBlock *otherwise = e_.newBlock("step.else");
  BasicBlock *join = e_.newBlock("step.join");
  b_.CreateCondBr(cond, then, otherwise);
  b_.SetInsertPoint(then);
  steps(s.bodyBegin, s.bodyEnd);
  b_.CreateBr(join);
  b_.SetInsertPoint(otherwise);
  steps(s.elseBegin, s.elseEnd);
  b_.CreateBr(join);
  b_.SetInsertPoint(join);
}

void BodyLowering::stepForEach(const Step &s) {
  Value *array = args(s.argsBegin, s.argCount);
  Value *n = e_.callKernel(ApiSlot::ListOpen, {e_.c32(s.info), array});
  ++openLists_;
  countedLoop(n, "each", [&](Value *i) {
    store(FrameField::Locals, e_.c64(s.slot), e_.callKernel(ApiSlot::ListItem, {i}));
    steps(s.bodyBegin, s.bodyEnd);
  });
  --openLists_;
  e_.callKernel(ApiSlot::ListClose, {});
}

void BodyLowering::stepRepeat(const Step &s) {
  Value *times = b_.CreateSDiv(firstArg(s), e_.c64(kOne), "times");
  times = emitMin(e_, emitMax(e_, times, e_.c64(0)), e_.c64(kMaxRepeat));
  times = e_.callKernel(ApiSlot::Repeat, {times});
  countedLoop(times, "repeat", [&](Value *) { steps(s.bodyBegin, s.bodyEnd); });
}

void BodyLowering::stepSetVar(const Step &s) {
  Value *v = firstArg(s);
  Value *index = e_.c64(s.slot);
  switch (s.info) {
  case 0:
    return store(FrameField::Vars, index, v);
  case 1:
    return store(FrameField::Vars, index, emitAdd(e_, load(FrameField::Vars, index), v));
  case 2:
    return store(FrameField::Vars, index, emitSub(e_, load(FrameField::Vars, index), v));
  default:
    fail(fmt::format("set var with mode {}", s.info));
  }
}

void BodyLowering::stepAction(const Step &s) {
  Value *array = args(s.argsBegin, s.argCount);
  leaveUnlessGo(e_.callKernel(ApiSlot::Step, {e_.c32(s.info), array}));
}

// ---- the pack ----------------------------------------------------------------------

Function *declareBody(Emitter &e, const pack::Body &body, pack::Id id) {
  bool formula = body.kind == pack::BodyKind::Formula;
  FunctionType *type = FunctionType::get(formula ? e.i64 : e.i32, {e.ptr}, false);
  auto *fn =
      Function::Create(type, GlobalValue::InternalLinkage,
                       fmt::format("ledger.{}.{}", formula ? "formula" : "steps", id), e.module);
  fn->addFnAttr(Attribute::NoUnwind);
  fn->setUWTableKind(UWTableKind::Async); // so debuggers and profilers walk through
  fn->getArg(0)->setName("frame");
  return fn;
}

GlobalVariable *constantGlobal(Module &m, Constant *init, const Twine &name) {
  auto *g = new GlobalVariable(m, init->getType(), true, GlobalValue::PrivateLinkage, init, name);
  g->setAlignment(Align(8));
  return g;
}

} // namespace

// The descriptor and the one exported symbol: a function returning it.
void emitDescriptor(Emitter &e, const std::vector<Function *> &bodies, std::string_view blob,
                    uint64_t hash, Constant *engine, const std::string &genericBecause) {
  Module &m = e.module;
  auto *tables = constantGlobal(
      m,
      ConstantDataArray::getRaw(StringRef(blob.data(), blob.size()), blob.size(), e.b.getInt8Ty()),
      "ledger.tables");
  std::vector<Constant *> pointers(bodies.begin(), bodies.end());
  Constant *bodyArray =
      pointers.empty()
          ? static_cast<Constant *>(ConstantPointerNull::get(e.ptr))
          : constantGlobal(m, ConstantArray::get(ArrayType::get(e.ptr, pointers.size()), pointers),
                           "ledger.bodies");
  auto *because = constantGlobal(
      m, ConstantDataArray::getString(e.ctx, genericBecause, true), "ledger.generic.because");
  auto *descType = StructType::create(e.ctx, {e.i32, e.i32, e.i64, e.ptr, e.i64, e.ptr, e.ptr, e.ptr},
                                      "LedgerPackDescriptor");
  Constant *fields[] = {e.c32(LEDGER_PACK_ABI_VERSION),
                        e.c32(static_cast<uint32_t>(bodies.size())),
                        ConstantInt::get(e.i64, hash),
                        tables,
                        ConstantInt::get(e.i64, blob.size()),
                        bodyArray,
                        engine ? engine : ConstantPointerNull::get(e.ptr),
                        because};
  auto *descriptor = constantGlobal(m, ConstantStruct::get(descType, fields), "ledger.descriptor");

  auto *entry = Function::Create(FunctionType::get(e.ptr, {}, false), GlobalValue::ExternalLinkage,
                                 LEDGER_PACK_SYMBOL, m);
  entry->setVisibility(GlobalValue::DefaultVisibility);
  entry->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> b(BasicBlock::Create(e.ctx, "entry", entry));
  b.CreateRet(descriptor);
}

bool lowerBodies(Emitter &e, const pack::Tables &tables, std::vector<Function *> &bodies,
                 std::string &error) {
  bodies.reserve(tables.bodies.size());
  for (pack::Id id = 0; id < tables.bodies.size(); ++id)
    bodies.push_back(declareBody(e, tables.bodies[id], id));
  for (pack::Id id = 0; id < tables.bodies.size(); ++id) {
    BodyLowering lowering(e, tables, error);
    if (!lowering.lower(id, bodies[id]))
      return false;
  }
  return true;
}

} // namespace ledger::codegen::detail
