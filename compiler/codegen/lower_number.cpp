// The numbers of runtime/number.cpp in IR, bit for bit. Nothing here divides
// an i128: that would call __divti3 from libgcc, and a pack links nothing. A
// product is divided by 10^6 in 32-bit limbs; a quotient by a 64-bit divisor
// takes the native 64-bit division unless its numerator passes 64 bits.
#include "codegen/internal.h"

#include "pack_abi.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace ledger::codegen::detail {

using namespace llvm;

namespace {

constexpr int64_t kOne = 1'000'000;
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// One operation that may fault: each failure calls the kernel's fault and
// joins the result with 0; the straight path joins it with its value.
class Faulting {
public:
  explicit Faulting(Emitter &e) : e_(e), join_(BasicBlock::Create(e.ctx, "num.join")) {}

  void failIf(Value *bad, uint32_t code) {
    BasicBlock *fail = e_.newBlock("num.fault");
    BasicBlock *ok = e_.newBlock("num.ok");
    e_.b.CreateCondBr(bad, fail, ok, MDBuilder(e_.ctx).createUnlikelyBranchWeights());
    e_.b.SetInsertPoint(fail);
    e_.callFault(code);
    e_.b.CreateBr(join_);
    failures_.push_back(fail);
    e_.b.SetInsertPoint(ok);
  }

