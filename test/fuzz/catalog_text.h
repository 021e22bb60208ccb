// A catalog as a tree of lines, each with the lines indented under it: what
// the generator writes, what a repository catalog is read into, and what the
// shrinker cuts, a line and everything under it at a time.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ledger::fuzz {

struct Line {
  std::string text;
  std::vector<Line> body;
};

struct CatalogText {
  std::vector<Line> lines;

  std::string render() const;
  // Every line, depth first, as the path of indices leading to it.
  std::vector<std::vector<size_t>> paths() const;
  // A copy without the line at `path` (and what stands under it).
  CatalogText without(const std::vector<size_t> &path) const;
  // A copy with the line at `path` saying `text` instead.
  CatalogText rewritten(const std::vector<size_t> &path, const std::string &text) const;
  const Line &at(const std::vector<size_t> &path) const;
  // Lines in all, counted at any depth.
  size_t size() const;
};

// Reads a catalog's text by its indentation; comments and blank lines go.
CatalogText parseCatalogText(const std::string &text);

} // namespace ledger::fuzz
