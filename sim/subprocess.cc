#include "sim/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace hopmap::sim {
namespace {

struct Pipe {
  int read = -1;
  int write = -1;
  ~Pipe() {
    if (read >= 0) close(read);
    if (write >= 0) close(write);
  }
  bool Open() {
    int fds[2];
    // Close-on-exec: a child spawned by another thread at the same time must not
    // inherit this pipe (it would hold its end open).
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read = fds[0];
    write = fds[1];
    return true;
  }
  static void Close(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
};

}  // namespace

absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         const std::string& input,
                                         const std::vector<std::string>& env,
                                         const std::atomic<bool>* cancelled) {
  if (argv.empty()) return absl::InvalidArgumentError("no program to run");
  signal(SIGPIPE, SIG_IGN);
  Pipe in, out, err;
  if (!in.Open() || !out.Open() || !err.Open()) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.write, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // This process's environment, with `env`'s names replaced (getenv finds the
  // first entry of a name, so a second one would not count).
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& added : env) {
      replaced |= std::string_view(added).substr(0, added.find('=')) == name;
    }
    if (!replaced) environment.emplace_back(entry);
  }
  environment.insert(environment.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (std::string& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot run ", argv[0], ": ", std::strerror(spawned)));
  }
  Pipe::Close(in.read);
  Pipe::Close(out.write);
  Pipe::Close(err.write);
  if (input.empty()) Pipe::Close(in.write);
  fcntl(in.write, F_SETFL, O_NONBLOCK);

  ProcessResult result;
  bool killed = false;
  size_t written = 0;
  char buffer[65536];
  while (out.read >= 0 || err.read >= 0 || in.write >= 0) {
    pollfd fds[3];
    int n = 0;
    if (in.write >= 0) fds[n++] = {in.write, POLLOUT, 0};
    if (out.read >= 0) fds[n++] = {out.read, POLLIN, 0};
    if (err.read >= 0) fds[n++] = {err.read, POLLIN, 0};
    if (cancelled != nullptr && !killed && cancelled->load()) {
      // Its pipes close when it dies; the loop then ends as for any exit.
      kill(pid, SIGKILL);
      killed = true;
      Pipe::Close(in.write);
      continue;
    }
    if (poll(fds, n, cancelled != nullptr ? 100 : -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in.write) {
        const ssize_t w = write(in.write, input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if (w < 0 && errno != EAGAIN && errno != EINTR) written = input.size();  // EPIPE
        if (written == input.size()) Pipe::Close(in.write);
        continue;
      }
      int& fd = fds[i].fd == out.read ? out.read : err.read;
      std::string& sink = fds[i].fd == out.read ? result.out : result.err;
      const ssize_t r = read(fd, buffer, sizeof(buffer));
      if (r > 0) {
        sink.append(buffer, static_cast<size_t>(r));
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        Pipe::Close(fd);
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  if (killed)
    return absl::CancelledError(absl::StrCat(argv[0], " stopped: the call was cancelled"));
  return result;
}

}  // namespace hopmap::sim
