// The code generator's pieces, shared between its files only.
#pragma once

#include "codegen/codegen.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ledger::codegen::detail {

// Fields of LedgerFrame and LedgerKernelApi, in their declared order.
enum class FrameField : unsigned { Api, Kernel, Locals, Vars, Event };
enum class ApiSlot : unsigned { Read, Step, ListOpen, ListItem, ListClose, Math, Fault, Repeat };

// How a body reaches the world: through the kernel's API table its frame
// carries (the generic kernel's), or by direct calls to the machinery linked
// into a specialised pack (lm_read, lm_step, …), which LLVM may inline.
enum class Calls : uint8_t { ThroughApi, Direct };

// The builder of one body function, with the types and kernel calls every
// lowering needs.
struct Emitter {
  explicit Emitter(llvm::Module &module, Calls calls = Calls::ThroughApi);

  llvm::LLVMContext &ctx;
  llvm::Module &module;
  llvm::IRBuilder<> b;
  llvm::Function *fn = nullptr;
  llvm::Value *frame = nullptr;
  llvm::IntegerType *i1, *i32, *i64, *i128;
  llvm::PointerType *ptr;
  llvm::StructType *frameType, *apiType, *eventHeadType;
  Calls calls;

  llvm::ConstantInt *c64(int64_t v) const;
  llvm::ConstantInt *c32(uint32_t v) const;
  llvm::BasicBlock *newBlock(const llvm::Twine &name);
  // Allocas go in the entry block so optimisation can promote them.
  llvm::AllocaInst *entryAlloca(llvm::Type *type, const llvm::Twine &name);
  llvm::Value *frameField(FrameField field);
  llvm::Value *callKernel(ApiSlot slot, llvm::ArrayRef<llvm::Value *> argsAfterFrame);
  void callFault(uint32_t code);
  llvm::FunctionType *kernelType(ApiSlot slot) const;
};

// Numbers (runtime/number.cpp, bit for bit); a fault calls the kernel's fault
// and gives 0.
llvm::Value *emitNeg(Emitter &e, llvm::Value *a);
llvm::Value *emitAdd(Emitter &e, llvm::Value *a, llvm::Value *b);
llvm::Value *emitSub(Emitter &e, llvm::Value *a, llvm::Value *b);
llvm::Value *emitMul(Emitter &e, llvm::Value *a, llvm::Value *b);
llvm::Value *emitDiv(Emitter &e, llvm::Value *a, llvm::Value *b);
llvm::Value *emitFloor(Emitter &e, llvm::Value *a);
llvm::Value *emitCeil(Emitter &e, llvm::Value *a);
llvm::Value *emitTrunc(Emitter &e, llvm::Value *a);
llvm::Value *emitRound(Emitter &e, llvm::Value *a);
llvm::Value *emitAbs(Emitter &e, llvm::Value *a);
// An i1 as a number: 1000000 or 0.
llvm::Value *emitTruth(Emitter &e, llvm::Value *cond);
// The lesser and the greater, as a compare and a select: what the full
// pipeline makes smin and smax of, and the fast instruction selector takes
// as they are.
llvm::Value *emitMin(Emitter &e, llvm::Value *a, llvm::Value *b);
llvm::Value *emitMax(Emitter &e, llvm::Value *a, llvm::Value *b);

// Every body of the tables as a function of the module, by body id; false,
// with why, when the tables don't hold together.
bool lowerBodies(Emitter &e, const pack::Tables &tables, std::vector<llvm::Function *> &bodies,
                 std::string &error);

// The descriptor and the one exported symbol returning it: the blob, the
// bodies the generic kernel calls (none for a specialised pack), the
// machinery's entry points (null for a generic pack) and why it carries none.
void emitDescriptor(Emitter &e, const std::vector<llvm::Function *> &bodies, std::string_view blob,
                    uint64_t hash, llvm::Constant *engine, const std::string &genericBecause);

// The whole pack as a module, laid out for the machine: a specialised one
// where the compiled engine runs the catalog (codegen/machinery), else its
// bodies for the generic kernel. Null, with why, when the tables don't hold
// together.
std::unique_ptr<llvm::Module> lowerPack(llvm::LLVMContext &ctx, const llvm::TargetMachine &machine,
                                        const pack::Tables &tables, std::string_view blob,
                                        uint64_t hash, bool specialise, std::string &error);

std::unique_ptr<llvm::TargetMachine> hostTargetMachine(OptLevel level, std::string &error);
// The level's default pipeline for every function but coldOnes, the bodies
// that run once an order or less, which take a short function pipeline.
void optimise(llvm::Module &module, llvm::TargetMachine &machine, OptLevel level,
              llvm::ArrayRef<llvm::Function *> coldOnes = {});
bool emitObject(llvm::Module &module, llvm::TargetMachine &machine,
                llvm::SmallVectorImpl<char> &object, std::string &error);
// The objects linked into a shared object's bytes, in memory.
bool linkShared(const std::vector<llvm::ArrayRef<char>> &objects, std::string &image,
                std::string &error);

} // namespace ledger::codegen::detail
