// The two engines side by side: random pack bodies run through the reference
// evaluator (compiler/eval) and through a compiled pack (compiler/codegen),
// each against its own copy of one recording kernel. Results, every kernel
// call with its operands, and the locals and vars left behind must agree.
#include "codegen/codegen.h"
#include "eval/eval.h"
#include "number.h"
#include "pack_abi.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace ledger;
using pack::Expr;
using pack::ExprOp;
using pack::FoldKind;
using pack::Id;
using pack::Step;
using pack::StepOp;

namespace {

namespace fs = std::filesystem;

constexpr int64_t kOne = rt::kOne;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr uint32_t kLocals = 16;
constexpr uint32_t kVars = 4;
constexpr uint32_t kNamed = 4; // slots a step may write: FIRST_LOCAL ..
constexpr int kMaxExprDepth = 6;
constexpr int kMaxStepDepth = 3;

// The mock kernel has no tables, so an id carries its own operand count in
// its low two bits; the rest tells reads, steps and lists apart.
uint32_t argCountOf(uint32_t id) { return id & 3u; }
uint32_t idWith(uint32_t count, uint32_t tag) { return count | (tag << 2); }

// ---- random bodies ------------------------------------------------------------

class Generator {
public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  pack::Tables make(int formulas, int stepBodies) {
    t_ = {};
    byDepth_.assign(kMaxExprDepth + 1, {});
    for (int i = 0; i < formulas; ++i) {
      Id root = expr(kMaxExprDepth);
      t_.bodies.push_back({.kind = pack::BodyKind::Formula, .root = root, .localCount = kNamed});
    }
    for (int i = 0; i < stepBodies; ++i) {
      auto n = static_cast<uint32_t>(1 + pick(4));
      uint32_t begin = steps(kMaxStepDepth, n);
      t_.bodies.push_back({.kind = pack::BodyKind::Steps,
                           .stepsBegin = begin,
                           .stepsEnd = begin + n,
                           .localCount = kNamed});
    }
    return std::move(t_);
  }

private:
  uint64_t pick(uint64_t n) { return rng_() % n; }

