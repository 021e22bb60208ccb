// libFuzzer entry: any bytes, read as a catalog file, as a play file and
// through the loader as a .play file on disk (its catalog line resolved from
// its folder), must give diagnostics and never a crash. A catalog that
// checks is lowered, its pack written and read back, and run a little on the
// reference engine: every archetype made, every ability ordered, time moved.
// Bytes holding a line `%%% play` are a catalog and a play of it: the part
// before is written as fuzz.ledger beside the play, and a play file that
// checks has its plays run on the reference engine, failing or passing but
// never crashing.
#include "driver/frontend.h"
#include "eval/eval.h"
#include "ir/ir.h"
#include "parse/parse.h"
#include "play_runner.h"
#include "world.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace {

void exercise(const ledger::Frontend &fe) {
  std::string rendered;
  for (const auto &diag : fe.diags.all())
    rendered += fe.diags.render(diag);
  std::string dump = ledger::dumpTree(fe.tree);
  (void)rendered;
  (void)dump;
}

// The tables of a front end that checks, lowered, or none where either refuses.
std::optional<ledger::pack::Tables> lowered(ledger::Frontend &fe) {
  if (!fe.ok())
    return std::nullopt;
  ledger::pack::Tables tables = ledger::ir::lower(fe.tree, fe.decls, fe.diags);
  if (!fe.ok())
    return std::nullopt;
  return tables;
}

void run(ledger::Frontend &fe) {
  std::optional<ledger::pack::Tables> tables = lowered(fe);
  if (!tables)
    return;
  std::string text = ledger::ir::print(*tables);
  std::string blob = ledger::pack::serialize(*tables);
  ledger::pack::Tables back;
  std::string why;
  if (!ledger::pack::deserialize(blob, back, why))
    __builtin_trap(); // a pack the IR wrote must read back
  auto pack = ledger::rt::Pack::reference(std::move(back), ledger::eval::evaluator());
  ledger::rt::World world(*pack);
  std::vector<ledger::rt::Handle> actors;
  for (ledger::pack::Id a = 0; a < pack->tables().archetypes.size() && a < 8; ++a)
    actors.push_back(world.make(a));
  for (ledger::pack::Id ab = 0; ab < pack->tables().abilities.size() && ab < 8; ++ab)
    for (ledger::rt::Handle by : actors)
      world.act(by, ab, {actors.back()});
  world.advance(50);
  (void)text;
}

// A play file whose catalog checks: its plays run on the reference engine.
void playOn(ledger::Frontend &fe) {
  std::optional<ledger::pack::Tables> tables = lowered(fe);
  if (!tables)
    return;
  auto pack = ledger::rt::Pack::reference(std::move(*tables), ledger::eval::evaluator());
  static std::FILE *sink = std::fopen("/dev/null", "w");
  ledger::play::Totals totals;
  for (uint32_t file = 0; file < fe.tree.files.size(); ++file)
    if (fe.tree.roles[file] == ledger::FileRole::Play)
      ledger::play::runPlays(fe.tree, file, *pack, sink, totals, nullptr);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  for (ledger::FileRole role : {ledger::FileRole::Catalog, ledger::FileRole::Play}) {
    auto fe = ledger::runFrontendOnText("fuzz.ledger", text, role);
    exercise(*fe);
    if (role == ledger::FileRole::Catalog)
      run(*fe);
  }
  // A folder of its own, a few levels deep, so a catalog line reaching up
  // (`catalog ..`) finds empty folders, not whatever the machine keeps.
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() /
             "ledger-fuzz" / "a" / "b" / "c" / "d";
    std::filesystem::create_directories(d);
    return d;
  }();
  std::filesystem::path play = dir / "input.play";
  static constexpr std::string_view kSeparator = "\n%%% play\n";
  size_t cut = text.find(kSeparator);
  {
    std::ofstream out(dir / "fuzz.ledger", std::ios::binary | std::ios::trunc);
    if (cut != std::string::npos)
      out << std::string_view(text).substr(0, cut);
  }
  {
    std::ofstream out(play, std::ios::binary | std::ios::trunc);
    out << (cut == std::string::npos ? std::string_view(text)
                                     : std::string_view(text).substr(cut + kSeparator.size()));
  }
  auto fe = ledger::runFrontend(play.string());
  exercise(*fe);
  if (cut != std::string::npos)
    playOn(*fe);
  return 0;
}
