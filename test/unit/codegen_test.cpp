// The code generator end to end: packs built from hand-made tables, linked,
// dlopened and run against a mock kernel, every number checked against the
// runtime's own functions (runtime/number.h), which the reference engine uses.
#include "codegen/codegen.h"
#include "number.h"
#include "pack_abi.h"

#include <gtest/gtest.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace ledger;
using pack::Expr;
using pack::ExprOp;
using pack::FoldKind;
using pack::Id;
using pack::Step;
using pack::StepOp;
using rt::NumberFault;

namespace {

constexpr int64_t kOne = 1'000'000;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kL0 = LEDGER_SLOT_FIRST_LOCAL; // the first free local
constexpr int64_t kL1 = LEDGER_SLOT_FIRST_LOCAL + 1;
constexpr int64_t kL2 = LEDGER_SLOT_FIRST_LOCAL + 2;

namespace fs = std::filesystem;

fs::path scratch() {
  static fs::path dir = [] {
    std::string pattern = (fs::temp_directory_path() / "ledger-codegen-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      std::abort();
    return fs::path(pattern);
  }();
  return dir;
}

class ScratchCleanup : public ::testing::Environment {
public:
  void TearDown() override { fs::remove_all(scratch()); }
};
[[maybe_unused]] auto *const kCleanup = ::testing::AddGlobalTestEnvironment(new ScratchCleanup);

// ---- tables by hand ----------------------------------------------------------

// A step and its children, placed contiguously by Builder::place.
struct S {
  Step step;
  std::vector<S> body, otherwise;
};

struct Builder {
  pack::Tables t;

  Id add(Expr x) {
    t.exprs.push_back(x);
    return static_cast<Id>(t.exprs.size() - 1);
  }
  Id k(int64_t v) { return add({.op = ExprOp::Const, .imm = v}); }
  Id local(int64_t slot) { return add({.op = ExprOp::Local, .imm = slot}); }
  Id var(int64_t index) { return add({.op = ExprOp::Var, .imm = index}); }
  Id un(ExprOp op, Id a) { return add({.op = op, .a = a}); }
  Id bin(ExprOp op, Id a, Id b) { return add({.op = op, .a = a, .b = b}); }
  Id tri(ExprOp op, Id a, Id b, Id c) { return add({.op = op, .a = a, .b = b, .c = c}); }
  Id math(ExprOp op, Id a, int64_t n) { return add({.op = op, .a = a, .imm = n}); }
  std::pair<uint32_t, uint32_t> args(const std::vector<Id> &list) {
    auto begin = static_cast<uint32_t>(t.exprArgs.size());
    t.exprArgs.insert(t.exprArgs.end(), list.begin(), list.end());
    return {begin, static_cast<uint32_t>(list.size())};
  }
  Id read(uint32_t id, const std::vector<Id> &list = {}) {
    auto [begin, count] = args(list);
    return add({.op = ExprOp::Read, .imm = id, .argsBegin = begin, .argCount = count});
  }
  Id fold(FoldKind kind, Id query, Id item, const std::vector<Id> &list = {}) {
    t.folds.push_back({.kind = kind, .query = query, .item = item});
    auto [begin, count] = args(list);
    return add({.op = ExprOp::Fold,
                .imm = int64_t(t.folds.size() - 1),
                .argsBegin = begin,
                .argCount = count});
  }
  Id formula(Id root) {
    t.bodies.push_back({.kind = pack::BodyKind::Formula, .root = root});
    return static_cast<Id>(t.bodies.size() - 1);
  }

  // Steps: each sequence contiguous, its children's after it.
  uint32_t place(const std::vector<S> &seq) {
    auto begin = static_cast<uint32_t>(t.steps.size());
    t.steps.resize(begin + seq.size());
    for (size_t i = 0; i < seq.size(); ++i) {
      Step s = seq[i].step;
      s.bodyBegin = place(seq[i].body);
      s.bodyEnd = s.bodyBegin + static_cast<uint32_t>(seq[i].body.size());
      s.elseBegin = place(seq[i].otherwise);
      s.elseEnd = s.elseBegin + static_cast<uint32_t>(seq[i].otherwise.size());
      t.steps[begin + i] = s;
    }
    return begin;
  }
  Id steps(const std::vector<S> &seq) {
    uint32_t begin = place(seq);
    t.bodies.push_back({.kind = pack::BodyKind::Steps,
                        .stepsBegin = begin,
                        .stepsEnd = begin + static_cast<uint32_t>(seq.size())});
    return static_cast<Id>(t.bodies.size() - 1);
  }
  S withArgs(StepOp op, uint32_t info, uint32_t slot, const std::vector<Id> &list,
             std::vector<S> body = {}, std::vector<S> otherwise = {}) {
    auto [begin, count] = args(list);
    return {{.op = op, .info = info, .argsBegin = begin, .argCount = count, .slot = slot},
            std::move(body),
            std::move(otherwise)};
  }
  S when(Id cond, std::vector<S> body, std::vector<S> otherwise = {}) {
    return withArgs(StepOp::If, 0, 0, {cond}, std::move(body), std::move(otherwise));
  }
  S forEach(uint32_t query, uint32_t slot, const std::vector<Id> &list, std::vector<S> body) {
    return withArgs(StepOp::ForEach, query, slot, list, std::move(body));
  }
  S repeat(Id count, std::vector<S> body) {
    return withArgs(StepOp::Repeat, 0, 0, {count}, std::move(body));
  }
  S let(uint32_t slot, Id v) { return withArgs(StepOp::Let, 0, slot, {v}); }
  S setVar(uint32_t slot, uint32_t mode, Id v) { return withArgs(StepOp::SetVar, mode, slot, {v}); }
  S action(uint32_t id, const std::vector<Id> &list = {}) {
    return withArgs(StepOp::Action, id, 0, list);
  }
};

// ---- a pack, loaded ------------------------------------------------------------

struct Pack {
  void *handle = nullptr;
  const LedgerPackDescriptor *desc = nullptr;
  std::string path;
  Pack() = default;
  Pack(const Pack &) = delete;
  Pack &operator=(const Pack &) = delete;
  ~Pack() {
    if (handle)
      dlclose(handle);
  }
};

std::string nextPath() {
  static int count = 0;
  return (scratch() / ("pack" + std::to_string(count++) + ".so")).string();
}

// These tests call a pack's bodies themselves, as the generic kernel does:
// the packs they build carry no machinery.
constexpr codegen::Options kBodies{.specialise = false};

std::unique_ptr<Pack> build(const pack::Tables &tables, std::string_view blob = "blob",
                            uint64_t hash = 42, const codegen::Options &options = kBodies) {
  auto pack = std::make_unique<Pack>();
  pack->path = nextPath();
  std::string error;
  if (!codegen::buildPack(tables, blob, hash, pack->path, error, options)) {
    ADD_FAILURE() << "buildPack: " << error;
    return nullptr;
  }
  pack->handle = dlopen(pack->path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!pack->handle) {
    ADD_FAILURE() << "dlopen: " << dlerror();
    return nullptr;
  }
  auto entry = reinterpret_cast<LedgerPackEntry>(dlsym(pack->handle, LEDGER_PACK_SYMBOL));
  if (!entry) {
    ADD_FAILURE() << "no " << LEDGER_PACK_SYMBOL;
    return nullptr;
  }
  pack->desc = entry();
  return pack;
}

// ---- a kernel that records --------------------------------------------------------

struct Mock {
  LedgerKernelApi api{};
  LedgerFrame frame{};
  std::vector<int64_t> locals = std::vector<int64_t>(16, 0);
  std::vector<int64_t> vars = std::vector<int64_t>(8, 0);
  std::vector<std::string> log;
  std::vector<uint32_t> faults;
  std::map<uint32_t, uint32_t> argCounts;         // by read, step or query id
  std::map<uint32_t, std::vector<int64_t>> lists; // by query id
  std::vector<uint32_t> open;                     // queries open, innermost last
  std::map<int64_t, int32_t> stepAnswers;         // a step's first operand -> its answer
  bool nullArgs = false;                          // any call given a null array

  Mock() {
    api = {&read, &step, &listOpen, &listItem, &listClose, &math, &fault, &repeat};
    frame = {&api, this, locals.data(), vars.data(), nullptr};
  }
  Mock(const Mock &) = delete;
  Mock &operator=(const Mock &) = delete;

  static Mock &of(LedgerFrame *f) { return *static_cast<Mock *>(f->kernel); }
  std::string operands(uint32_t id, const int64_t *args) {
    nullArgs |= args == nullptr;
    std::string text = "(";
    for (uint32_t i = 0; i < argCounts[id]; ++i)
      text += (i ? "," : "") + std::to_string(args[i]);
    return text + ")";
  }
  static int64_t read(LedgerFrame *f, uint32_t id, const int64_t *args) {
    Mock &m = of(f);
    m.log.push_back("read " + std::to_string(id) + m.operands(id, args));
    int64_t value = id * kOne;
    for (uint32_t i = 0; i < m.argCounts[id]; ++i)
      value += args[i];
    return value;
  }
  static int32_t step(LedgerFrame *f, uint32_t id, const int64_t *args) {
    Mock &m = of(f);
    m.log.push_back("step " + std::to_string(id) + m.operands(id, args));
    if (m.argCounts[id] == 0)
      return LEDGER_GO;
    auto answer = m.stepAnswers.find(args[0]);
    return answer == m.stepAnswers.end() ? LEDGER_GO : answer->second;
  }
  static int64_t listOpen(LedgerFrame *f, uint32_t query, const int64_t *args) {
    Mock &m = of(f);
    m.log.push_back("open " + std::to_string(query) + m.operands(query, args));
    m.open.push_back(query);
    return static_cast<int64_t>(m.lists[query].size());
  }
  static int64_t listItem(LedgerFrame *f, int64_t index) {
    Mock &m = of(f);
    m.log.push_back("item " + std::to_string(index));
    return m.open.empty() ? -1 : m.lists[m.open.back()].at(static_cast<size_t>(index));
  }
  static void listClose(LedgerFrame *f) {
    Mock &m = of(f);
    m.log.push_back("close");
    if (!m.open.empty())
      m.open.pop_back();
  }
  static int64_t math(LedgerFrame *f, uint32_t op, int64_t a, int64_t b) {
    of(f).log.push_back("math " + std::to_string(op) + " " + std::to_string(a) + " " +
                        std::to_string(b));
    NumberFault fault = NumberFault::None;
    return op == LEDGER_MATH_POW ? rt::pow(a, int(b), fault) : rt::root(a, int(b), fault);
  }
  // Every run a repeat asks for: the budget is the world's, tried in plays.
  static int64_t repeat(LedgerFrame *, int64_t times) { return times; }
  static void fault(LedgerFrame *f, uint32_t code) { of(f).faults.push_back(code); }

  int64_t formula(const Pack &p, Id body) {
    return reinterpret_cast<LedgerFormulaFn>(p.desc->bodies[body])(&frame);
  }
  int32_t run(const Pack &p, Id body) {
    return reinterpret_cast<LedgerStepsFn>(p.desc->bodies[body])(&frame);
  }
  void clear() {
    log.clear();
    faults.clear();
  }
};

std::vector<uint32_t> faultsOf(NumberFault f) {
  switch (f) {
  case NumberFault::None:
    return {};
  case NumberFault::Overflow:
    return {LEDGER_FAULT_OVERFLOW};
  case NumberFault::DivideByZero:
    return {LEDGER_FAULT_DIVIDE_BY_ZERO};
  default:
    return {99};
  }
}

const std::vector<int64_t> kEdges = {0,
                                     1,
                                     -1,
                                     2,
                                     3,
                                     -3,
                                     499'999,
                                     500'000,
                                     500'001,
                                     -500'000,
                                     -500'001,
                                     999'999,
                                     kOne,
                                     -kOne,
                                     1'500'000,
                                     2'500'000,
                                     -2'500'000,
                                     3'500'000,
                                     -3'500'000,
                                     3'037'000'499,
                                     3'037'000'500,
                                     4'294'967'296,
                                     18'446'744'073'709,
                                     18'446'744'073'710,
                                     -18'446'744'073'710,
                                     9'223'372'036'854'775,
                                     -9'223'372'036'854'776,
                                     kMax / 2,
                                     kMin / 2,
                                     kMax - 1,
                                     kMax,
                                     kMin + 1,
                                     kMin};

// Operands of every size, both signs, and now and then a half or an edge.
int64_t randomNumber(std::mt19937_64 &rng) {
  switch (rng() % 8) {
  case 0:
    return kEdges[rng() % kEdges.size()];
  case 1:
    return static_cast<int64_t>(rng() % 2001) * 500'000 - 500'000'000;
  case 2:
    return static_cast<int64_t>(rng() % 21) - 10;
  default:
    break;
  }
  unsigned bits = static_cast<unsigned>(rng() % 64);
  auto v = static_cast<int64_t>(bits == 0 ? 0 : rng() >> (64 - bits));
  return rng() % 2 ? -v : v;
}

using Binary = int64_t (*)(int64_t, int64_t, NumberFault &);
struct BinaryCase {
  ExprOp op;
  Binary rt;
  const char *name;
};
const BinaryCase kArithmetic[] = {{ExprOp::Add, rt::add, "add"},
                                  {ExprOp::Sub, rt::sub, "sub"},
                                  {ExprOp::Mul, rt::mul, "mul"},
                                  {ExprOp::Div, rt::div, "div"}};

// One body per arithmetic op over locals L0 and L1.
struct ArithmeticPack {
  Builder b;
  Id body[4];
  std::unique_ptr<Pack> pack;
  explicit ArithmeticPack(const codegen::Options &options = kBodies) {
    for (int i = 0; i < 4; ++i)
      body[i] = b.formula(b.bin(kArithmetic[i].op, b.local(kL0), b.local(kL1)));
    pack = build(b.t, "blob", 1, options);
  }
  void check(Mock &m, int64_t x, int64_t y) {
    m.locals[kL0] = x;
    m.locals[kL1] = y;
    for (int i = 0; i < 4; ++i) {
      NumberFault f = NumberFault::None;
      int64_t want = kArithmetic[i].rt(x, y, f);
      m.clear();
      ASSERT_EQ(m.formula(*pack, body[i]), want)
          << kArithmetic[i].name << "(" << x << ", " << y << ")";
      ASSERT_EQ(m.faults, faultsOf(f)) << kArithmetic[i].name << "(" << x << ", " << y << ")";
    }
  }
};

// ---- the descriptor ------------------------------------------------------------------

TEST(Codegen, DescriptorCarriesBlobHashAndBodies) {
  Builder b;
  b.formula(b.k(7));
  b.steps({});
  b.formula(b.k(9));
  const std::string blob("LDGR\0\x01\xff tables", 14);
  auto p = build(b.t, blob, 0xdeadbeefcafef00dull);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->desc->abiVersion, LEDGER_PACK_ABI_VERSION);
  EXPECT_EQ(p->desc->bodyCount, 3u);
  EXPECT_EQ(p->desc->catalogHash, 0xdeadbeefcafef00dull);
  ASSERT_EQ(p->desc->tablesSize, blob.size());
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(p->desc->tables), blob.size()), blob);
  Mock m;
  EXPECT_EQ(m.formula(*p, 0), 7);
  EXPECT_EQ(m.run(*p, 1), LEDGER_GO);
  EXPECT_EQ(m.formula(*p, 2), 9);
}

