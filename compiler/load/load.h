// Loading: what a path names, read into the source manager in catalog order.
// A .ledger file; a .catalog list of files, folders and lists (relative to the
// list, one a line, cycles refused); a folder's .ledger files in byte order of
// name; a .play file, whose catalog line names the catalog it plays.
#pragma once

#include "diag/diagnostics.h"
#include "lex/lex.h"

#include <string>
#include <vector>

namespace ledger {

struct LoadedFile {
  FileId file;
  FileRole role;
  // Each entry of the top .catalog list is a package (a game, a mod); a
  // folder or a file named alone is one.
  uint32_t package = 0;
};

struct Loaded {
  std::vector<LoadedFile> files; // the catalog's files in order, then play files
  bool ok = true;
};

// Loads a catalog path, or a play file with the catalog it names.
Loaded load(const std::string &path, SourceManager &sources, DiagnosticEngine &diags);

// Loads text already in memory as one catalog file (for the fuzzer and tests).
Loaded loadText(const std::string &name, std::string text, FileRole role,
                SourceManager &sources);

} // namespace ledger
