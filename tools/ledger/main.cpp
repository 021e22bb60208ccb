// ledger: the command line. `check` reads and checks a catalog or a play
// file; `build`, `play` and `ir` are the compiler's later stages.
#include "diag/nearest.h"
#include "driver/frontend.h"
#include "codegen/codegen.h"
#include "codegen/typed_header.h"
#include "driver/temp_dir.h"
#include "pack_seal.h"
#include "eval/eval.h"
#include "ir/ir.h"
#include "pack_cache.h"
#include "play_runner.h"
#include "parse/parse.h"

#include <llvm/Config/llvm-config.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace {

constexpr const char *kUsageHead = R"(usage: ledger <command> [options]

Ledger compiles game-rule catalogs written in the ledger language into
native content packs, and plays their scenarios.

commands:
)";

// Each command's line and what it does, as --help prints it.
struct CommandHelp {
  const char *name;
  const char *text;
};
constexpr CommandHelp kCommands[] = {
    {"check", R"(  check PATH... [--dump] [--error-limit=N]
                        read and check catalogs (.ledger file, .catalog list
                        or folder) or .play files and the catalogs they name;
                        --dump prints the checked syntax tree
)"},
    {"build", R"(  build PATH -o PACK [--portable] [--header IDS.h [--namespace NAME]]
        [--depfile DEPS] [--time] [--jobs N] [--split-above N]
        [--inline-machinery] [--keep-objects] [--error-limit=N]
                        compile a catalog into a content pack (.so);
                        --portable writes its tables and bodies as data, no
                        native code, which the runtime loads as it loads a
                        native pack and runs on the reference engine (where
                        native code can't or shouldn't be loaded); --header
                        writes its content names as typed ids for a host's
                        code, with the catalog's hash its loadPack checks,
                        in namespace NAME (default: the catalog's file
                        name, a C++ name made of it); --depfile writes the
                        files the pack was built from, as make and ninja
                        read them, to rebuild it when one changes; --time
                        says where the time went, --jobs how many threads
                        compile a large pack's parts (default: one a core),
                        --split-above past how many instructions' worth of
                        bodies a pack is compiled in parts (default 20000);
                        --inline-machinery has a split pack's hot bodies
                        inline the compiled engine's machinery as an unsplit
                        pack's do (faster hot code, a longer build);
                        --keep-objects keeps each part's object file beside
                        the pack (PACK.o, PACK.1.o, ...)
)"},
    {"play", R"(  play FILE... [--engine compiled|reference] [--pack PACK] [--named TEXT]
       [--results OUT] [--journal OUT] [--saves DIR] [--stats] [--no-cache] [--verbose] [--error-limit=N]
                        run the plays of .play files (a folder: every one in
                        it) against their catalogs, on a pack built for each
                        (compiled, the default), one built before (--pack,
                        refused unless it is the catalog's) or the reference
                        engine; --named runs only the plays whose names hold
                        TEXT; --results writes the PASS and FAIL lines to
                        OUT too, --journal every play's journal as it ran
                        (a stretch a rewind went back on too), --saves the
                        bytes of each save a play takes into DIR (FILE-N.save,
                        N counting FILE's saves from 1); a file refused as
                        it is read is one failure; --stats says
                        which engine ran each file (the compiled engine's
                        generic path with the forms that keep it there) and
                        how many events took the generic path. The packs
                        built are kept in the pack cache ($LEDGER_CACHE, else
                        $XDG_CACHE_HOME/ledger or ~/.cache/ledger) and used
                        again while the catalog and `ledger` are unchanged;
                        --no-cache builds afresh and keeps nothing, --verbose
                        says of each pack whether it was cached or built. A
                        run that plays no play fails
)"},
    {"ir", R"(  ir PATH [--llvm [--generic]] [--error-limit=N]
                        print a catalog's IR, or with --llvm the optimised
                        LLVM IR of its pack (--generic: the pack its bodies
                        would make for the generic kernel)
)"},
};

constexpr const char *kUsageOptions = R"(
options:
  --error-limit=N       print the first N errors of a file's content, then
                        one line saying the rest are left out (default 20;
                        0: every error)
  --color=auto|always|never
                        color diagnostics as a terminal shows them (auto:
                        when the standard error is one)
  -Werror               make every warning an error
  --help                show this help (after a command: that command's)
  --version             show the version

exit status: 0 when accepted, 1 when the content is refused or a file
can't be read or written, 2 on a bad command line or a command that isn't
built yet.
)";

// What every command takes beside its own options, set once from the
// command line.
struct Style {
  bool color = false;  // --color
  bool werror = false; // -Werror
};
Style style;

void printHelp(std::string_view command) {
  if (command.empty()) {
    std::fputs(kUsageHead, stdout);
    for (const CommandHelp &c : kCommands)
      std::fputs(c.text, stdout);
  }
  for (const CommandHelp &c : kCommands)
    if (c.name == command)
      std::printf("usage: ledger %s [options]\n\n%s", c.name, c.text);
  std::fputs(kUsageOptions, stdout);
}

// The word of `known` nearest `word` (diag/nearest.h), "" if none is near.
std::string nearestOf(std::string_view word, std::initializer_list<std::string_view> known) {
  return std::string(ledger::nearestWord(word, std::vector<std::string_view>(known)));
}

int usageError(const char *message) {
  std::fprintf(stderr, "ledger: %s\n", message);
  std::fprintf(stderr, "run `ledger --help` for the commands\n");
  return 2;
}

// Clang's default: the first errors are the ones to read, and a file of
// noise makes thousands.
constexpr size_t kDefaultErrorLimit = 20;
constexpr std::string_view kErrorLimitOption = "--error-limit=";

// `--error-limit=N`'s count into limit; false when N is no count.
bool readErrorLimit(std::string_view arg, size_t &limit) {
  std::string_view count = arg.substr(kErrorLimitOption.size());
  auto [end, failed] = std::from_chars(count.data(), count.data() + count.size(), limit);
  return !count.empty() && failed == std::errc() && end == count.data() + count.size();
}

int errorLimitError() { return usageError("--error-limit=N takes a count of errors, 0 for all"); }

// An option a command doesn't take, and the one of its own nearest it.
int unknownOption(std::string_view command, std::string_view arg,
                  std::initializer_list<std::string_view> options) {
  std::string message = std::string(command) + ": unknown option " + std::string(arg);
  std::string_view name = arg.substr(0, arg.find('='));
  if (std::string near = nearestOf(name, options); !near.empty())
    message += "; did you mean " + near + "?";
  return usageError(message.c_str());
}

// The front end's diagnostics, and a count when the content is refused;
// with -Werror its warnings are errors first.
void printDiagnostics(ledger::Frontend &fe, size_t errorLimit) {
  if (style.werror)
    fe.diags.warningsAsErrors();
  fe.diags.print(stderr, errorLimit, style.color);
  if (!fe.ok())
    std::fprintf(stderr, "%zu error%s, %zu warning%s\n", fe.diags.errorCount(),
                 fe.diags.errorCount() == 1 ? "" : "s", fe.diags.warningCount(),
                 fe.diags.warningCount() == 1 ? "" : "s");
}

// Loads and checks a catalog and lowers it, printing what was refused.
std::unique_ptr<ledger::Frontend> loadAndLower(const std::string &path,
                                               ledger::pack::Tables &tables, size_t errorLimit) {
  auto fe = ledger::runFrontend(path);
  if (fe->ok())
    tables = ledger::ir::lower(fe->tree, fe->decls, fe->diags);
  printDiagnostics(*fe, errorLimit);
  return fe;
}

int checkOne(const std::string &path, bool dump, size_t errorLimit);

int check(const std::vector<std::string_view> &args) {
  std::vector<std::string> paths;
  bool dump = false;
  size_t errorLimit = kDefaultErrorLimit;
  for (std::string_view arg : args) {
    if (arg == "--dump")
      dump = true;
    else if (arg.starts_with(kErrorLimitOption)) {
      if (!readErrorLimit(arg, errorLimit))
        return errorLimitError();
    } else if (!arg.empty() && arg[0] == '-')
      return unknownOption("check", arg, {"--dump", "--error-limit"});
    else
      paths.emplace_back(arg);
  }
  if (paths.empty())
    return usageError("check needs a path: a .ledger file, a .catalog list, a folder or a .play file");
  int status = 0;
  for (const std::string &path : paths)
    status = std::max(status, checkOne(path, dump, errorLimit));
  return status;
}

// One path checked: 0 when accepted, 1 when refused.
int checkOne(const std::string &path, bool dump, size_t errorLimit) {
  auto fe = ledger::runFrontend(path);
  // A refusal only the lowering finds (a value read inside itself) is the
  // content's; a form the engines don't run yet is not, so check leaves
  // those to ir, build and play.
  if (fe->ok()) {
    ledger::DiagnosticEngine lowering(fe->sources);
    ledger::ir::lower(fe->tree, fe->decls, lowering);
    for (const ledger::Diagnostic &diag : lowering.all())
      if (diag.kind != ledger::DiagKind::NotRunYet)
        fe->diags.append(diag);
  }
  printDiagnostics(*fe, errorLimit);
  if (dump)
    std::fputs(ledger::dumpTree(fe->tree).c_str(), stdout);
  return fe->ok() ? 0 : 1;
}

int ir(const std::vector<std::string_view> &args) {
  std::string path;
  bool llvm = false, generic = false;
  size_t errorLimit = kDefaultErrorLimit;
  for (std::string_view arg : args) {
    if (arg == "--llvm")
      llvm = true;
    else if (arg == "--generic")
      generic = true;
    else if (arg.starts_with(kErrorLimitOption)) {
      if (!readErrorLimit(arg, errorLimit))
        return errorLimitError();
    } else if (arg.starts_with("-"))
      return unknownOption("ir", arg, {"--llvm", "--generic", "--error-limit"});
    else if (!path.empty())
      return usageError("ir takes one path, a catalog, and --llvm [--generic]");
    else
      path = arg;
  }
  if (path.empty())
    return usageError("ir takes one path: a catalog");
  ledger::pack::Tables tables;
  auto fe = loadAndLower(path, tables, errorLimit);
  if (!fe->ok())
    return 1;
  if (generic && !llvm)
    return usageError("--generic names the pack --llvm prints");
  if (llvm) {
    std::string blob = ledger::pack::serialize(tables);
    ledger::codegen::Options options;
    options.specialise = !generic;
    std::fputs(
        ledger::codegen::packIR(tables, blob, ledger::pack::catalogHash(tables), options).c_str(),
        stdout);
    return 0;
  }
  std::fputs(ledger::ir::print(tables).c_str(), stdout);
  return 0;
}

// What stops a command over a file: one line, and the status it ends with.
int fileError(const std::string &message) {
  std::fprintf(stderr, "ledger: error: %s\n", message.c_str());
  return 1;
}

// Builds a compiled pack of the tables at out; false, having said why.
bool buildPackFile(const ledger::pack::Tables &tables, const std::string &out,
                   const ledger::codegen::Options &options = {}) {
  std::string blob = ledger::pack::serialize(tables);
  std::string error;
  if (!ledger::codegen::buildPack(tables, blob, ledger::pack::catalogHash(tables), out, error,
                                  options)) {
    fileError(error);
    return false;
  }
  return true;
}

// A file of content, which no output may overwrite.
bool isContent(const std::string &path) {
  for (const char *ext : {".ledger", ".catalog", ".play"})
    if (path.ends_with(ext))
      return true;
  return false;
}

// The .play files a path names: itself, or a folder's, in order, at any
// depth (one that can't be read, a broken link, among them, for the loader
// to say why); the error that stopped the folder's walk, if one did.
std::error_code playFiles(const std::string &path, std::vector<std::string> &files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    files.push_back(path);
    return {};
  }
  std::vector<std::string> found;
  fs::recursive_directory_iterator it(path, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code ignored;
    if (it->path().extension() == ".play" && !it->is_directory(ignored))
      found.push_back(it->path().string());
  }
  std::sort(found.begin(), found.end());
  files.insert(files.end(), found.begin(), found.end());
  return ec;
}

// Seconds of CPU the process has run, every thread's.
double processSeconds() { return double(std::clock()) / CLOCKS_PER_SEC; }

// `build --time`: where a build's time went.
void printTimes(double frontEnd, const ledger::codegen::BuildTimes &times, double wall,
                double cpu) {
  std::fprintf(stderr,
               "ledger build: CPU seconds by stage\n"
               "  front end        %7.3f  read, checked and lowered to tables\n"
               "  LLVM IR          %7.3f  lowered to IR, identical bodies folded, split\n"
               "  optimisation     %7.3f\n"
               "  code generation  %7.3f\n"
               "  link and seal    %7.3f\n"
               "  total            %7.3f  CPU, %.3f s wall; %u part%s on %u thread%s\n",
               frontEnd, times.lower, times.optimise, times.codegen, times.link, cpu, wall,
               times.parts, times.parts == 1 ? "" : "s", times.threads,
               times.threads == 1 ? "" : "s");
  if (times.parts < 2)
    return;
  std::fprintf(stderr, "  by part (CPU seconds): read, optimisation, code generation\n");
  for (size_t p = 0; p < times.byPart.size(); ++p) {
    const ledger::codegen::PartTimes &part = times.byPart[p];
    const char *kind = p == 0 ? "tables" : part.cold ? "cold" : "hot";
    std::fprintf(stderr, "    %2zu %-6s %7.3f %7.3f %7.3f\n", p, kind, part.read, part.optimise,
                 part.codegen);
  }
}

// The typed header of the tables at `header` (written whole or not at all);
// false, having said why.
bool writeHeader(const ledger::pack::Tables &tables, const std::string &catalog,
                 const std::string &header, std::string space) {
  if (space.empty())
    space = ledger::codegen::namespaceOf(catalog);
  std::string text, why;
  if (!ledger::codegen::typedHeader(tables, space, catalog, text, why)) {
    fileError("the header " + header + " can't be written: " + why);
    return false;
  }
  std::string partial = header + ".partial";
  std::FILE *f = std::fopen(partial.c_str(), "wb");
  bool written = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f)
    written = std::fclose(f) == 0 && written;
  std::error_code ec;
  if (written)
    std::filesystem::rename(partial, header, ec);
  if (!written || ec) {
    std::filesystem::remove(partial, ec);
    fileError("cannot write " + header + ": " + std::strerror(errno ? errno : EIO));
    return false;
  }
  return true;
}

