#include "sim/installed_files.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hopmap::sim {

absl::StatusOr<std::string> FindInstalledFile(const InstalledFile& file) {
  const int mode = file.executable ? X_OK : R_OK;
  if (const char* env = std::getenv(file.env); env != nullptr && *env != '\0') {
    if (access(env, mode) == 0) return std::string(env);
    return absl::NotFoundError(absl::StrCat(
        file.env, "=", env, file.executable ? " is not an executable program" : " cannot be read"));
  }
  std::vector<std::string> tried;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::string installed = (self.parent_path().parent_path() / file.installed).string();
    if (access(installed.c_str(), mode) == 0) return installed;
    tried.push_back(installed);
  }
  if (access(file.built, mode) == 0) return std::string(file.built);
  tried.push_back(file.built);
  return absl::NotFoundError(absl::StrCat(file.what, " is not installed (looked at ",
                                          absl::StrJoin(tried, ", "), "; set ", file.env,
                                          " to its path)"));
}

}  // namespace hopmap::sim
