// A real PyTorch job where hopmap placed it: `hopmap map --keep-blocks 2 --format
// torchrun` for 4 ranks on 2 hosts x 2 GPUs, then one torchrun per host on loopback
// (static rendezvous, gloo on CPU), each told the host it plays (HOPMAP_HOST) and
// its CUDA_VISIBLE_DEVICES from the file. Every rank must report the host and GPU
// that hopmap's rank-node-core answer gives it.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/client/cli_test_util.h"
#include "tests/scaleout/child_process.h"

namespace hopmap {
namespace {

using ::hopmap::testing::FreePort;
using ::hopmap::testing::ReadFile;
using ::hopmap::testing::RunHopmap;

// The torchrun processes this test started, each the leader of its own process
// group (its workers inherit it): killed by their pids' groups, whatever happens.
class Launchers {
 public:
  ~Launchers() {
    for (pid_t pid : running_) {
      kill(-pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }

  // Starts `args` with `env` added, stdout and stderr to `log`.
  bool Start(const std::vector<std::string>& args, const std::vector<std::string>& env,
             const std::string& log) {
    const pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
      }
      for (const std::string& e : env) putenv(const_cast<char*>(strdup(e.c_str())));
      std::vector<std::string> storage = args;
      std::vector<char*> argv;
      for (std::string& a : storage) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    setpgid(pid, pid);  // also here: no race with the child's own call
    running_.push_back(pid);
    return true;
  }

  // Waits for every launcher until `deadline`; their exit codes (-1: still running).
  std::vector<int> Wait(std::chrono::steady_clock::time_point deadline) {
    std::vector<int> codes(running_.size(), -1);
    std::vector<bool> done(running_.size(), false);
    size_t left = running_.size();
    while (left > 0 && std::chrono::steady_clock::now() < deadline) {
      for (size_t i = 0; i < running_.size(); ++i) {
        int status = 0;
        if (done[i] || waitpid(running_[i], &status, WNOHANG) != running_[i]) continue;
        done[i] = true;
        --left;
        codes[i] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        kill(-running_[i], SIGKILL);  // a worker left behind by its agent
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    std::vector<pid_t> still;
    for (size_t i = 0; i < running_.size(); ++i) {
      if (!done[i]) still.push_back(running_[i]);
    }
    running_ = std::move(still);  // the destructor kills what did not end
    return codes;
  }

 private:
  std::vector<pid_t> running_;
};

// A temporary folder, removed with what the test wrote in it even when it fails.
struct ScratchDir {
  std::string path;
  ~ScratchDir() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
};

struct Placement {
  std::string host;
  std::string gpu;
};

TEST(TorchrunTest, RanksRunOnTheHostsAndGpusHopmapGaveThem) {
  const std::string torchrun = HOPMAP_TORCHRUN;
  ASSERT_EQ(access(torchrun.c_str(), X_OK), 0)
      << "torchrun not found (" << torchrun
      << "): install Debian's python3-torch (bash deploy/install-deps.sh)";
  std::string dir_template = ::testing::TempDir() + "/hopmap_torchrun_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template.data()), nullptr);
  const ScratchDir scratch{dir_template};
  const std::string& dir = scratch.path;

  // 4 ranks of a ring, 2 hosts (nodes 3 and 1 of a 4-node ring) x 2 GPUs.
  ASSERT_EQ(RunHopmap("gen ring --tasks 4 --bytes 4096 -o " + dir + "/ring.edgelist").exit_code, 0);
  const std::string map = "map --local -q --graph " + dir +
                          "/ring.edgelist --machine torus:4:cores=2 --nodes 3,1 "
                          "--keep-blocks 2 --iterations 10 --seed 3";
  const auto placement = RunHopmap(map + " --format torchrun");
  ASSERT_EQ(placement.exit_code, 0) << placement.err;
  const auto answer = RunHopmap(map + " --format rank-node-core");
  ASSERT_EQ(answer.exit_code, 0) << answer.err;
  std::map<int, Placement> expected;  // rank -> host, GPU
  for (absl::string_view line : absl::StrSplit(answer.out, '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    ASSERT_EQ(f.size(), 3u) << line;
    expected[std::stoi(f[0])] = {f[1], f[2]};
  }
  ASSERT_EQ(expected.size(), 4u) << answer.out;

  // One torchrun per line "HOST NODE_RANK CUDA_VISIBLE_DEVICES".
  const int port = FreePort();
  ASSERT_GT(port, 0);
  Launchers launchers;
  std::vector<std::string> logs;
  for (absl::string_view line : absl::StrSplit(placement.out, '\n', absl::SkipEmpty())) {
    if (line.front() == '#') continue;
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    ASSERT_EQ(f.size(), 3u) << line;
    logs.push_back(absl::StrCat(dir, "/torchrun-", f[1], ".log"));
    ASSERT_TRUE(launchers.Start(
        {torchrun, "--nnodes=2", "--nproc_per_node=2", "--node_rank=" + f[1],
         "--master_addr=127.0.0.1", absl::StrCat("--master_port=", port),
         // Debian's torchrun 1.13 on Python 3.11 cannot parse its default --redirects
         // 0 (Std.NONE, a zero flag, is not iterated): stdout to its log and to ours.
         "--redirects=1", "--tee=1", absl::StrCat("--log_dir=", dir, "/logs-", f[1]),
         HOPMAP_TORCHRUN_WORKER},
        {"CUDA_VISIBLE_DEVICES=" + f[2], "HOPMAP_HOST=" + f[0], "GLOO_SOCKET_IFNAME=lo",
         "OMP_NUM_THREADS=1"},
        logs.back()));
  }
  ASSERT_EQ(logs.size(), 2u) << placement.out;
  const std::vector<int> codes =
      launchers.Wait(std::chrono::steady_clock::now() + std::chrono::seconds(90));
  std::string all_logs;
  for (const std::string& log : logs) all_logs += ReadFile(log);
  for (int code : codes) ASSERT_EQ(code, 0) << all_logs;

  std::map<int, Placement> ran;
  for (absl::string_view line : absl::StrSplit(all_logs, '\n', absl::SkipEmpty())) {
    // tee prefixes each line with its local rank ("[0]:").
    const size_t at = line.find("hopmap-worker ");
    if (at == absl::string_view::npos) continue;
    std::vector<std::string> f = absl::StrSplit(line.substr(at), ' ');
    ASSERT_EQ(f.size(), 6u) << line;
    EXPECT_EQ(f[5], "10") << "the all-reduce of 1+2+3+4: " << line;
    ran[std::stoi(f[1])] = {f[3], f[4]};
  }
  ASSERT_EQ(ran.size(), 4u) << all_logs;
  for (const auto& [rank, where] : ran) {
    EXPECT_EQ(where.host, expected[rank].host) << "rank " << rank << "\n" << placement.out;
    EXPECT_EQ(where.gpu, expected[rank].gpu) << "rank " << rank << "\n" << placement.out;
  }
}

}  // namespace
}  // namespace hopmap