  Value *finish(Value *value) {
    BasicBlock *from = e_.b.GetInsertBlock();
    e_.b.CreateBr(join_);
    join_->insertInto(e_.fn);
    e_.b.SetInsertPoint(join_);
    PHINode *result = e_.b.CreatePHI(e_.i64, failures_.size() + 1, "num");
    for (BasicBlock *fail : failures_)
      result->addIncoming(e_.c64(0), fail);
    result->addIncoming(value, from);
    return result;
  }

private:
  Emitter &e_;
  BasicBlock *join_;
  std::vector<BasicBlock *> failures_;
};

Value *isNegative(Emitter &e, Value *a) { return e.b.CreateICmpSLT(a, e.c64(0)); }

// |a| as an unsigned 64-bit value; INT64_MIN's is 2^63, which it already is.
Value *magnitude(Emitter &e, Value *a) {
  return e.b.CreateSelect(isNegative(e, a), e.b.CreateSub(e.c64(0), a), a, "mag");
}

Value *overflowIntrinsic(Emitter &e, Intrinsic::ID id, Value *a, Value *b, Faulting &op) {
  Value *pair = e.b.CreateBinaryIntrinsic(id, a, b);
  op.failIf(e.b.CreateExtractValue(pair, 1), LEDGER_FAULT_OVERFLOW);
  return e.b.CreateExtractValue(pair, 0);
}

// q, r of a magnitude divided by d, rounded half to even, given its sign,
// then kept within int64 (rt's divideHalfEven then fits).
Value *roundAndFit(Emitter &e, Faulting &op, Value *q, Value *r, Value *d, Value *negative) {
  IRBuilder<> &b = e.b;
  Value *rest = b.CreateSub(d, r); // r < d, so r * 2 against d without overflow
  Value *odd = b.CreateTrunc(q, e.i1);
  Value *up = b.CreateOr(b.CreateICmpUGT(r, rest), b.CreateAnd(b.CreateICmpEQ(r, rest), odd));
  // q may be 2^64 - 1 here: rounded up, it carries out.
  Value *sum = b.CreateBinaryIntrinsic(Intrinsic::uadd_with_overflow, q, b.CreateZExt(up, e.i64));
  Value *rounded = b.CreateExtractValue(sum, 0);
  Value *most = b.CreateSelect(negative, e.c64(kMin), e.c64(kMax)); // 2^63 or 2^63 - 1
  op.failIf(b.CreateOr(b.CreateExtractValue(sum, 1), b.CreateICmpUGT(rounded, most)),
            LEDGER_FAULT_OVERFLOW);
  return b.CreateSelect(negative, b.CreateSub(e.c64(0), rounded), rounded);
}

// The type of a wide case's routine: quotient, remainder, and whether the
// quotient passes 64 bits.
StructType *wideResult(Emitter &e) { return StructType::get(e.ctx, {e.i64, e.i64, e.i1}); }

// A routine of the pack's own, out of line: the rare case of a product or
// numerator past 64 bits, kept out of the bodies, where 128-bit arithmetic
// would cost every one of them the fast instruction selector.
Function *wideRoutine(Emitter &e, const char *name, std::initializer_list<const char *> args) {
  std::vector<Type *> params(args.size(), e.i64);
  FunctionType *type = FunctionType::get(wideResult(e), params, false);
  Function *fn = Function::Create(type, GlobalValue::InternalLinkage, name, e.module);
  fn->addFnAttr(Attribute::NoUnwind);
  fn->addFnAttr(Attribute::NoInline);
  fn->addFnAttr(Attribute::Cold);
  auto arg = args.begin();
  for (Argument &a : fn->args())
    a.setName(*arg++);
  return fn;
}

Value *high64(IRBuilder<> &b, Value *wide) {
  return b.CreateTrunc(b.CreateLShr(wide, 64), b.getInt64Ty(), "hi");
}

// Two magnitudes' product past 64 bits, over 10^6: long division in 32-bit
// limbs, each partial below 10^6 * 2^32. A high half of 10^6 or more puts
// the quotient at 2^64 or more.
Function *wideProduct(Emitter &e) {
  static constexpr const char *kName = "ledger.mul128";
  if (Function *known = e.module.getFunction(kName))
    return known;
  Function *fn = wideRoutine(e, kName, {"a", "b"});
  IRBuilder<> b(BasicBlock::Create(e.ctx, "entry", fn));
  Value *product = b.CreateMul(b.CreateZExt(fn->getArg(0), e.i128),
                               b.CreateZExt(fn->getArg(1), e.i128), "product", true, false);
  Value *hi = high64(b, product);
  Value *lo = b.CreateTrunc(product, e.i64, "lo");
  Value *one = e.c64(kOne);
  Value *upper = b.CreateOr(b.CreateShl(hi, 32), b.CreateLShr(lo, 32));
  Value *q1 = b.CreateUDiv(upper, one), *r1 = b.CreateURem(upper, one);
  Value *lower = b.CreateOr(b.CreateShl(r1, 32), b.CreateAnd(lo, e.c64(0xffffffff)));
  Value *q0 = b.CreateUDiv(lower, one), *r = b.CreateURem(lower, one);
  Value *result = PoisonValue::get(wideResult(e));
  result = b.CreateInsertValue(result, b.CreateOr(b.CreateShl(q1, 32), q0), 0);
  result = b.CreateInsertValue(result, r, 1);
  b.CreateRet(b.CreateInsertValue(result, b.CreateICmpUGE(hi, one), 2));
  return fn;
}

// A magnitude times 10^6, past 64 bits, over a 64-bit divisor, a bit at a
// time. A high half of d or more puts the quotient at 2^64 or more.
Function *wideQuotient(Emitter &e) {
  static constexpr const char *kName = "ledger.div128";
  if (Function *known = e.module.getFunction(kName))
    return known;
  Function *fn = wideRoutine(e, kName, {"a", "d"});
  Value *d = fn->getArg(1);
  IRBuilder<> b(BasicBlock::Create(e.ctx, "entry", fn));
  BasicBlock *entry = b.GetInsertBlock();
  BasicBlock *loop = BasicBlock::Create(e.ctx, "loop", fn);
  BasicBlock *done = BasicBlock::Create(e.ctx, "done", fn);
  BasicBlock *past = BasicBlock::Create(e.ctx, "past", fn);
  Value *numerator = b.CreateMul(b.CreateZExt(fn->getArg(0), e.i128),
                                 ConstantInt::get(e.i128, kOne), "numerator", true, false);
  Value *hi = high64(b, numerator);
  Value *lo = b.CreateTrunc(numerator, e.i64, "lo");
  b.CreateCondBr(b.CreateICmpUGE(hi, d), past, loop);
  b.SetInsertPoint(loop);
  PHINode *step = b.CreatePHI(e.i32, 2, "step");
  PHINode *rem = b.CreatePHI(e.i64, 2, "rem");
  PHINode *bits = b.CreatePHI(e.i64, 2, "bits"); // the numerator's low bits out, the quotient's in
  Value *carry = b.CreateICmpNE(b.CreateLShr(rem, 63), b.getInt64(0));
  Value *shifted = b.CreateOr(b.CreateShl(rem, 1), b.CreateLShr(bits, 63));
  Value *take = b.CreateOr(carry, b.CreateICmpUGE(shifted, d));
  Value *nextRem = b.CreateSelect(take, b.CreateSub(shifted, d), shifted);
  Value *nextBits = b.CreateOr(b.CreateShl(bits, 1), b.CreateZExt(take, e.i64));
  Value *nextStep = b.CreateAdd(step, b.getInt32(1));
  step->addIncoming(b.getInt32(0), entry);
  step->addIncoming(nextStep, loop);
  rem->addIncoming(hi, entry);
  rem->addIncoming(nextRem, loop);
  bits->addIncoming(lo, entry);
  bits->addIncoming(nextBits, loop);
  b.CreateCondBr(b.CreateICmpEQ(nextStep, b.getInt32(64)), done, loop);
  b.SetInsertPoint(done);
  Value *result = PoisonValue::get(wideResult(e));
  result = b.CreateInsertValue(result, nextBits, 0);
  result = b.CreateInsertValue(result, nextRem, 1);
  b.CreateRet(b.CreateInsertValue(result, b.getFalse(), 2));
  b.SetInsertPoint(past);
  b.CreateRet(ConstantStruct::get(wideResult(e), {e.c64(0), e.c64(0), b.getTrue()}));
  return fn;
}

// a times b (a magnitude times 10^6, over d), in 64 bits where it fits, which
// is all but always: its quotient and remainder over d, by the wide routine
// where it doesn't, a quotient past 64 bits a fault.
std::pair<Value *, Value *> productOver(Emitter &e, Faulting &op, Value *a, Value *b, Value *d,
                                        Function *wide, Value *wideArg) {
  IRBuilder<> &ir = e.b;
  Value *pair = ir.CreateBinaryIntrinsic(Intrinsic::umul_with_overflow, a, b);
  BasicBlock *narrow = e.newBlock("num.narrow");
  BasicBlock *past = e.newBlock("num.wide");
  BasicBlock *merge = e.newBlock("num.merge");
  ir.CreateCondBr(ir.CreateExtractValue(pair, 1), past, narrow,
                  MDBuilder(e.ctx).createUnlikelyBranchWeights());

  ir.SetInsertPoint(narrow);
  Value *product = ir.CreateExtractValue(pair, 0);
  Value *qNarrow = ir.CreateUDiv(product, d);
  Value *rNarrow = ir.CreateURem(product, d);
  ir.CreateBr(merge);

  ir.SetInsertPoint(past);
  Value *result = ir.CreateCall(wide, {a, wideArg});
  op.failIf(ir.CreateExtractValue(result, 2), LEDGER_FAULT_OVERFLOW);
  Value *qWide = ir.CreateExtractValue(result, 0);
  Value *rWide = ir.CreateExtractValue(result, 1);
  BasicBlock *wideEnd = ir.GetInsertBlock();
  ir.CreateBr(merge);

  ir.SetInsertPoint(merge);
  PHINode *q = ir.CreatePHI(e.i64, 2, "q");
  q->addIncoming(qNarrow, narrow);
  q->addIncoming(qWide, wideEnd);
  PHINode *r = ir.CreatePHI(e.i64, 2, "r");
  r->addIncoming(rNarrow, narrow);
  r->addIncoming(rWide, wideEnd);
  return {q, r};
}

// A constant that is a whole number: that number.
std::optional<int64_t> wholeConstant(Value *v) {
  auto *c = dyn_cast<ConstantInt>(v);
  if (!c || c->getSExtValue() % kOne != 0)
    return std::nullopt;
  return c->getSExtValue() / kOne;
}

// An unsigned 64-bit value over 10^6: quotient and remainder.
std::pair<Value *, Value *> divideByOne(Emitter &e, Value *v) {
  return {e.b.CreateUDiv(v, e.c64(kOne)), e.b.CreateURem(v, e.c64(kOne))};
}

} // namespace

