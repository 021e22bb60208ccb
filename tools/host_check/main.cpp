// ledger-host-check: a game's sources read with Clang's libTooling, through
// their compile_commands.json, and every content name they pass to Ledger's
// API as a string checked against the catalog: a name the catalog doesn't
// declare, or declares as another kind, is an error at the string, with the
// nearest name of the kind wanted.
//
//   ledger-host-check --catalog PATH -p BUILD_DIR FILE...
//
// What it reads: `tables.find(tables.KIND, "Name")` (the C++ API's lookup,
// KIND one of Tables' lists) and `ledger_pack_find(pack, LEDGER_KIND,
// "Name")` (the C ABI's).
#include "diag/nearest.h"
#include "driver/frontend.h"
#include "ir/ir.h"

#include <clang/AST/ASTContext.h>
#include <clang/ASTMatchers/ASTMatchFinder.h>
#include <clang/ASTMatchers/ASTMatchers.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CommonOptionsParser.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/CommandLine.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace clang;
using namespace clang::ast_matchers;

namespace {

llvm::cl::OptionCategory kCategory("ledger-host-check options");
llvm::cl::opt<std::string> kCatalog("catalog", llvm::cl::desc("the catalog the game's packs are built from"),
                                    llvm::cl::value_desc("PATH"), llvm::cl::Required,
                                    llvm::cl::cat(kCategory));

// The catalog's names of one kind, as the host looks them up.
struct Kind {
  const char *list;    // Tables' list: t.find(t.abilities, ...)
  const char *cName;   // the C ABI's: LEDGER_ABILITY
  const char *words;   // how a diagnostic says it: "an ability"
  std::vector<std::string> names;
};

class Catalog {
public:
  explicit Catalog(const ledger::pack::Tables &t) {
    add(t, t.archetypes, "archetypes", "LEDGER_ARCHETYPE", "an archetype");
    add(t, t.abilities, "abilities", "LEDGER_ABILITY", "an ability");
    add(t, t.effects, "effects", "LEDGER_EFFECT", "an effect");
    add(t, t.events, "events", "LEDGER_EVENT", "an event");
    add(t, t.values, "values", "LEDGER_VALUE", "a stat or a pool");
    add(t, t.links, "links", "LEDGER_LINK", "a link");
    add(t, t.tags, "tags", "LEDGER_TAG", "a tag");
    add(t, t.props, "props", "LEDGER_PROP", "a property");
  }
  const Kind *byList(llvm::StringRef list) const {
    for (const Kind &k : kinds_)
      if (list == k.list)
        return &k;
    return nullptr;
  }
  const Kind *byCName(llvm::StringRef name) const {
    for (const Kind &k : kinds_)
      if (name == k.cName)
        return &k;
    return nullptr;
  }
  // The kinds other than `wanted` declaring `name`.
  const Kind *otherDeclaring(const Kind &wanted, llvm::StringRef name) const {
    for (const Kind &k : kinds_)
      if (&k != &wanted && declares(k, name))
        return &k;
    return nullptr;
  }
  static bool declares(const Kind &k, llvm::StringRef name) {
    for (const std::string &n : k.names)
      if (name == n)
        return true;
    return false;
  }
  // The declared name of a kind nearest `name` (diag/nearest.h), "" if
  // none is near enough to be what was meant.
  static std::string nearest(const Kind &k, llvm::StringRef name) {
    std::vector<std::string_view> names(k.names.begin(), k.names.end());
    return std::string(ledger::nearestWord(name, names));
  }

private:
  template <typename T>
  void add(const ledger::pack::Tables &t, const std::vector<T> &list, const char *listName,
           const char *cName, const char *words) {
    Kind k{listName, cName, words, {}};
    for (const T &item : list)
      k.names.emplace_back(t.name(item.name));
    kinds_.push_back(std::move(k));
  }
  std::vector<Kind> kinds_;
};

class NameCheck : public MatchFinder::MatchCallback {
public:
  explicit NameCheck(const Catalog &catalog) : catalog_(catalog) {}
  unsigned errors() const { return errors_; }

