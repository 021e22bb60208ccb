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

Value *high64(Emitter &e, Value *wide) {
  return e.b.CreateTrunc(e.b.CreateLShr(wide, 64), e.i64, "hi");
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
  // q may be 2^64 - 1 here: round and sign it in 128 bits.
  Value *rounded = b.CreateAdd(b.CreateZExt(q, e.i128), b.CreateZExt(up, e.i128));
  Value *signedQ = b.CreateSelect(negative, b.CreateNeg(rounded), rounded);
  Value *tooHigh = b.CreateICmpSGT(signedQ, ConstantInt::getSigned(e.i128, kMax));
  Value *tooLow = b.CreateICmpSLT(signedQ, ConstantInt::getSigned(e.i128, kMin));
  op.failIf(b.CreateOr(tooHigh, tooLow), LEDGER_FAULT_OVERFLOW);
  return b.CreateTrunc(signedQ, e.i64);
}

// A 128-bit numerator (hi:lo, hi < d) over a 64-bit divisor, a bit at a
// time: the rare case of a quotient whose numerator passes 64 bits.
Function *wideDivide(Emitter &e) {
  static constexpr const char *kName = "ledger.udiv128";
  if (Function *known = e.module.getFunction(kName))
    return known;
  Type *pair = StructType::get(e.ctx, {e.i64, e.i64});
  FunctionType *type = FunctionType::get(pair, {e.i64, e.i64, e.i64}, false);
  Function *fn = Function::Create(type, GlobalValue::InternalLinkage, kName, e.module);
  fn->addFnAttr(Attribute::NoUnwind);
  fn->addFnAttr(Attribute::NoInline);
  fn->addFnAttr(Attribute::Cold);
  Value *hi = fn->getArg(0), *lo = fn->getArg(1), *d = fn->getArg(2);

  IRBuilder<> b(BasicBlock::Create(e.ctx, "entry", fn));
  BasicBlock *entry = b.GetInsertBlock();
  BasicBlock *loop = BasicBlock::Create(e.ctx, "loop", fn);
  BasicBlock *done = BasicBlock::Create(e.ctx, "done", fn);
  b.CreateBr(loop);
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
  Value *result = b.CreateInsertValue(PoisonValue::get(pair), nextBits, 0);
  b.CreateRet(b.CreateInsertValue(result, nextRem, 1));
  return fn;
}

// An unsigned 64-bit value over 10^6: quotient and remainder.
std::pair<Value *, Value *> divideByOne(Emitter &e, Value *v) {
  return {e.b.CreateUDiv(v, e.c64(kOne)), e.b.CreateURem(v, e.c64(kOne))};
}

} // namespace

Value *emitTruth(Emitter &e, Value *cond) {
  return e.b.CreateSelect(cond, e.c64(kOne), e.c64(0), "truth");
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
  IRBuilder<> &ir = e.b;
  Faulting op(e);
  Value *negative = ir.CreateXor(isNegative(e, a), isNegative(e, b));
  Value *product = ir.CreateMul(ir.CreateZExt(magnitude(e, a), e.i128),
                                ir.CreateZExt(magnitude(e, b), e.i128), "product", true, false);
  Value *hi = high64(e, product);
  Value *lo = ir.CreateTrunc(product, e.i64, "lo");
  // hi >= 10^6 puts the quotient at 2^64 or more: past int64 either way.
  op.failIf(ir.CreateICmpUGE(hi, e.c64(kOne)), LEDGER_FAULT_OVERFLOW);
  // Long division in 32-bit limbs: each partial stays below 10^6 * 2^32.
  Value *upper = ir.CreateOr(ir.CreateShl(hi, 32), ir.CreateLShr(lo, 32));
  auto [q1, r1] = divideByOne(e, upper);
  Value *lower = ir.CreateOr(ir.CreateShl(r1, 32), ir.CreateAnd(lo, e.c64(0xffffffff)));
  auto [q0, r] = divideByOne(e, lower);
  Value *q = ir.CreateOr(ir.CreateShl(q1, 32), q0);
  return op.finish(roundAndFit(e, op, q, r, e.c64(kOne), negative));
}

Value *emitDiv(Emitter &e, Value *a, Value *b) {
  IRBuilder<> &ir = e.b;
  Faulting op(e);
  op.failIf(ir.CreateICmpEQ(b, e.c64(0)), LEDGER_FAULT_DIVIDE_BY_ZERO);
  Value *negative = ir.CreateXor(isNegative(e, a), isNegative(e, b));
  Value *d = magnitude(e, b);
  Value *numerator = ir.CreateMul(ir.CreateZExt(magnitude(e, a), e.i128),
                                  ConstantInt::get(e.i128, kOne), "numerator", true, false);
  Value *hi = high64(e, numerator);
  Value *lo = ir.CreateTrunc(numerator, e.i64, "lo");

  BasicBlock *narrow = e.newBlock("div.narrow");
  BasicBlock *wide = e.newBlock("div.wide");
  BasicBlock *merge = e.newBlock("div.merge");
  ir.CreateCondBr(ir.CreateICmpEQ(hi, e.c64(0)), narrow, wide,
                  MDBuilder(e.ctx).createLikelyBranchWeights());

  ir.SetInsertPoint(narrow);
  Value *qNarrow = ir.CreateUDiv(lo, d);
  Value *rNarrow = ir.CreateURem(lo, d);
  ir.CreateBr(merge);

  ir.SetInsertPoint(wide);
  // hi >= d puts the quotient at 2^64 or more.
  op.failIf(ir.CreateICmpUGE(hi, d), LEDGER_FAULT_OVERFLOW);
  Value *pair = ir.CreateCall(wideDivide(e), {hi, lo, d});
  Value *qWide = ir.CreateExtractValue(pair, 0);
  Value *rWide = ir.CreateExtractValue(pair, 1);
  BasicBlock *wideEnd = ir.GetInsertBlock();
  ir.CreateBr(merge);

  ir.SetInsertPoint(merge);
  PHINode *q = ir.CreatePHI(e.i64, 2, "q");
  q->addIncoming(qNarrow, narrow);
  q->addIncoming(qWide, wideEnd);
  PHINode *r = ir.CreatePHI(e.i64, 2, "r");
  r->addIncoming(rNarrow, narrow);
  r->addIncoming(rWide, wideEnd);
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