Value *emitTruth(Emitter &e, Value *cond) {
  return e.b.CreateSelect(cond, e.c64(kOne), e.c64(0), "truth");
}

Value *emitMin(Emitter &e, Value *a, Value *b) {
  return e.b.CreateSelect(e.b.CreateICmpSLT(a, b), a, b, "min");
}

Value *emitMax(Emitter &e, Value *a, Value *b) {
  return e.b.CreateSelect(e.b.CreateICmpSGT(a, b), a, b, "max");
}

Value *emitNeg(Emitter &e, Value *a) {
  Faulting op(e);
  op.failIf(e.b.CreateICmpEQ(a, e.c64(kMin)), LEDGER_FAULT_OVERFLOW);
  return op.finish(e.b.CreateSub(e.c64(0), a));
}

Value *emitAdd(Emitter &e, Value *a, Value *b) {
  Faulting op(e);
  return op.finish(overflowIntrinsic(e, Intrinsic::sadd_with_overflow, a, b, op));
}

Value *emitSub(Emitter &e, Value *a, Value *b) {
  Faulting op(e);
  return op.finish(overflowIntrinsic(e, Intrinsic::ssub_with_overflow, a, b, op));
}

Value *emitMul(Emitter &e, Value *a, Value *b) {
  // By a whole number the product is exact: it faults where it passes int64.
  for (auto [x, k] : {std::pair{a, wholeConstant(b)}, std::pair{b, wholeConstant(a)}})
    if (k) {
      Faulting op(e);
      return op.finish(overflowIntrinsic(e, Intrinsic::smul_with_overflow, x, e.c64(*k), op));
    }
  Faulting op(e);
  Value *negative = e.b.CreateXor(isNegative(e, a), isNegative(e, b));
  Value *mb = magnitude(e, b);
  auto [q, r] = productOver(e, op, magnitude(e, a), mb, e.c64(kOne), wideProduct(e), mb);
  return op.finish(roundAndFit(e, op, q, r, e.c64(kOne), negative));
}

