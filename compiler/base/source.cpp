#include "base/source.h"

#include <algorithm>

namespace ledger {

FileId SourceManager::add(std::string path, std::string text) {
  SourceFile file;
  file.path = std::move(path);
  file.text = std::move(text);
  file.lineStarts = {0};
  for (uint32_t i = 0; i < file.text.size(); ++i)
    if (file.text[i] == '\n')
      file.lineStarts.push_back(i + 1);
  files_.push_back(std::move(file));
  return static_cast<FileId>(files_.size() - 1);
}

FileId SourceManager::addWritten(std::string path, std::string text, Loc origin) {
  FileId id = add(std::move(path), std::move(text));
  files_[id].written = true;
  files_[id].origin = origin;
  return id;
}

LineCol SourceManager::lineCol(Loc loc) const {
  const auto &starts = files_[loc.file].lineStarts;
  auto it = std::upper_bound(starts.begin(), starts.end(), loc.offset);
  auto line = static_cast<uint32_t>(it - starts.begin());
  return {line, loc.offset - starts[line - 1] + 1};
}

std::string_view SourceManager::lineText(Loc loc) const {
  const SourceFile &file = files_[loc.file];
  LineCol lc = lineCol(loc);
  uint32_t begin = file.lineStarts[lc.line - 1];
  uint32_t end = begin;
  while (end < file.text.size() && file.text[end] != '\n')
    ++end;
  if (end > begin && file.text[end - 1] == '\r')
    --end;
  return std::string_view(file.text).substr(begin, end - begin);
}

} // namespace ledger
