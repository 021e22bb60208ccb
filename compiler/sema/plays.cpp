// A play's expectations: where each number came from.
#include "sema/checker.h"

#include "sema/words.h"

#include <algorithm>
#include <cctype>

namespace ledger::sema {

// "a line with a number ends with where it came from: from ROW:
// ARITHMETIC …, from v2 PATH, from content: WHY or from a run: WHY"; in a
// game's own plays one with none is a warning, the play running.
void Checker::checkSource(NodeId n) {
  const Node &node = tree_.nodes[n];
  if (std::string_view(formName(node.kind)).rfind("Expect", 0) != 0)
    return;
  const Slot *source = tree_.slot(n, "source");
  if (source) {
    auto word = [&](uint32_t i) {
      return i < source->end ? text(node.file, i) : std::string_view();
    };
    auto raw = [&](uint32_t i) {
      return i + 1 == source->end && tree_.token(node.file, i).kind == TokenKind::RawText;
    };
    std::string_view first = word(source->begin);
    bool row = first.size() == 4 && (first[0] == 'A' || first[0] == 'B' || first[0] == 'G') &&
               std::isdigit(static_cast<unsigned char>(first[1])) &&
               std::isdigit(static_cast<unsigned char>(first[2])) &&
               std::isdigit(static_cast<unsigned char>(first[3]));
    bool ok = first == "v2" || ((first == "content" || row) && raw(source->begin + 1)) ||
              (first == "a" && word(source->begin + 1) == "run" && raw(source->begin + 2));
    if (!ok)
      diags_.report(DiagKind::BadSource, tree_.loc(node.file, source->begin - 1),
                    length(node.file, source->begin - 1));
    return;
  }
  for (uint32_t i = 0; i < node.slotCount; ++i) {
    SlotKind kind = tree_.slots[node.firstSlot + i].kind;
    if (kind == SlotKind::Number || kind == SlotKind::Duration) {
      diags_.report(DiagKind::NumberWithoutSource, tree_.loc(node.file, node.begin),
                    length(node.file, node.begin));
      return;
    }
  }
}

} // namespace ledger::sema