Value *emitDiv(Emitter &e, Value *a, Value *b) {
  Faulting op(e);
  Value *negative = e.b.CreateXor(isNegative(e, a), isNegative(e, b));
  // Over a whole number k, a * 10^6 / (k * 10^6) is a / k, its remainder
  // 10^6 times smaller than the divisor's as the divisor is.
  if (std::optional<int64_t> k = wholeConstant(b); k && *k != 0) {
    Value *d = e.c64(*k < 0 ? -uint64_t(*k) : uint64_t(*k));
    Value *ma = magnitude(e, a);
    return op.finish(roundAndFit(e, op, e.b.CreateUDiv(ma, d), e.b.CreateURem(ma, d), d, negative));
  }
  op.failIf(e.b.CreateICmpEQ(b, e.c64(0)), LEDGER_FAULT_DIVIDE_BY_ZERO);
  Value *d = magnitude(e, b);
  auto [q, r] = productOver(e, op, magnitude(e, a), e.c64(kOne), d, wideQuotient(e), d);
  return op.finish(roundAndFit(e, op, q, r, d, negative));
}

Value *emitFloor(Emitter &e, Value *a) {
  IRBuilder<> &b = e.b;
  Faulting op(e);
  Value *r = b.CreateSRem(a, e.c64(kOne));
  Value *up = b.CreateSub(a, r);
  Value *below = b.CreateICmpSLT(r, e.c64(0));
  Value *pair = b.CreateBinaryIntrinsic(Intrinsic::ssub_with_overflow, up, e.c64(kOne));
  op.failIf(b.CreateAnd(below, b.CreateExtractValue(pair, 1)), LEDGER_FAULT_OVERFLOW);
  return op.finish(b.CreateSelect(below, b.CreateExtractValue(pair, 0), up));
}

Value *emitCeil(Emitter &e, Value *a) {
  IRBuilder<> &b = e.b;
  Faulting op(e);
  Value *r = b.CreateSRem(a, e.c64(kOne));
  Value *down = b.CreateSub(a, r);
  Value *above = b.CreateICmpSGT(r, e.c64(0));
  Value *pair = b.CreateBinaryIntrinsic(Intrinsic::sadd_with_overflow, down, e.c64(kOne));
  op.failIf(b.CreateAnd(above, b.CreateExtractValue(pair, 1)), LEDGER_FAULT_OVERFLOW);
  return op.finish(b.CreateSelect(above, b.CreateExtractValue(pair, 0), down));
}

Value *emitTrunc(Emitter &e, Value *a) { return e.b.CreateSub(a, e.b.CreateSRem(a, e.c64(kOne))); }

Value *emitRound(Emitter &e, Value *a) {
  IRBuilder<> &b = e.b;
  Faulting op(e);
  auto [q, r] = divideByOne(e, magnitude(e, a));
  Value *rest = b.CreateSub(e.c64(kOne), r);
  Value *odd = b.CreateTrunc(q, e.i1);
  Value *up = b.CreateOr(b.CreateICmpUGT(r, rest), b.CreateAnd(b.CreateICmpEQ(r, rest), odd));
  Value *rounded = b.CreateAdd(q, b.CreateZExt(up, e.i64)); // at most 2^63 / 10^6 + 1
  Value *whole = b.CreateSelect(isNegative(e, a), b.CreateNeg(rounded), rounded);
  return op.finish(overflowIntrinsic(e, Intrinsic::smul_with_overflow, whole, e.c64(kOne), op));
}

Value *emitAbs(Emitter &e, Value *a) {
  Faulting op(e);
  op.failIf(e.b.CreateICmpEQ(a, e.c64(kMin)), LEDGER_FAULT_OVERFLOW);
  return op.finish(magnitude(e, a));
}

} // namespace ledger::codegen::detail
