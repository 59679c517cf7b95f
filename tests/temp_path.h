// Paths for the files a test writes. ctest runs each test of a binary as its own
// process, several at a time, and two CI runs may share /tmp: a fixed name under
// ::testing::TempDir() lets one test truncate or delete what another is reading.
// Every process gets a folder of its own, removed when the process exits.
#ifndef HOPMAP_TESTS_TEMP_PATH_H_
#define HOPMAP_TESTS_TEMP_PATH_H_

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "gtest/gtest.h"

namespace hopmap::testing {

class ProcessTempFolder {
 public:
  ProcessTempFolder() : owner_(getpid()) {
    std::string pattern = ::testing::TempDir() + "/hopmap_test.XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror(("mkdtemp " + pattern).c_str());
      std::abort();
    }
    path_ = pattern;
  }
  // A forked child that exits does not take its parent's folder with it.
  ~ProcessTempFolder() {
    if (getpid() != owner_) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ProcessTempFolder(const ProcessTempFolder&) = delete;
  ProcessTempFolder& operator=(const ProcessTempFolder&) = delete;

  const std::string& path() const { return path_; }

 private:
  pid_t owner_;
  std::string path_;
};

// This process's own temporary folder.
inline const std::string& TempFolder() {
  static ProcessTempFolder folder;
  return folder.path();
}

// `name` in this process's own temporary folder.
inline std::string TempPath(std::string_view name) {
  return TempFolder() + "/" + std::string(name);
}

}  // namespace hopmap::testing

#endif  // HOPMAP_TESTS_TEMP_PATH_H_
