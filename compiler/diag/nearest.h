// "Did you mean": the known word nearest a mistyped one, by edit distance.
#pragma once

#include <string_view>
#include <vector>

namespace ledger {

// The word of `known` nearest `word`, if one is near enough to be what was
// meant: at most two edits, or a third of a long word's letters (an edit
// inserts, deletes or replaces one character). "" when none is; the first
// of equally near words.
std::string_view nearestWord(std::string_view word, const std::vector<std::string_view> &known);

} // namespace ledger
