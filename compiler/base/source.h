// Source files held in memory, and locations into them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ledger {

using FileId = uint32_t;

// A place in a source file: the file and a byte offset into it.
struct Loc {
  FileId file = 0;
  uint32_t offset = 0;
};

struct LineCol {
  uint32_t line = 1;   // 1-based
  uint32_t column = 1; // 1-based, in bytes
};

struct SourceFile {
  std::string path;
  std::string text;
  std::vector<uint32_t> lineStarts; // offset of each line's first byte
  // A file the compiler wrote (a template written out) names the line that
  // wrote it, so a diagnostic in it can point there too.
  bool written = false;
  Loc origin;
};

class SourceManager {
public:
  FileId add(std::string path, std::string text);
  FileId addWritten(std::string path, std::string text, Loc origin);
  const SourceFile &file(FileId id) const { return files_[id]; }
  size_t size() const { return files_.size(); }

  LineCol lineCol(Loc loc) const;
  // The text of the line holding loc, without its line ending.
  std::string_view lineText(Loc loc) const;

private:
  std::vector<SourceFile> files_;
};

} // namespace ledger
