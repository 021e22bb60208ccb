// Shrinking a finding: orders dropped and said with less, then the
// catalog's lines and the words of its lines, each cut kept while a trial
// (a child process, its packs built afresh where the catalog changed) still
// finds what was found; then the reproduction written out, a catalog and a
// play expecting what the reference engine gives.
#pragma once

#include "catalog_text.h"
#include "differential_child.h"
#include "differential_findings.h"
#include "host_orders.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ledger::fuzz {

void writeText(const std::filesystem::path &path, const std::string &text);

class Shrinker {
public:
  // Trials build their packs in `temp`; shrinking stops after `seconds`.
  Shrinker(double seconds, std::string temp, Finding found, SharedLog *log)
      : seconds_(seconds), temp_(std::move(temp)), found_(std::move(found)), log_(log) {}

  // The catalog and orders still part the engines as the finding did: how,
  // or nothing where they don't (or the catalog or the play is refused).
  std::optional<Finding> trial(const CatalogText &catalog, const std::vector<Order> &orders, ReadsAt reads);

  // Shrinks them in place; `last` is the finding as the last cut kept it,
  // `reads` when the reads it takes are read.
  void shrink(CatalogText &catalog, std::vector<Order> &orders, ReadsAt &reads, Finding &last);

  size_t trials() const { return trials_; }

private:
  double seconds_;
  std::string temp_;
  Finding found_;
  SharedLog *log_;
  size_t trials_ = 0;
  std::map<std::string, std::string> built_; // catalog text -> its compiled pack

  bool sameKind(const Finding &f) const;
  bool inTime() const;
  void took(std::vector<Order> &orders, const Finding &f, Finding &last);
  void shrinkOrders(const CatalogText &catalog, std::vector<Order> &orders, ReadsAt reads, Finding &last);
  void simplifyOrders(const CatalogText &catalog, std::vector<Order> &orders, ReadsAt reads, Finding &last);
  bool shrinkLines(CatalogText &catalog, std::vector<Order> &orders, ReadsAt reads, Finding &last);
  bool shrinkWords(CatalogText &catalog, std::vector<Order> &orders, ReadsAt reads, Finding &last);
  std::chrono::steady_clock::time_point start_;
};

// Writes the catalog (under `header`) and its play into `dir`, the play
// expecting what the reference engine gave along the way: each order's
// outcome and faults, and the read where the engines part. "" when the
// checker accepts the play, else why not.
std::string writeReproduction(const std::filesystem::path &dir, const std::string &name,
                              const std::string &header, const std::string &catalog,
                              const std::vector<Order> &orders, ReadsAt reads, const Finding &last,
                              const std::string &so);

} // namespace ledger::fuzz