TEST(Codegen, EmptyPackLinks) {
  auto p = build(pack::Tables{}, "", 0);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->desc->bodyCount, 0u);
  EXPECT_EQ(p->desc->tablesSize, 0u);
}

TEST(Codegen, ExportsOnlyTheDescriptorAndNeedsNothing) {
  ArithmeticPack a;
  ASSERT_TRUE(a.pack);
  auto file = llvm::object::ObjectFile::createObjectFile(a.pack->path);
  ASSERT_TRUE(bool(file));
  auto *elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(file->getBinary());
  ASSERT_TRUE(elf);
  std::vector<std::string> defined, undefined;
  for (const llvm::object::ELFSymbolRef &symbol : elf->getDynamicSymbolIterators()) {
    auto name = symbol.getName();
    auto flags = symbol.getFlags();
    ASSERT_TRUE(bool(name) && bool(flags));
    if (name->empty())
      continue;
    (*flags & llvm::object::SymbolRef::SF_Undefined ? undefined : defined).push_back(name->str());
  }
  EXPECT_EQ(defined, std::vector<std::string>{LEDGER_PACK_SYMBOL});
  EXPECT_EQ(undefined, std::vector<std::string>{}); // no libc, no libgcc
}

TEST(Codegen, ObjectIsRemovedUnlessKept) {
  Builder b;
  b.formula(b.k(1));
  auto before = std::distance(fs::directory_iterator(scratch()), {});
  auto p = build(b.t);
  ASSERT_TRUE(p);
  EXPECT_EQ(std::distance(fs::directory_iterator(scratch()), {}), before + 1); // the .so only
  auto kept = build(b.t, "blob", 1, {.keepObject = true});
  ASSERT_TRUE(kept);
  EXPECT_TRUE(fs::exists(kept->path + ".o"));
}

