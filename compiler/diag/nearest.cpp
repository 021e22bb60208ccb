#include "diag/nearest.h"

#include <algorithm>

namespace ledger {

namespace {

// Levenshtein's distance, given up past `most`: one row at a time.
size_t editDistance(std::string_view a, std::string_view b, size_t most) {
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > most)
    return most + 1;
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0], least = row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
      least = std::min(least, row[j]);
    }
    if (least > most)
      return most + 1;
  }
  return row[b.size()];
}

} // namespace

std::string_view nearestWord(std::string_view word, const std::vector<std::string_view> &known) {
  size_t most = std::max<size_t>(2, word.size() / 3);
  std::string_view best;
  size_t bestDistance = most + 1;
  for (std::string_view k : known)
    if (size_t d = editDistance(word, k, most); d < bestDistance && k != word) {
      best = k;
      bestDistance = d;
    }
  return best;
}

} // namespace ledger