// The files a pack was built from, as make and ninja read a depfile: the
// pack, then each file (a folder or a list of files too, whose changes add
// or take away files); false, having said why.
bool writeDepfile(const ledger::pack::Tables &tables, const std::string &catalog,
                  const std::string &out, const std::string &depfile) {
  auto escaped = [](const std::string &path) {
    std::error_code ec;
    std::string whole = std::filesystem::absolute(path, ec).lexically_normal().string(), text;
    for (char c : whole) {
      if (c == ' ' || c == '#')
        text += '\\';
      if (c == '$')
        text += '$';
      text += c;
    }
    return text;
  };
  std::string text = escaped(out) + ":";
  for (const std::string &file : tables.files)
    text += " \\\n  " + escaped(file);
  if (std::find(tables.files.begin(), tables.files.end(), catalog) == tables.files.end())
    text += " \\\n  " + escaped(catalog);
  text += "\n";
  std::FILE *f = std::fopen(depfile.c_str(), "wb");
  bool written = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f)
    written = std::fclose(f) == 0 && written;
  if (!written)
    fileError("cannot write " + depfile + ": " + std::strerror(errno ? errno : EIO));
  return written;
}

// A portable pack of these tables at `out`; false, having said why.
bool writePortablePack(const ledger::pack::Tables &tables, const std::string &out) {
  std::string image = ledger::rt::portableImage(ledger::pack::serialize(tables));
  std::FILE *f = std::fopen(out.c_str(), "wb");
  bool written = f && std::fwrite(image.data(), 1, image.size(), f) == image.size();
  if (f)
    written = std::fclose(f) == 0 && written;
  if (!written) {
    fileError("cannot write " + out + ": " + std::strerror(errno ? errno : EIO));
    std::remove(out.c_str());
  }
  return written;
}