  // Edges of the fixed-point arithmetic (halves, overflow of mul, the
  // extremes) often, and numbers of every magnitude otherwise.
  int64_t number() {
    static const int64_t kEdges[] = {0,         1,          -1,         500'000,   1'500'000,
                                     -2'500'000, kOne,      -kOne,      999'999,   7 * kOne,
                                     3'037'000'499, 3'037'000'500, kMax,  kMin,     kMax / 2};
    switch (pick(5)) {
    case 0:
      return kEdges[pick(std::size(kEdges))];
    case 1:
      return static_cast<int64_t>(pick(20'001)) * 500'000 - 5'000'000'000;
    case 2:
      return (static_cast<int64_t>(pick(9)) - 4) * kOne; // small whole numbers: loop counts, truth
    default:
      break;
    }
    auto bits = static_cast<unsigned>(pick(64));
    auto v = static_cast<int64_t>(bits == 0 ? 0 : rng_() >> (64 - bits));
    return pick(2) ? -v : v;
  }

  Id add(const Expr &x, int depth) {
    t_.exprs.push_back(x);
    auto id = static_cast<Id>(t_.exprs.size() - 1);
    byDepth_[static_cast<size_t>(depth)].push_back(id);
    return id;
  }

  std::pair<uint32_t, uint32_t> args(uint32_t count, int depth) {
    std::vector<Id> ids;
    for (uint32_t i = 0; i < count; ++i)
      ids.push_back(expr(depth - 1));
    auto begin = static_cast<uint32_t>(t_.exprArgs.size());
    t_.exprArgs.insert(t_.exprArgs.end(), ids.begin(), ids.end());
    return {begin, count};
  }

  Id expr(int depth) {
    depth = depth < 0 ? 0 : depth;
    // Now and then a subtree already made, no deeper than this one may be:
    // the code generator must run a shared subtree's kernel calls each time.
    if (pick(12) == 0) {
      int d = static_cast<int>(pick(static_cast<uint64_t>(depth) + 1));
      if (!byDepth_[static_cast<size_t>(d)].empty())
        return byDepth_[static_cast<size_t>(d)][pick(byDepth_[static_cast<size_t>(d)].size())];
    }
    if (depth == 0 || pick(5) == 0) {
      switch (pick(3)) {
      case 0:
        return add({.op = ExprOp::Const, .imm = number()}, 0);
      case 1:
        return add({.op = ExprOp::Local, .imm = static_cast<int64_t>(pick(kNamed + 6))}, 0);
      default:
        return add({.op = ExprOp::Var, .imm = static_cast<int64_t>(pick(kVars))}, 0);
      }
    }
    auto op = static_cast<ExprOp>(
        uint8_t(ExprOp::Neg) + pick(uint8_t(ExprOp::Fold) - uint8_t(ExprOp::Neg) + 1));
    Expr x{.op = op};
    switch (op) {
    case ExprOp::Neg:
    case ExprOp::Not:
    case ExprOp::Floor:
    case ExprOp::Ceil:
    case ExprOp::Round:
    case ExprOp::Trunc:
    case ExprOp::Abs:
      x.a = expr(depth - 1);
      break;
    case ExprOp::Clamp:
    case ExprOp::If:
      x.a = expr(depth - 1);
      x.b = expr(depth - 1);
      x.c = expr(depth - 1);
      break;
    case ExprOp::Pow:
    case ExprOp::Root:
      x.a = expr(depth - 1);
      x.imm = static_cast<int64_t>(pick(6)) - 1; // the kernel judges the power, odd ones too
      break;
    case ExprOp::Read: {
      auto count = static_cast<uint32_t>(pick(3));
      x.imm = idWith(count, static_cast<uint32_t>(pick(4)));
      std::tie(x.argsBegin, x.argCount) = args(count, depth);
      break;
    }
    case ExprOp::Fold: {
      auto kind = static_cast<FoldKind>(pick(4));
      auto count = static_cast<uint32_t>(pick(2));
      Id query = idWith(count, static_cast<uint32_t>(pick(3)));
      Id item = kind == FoldKind::Count ? pack::kNoId : expr(depth - 1);
      t_.folds.push_back({.kind = kind, .query = query, .item = item});
      x.imm = static_cast<int64_t>(t_.folds.size() - 1);
      std::tie(x.argsBegin, x.argCount) = args(count, depth);
      break;
    }
    default: // the binary operators
      x.a = expr(depth - 1);
      x.b = expr(depth - 1);
      break;
    }
    return add(x, depth);
  }

  // A step's own record; its children are placed by steps().
  Step step(int depth) {
    auto op = static_cast<StepOp>(pick(6));
    bool nests = op == StepOp::If || op == StepOp::ForEach || op == StepOp::Repeat;
    if (depth <= 0 && nests)
      op = StepOp::Action;
    Step s{.op = op};
    uint32_t count = 1;
    switch (op) {
    case StepOp::ForEach:
      count = static_cast<uint32_t>(pick(2));
      s.info = idWith(count, static_cast<uint32_t>(pick(3)));
      s.slot = LEDGER_SLOT_FIRST_LOCAL + static_cast<uint32_t>(pick(kNamed));
      break;
    case StepOp::Let:
      s.slot = LEDGER_SLOT_FIRST_LOCAL + static_cast<uint32_t>(pick(kNamed));
      break;
    case StepOp::SetVar:
      s.slot = static_cast<uint32_t>(pick(kVars));
      s.info = static_cast<uint32_t>(pick(3)); // =, +=, -=
      break;
    case StepOp::Action:
      count = static_cast<uint32_t>(pick(3));
      s.info = idWith(count, static_cast<uint32_t>(pick(4)));
      break;
    default:
      break;
    }
    if (op == StepOp::Repeat) {
      // A constant count, else nested loops of a thousand would make the test
      // slow; past the cap only where the body holds no loop of its own.
      int64_t times = depth == 1 && pick(4) == 0 ? number()
                                                 : static_cast<int64_t>(pick(4'000'000)) - 500'000;
      Id c = add({.op = ExprOp::Const, .imm = times}, 0);
      s.argsBegin = static_cast<uint32_t>(t_.exprArgs.size());
      s.argCount = 1;
      t_.exprArgs.push_back(c);
    } else {
      std::tie(s.argsBegin, s.argCount) = args(count, 4);
    }
    return s;
  }

  // Each sequence contiguous, its children's after it.
  uint32_t steps(int depth, uint32_t count) {
    std::vector<Step> seq;
    for (uint32_t i = 0; i < count; ++i)
      seq.push_back(step(depth));
    auto begin = static_cast<uint32_t>(t_.steps.size());
    t_.steps.resize(begin + count);
    for (uint32_t i = 0; i < count; ++i) {
      Step s = seq[i];
      if (s.op == StepOp::If || s.op == StepOp::ForEach || s.op == StepOp::Repeat) {
        auto body = static_cast<uint32_t>(pick(3));
        auto otherwise = static_cast<uint32_t>(s.op == StepOp::If ? pick(3) : 0);
        s.bodyBegin = steps(depth - 1, body);
        s.bodyEnd = s.bodyBegin + body;
        s.elseBegin = steps(depth - 1, otherwise);
        s.elseEnd = s.elseBegin + otherwise;
      }
      t_.steps[begin + i] = s;
    }
    return begin;
  }

  std::mt19937_64 rng_;
  pack::Tables t_;
  std::vector<std::vector<Id>> byDepth_; // expressions made, by the depth they were made for
};

// ---- a kernel that records ----------------------------------------------------------

struct Mock {
  LedgerKernelApi api{};
  LedgerFrame frame{};
  int64_t locals[kLocals]{};
  int64_t vars[kVars]{};
  std::vector<std::string> log;
  std::vector<uint32_t> open; // queries open, innermost last
  uint64_t stopEvery = 2;
  uint64_t stepCalls = 0;

  Mock() {
    api = {&read, &step, &listOpen, &listItem, &listClose, &math, &fault, &repeat};
    frame = {&api, this, locals, vars, nullptr};
  }
  Mock(const Mock &) = delete;
  Mock &operator=(const Mock &) = delete;

  // The same world for both engines: locals and vars from the seed.
  void reset(uint64_t seed) {
    std::mt19937_64 r(seed);
    auto any = [&] {
      auto v = static_cast<int64_t>(r());
      return v >> (r() % 64);
    };
    for (auto &l : locals)
      l = any();
    for (auto &v : vars)
      v = any();
    log.clear();
    open.clear();
    stopEvery = 2 + seed % 5;
    stepCalls = 0;
  }

  static Mock &of(LedgerFrame *f) { return *static_cast<Mock *>(f->kernel); }
  static std::string operands(uint32_t id, const int64_t *args) {
    std::string text = "(";
    for (uint32_t i = 0; i < argCountOf(id); ++i)
      text += (i ? "," : "") + (args ? std::to_string(args[i]) : std::string("null"));
    return text + ")";
  }
  static int64_t read(LedgerFrame *f, uint32_t id, const int64_t *args) {
    Mock &m = of(f);
    m.log.push_back("read " + std::to_string(id) + operands(id, args));
    // Answers that feed back into arithmetic: whole numbers, truth, noise.
    int64_t value = static_cast<int64_t>(id) * kOne;
    for (uint32_t i = 0; args && i < argCountOf(id); ++i)
      value = (id >> 2) == 1 ? value + args[i] / 2 : value ^ args[i];
    return value;
  }
  static int32_t step(LedgerFrame *f, uint32_t id, const int64_t *args) {
    Mock &m = of(f);
    m.log.push_back("step " + std::to_string(id) + operands(id, args));
    // Stop now and then, sometimes with a word other than LEDGER_STOP.
    if (++m.stepCalls % m.stopEvery != 0)
      return LEDGER_GO;
    return m.stepCalls % 3 ? LEDGER_STOP : 5;
  }
  static int64_t listOpen(LedgerFrame *f, uint32_t query, const int64_t *args) {
    Mock &m = of(f);
    m.log.push_back("open " + std::to_string(query) + operands(query, args));
    m.open.push_back(query);
    return static_cast<int64_t>(query >> 2); // 0, 1 or 2 items
  }
  static int64_t listItem(LedgerFrame *f, int64_t index) {
    Mock &m = of(f);
    m.log.push_back("item " + std::to_string(index));
    if (m.open.empty())
      return -1;
    return (index + 1) * 1'234'567 * (m.open.back() & 1 ? -1 : 1);
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
    return a / 3 + b;
  }
  // Every run a repeat asks for: the budget is the world's, tried in plays.
  static int64_t repeat(LedgerFrame *, int64_t times) { return times; }
  static void fault(LedgerFrame *f, uint32_t code) {
    of(f).log.push_back("fault " + std::to_string(code));
  }

  std::string state() const {
    std::string s = "locals";
    for (auto l : locals)
      s += " " + std::to_string(l);
    s += "; vars";
    for (auto v : vars)
      s += " " + std::to_string(v);
    s += "; open lists " + std::to_string(open.size());
    return s;
  }
};

// Where two call logs part, or "" when they agree.
std::string firstDifference(const std::vector<std::string> &ref,
                            const std::vector<std::string> &gen) {
  size_t i = 0;
  while (i < ref.size() && i < gen.size() && ref[i] == gen[i])
    ++i;
  if (i == ref.size() && i == gen.size())
    return "";
  auto at = [&](const std::vector<std::string> &log) {
    return i < log.size() ? log[i] : std::string("(no more calls)");
  };
  std::string text = "first differing call #" + std::to_string(i) + ": reference `" + at(ref) +
                     "`, compiled `" + at(gen) + "`";
  if (i > 0)
    text += " (after `" + ref[i - 1] + "`)";
  return text;
}

// ---- a pack, built and loaded ------------------------------------------------------

// A fresh directory for the pack, gone with the object if the test fails early.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "ledger-engines-XXXXXX").string();
    if (mkdtemp(pattern.data()))
      path = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path.empty())
      fs::remove_all(path, ec);
  }
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;
};

