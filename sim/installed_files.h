// Where the programs and libraries beside hopmap are: the SimGrid worker and the
// SMPI platform library, found the same way whoever asks (the CLI, hopmapd).
#ifndef HOPMAP_SIM_INSTALLED_FILES_H_
#define HOPMAP_SIM_INSTALLED_FILES_H_

#include <string>

#include "absl/status/statusor.h"

namespace hopmap::sim {

struct InstalledFile {
  const char* what;         // "the SimGrid worker hopmap-simgrid", in errors
  const char* env;          // the variable that overrides the search
  const char* installed;    // its path below an installation's prefix
  const char* built;        // this build's copy
  bool executable = false;  // a program (X_OK) or a library to read (R_OK)
};

// $env if set (NotFound when it names nothing usable), else
// <this program's folder>/../`installed` (an installation), else `built`.
// NotFound names the places looked at.
absl::StatusOr<std::string> FindInstalledFile(const InstalledFile& file);

}  // namespace hopmap::sim

#endif  // HOPMAP_SIM_INSTALLED_FILES_H_