int build(const std::vector<std::string_view> &args) {
  std::string path, out, header, space, depfile;
  bool time = false, portable = false;
  size_t errorLimit = kDefaultErrorLimit;
  ledger::codegen::Options options;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o" && i + 1 < args.size())
      out = args[++i];
    else if (args[i] == "--header" && i + 1 < args.size())
      header = args[++i];
    else if (args[i] == "--namespace" && i + 1 < args.size())
      space = args[++i];
    else if (args[i] == "--depfile" && i + 1 < args.size())
      depfile = args[++i];
    else if (args[i] == "--time")
      time = true;
    else if (args[i] == "--portable")
      portable = true;
    else if (args[i] == "--time-passes")
      options.timePasses = true;
    else if (args[i] == "--jobs" && i + 1 < args.size()) {
      int jobs = std::atoi(std::string(args[++i]).c_str());
      if (jobs < 1)
        return usageError("--jobs takes a count of threads, 1 or more");
      options.jobs = unsigned(jobs);
    } else if (args[i] == "--split-above" && i + 1 < args.size()) {
      std::string_view count = args[++i];
      auto [end, failed] =
          std::from_chars(count.data(), count.data() + count.size(), options.splitAbove);
      if (failed != std::errc() || end != count.data() + count.size())
        return usageError("--split-above takes a count of instructions, 0 or more");
    } else if (args[i] == "--inline-machinery")
      options.inlineMachinery = true;
    else if (args[i] == "--keep-objects")
      options.keepObject = true;
    else if (args[i].starts_with(kErrorLimitOption)) {
      if (!readErrorLimit(args[i], errorLimit))
        return errorLimitError();
    } else if (args[i].starts_with("-") && args[i] != "-o")
      return unknownOption("build", args[i],
                           {"--portable", "--header", "--namespace", "--depfile", "--time", "--jobs",
                            "--split-above", "--inline-machinery", "--keep-objects",
                            "--error-limit"});
    else if (args[i].starts_with("-") || !path.empty())
      return usageError("build takes a catalog and -o PACK");
    else
      path = args[i];
  }
  if (path.empty() || out.empty())
    return usageError("build takes a catalog and -o PACK");
  if (isContent(out))
    return usageError("build's -o names the pack to write, not a .ledger, .catalog or .play file");
  if (!space.empty() && header.empty())
    return usageError("--namespace names the namespace of --header's ids: give --header too");
  if (isContent(header) || isContent(depfile))
    return usageError("--header and --depfile name files to write, not a .ledger, .catalog or .play file");
  // A name the linker would read as an option is a file here.
  if (out.starts_with("-"))
    out = "./" + out;
  auto start = std::chrono::steady_clock::now();
  double cpuStart = processSeconds();
  ledger::pack::Tables tables;
  auto fe = loadAndLower(path, tables, errorLimit);
  if (!fe->ok())
    return 1;
  double frontEnd = processSeconds() - cpuStart;
  ledger::codegen::BuildTimes times;
  if (time)
    options.times = &times;
  if (portable ? !writePortablePack(tables, out) : !buildPackFile(tables, out, options))
    return 1;
  if (!header.empty() && !writeHeader(tables, path, header, space))
    return 1;
  if (!depfile.empty() && !writeDepfile(tables, path, out, depfile))
    return 1;
  if (time) {
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    printTimes(frontEnd, times, wall, processSeconds() - cpuStart);
  }
  return 0;
}