struct Loaded {
  void *handle = nullptr;
  const LedgerPackDescriptor *desc = nullptr;
  Loaded() = default;
  Loaded(const Loaded &) = delete;
  Loaded &operator=(const Loaded &) = delete;
  ~Loaded() {
    if (handle)
      dlclose(handle);
  }
};

struct Case {
  const char *name;
  uint64_t seed;
  codegen::OptLevel opt;
};

// Bodies per pack and worlds per body: enough to reach every operator in
// every position many times, little enough to build and run in seconds.
constexpr int kFormulas = 250;
constexpr int kStepBodies = 100;
constexpr uint64_t kWorlds = 12;
constexpr int kReports = 5; // mismatches printed per pack, the rest counted

class Engines : public ::testing::TestWithParam<Case> {};

TEST_P(Engines, RandomBodiesAgree) {
  const Case &c = GetParam();
  pack::Tables tables = Generator(c.seed).make(kFormulas, kStepBodies);

  ScratchDir dir;
  ASSERT_FALSE(dir.path.empty()) << "mkdtemp failed";
  std::string path = (dir.path / "pack.so").string();
  std::string error;
  ASSERT_TRUE(codegen::buildPack(tables, "engines", c.seed, path, error, {.optLevel = c.opt, .specialise = false}))
      << "buildPack: " << error;
  Loaded pack;
  pack.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(pack.handle, nullptr) << dlerror();
  // The mapping outlives the file: nothing is left behind even if a body crashes.
  fs::remove_all(dir.path);
  auto entry = reinterpret_cast<LedgerPackEntry>(dlsym(pack.handle, LEDGER_PACK_SYMBOL));
  ASSERT_NE(entry, nullptr);
  pack.desc = entry();
  ASSERT_EQ(pack.desc->bodyCount, tables.bodies.size());

  Mock ref, gen;
  int mismatches = 0;
  uint64_t calls = 0;
  for (uint32_t body = 0; body < tables.bodies.size(); ++body) {
    bool formula = tables.bodies[body].kind == pack::BodyKind::Formula;
    for (uint64_t world = 0; world < kWorlds; ++world) {
      uint64_t seed = c.seed * 1'000'003 + body * 7'919 + world;
      ref.reset(seed);
      gen.reset(seed);
      int64_t want = 0, got = 0;
      if (formula) {
        want = eval::formula(tables, body, &ref.frame);
        got = reinterpret_cast<LedgerFormulaFn>(pack.desc->bodies[body])(&gen.frame);
      } else {
        want = eval::steps(tables, body, &ref.frame);
        got = reinterpret_cast<LedgerStepsFn>(pack.desc->bodies[body])(&gen.frame);
      }
      calls += ref.log.size();
      std::string diff = firstDifference(ref.log, gen.log);
      std::string wantState = ref.state(), gotState = gen.state();
      if (want == got && diff.empty() && wantState == gotState && ref.open.empty())
        continue;
      if (++mismatches > kReports)
        continue;
      ADD_FAILURE() << c.name << ": body " << body << (formula ? " (formula)" : " (steps)")
                    << ", world " << world << " (seed " << seed << ")\n"
                    << "  result: reference " << want << ", compiled " << got << "\n"
                    << "  " << (diff.empty() ? "calls agree" : diff) << "\n"
                    << (wantState == gotState && ref.open.empty() ? "  locals and vars agree"
                                              : "  reference " + wantState + "\n  compiled  " + gotState);
    }
  }
  EXPECT_EQ(mismatches, 0) << c.name << ": bodies x worlds that disagree";
  // The generator must reach the kernel, or the logs compare nothing.
  EXPECT_GT(calls, tables.bodies.size() * kWorlds);
}

INSTANTIATE_TEST_SUITE_P(Packs, Engines,
                         ::testing::Values(Case{"O2", 1, codegen::OptLevel::O2},
                                           Case{"O0", 2, codegen::OptLevel::O0},
                                           Case{"O2b", 3, codegen::OptLevel::O2},
                                           Case{"O0b", 4, codegen::OptLevel::O0}),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return std::string(info.param.name);
                         });

} // namespace
