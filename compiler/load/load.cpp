#include "load/load.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ledger {

namespace fs = std::filesystem;

namespace {

// Calls fn(line, offset) for each line of text, its line ending and any
// comment taken off.
template <typename Fn> void eachLine(const std::string &text, Fn fn) {
  size_t offset = 0;
  while (offset < text.size()) {
    size_t eol = text.find('\n', offset);
    if (eol == std::string::npos)
      eol = text.size();
    std::string line = text.substr(offset, eol - offset);
    if (size_t hash = line.find('#'); hash != std::string::npos)
      line.resize(hash);
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (!fn(line, offset))
      return;
    offset = eol + 1;
  }
}

class Loader {
public:
  Loader(SourceManager &sources, DiagnosticEngine &diags) : sources_(sources), diags_(diags) {}

  Loaded run(const std::string &path) {
    fs::path p(path);
    if (p.extension() == ".play")
      loadPlay(p);
    else
      loadCatalogPath(p, Loc{}, false);
    return std::move(out_);
  }

private:
  bool readFile(const fs::path &p, std::string &text, Loc from, bool hasFrom) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      fail(DiagKind::CannotRead, from, hasFrom, p.string(), "it is a folder");
      return false;
    }
    std::ifstream in(p, std::ios::binary);
    if (!in) {
      int why = errno;
      fail(DiagKind::CannotRead, from, hasFrom, p.string(),
           !fs::exists(p, ec) ? "no such file" : std::strerror(why));
      return false;
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    text = buf.str();
    // A byte-order mark some editors write first says only that the file is
    // UTF-8, which every file is read as.
    if (text.starts_with("\xEF\xBB\xBF"))
      text.erase(0, 3);
    return true;
  }

  template <typename... Args>
  void fail(DiagKind kind, Loc from, bool hasFrom, const Args &...args) {
    out_.ok = false;
    if (hasFrom) {
      diags_.report(kind, from, 1, args...);
    } else {
      // No line to point at: the path came from the command line.
      FileId id = sources_.add("<command line>", "");
      diags_.report(kind, Loc{id, 0}, 1, args...);
    }
  }

  void addFile(const fs::path &p, FileRole role, Loc from, bool hasFrom) {
    std::string text;
    if (!readFile(p, text, from, hasFrom))
      return;
    FileId id = sources_.add(p.lexically_normal().string(), std::move(text));
    out_.files.push_back({id, role, package_});
  }

  void loadCatalogPath(const fs::path &p, Loc from, bool hasFrom) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> names;
      for (const auto &entry : fs::directory_iterator(p, ec))
        if (entry.is_regular_file() && entry.path().extension() == ".ledger")
          names.push_back(entry.path().filename().string());
      if (names.empty()) {
        fail(DiagKind::CatalogFolderEmpty, from, hasFrom, p.string());
        return;
      }
      std::sort(names.begin(), names.end()); // byte order of name
      for (const std::string &name : names)
        addFile(p / name, FileRole::Catalog, from, hasFrom);
      return;
    }
    if (p.extension() == ".ledger") {
      addFile(p, FileRole::Catalog, from, hasFrom);
      return;
    }
    if (p.extension() == ".catalog") {
      loadList(p, from, hasFrom);
      return;
    }
    fail(DiagKind::CatalogEntryMissing, from, hasFrom, p.string());
  }

  void loadList(const fs::path &p, Loc from, bool hasFrom) {
    std::string key = fs::weakly_canonical(p).string();
    if (std::find(openLists_.begin(), openLists_.end(), key) != openLists_.end()) {
      fail(DiagKind::CatalogCycle, from, hasFrom, p.string());
      return;
    }
    std::string text;
    if (!readFile(p, text, from, hasFrom))
      return;
    FileId id = sources_.add(p.lexically_normal().string(), text);
    openLists_.push_back(key);
    eachLine(text, [&](const std::string &line, size_t offset) {
      size_t b = line.find_first_not_of(" \t");
      if (b == std::string::npos)
        return true;
      size_t e = line.find_last_not_of(" \t");
      if (openLists_.size() == 1)
        ++package_;
      loadCatalogPath(p.parent_path() / line.substr(b, e - b + 1),
                      Loc{id, static_cast<uint32_t>(offset + b)}, true);
      return true;
    });
    openLists_.pop_back();
  }

  void loadPlay(const fs::path &p) {
    std::string text;
    if (!readFile(p, text, Loc{}, false))
      return;
    FileId id = sources_.add(p.lexically_normal().string(), text);
    // The catalog line is the file's first statement: `catalog PATH`.
    bool sawStatement = false;
    eachLine(text, [&](const std::string &line, size_t offset) {
      size_t b = line.find_first_not_of(' ');
      if (b == std::string::npos)
        return true;
      sawStatement = true;
      size_t pb = line.compare(b, 8, "catalog ") == 0 ? line.find_first_not_of(' ', b + 8)
                                                       : std::string::npos;
      if (pb == std::string::npos) {
        out_.ok = false;
        diags_.report(DiagKind::PlayNeedsCatalog, Loc{id, static_cast<uint32_t>(offset + b)}, 1);
        return false;
      }
      size_t pe = line.find(' ', pb);
      loadCatalogPath(p.parent_path() / line.substr(pb, pe == std::string::npos ? pe : pe - pb),
                      Loc{id, static_cast<uint32_t>(offset + pb)}, true);
      return false;
    });
    if (!sawStatement) {
      out_.ok = false;
      diags_.report(DiagKind::PlayNeedsCatalog, Loc{id, 0}, 1);
    }
    out_.files.push_back({id, FileRole::Play, package_});
  }

  SourceManager &sources_;
  DiagnosticEngine &diags_;
  Loaded out_;
  std::vector<std::string> openLists_;
  uint32_t package_ = 0;
};

} // namespace

Loaded load(const std::string &path, SourceManager &sources, DiagnosticEngine &diags) {
  return Loader(sources, diags).run(path);
}

Loaded loadText(const std::string &name, std::string text, FileRole role, SourceManager &sources) {
  Loaded out;
  out.files.push_back({sources.add(name, std::move(text)), role});
  return out;
}

} // namespace ledger