// A pack built for this run alone at `so`; null, having said why.
std::unique_ptr<ledger::rt::Pack> freshPack(const ledger::pack::Tables &tables,
                                            const std::string &so, const std::string &file,
                                            bool verbose) {
  if (so.empty()) {
    fileError("can't make a temporary folder for the pack");
    return nullptr;
  }
  if (!buildPackFile(tables, so))
    return nullptr;
  std::string why;
  std::unique_ptr<ledger::rt::Pack> pack = ledger::rt::Pack::load(so, why);
  if (!pack)
    fileError("the pack " + so + " is refused: " + why);
  else if (verbose)
    std::fprintf(stderr, "pack: built for %s, not kept\n", file.c_str());
  return pack;
}

// The pack the cache keeps for these tables, built into it if it holds none
// or one it refuses (a cache that can't be written: built for this run at
// `so`); null, having said why.
std::unique_ptr<ledger::rt::Pack> cachedPack(const ledger::pack::Tables &tables,
                                             const std::string &folder, const std::string &so,
                                             const std::string &file, bool verbose) {
  std::string blob = ledger::pack::serialize(tables);
  auto build = [&](const std::string &path, std::string &error) {
    return ledger::codegen::buildPack(tables, blob, ledger::pack::catalogHash(tables), path, error);
  };
  ledger::cache::Found found = ledger::cache::find(folder, tables, blob, build);
  if (found.unusable) {
    std::fprintf(stderr, "ledger: %s: the pack is not kept\n", found.error.c_str());
    return freshPack(tables, so, file, verbose);
  }
  if (!found.pack) {
    fileError(found.error);
    return nullptr;
  }
  if (found.source == ledger::cache::Source::Rebuilt)
    std::fprintf(stderr, "ledger: the cached pack %s is refused (%s): built again\n",
                 found.path.c_str(), found.refused.c_str());
  if (verbose)
    std::fprintf(stderr, "pack: %s for %s: %s\n",
                 found.source == ledger::cache::Source::Cached ? "cached" : "built", file.c_str(),
                 found.path.c_str());
  return std::move(found.pack);
}