TEST(Codegen, BadTablesAreAnErrorNotACrash) {
  Builder b;
  b.formula(b.bin(ExprOp::Add, b.k(1), 999));
  std::string error;
  EXPECT_FALSE(codegen::buildPack(b.t, "", 0, nextPath(), error, {}));
  EXPECT_NE(error.find("expression 999"), std::string::npos) << error;

  Builder cyclic;
  Id loop = cyclic.un(ExprOp::Neg, 0); // expression 0 is its own operand
  cyclic.formula(loop);
  EXPECT_FALSE(codegen::buildPack(cyclic.t, "", 0, nextPath(), error, {}));

  Builder steps;
  steps.t.bodies.push_back({.kind = pack::BodyKind::Steps, .stepsBegin = 0, .stepsEnd = 3});
  EXPECT_FALSE(codegen::buildPack(steps.t, "", 0, nextPath(), error, {}));
  EXPECT_EQ(codegen::packIR(steps.t, "", 0).rfind("; error: ", 0), 0u);
}

TEST(Codegen, PackIRNamesTheDescriptorAndDividesNoI128) {
  ArithmeticPack a;
  std::string ir = codegen::packIR(a.b.t, "blob", 1, kBodies);
  EXPECT_NE(ir.find(std::string("@") + LEDGER_PACK_SYMBOL), std::string::npos) << ir;
  EXPECT_NE(ir.find("define"), std::string::npos);
  EXPECT_EQ(ir.find("div i128"), std::string::npos) << "would call libgcc";
  EXPECT_EQ(ir.find("rem i128"), std::string::npos) << "would call libgcc";
}

