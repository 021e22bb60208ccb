#include "codegen/internal.h"

#include "pack_abi.h"

namespace ledger::codegen::detail {

using namespace llvm;

Emitter::Emitter(Module &m, Calls how)
    : ctx(m.getContext()), module(m), b(m.getContext()), i1(b.getInt1Ty()), i32(b.getInt32Ty()),
      i64(b.getInt64Ty()), i128(b.getInt128Ty()), ptr(b.getPtrTy()), calls(how) {
  frameType = StructType::get(ctx, {ptr, ptr, ptr, ptr, ptr});
  // LedgerEventHead: subject, source, credit, kind, prevented, pad, tags.
  eventHeadType =
      StructType::get(ctx, {i64, i64, i64, i32, b.getInt8Ty(), ArrayType::get(b.getInt8Ty(), 3),
                            ArrayType::get(i64, LEDGER_EVENT_TAG_WORDS)});
  apiType = StructType::get(ctx, {ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr});
}

ConstantInt *Emitter::c64(int64_t v) const { return ConstantInt::getSigned(i64, v); }
ConstantInt *Emitter::c32(uint32_t v) const { return ConstantInt::get(i32, v); }

BasicBlock *Emitter::newBlock(const Twine &name) { return BasicBlock::Create(ctx, name, fn); }

AllocaInst *Emitter::entryAlloca(Type *type, const Twine &name) {
  IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  return entry.CreateAlloca(type, nullptr, name);
}

// Read at each use: a callback may hand the frame new arrays, and the
// reference engine reads through the frame every time too.
Value *Emitter::frameField(FrameField field) {
  unsigned index = static_cast<unsigned>(field);
  return b.CreateLoad(ptr, b.CreateStructGEP(frameType, frame, index), "frame.field");
}

FunctionType *Emitter::kernelType(ApiSlot slot) const {
  switch (slot) {
  case ApiSlot::Read:
  case ApiSlot::ListOpen:
    return FunctionType::get(i64, {ptr, i32, ptr}, false);
  case ApiSlot::Step:
    return FunctionType::get(i32, {ptr, i32, ptr}, false);
  case ApiSlot::ListItem:
    return FunctionType::get(i64, {ptr, i64}, false);
  case ApiSlot::ListClose:
    return FunctionType::get(Type::getVoidTy(ctx), {ptr}, false);
  case ApiSlot::Math:
    return FunctionType::get(i64, {ptr, i32, i64, i64}, false);
  case ApiSlot::Fault:
    return FunctionType::get(Type::getVoidTy(ctx), {ptr, i32}, false);
  case ApiSlot::Repeat:
    return FunctionType::get(i64, {ptr, i64}, false);
  }
  return nullptr;
}

Value *Emitter::callKernel(ApiSlot slot, ArrayRef<Value *> argsAfterFrame) {
  SmallVector<Value *, 4> args{frame};
  args.append(argsAfterFrame.begin(), argsAfterFrame.end());
  if (calls == Calls::Direct) {
    static const char *names[] = {"lm_read",      "lm_step", "lm_listOpen", "lm_listItem",
                                  "lm_listClose", "lm_math", "lm_fault",  "lm_repeat"};
    FunctionCallee callee =
        module.getOrInsertFunction(names[static_cast<unsigned>(slot)], kernelType(slot));
    return b.CreateCall(callee, args);
  }
  Value *api = frameField(FrameField::Api);
  Value *slotPtr = b.CreateStructGEP(apiType, api, static_cast<unsigned>(slot));
  Value *callee = b.CreateLoad(ptr, slotPtr, "kernel.fn");
  return b.CreateCall(kernelType(slot), callee, args);
}

void Emitter::callFault(uint32_t code) { callKernel(ApiSlot::Fault, {c32(code)}); }

} // namespace ledger::codegen::detail