// Which engine runs a file's plays, and for a compiled pack on the generic
// kernel, the forms that keep it there.
std::string engineStats(const std::string &file, const std::string &engine,
                        const ledger::rt::Pack &pack) {
  if (engine == "reference")
    return "stats: " + file + ": the reference engine\n";
  if (!pack.compiled())
    return "stats: " + file + ": the reference engine, on a portable pack\n";
  if (pack.engine())
    return "stats: " + file + ": the compiled engine, its machinery specialised\n";
  std::string out = "stats: " + file + ": the compiled engine's generic path, for";
  std::string because = pack.genericBecause();
  for (size_t at = 0; at <= because.size();) {
    size_t end = because.find('\n', at);
    end = end == std::string::npos ? because.size() : end;
    out += (at == 0 ? " " : "; ") + because.substr(at, end - at);
    at = end + 1;
  }
  return out + "\n";
}

int play(const std::vector<std::string_view> &args) {
  std::vector<std::string> files;
  std::string engine = "compiled", results, journalPath, packPath, savesDir, named;
  bool stats = false, useCache = true, verbose = false;
  size_t errorLimit = kDefaultErrorLimit;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--engine" && i + 1 < args.size())
      engine = args[++i];
    else if (args[i] == "--stats")
      stats = true;
    else if (args[i] == "--results" && i + 1 < args.size())
      results = args[++i];
    else if (args[i] == "--journal" && i + 1 < args.size())
      journalPath = args[++i];
    else if (args[i] == "--pack" && i + 1 < args.size())
      packPath = args[++i];
    else if (args[i] == "--saves" && i + 1 < args.size())
      savesDir = args[++i];
    else if (args[i] == "--no-cache")
      useCache = false;
    else if (args[i] == "--verbose")
      verbose = true;
    else if (args[i] == "--named" && i + 1 < args.size())
      named = args[++i];
    else if (args[i].starts_with(kErrorLimitOption)) {
      if (!readErrorLimit(args[i], errorLimit))
        return errorLimitError();
    } else if (args[i].starts_with("-"))
      return unknownOption("play", args[i],
                           {"--engine", "--stats", "--results", "--journal", "--pack", "--saves",
                            "--no-cache", "--verbose", "--named", "--error-limit"});
    else if (std::string file(args[i]); file.ends_with(".ledger") || file.ends_with(".catalog"))
      return usageError(("play runs .play files; " + file +
                         " is a catalog, which `ledger check` reads and `ledger build` builds")
                            .c_str());
    else {
      size_t before = files.size();
      if (std::error_code ec = playFiles(std::string(args[i]), files))
        return fileError("can't read the folder " + std::string(args[i]) + ": " + ec.message());
      if (files.size() == before)
        return usageError(
            ("play: the folder " + std::string(args[i]) + " holds no .play file").c_str());
    }
  }
  if (files.empty())
    return usageError("play needs one or more .play files");
  if (engine != "compiled" && engine != "reference")
    return usageError("--engine is compiled or reference");
  if (engine == "reference" && !packPath.empty())
    return usageError("--pack runs the plays on a built pack; the reference engine builds none");
  // What it writes never overwrites what it reads, nor one output the other.
  for (const std::string *output : {&results, &journalPath})
    if (!output->empty() && (isContent(*output) ||
                             std::find(files.begin(), files.end(), *output) != files.end()))
      return usageError("--results and --journal write reports, never a .play, .ledger or .catalog file");
  if (!results.empty() && results == journalPath)
    return usageError("--results and --journal write two files: name two");
  // A report that can't be written whole (a full disk: at the write or at
  // the close) is said, not passed over.
  auto write = [](const std::string &path, const std::string &text) {
    if (path.empty())
      return true;
    errno = 0;
    std::FILE *f = std::fopen(path.c_str(), "w");
    bool written = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (f && std::fclose(f) != 0)
      written = false;
    if (!written)
      fileError("cannot write " + path + ": " + (errno ? std::strerror(errno) : "a short write"));
    return written;
  };
  if (!savesDir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(savesDir, error);
  }
  ledger::TempDir temp("ledger-play");
  std::string report;
  // --journal is written as the plays run, never held whole.
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> journal(nullptr, &std::fclose);
  if (!journalPath.empty()) {
    journal.reset(std::fopen(journalPath.c_str(), "w"));
    if (!journal)
      return fileError("cannot write " + journalPath + ": " + std::strerror(errno));
  }
  ledger::play::Totals totals;
  std::FILE *out = stdout;
  bool refused = false;
  // A file whose content is refused, or whose pack is, runs no play: it is
  // one failure in the tally, its reason said above it.
  auto refuse = [&](const std::string &file, const char *why) {
    refused = true;
    ++totals.failed;
    std::string line = "FAIL " + file + ": " + why + "\n";
    std::fputs(line.c_str(), out);
    report += line;
  };
  for (size_t f = 0; f < files.size(); ++f) {
    ledger::pack::Tables tables;
    auto fe = loadAndLower(files[f], tables, errorLimit);
    if (!fe->ok()) {
      refuse(files[f], "refused as it was read, so none of its plays ran");
      continue;
    }
    std::unique_ptr<ledger::rt::Pack> pack;
    if (engine == "reference") {
      pack = ledger::rt::Pack::reference(std::move(tables), ledger::eval::evaluator());
    } else if (!packPath.empty()) {
      std::string why;
      pack = ledger::rt::Pack::load(packPath, why);
      uint64_t hash = ledger::pack::catalogHash(tables);
      if (pack && pack->hash() != hash)
        why = "it was built from another catalog than " + files[f] + "'s";
      if (!pack || pack->hash() != hash) {
        fileError("the pack " + packPath + " is refused: " + why);
        refuse(files[f], "its pack is refused, so none of its plays ran");
        continue;
      }
    } else {
      std::string so = temp.path.empty() ? "" : temp.path + "/pack" + std::to_string(f) + ".so";
      std::string cacheFolder = useCache ? ledger::cache::folder() : std::string();
      pack = cacheFolder.empty() ? freshPack(tables, so, files[f], verbose)
                                 : cachedPack(tables, cacheFolder, so, files[f], verbose);
      if (!pack)
        return 1;
    }
    if (stats)
      std::fputs(engineStats(files[f], engine, *pack).c_str(), out);
    std::vector<std::string> saves;
    for (uint32_t file = 0; file < fe->tree.files.size(); ++file)
      if (fe->tree.roles[file] == ledger::FileRole::Play) {
        char *buf = nullptr;
        size_t len = 0;
        std::FILE *mem = open_memstream(&buf, &len);
        ledger::play::runPlays(fe->tree, file, *pack, mem, totals, journal.get(),
                               savesDir.empty() ? nullptr : &saves, named);
        std::fclose(mem);
        std::fwrite(buf, 1, len, out);
        report.append(buf, len);
        std::free(buf);
      }
    std::string stem = std::filesystem::path(files[f]).stem().string();
    for (size_t n = 0; n < saves.size(); ++n)
      if (!write(savesDir + "/" + stem + "-" + std::to_string(n + 1) + ".save", saves[n]))
        return 1;
  }
  std::string tally = std::to_string(totals.passed) + " passed, " + std::to_string(totals.failed) + " failed\n";
  if (stats)
    tally = "stats: " + std::to_string(totals.events) + " events, " +
            std::to_string(totals.genericEvents) + " on the generic path\n" + tally;
  std::fputs(tally.c_str(), out);
  report += tally;
  if (journal && (std::fflush(journal.get()) != 0 || std::ferror(journal.get())))
    return fileError("cannot write " + journalPath + ": " + std::strerror(errno));
  if (!write(results, report))
    return 1;
  // A run that played nothing tested nothing: a file of no plays, or a name
  // no play holds, is said and fails.
  if (totals.passed + totals.failed == 0) {
    std::fprintf(stderr, "ledger: play: no play ran%s\n",
                 named.empty() ? "" : (": no play's name holds `" + named + "`").c_str());
    return 1;
  }
  return refused || totals.failed ? 1 : 0;
}