// ---- expressions -----------------------------------------------------------------------

TEST(Codegen, LeavesReadConstLocalsAndVars) {
  Builder b;
  Id c = b.formula(b.k(-123'456'789));
  Id l = b.formula(b.local(kL2));
  Id v = b.formula(b.var(3));
  auto p = build(b.t);
  ASSERT_TRUE(p);
  Mock m;
  m.locals[kL2] = 42;
  m.vars[3] = -7;
  EXPECT_EQ(m.formula(*p, c), -123'456'789);
  EXPECT_EQ(m.formula(*p, l), 42);
  EXPECT_EQ(m.formula(*p, v), -7);
}

TEST(Codegen, ArithmeticOnEdgesMatchesRuntime) {
  ArithmeticPack a;
  ASSERT_TRUE(a.pack);
  Mock m;
  for (int64_t x : kEdges)
    for (int64_t y : kEdges)
      ASSERT_NO_FATAL_FAILURE(a.check(m, x, y));
}

TEST(Codegen, ArithmeticOnRandomOperandsMatchesRuntime) {
  ArithmeticPack a;
  ASSERT_TRUE(a.pack);
  Mock m;
  std::mt19937_64 rng(20240611);
  for (int i = 0; i < 200'000; ++i)
    ASSERT_NO_FATAL_FAILURE(a.check(m, randomNumber(rng), randomNumber(rng)));
}

TEST(Codegen, ArithmeticOfConstantsFoldsAsTheRuntimeDoes) {
  // Constant operands let LLVM fold: the folded answers must be the same.
  Builder b;
  struct Case {
    Id body;
    int op;
    int64_t x, y;
  };
  std::vector<Case> cases;
  std::mt19937_64 rng(7);
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t x : kEdges)
    pairs.emplace_back(x, kEdges[rng() % kEdges.size()]);
  for (int i = 0; i < 150; ++i)
    pairs.emplace_back(randomNumber(rng), randomNumber(rng));
  for (auto [x, y] : pairs)
    for (int op = 0; op < 4; ++op)
      cases.push_back({b.formula(b.bin(kArithmetic[op].op, b.k(x), b.k(y))), op, x, y});
  auto p = build(b.t);
  ASSERT_TRUE(p);
  Mock m;
  for (const Case &c : cases) {
    NumberFault f = NumberFault::None;
    int64_t want = kArithmetic[c.op].rt(c.x, c.y, f);
    m.clear();
    EXPECT_EQ(m.formula(*p, c.body), want)
        << kArithmetic[c.op].name << "(" << c.x << ", " << c.y << ")";
    EXPECT_EQ(m.faults, faultsOf(f));
  }
}

