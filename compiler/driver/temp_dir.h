// A folder of its own under the machine's temporary folder, for the packs a
// command builds and loads, removed with everything in it when it goes.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace ledger {

struct TempDir {
  std::string path; // empty when none could be made

  explicit TempDir(const char *prefix = "ledger") {
    std::string base = (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    std::vector<char> buf(base.begin(), base.end());
    buf.push_back(0);
    if (mkdtemp(buf.data()))
      path = buf.data();
  }
  ~TempDir() {
    if (!path.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
};

} // namespace ledger
