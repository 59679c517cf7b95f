// Runs the real hopmap binary and captures what it prints.
#ifndef HOPMAP_TESTS_CLIENT_CLI_TEST_UTIL_H_
#define HOPMAP_TESTS_CLIENT_CLI_TEST_UTIL_H_

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace hopmap::testing {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The size of a file in bytes; -1 when it does not exist.
inline int64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Runs `command` through the shell and captures its output.
inline RunResult RunShell(const std::string& command_line) {
  static int counter = 0;
  const std::string base = ::testing::TempDir() + "/hopmap_run_" + std::to_string(getpid()) + "_" +
                           std::to_string(counter++);
  const std::string command = command_line + " >" + base + ".out 2>" + base + ".err";
  const int status = std::system(command.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFile(base + ".out");
  r.err = ReadFile(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

#ifdef HOPMAP_CLI
// Runs `hopmap ARGS` through the shell (args must be shell-safe).
inline RunResult RunHopmap(const std::string& args) {
  return RunShell(std::string(HOPMAP_CLI) + " " + args);
}
#endif

}  // namespace hopmap::testing

#endif  // HOPMAP_TESTS_CLIENT_CLI_TEST_UTIL_H_