TEST(Codegen, MulAndDivByAWholeConstantMatchRuntime) {
  // A whole number's product and quotient are worked in 64 bits, no rounding
  // of a product: each must still be the runtime's, faults and all.
  const int64_t wholes[] = {0, 1, -1, 2, -2, 3, 7, -10, 100, 1'000'000, kMax / kOne, kMin / kOne};
  for (codegen::OptLevel level : {codegen::OptLevel::O2, codegen::OptLevel::O0}) {
    Builder b;
    struct Case {
      Id body;
      int op;
      int64_t k;
      bool kFirst;
    };
    std::vector<Case> cases;
    for (int64_t whole : wholes)
      for (int op : {2, 3}) {
        int64_t k = whole * kOne;
        cases.push_back({b.formula(b.bin(kArithmetic[op].op, b.local(kL0), b.k(k))), op, k, false});
        cases.push_back({b.formula(b.bin(kArithmetic[op].op, b.k(k), b.local(kL0))), op, k, true});
      }
    auto p = build(b.t, "x", 1, {.optLevel = level, .specialise = false});
    ASSERT_TRUE(p);
    Mock m;
    std::mt19937_64 rng(11);
    std::vector<int64_t> xs(std::begin(kEdges), std::end(kEdges));
    for (int i = 0; i < 2'000; ++i)
      xs.push_back(randomNumber(rng));
    for (int64_t x : xs)
      for (const Case &c : cases) {
        int64_t l = c.kFirst ? c.k : x, r = c.kFirst ? x : c.k;
        NumberFault f = NumberFault::None;
        int64_t want = kArithmetic[c.op].rt(l, r, f);
        m.locals[kL0] = x;
        m.clear();
        ASSERT_EQ(m.formula(*p, c.body), want) << kArithmetic[c.op].name << "(" << l << ", " << r << ")";
        ASSERT_EQ(m.faults, faultsOf(f)) << kArithmetic[c.op].name << "(" << l << ", " << r << ")";
      }
  }
}

TEST(Codegen, MulAndDivRoundHalfToEvenAndFault) {
  ArithmeticPack a;
  ASSERT_TRUE(a.pack);
  Mock m;
  auto mul = [&](int64_t x, int64_t y) {
    m.locals[kL0] = x;
    m.locals[kL1] = y;
    m.clear();
    return m.formula(*a.pack, a.body[2]);
  };
  auto div = [&](int64_t x, int64_t y) {
    m.locals[kL0] = x;
    m.locals[kL1] = y;
    m.clear();
    return m.formula(*a.pack, a.body[3]);
  };
  EXPECT_EQ(mul(1, 500'000), 0); // 0.0000005 -> 0
  EXPECT_EQ(mul(3, 500'000), 2); // 0.0000015 -> 0.000002
  EXPECT_EQ(mul(-3, 500'000), -2);
  EXPECT_EQ(mul(5, 500'000), 2); // 0.0000025 -> 0.000002
  EXPECT_EQ(div(1, 2'000'000), 0);
  EXPECT_EQ(div(3, 2'000'000), 2);
  EXPECT_EQ(div(-3, 2'000'000), -2);
  EXPECT_EQ(div(kOne, 3 * kOne), 333'333);
  EXPECT_EQ(div(2 * kOne, 3 * kOne), 666'667);
  EXPECT_TRUE(m.faults.empty());
  EXPECT_EQ(div(kOne, 0), 0);
  EXPECT_EQ(m.faults, std::vector<uint32_t>{LEDGER_FAULT_DIVIDE_BY_ZERO});
  EXPECT_EQ(mul(kMax, 2 * kOne), 0);
  EXPECT_EQ(m.faults, std::vector<uint32_t>{LEDGER_FAULT_OVERFLOW});
  EXPECT_EQ(div(kMax, 1), 0);
  EXPECT_EQ(m.faults, std::vector<uint32_t>{LEDGER_FAULT_OVERFLOW});
  EXPECT_EQ(mul(kMin, kOne), kMin); // exactly the least number
  EXPECT_TRUE(m.faults.empty());
  EXPECT_EQ(div(kMin, -kOne), 0); // its negation is one past
  EXPECT_EQ(m.faults, std::vector<uint32_t>{LEDGER_FAULT_OVERFLOW});
}

using Unary = int64_t (*)(int64_t, NumberFault &);
int64_t rtNot(int64_t a, NumberFault &) { return a == 0 ? kOne : 0; }
int64_t rtTrunc(int64_t a, NumberFault &) { return rt::truncWhole(a); }

TEST(Codegen, UnaryOpsMatchRuntime) {
  const struct {
    ExprOp op;
    Unary rt;
    const char *name;
  } ops[] = {{ExprOp::Neg, rt::neg, "neg"},
             {ExprOp::Not, rtNot, "not"},
             {ExprOp::Floor, rt::floorWhole, "floor"},
             {ExprOp::Ceil, rt::ceilWhole, "ceil"},
             {ExprOp::Round, rt::roundWhole, "round"},
             {ExprOp::Trunc, rtTrunc, "trunc"},
             {ExprOp::Abs, rt::abs, "abs"}};
  Builder b;
  std::vector<Id> bodies;
  for (const auto &op : ops)
    bodies.push_back(b.formula(b.un(op.op, b.local(kL0))));
  auto p = build(b.t);
  ASSERT_TRUE(p);
  std::vector<int64_t> values = kEdges;
  for (int64_t v : std::initializer_list<int64_t>{1'499'999, 1'500'001, 4'500'000, -4'500'000,
                                                  -1'500'000, 7, -7, kMax - 499'999, kMax - 775'807,
                                                  kMin + 775'808, kMin + 275'808})
    values.push_back(v);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20'000; ++i)
    values.push_back(randomNumber(rng));
  Mock m;
  for (int64_t v : values) {
    for (size_t i = 0; i < std::size(ops); ++i) {
      NumberFault f = NumberFault::None;
      int64_t want = ops[i].rt(v, f);
      m.locals[kL0] = v;
      m.clear();
      ASSERT_EQ(m.formula(*p, bodies[i]), want) << ops[i].name << "(" << v << ")";
      ASSERT_EQ(m.faults, faultsOf(f)) << ops[i].name << "(" << v << ")";
    }
  }
}

TEST(Codegen, ComparisonsMinMaxAndClamp) {
  const struct {
    ExprOp op;
    bool (*holds)(int64_t, int64_t);
  } compares[] = {{ExprOp::Eq, [](int64_t x, int64_t y) { return x == y; }},
                  {ExprOp::Ne, [](int64_t x, int64_t y) { return x != y; }},
                  {ExprOp::Lt, [](int64_t x, int64_t y) { return x < y; }},
                  {ExprOp::Le, [](int64_t x, int64_t y) { return x <= y; }},
                  {ExprOp::Gt, [](int64_t x, int64_t y) { return x > y; }},
                  {ExprOp::Ge, [](int64_t x, int64_t y) { return x >= y; }}};
  Builder b;
  std::vector<Id> bodies;
  for (const auto &c : compares)
    bodies.push_back(b.formula(b.bin(c.op, b.local(kL0), b.local(kL1))));
  Id min = b.formula(b.bin(ExprOp::Min, b.local(kL0), b.local(kL1)));
  Id max = b.formula(b.bin(ExprOp::Max, b.local(kL0), b.local(kL1)));
  Id clamp = b.formula(b.tri(ExprOp::Clamp, b.local(kL0), b.local(kL1), b.local(kL2)));
  auto p = build(b.t);
  ASSERT_TRUE(p);
  Mock m;
  const std::vector<int64_t> values = {kMin, -kOne, -1, 0, 1, kOne, 5 * kOne, kMax};
  for (int64_t x : values)
    for (int64_t y : values) {
      m.locals[kL0] = x;
      m.locals[kL1] = y;
      for (size_t i = 0; i < std::size(compares); ++i)
        EXPECT_EQ(m.formula(*p, bodies[i]), compares[i].holds(x, y) ? kOne : 0) << i;
      EXPECT_EQ(m.formula(*p, min), rt::min(x, y));
      EXPECT_EQ(m.formula(*p, max), rt::max(x, y));
      for (int64_t z : values) {
        m.locals[kL2] = z;
        EXPECT_EQ(m.formula(*p, clamp), rt::clamp(x, y, z)) << x << " " << y << " " << z;
      }
    }
  EXPECT_TRUE(m.faults.empty());
}

TEST(Codegen, AndOrShortCircuitAndIfEvaluatesOneSide) {
  Builder b;
  b.t.reads.resize(3);
  Id andBody = b.formula(b.bin(ExprOp::And, b.local(kL0), b.read(1)));
  Id orBody = b.formula(b.bin(ExprOp::Or, b.local(kL0), b.read(1)));
  Id ifBody = b.formula(b.tri(ExprOp::If, b.local(kL0), b.read(1), b.read(2)));
  Id andZero = b.formula(b.bin(ExprOp::And, b.local(kL0), b.k(0)));
  auto p = build(b.t);
  ASSERT_TRUE(p);
  Mock m;
  m.locals[kL0] = 0;
  EXPECT_EQ(m.formula(*p, andBody), 0);
  EXPECT_TRUE(m.log.empty());
  EXPECT_EQ(m.formula(*p, orBody), kOne); // read 1 answers 1.0
  EXPECT_EQ(m.log, std::vector<std::string>{"read 1()"});
  m.clear();
  EXPECT_EQ(m.formula(*p, ifBody), 2 * kOne);
  EXPECT_EQ(m.log, std::vector<std::string>{"read 2()"});
  m.clear();
  m.locals[kL0] = -3; // any non-zero is true
  EXPECT_EQ(m.formula(*p, andBody), kOne);
  EXPECT_EQ(m.log, std::vector<std::string>{"read 1()"});
  m.clear();
  EXPECT_EQ(m.formula(*p, orBody), kOne);
  EXPECT_TRUE(m.log.empty());
  EXPECT_EQ(m.formula(*p, ifBody), kOne);
  EXPECT_EQ(m.log, std::vector<std::string>{"read 1()"});
  EXPECT_EQ(m.formula(*p, andZero), 0);
}

TEST(Codegen, PowRootAndReadCallTheKernelInOrder) {
  Builder b;
  Id pow = b.formula(b.math(ExprOp::Pow, b.local(kL0), 3));
  Id root = b.formula(b.math(ExprOp::Root, b.local(kL0), 2));
  Id read = b.formula(b.read(5, {b.k(10), b.read(6), b.local(kL0)}));
  Id bare = b.formula(b.read(7));
  auto p = build(b.t);
  ASSERT_TRUE(p);
  Mock m;
  m.argCounts = {{5, 3}};
  m.locals[kL0] = 4 * kOne;
  EXPECT_EQ(m.formula(*p, pow), 64 * kOne);
  EXPECT_EQ(m.formula(*p, root), 2 * kOne);
  EXPECT_EQ(m.formula(*p, read), 5 * kOne + 10 + 6 * kOne + 4 * kOne);
  EXPECT_EQ(m.formula(*p, bare), 7 * kOne);
  EXPECT_EQ(m.log, (std::vector<std::string>{"math 1 4000000 3", "math 2 4000000 2", "read 6()",
                                             "read 5(10,6000000,4000000)", "read 7()"}));
  EXPECT_FALSE(m.nullArgs);
}

// What a filter reads of the event in hand comes from the frame's event
// head, no kernel call; with no event in hand each reads 0. Reads of its
// other fields still ask the kernel.
TEST(Codegen, EventHeadReadsInPlaceAndZeroWithoutAnEvent) {
  Builder b;
  b.t.tagWords = 2;
  b.t.tagBits = {0, 0, 0b101, uint64_t(1) << 3}; // set 1: tags 0, 2 and 67
  using pack::Read;
  using pack::ReadOp;
  b.t.reads = {
      Read{.op = ReadOp::EventActor, .a = uint32_t(pack::EventRole::Subject)},
      Read{.op = ReadOp::EventActor, .a = uint32_t(pack::EventRole::Credit)},
      Read{.op = ReadOp::EventKind},
      Read{.op = ReadOp::EventPrevented},
      Read{.op = ReadOp::EventTags, .a = 0, .tags = 1}, // carries them all
      Read{.op = ReadOp::EventTags, .a = 1, .tags = 1}, // any of them
      Read{.op = ReadOp::EventActor, .a = uint32_t(pack::EventRole::Ability)},
  };
  std::vector<Id> bodies;
  for (uint32_t r = 0; r < b.t.reads.size(); ++r)
    bodies.push_back(b.formula(b.read(r)));
  auto p = build(b.t);
  ASSERT_TRUE(p);
  Mock m;
  for (Id body : bodies)
    EXPECT_EQ(m.formula(*p, body), body == bodies[6] ? 6 * kOne : 0) << body;
  LedgerEventHead head{};
  head.subject = 41;
  head.credit = 43;
  head.kind = 7;
  head.prevented = 1;
  head.tags[0] = 0b101;
  m.frame.event = &head;
  EXPECT_EQ(m.formula(*p, bodies[0]), 41);
  EXPECT_EQ(m.formula(*p, bodies[1]), 43);
  EXPECT_EQ(m.formula(*p, bodies[2]), 8) << "an event's id + 1";
  EXPECT_EQ(m.formula(*p, bodies[3]), kOne);
  EXPECT_EQ(m.formula(*p, bodies[4]), 0) << "tag 67 missing";
  EXPECT_EQ(m.formula(*p, bodies[5]), kOne);
  head.tags[1] = uint64_t(1) << 3;
  EXPECT_EQ(m.formula(*p, bodies[4]), kOne);
  EXPECT_EQ(m.log, (std::vector<std::string>{"read 6()"})) << "only the ability asked the kernel";
}

TEST(Codegen, FoldsSumHighestLowestCount) {
  Builder b;
  Id it = b.local(LEDGER_SLOT_IT);
  Id sum = b.formula(b.fold(FoldKind::Sum, 1, b.bin(ExprOp::Mul, it, b.k(2 * kOne)), {b.k(9)}));
  Id highest = b.formula(b.fold(FoldKind::Highest, 2, it));
  Id lowest = b.formula(b.fold(FoldKind::Lowest, 2, it));
  Id count = b.formula(b.fold(FoldKind::Count, 2, pack::kNoId));
  Id emptySum = b.formula(b.fold(FoldKind::Sum, 3, it));
  Id emptyHighest = b.formula(b.fold(FoldKind::Highest, 3, it));
  Id overflow = b.formula(b.fold(FoldKind::Sum, 4, it));
  auto p = build(b.t);
  ASSERT_TRUE(p);
  Mock m;
  m.argCounts = {{1, 1}};
  m.lists[1] = {kOne, 2 * kOne, 3 * kOne};
  m.lists[2] = {-5 * kOne, -2 * kOne, -9 * kOne};
  m.lists[4] = {kMax, 1, 5};
  m.locals[LEDGER_SLOT_IT] = 777;
  EXPECT_EQ(m.formula(*p, sum), 12 * kOne);
  EXPECT_EQ(m.log, (std::vector<std::string>{"open 1(9)", "item 0", "item 1", "item 2", "close"}));
  EXPECT_EQ(m.formula(*p, highest), -2 * kOne); // the first item starts it, not 0
  EXPECT_EQ(m.formula(*p, lowest), -9 * kOne);
  m.clear();
  EXPECT_EQ(m.formula(*p, count), 3 * kOne);
  EXPECT_EQ(m.log, (std::vector<std::string>{"open 2()", "close"}));
  EXPECT_EQ(m.formula(*p, emptySum), 0);
  EXPECT_EQ(m.formula(*p, emptyHighest), 0);
  EXPECT_TRUE(m.faults.empty());
  // max + 1 faults and gives 0; the sum goes on from there: 5.
  EXPECT_EQ(m.formula(*p, overflow), 5);
  EXPECT_EQ(m.faults, std::vector<uint32_t>{LEDGER_FAULT_OVERFLOW});
  EXPECT_EQ(m.locals[LEDGER_SLOT_IT], 777);
  EXPECT_TRUE(m.open.empty());
}

TEST(Codegen, NestedFoldsRestoreIt) {
  Builder b;
  Id it = b.local(LEDGER_SLOT_IT);
  Id inner = b.fold(FoldKind::Sum, 2, it);
  // sum over outer of (sum over inner of it) + it: the inner fold must give it back.
  Id outer = b.formula(b.fold(FoldKind::Sum, 1, b.bin(ExprOp::Add, inner, it)));
  auto p = build(b.t);
  ASSERT_TRUE(p);
  Mock m;
  m.lists[1] = {10, 20};
  m.lists[2] = {1, 2};
  m.locals[LEDGER_SLOT_IT] = -1;
  EXPECT_EQ(m.formula(*p, outer), (3 + 10) + (3 + 20));
  EXPECT_EQ(m.locals[LEDGER_SLOT_IT], -1);
  EXPECT_TRUE(m.open.empty());
}

// ---- steps ------------------------------------------------------------------------------

TEST(Codegen, LetIfAndActions) {
  Builder b;
  Id body =
      b.steps({b.let(kL0, b.k(5 * kOne)),
               b.when(b.local(kL1), {b.action(1, {b.local(kL0)})}, {b.action(2)}), b.action(3)});
  auto p = build(b.t);
  ASSERT_TRUE(p);
  Mock m;
  m.argCounts = {{1, 1}};
  EXPECT_EQ(m.run(*p, body), LEDGER_GO);
  EXPECT_EQ(m.locals[kL0], 5 * kOne);
  EXPECT_EQ(m.log, (std::vector<std::string>{"step 2()", "step 3()"}));
  m.clear();
  m.locals[kL1] = 1;
  EXPECT_EQ(m.run(*p, body), LEDGER_GO);
  EXPECT_EQ(m.log, (std::vector<std::string>{"step 1(5000000)", "step 3()"}));
  EXPECT_FALSE(m.nullArgs);
}

TEST(Codegen, ActionStopEndsTheBody) {
  Builder b;
  Id body = b.steps({b.action(1, {b.local(kL0)}), b.action(2)});
  auto p = build(b.t);
  ASSERT_TRUE(p);
  Mock m;
  m.argCounts = {{1, 1}};
  m.stepAnswers = {{1, LEDGER_STOP}};
  m.locals[kL0] = 1;
  EXPECT_EQ(m.run(*p, body), LEDGER_STOP);
  EXPECT_EQ(m.log, std::vector<std::string>{"step 1(1)"});
  // Any answer but GO stops, and the body says STOP, as the reference engine does.
  m.clear();
  m.stepAnswers = {{1, 7}};
  EXPECT_EQ(m.run(*p, body), LEDGER_STOP);
  EXPECT_EQ(m.log, std::vector<std::string>{"step 1(1)"});
}

TEST(Codegen, ForEachRunsItsBodyPerItemAndStopClosesEveryList) {
  Builder b;
  Id each = b.steps({b.forEach(1, kL0, {b.k(4)}, {b.action(1, {b.local(kL0)})}), b.action(9)});
  Id nested = b.steps({b.forEach(1, kL0, {b.k(4)},
                                 {b.forEach(2, kL1, {}, {b.action(1, {b.local(kL1)})}),
                                  b.action(1, {b.local(kL0)})}),
                       b.action(9)});
  auto p = build(b.t);
  ASSERT_TRUE(p);
  Mock m;
  m.argCounts = {{1, 1}};
  m.lists[1] = {10, 20, 30};
  m.lists[2] = {7, 8};
  EXPECT_EQ(m.run(*p, each), LEDGER_GO);
  EXPECT_EQ(m.log,
            (std::vector<std::string>{"open 1(4)", "item 0", "step 1(10)", "item 1", "step 1(20)",
                                      "item 2", "step 1(30)", "close", "step 9()"}));
  m.clear();
  m.stepAnswers = {{20, LEDGER_STOP}};
  EXPECT_EQ(m.run(*p, each), LEDGER_STOP);
  EXPECT_EQ(m.log, (std::vector<std::string>{"open 1(4)", "item 0", "step 1(10)", "item 1",
                                             "step 1(20)", "close"}));
  EXPECT_TRUE(m.open.empty());
  m.clear();
  m.stepAnswers = {{8, LEDGER_STOP}};
  EXPECT_EQ(m.run(*p, nested), LEDGER_STOP);
  EXPECT_EQ(m.log,
            (std::vector<std::string>{"open 1(4)", "item 0", "open 2()", "item 0", "step 1(7)",
                                      "item 1", "step 1(8)", "close", "close"}));
  EXPECT_TRUE(m.open.empty());
  m.clear();
  m.stepAnswers = {};
  m.lists[1] = {};
  EXPECT_EQ(m.run(*p, nested), LEDGER_GO);
  EXPECT_EQ(m.log, (std::vector<std::string>{"open 1(4)", "close", "step 9()"}));
}

TEST(Codegen, RepeatTruncatesClampsAndStops) {
  Builder b;
  Id body = b.steps({b.repeat(b.local(kL0), {b.action(1, {b.local(kL1)})})});
  auto p = build(b.t);
  ASSERT_TRUE(p);
  Mock m;
  m.argCounts = {{1, 1}};
  const std::pair<int64_t, size_t> cases[] = {
      {3'700'000, 3}, {kOne, 1},           {999'999, 0},        {0, 0},       {-2'500'000, 0},
      {-999'999, 0},  {1000 * kOne, 1000}, {5000 * kOne, 1000}, {kMax, 1000}, {kMin, 0}};
  for (auto [count, times] : cases) {
    m.clear();
    m.locals[kL0] = count;
    EXPECT_EQ(m.run(*p, body), LEDGER_GO);
    EXPECT_EQ(m.log.size(), times) << count;
  }
  m.clear();
  m.locals[kL0] = 10 * kOne;
  m.locals[kL1] = 5;
  m.stepAnswers = {{5, LEDGER_STOP}};
  EXPECT_EQ(m.run(*p, body), LEDGER_STOP);
  EXPECT_EQ(m.log.size(), 1u);
}

TEST(Codegen, SetVarAssignsAddsAndSubtracts) {
  Builder b;
  Id body =
      b.steps({b.setVar(0, 0, b.k(5 * kOne)), b.setVar(0, 1, b.k(2 * kOne)),
               b.setVar(1, 2, b.k(3 * kOne)), b.setVar(2, 1, b.k(1)), b.setVar(3, 2, b.k(1))});
  auto p = build(b.t);
  ASSERT_TRUE(p);
  Mock m;
  m.vars[1] = kOne;
  m.vars[2] = kMax;
  m.vars[3] = kMin;
  EXPECT_EQ(m.run(*p, body), LEDGER_GO);
  EXPECT_EQ(m.vars[0], 7 * kOne);
  EXPECT_EQ(m.vars[1], -2 * kOne);
  EXPECT_EQ(m.vars[2], 0);
  EXPECT_EQ(m.vars[3], 0);
  EXPECT_EQ(m.faults, (std::vector<uint32_t>{LEDGER_FAULT_OVERFLOW, LEDGER_FAULT_OVERFLOW}));
}

TEST(Codegen, UnoptimisedPackAgrees) {
  codegen::Options o0{.optLevel = codegen::OptLevel::O0, .specialise = false};
  ArithmeticPack a(o0);
  ASSERT_TRUE(a.pack);
  Mock m;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20'000; ++i)
    ASSERT_NO_FATAL_FAILURE(a.check(m, randomNumber(rng), randomNumber(rng)));

  Builder b;
  Id it = b.local(LEDGER_SLOT_IT);
  Id sum = b.formula(b.fold(FoldKind::Sum, 1, it));
  Id each = b.steps({b.forEach(1, kL0, {}, {b.action(1, {b.local(kL0)})})});
  auto p = build(b.t, "x", 2, o0);
  ASSERT_TRUE(p);
  m.argCounts = {{1, 1}};
  m.lists[1] = {1, 2, 3};
  m.stepAnswers = {{2, LEDGER_STOP}};
  EXPECT_EQ(m.formula(*p, sum), 6);
  EXPECT_EQ(m.run(*p, each), LEDGER_STOP);
  EXPECT_TRUE(m.open.empty());
}

} // namespace