  void run(const MatchFinder::MatchResult &result) override {
    const auto *literal = result.Nodes.getNodeAs<StringLiteral>("name");
    if (!literal || !literal->isOrdinary())
      return;
    const Kind *kind = nullptr;
    if (const auto *list = result.Nodes.getNodeAs<FieldDecl>("list"))
      kind = catalog_.byList(list->getName());
    else if (const auto *constant = result.Nodes.getNodeAs<EnumConstantDecl>("kind"))
      kind = catalog_.byCName(constant->getName());
    if (!kind)
      return;
    SourceLocation at = result.SourceManager->getSpellingLoc(literal->getBeginLoc());
    // Each string once, however many files include it.
    if (!seen_.emplace(at.getRawEncoding(), 0).second)
      return;
    llvm::StringRef name = literal->getString();
    if (Catalog::declares(*kind, name))
      return;
    DiagnosticsEngine &diags = result.Context->getDiagnostics();
    std::string message = "`" + name.str() + "` is not " + kind->words + " of the catalog";
    if (const Kind *other = catalog_.otherDeclaring(*kind, name))
      message += ": it declares `" + name.str() + "` as " + other->words;
    else if (std::string near = Catalog::nearest(*kind, name); !near.empty())
      message += "; did you mean `" + near + "`?";
    unsigned id = diags.getCustomDiagID(DiagnosticsEngine::Error, "%0");
    diags.Report(at, id) << message << literal->getSourceRange();
    ++errors_;
  }

private:
  const Catalog &catalog_;
  unsigned errors_ = 0;
  std::map<unsigned, int> seen_;
};

} // namespace

int main(int argc, const char **argv) {
  auto options = tooling::CommonOptionsParser::create(
      argc, argv, kCategory, llvm::cl::OneOrMore,
      "Checks the content names a game's sources pass to Ledger's API against a catalog.\n");
  if (!options) {
    llvm::errs() << options.takeError();
    return 2;
  }
  auto fe = ledger::runFrontend(kCatalog);
  if (!fe->ok()) {
    fe->diags.print(stderr);
    std::fprintf(stderr, "ledger-host-check: the catalog %s is refused\n", kCatalog.c_str());
    return 1;
  }
  ledger::pack::Tables tables = ledger::ir::lower(fe->tree, fe->decls, fe->diags);
  Catalog catalog(tables);

  NameCheck check(catalog);
  MatchFinder finder;
  // The C++ API: tables.find(tables.KIND, "Name").
  finder.addMatcher(
      cxxMemberCallExpr(
          callee(cxxMethodDecl(hasName("find"), ofClass(hasName("::ledger::pack::Tables")))),
          hasArgument(0, ignoringImplicit(memberExpr(member(fieldDecl().bind("list"))))),
          hasArgument(1, expr(anyOf(ignoringImplicit(stringLiteral().bind("name")),
                                    hasDescendant(stringLiteral().bind("name")))))),
      &check);
  // The C ABI: ledger_pack_find(pack, LEDGER_KIND, "Name").
  finder.addMatcher(
      callExpr(callee(functionDecl(hasName("ledger_pack_find"))),
               hasArgument(1, ignoringImplicit(declRefExpr(to(enumConstantDecl().bind("kind"))))),
               hasArgument(2, ignoringImplicit(stringLiteral().bind("name")))),
      &check);
  tooling::ClangTool tool(options->getCompilations(), options->getSourcePathList());
  tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
      "-resource-dir=" LEDGER_CLANG_RESOURCE_DIR, tooling::ArgumentInsertPosition::END));
  int status = tool.run(tooling::newFrontendActionFactory(&finder).get());
  if (check.errors())
    return 1;
  return status;
}
