// Starts a real hopmapd process for a test and stops it.
#ifndef HOPMAP_TESTS_INTEGRATION_DAEMON_PROCESS_H_
#define HOPMAP_TESTS_INTEGRATION_DAEMON_PROCESS_H_

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

namespace hopmap::testing {

class DaemonProcess {
 public:
  DaemonProcess() = default;
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;
  ~DaemonProcess() { Kill(); }

  // Starts `hopmapd --listen 127.0.0.1:0 ARGS` with stderr to `log_path`, and
  // waits (up to 60 s) for its "hopmapd: listening on HOST:PORT" line. Returns
  // false on failure (the reason in error()).
  bool Start(const std::vector<std::string>& args, const std::string& log_path) {
    int out[2];
    if (pipe(out) != 0) return Fail("pipe failed");
    pid_ = fork();
    if (pid_ < 0) return Fail("fork failed");
    if (pid_ == 0) {
      // The daemon dies with the test, even when the test crashes.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      dup2(out[1], 1);
      const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (log >= 0) dup2(log, 2);
      close(out[0]);
      std::vector<std::string> argv_storage = {HOPMAPD, "--listen", "127.0.0.1:0"};
      argv_storage.insert(argv_storage.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (std::string& a : argv_storage) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(HOPMAPD, argv.data());
      _exit(127);
    }
    close(out[1]);
    stdout_fd_ = out[0];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::string text;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{stdout_fd_, POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) {
        if (!Alive()) return Fail("hopmapd exited before listening; see " + log_path);
        continue;
      }
      char buffer[256];
      const ssize_t n = read(stdout_fd_, buffer, sizeof(buffer));
      if (n <= 0) return Fail("hopmapd closed stdout before listening; see " + log_path);
      text.append(buffer, n);
      const std::string marker = "hopmapd: listening on ";
      const size_t at = text.find(marker);
      const size_t end = at == std::string::npos ? at : text.find('\n', at);
      if (end != std::string::npos) {
        address_ = text.substr(at + marker.size(), end - at - marker.size());
        return true;
      }
    }
    return Fail("hopmapd did not listen within 60 s; see " + log_path);
  }

  // Sends `signal` and waits (up to 60 s) for the exit; returns the exit status as
  // waitpid gives it, or -1 if it did not exit.
  int Signal(int signal) {
    if (pid_ <= 0) return -1;
    kill(pid_, signal);
    for (int i = 0; i < 600; ++i) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return status;
      }
      usleep(100'000);
    }
    return -1;
  }

  void Kill() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    if (stdout_fd_ >= 0) {
      close(stdout_fd_);
      stdout_fd_ = -1;
    }
  }

  bool Alive() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    return true;
  }

  [[nodiscard]] const std::string& address() const { return address_; }
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  bool Fail(std::string why) {
    error_ = std::move(why);
    return false;
  }
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::string address_;
  std::string error_;
};

}  // namespace hopmap::testing

#endif  // HOPMAP_TESTS_INTEGRATION_DAEMON_PROCESS_H_