// Output that never reached stdout (a full disk behind a redirection) fails
// the command, as a file it was told to write would.
int flushed(int status) {
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    return fileError(std::string("cannot write the standard output: ") + std::strerror(errno));
  return status;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty())
    return usageError("no command given");
  std::string_view command = args.front();
  // What every command takes: its --help, the diagnostics' color, -Werror.
  std::vector<std::string_view> rest;
  bool help = false;
  std::string_view color = "auto";
  for (std::string_view arg : std::vector<std::string_view>(args.begin() + 1, args.end())) {
    if (arg == "--help" || arg == "-h")
      help = true;
    else if (arg.starts_with("--color="))
      color = arg.substr(8);
    else if (arg == "-Werror")
      style.werror = true;
    else
      rest.push_back(arg);
  }
  if (color != "auto" && color != "always" && color != "never")
    return usageError("--color is auto, always or never");
  const char *term = std::getenv("TERM");
  style.color = color == "always" || (color == "auto" && isatty(fileno(stderr)) &&
                                      term && std::string_view(term) != "dumb" &&
                                      !std::getenv("NO_COLOR"));
  if (command == "--help" || command == "-h" || command == "help") {
    printHelp(rest.empty() ? std::string_view() : rest.front());
    return 0;
  }
  if (command == "--version") {
    std::printf("ledger %s (LLVM %s)\n", LEDGER_VERSION, LLVM_VERSION_STRING);
    return 0;
  }
  if (help) {
    for (const CommandHelp &c : kCommands)
      if (c.name == command) {
        printHelp(command);
        return 0;
      }
  }
  if (command == "check")
    return flushed(check(rest));
  if (command == "ir")
    return flushed(ir(rest));
  if (command == "build")
    return flushed(build(rest));
  if (command == "play")
    return flushed(play(rest));
  std::string message = "unknown command `" + std::string(command) + "`";
  if (std::string near = nearestOf(command, {"check", "build", "play", "ir", "help"}); !near.empty())
    message += "; did you mean `" + near + "`?";
  return usageError(message.c_str());
}
