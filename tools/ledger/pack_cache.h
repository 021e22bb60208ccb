// The pack cache: the packs `ledger play` builds, kept by what they were built
// from (the catalog's tables and the compiler itself), so an unchanged
// catalog's plays run on the pack built before, and a new `ledger` never
// runs on an old one's.
#pragma once

#include "pack.h"
#include "pack_format.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace ledger::cache {

// The folder packs are kept in: $LEDGER_CACHE, else $XDG_CACHE_HOME/ledger,
// else $HOME/.cache/ledger; empty when none of them is set.
std::string folder();

// This compiler as a pack's key knows it: its version, LLVM's, the pack ABI's
// and the build's own identity, so every rebuild of `ledger` has its own.
const std::string &compilerIdentity();

// The file a pack of these tables is kept in, under the folder.
std::string packPath(const std::string &folder, std::string_view blob);

enum class Source { Cached, Built, Rebuilt };

struct Found {
  std::unique_ptr<rt::Pack> pack; // null when it could not be had, error says why
  Source source = Source::Built;
  std::string path;
  std::string refused; // why a kept pack was not used (Rebuilt)
  std::string error;
  bool unusable = false; // the folder can't be written: nothing was built
};

// Builds a sealed pack at a path; false with why.
using Builder = std::function<bool(const std::string &path, std::string &error)>;

// The pack of the tables (blob: as serialised) from the cache folder, or
// built into it and kept. A kept pack that is damaged, cut short or not the
// catalog's is built again, never trusted. A build goes to a file of its own
// and is renamed into place, so plays running side by side never see half a
// pack; a kept pack is read where it lies.
Found find(const std::string &folder, const pack::Tables &tables, std::string_view blob,
           const Builder &build);

} // namespace ledger::cache
