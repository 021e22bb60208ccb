#include "driver/frontend.h"

#include "load/load.h"
#include "parse/parse.h"

namespace ledger {

static void runPhases(Frontend &fe, const Loaded &loaded) {
  fe.tree.sources = &fe.sources;
  for (const LoadedFile &file : loaded.files) {
    fe.tree.files.push_back(lex(fe.sources, file.file, file.role, fe.diags));
    fe.tree.roles.push_back(file.role);
    fe.tree.packages.push_back(file.package);
  }
  parse(fe.tree, fe.diags);
  fe.decls = check(fe.tree, fe.sources, fe.diags);
}

std::unique_ptr<Frontend> runFrontend(const std::string &path) {
  auto fe = std::make_unique<Frontend>();
  Loaded loaded = load(path, fe->sources, fe->diags);
  runPhases(*fe, loaded);
  return fe;
}

std::unique_ptr<Frontend> runFrontendOnText(const std::string &name, std::string text,
                                            FileRole role) {
  auto fe = std::make_unique<Frontend>();
  Loaded loaded = loadText(name, std::move(text), role, fe->sources);
  runPhases(*fe, loaded);
  return fe;
}

} // namespace ledger
