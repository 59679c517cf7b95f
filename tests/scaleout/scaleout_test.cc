// Scale-out on loopback: a real etcd, three hopmapd replicas sharing their catalog
// through it (--catalog etcd://...), clients that spread calls over the replicas
// and retry UNAVAILABLE, nginx in front of them (deploy/nginx/hopmapd.conf).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "client/lib/hopmap_client.h"
#include "core/graph/generators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/convert/convert.h"
#include "tests/client/cli_test_util.h"
#include "tests/integration/daemon_process.h"
#include "tests/scaleout/child_process.h"
#include "tests/temp_path.h"

namespace hopmap::testing {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Map calls a replica's log shows as served.
int ServedMaps(const std::string& log_path) {
  std::istringstream lines(ReadFile(log_path));
  int served = 0;
  for (std::string line; std::getline(lines, line);) {
    served += absl::StrContains(line, "method=Map ") && absl::StrContains(line, "status=OK");
  }
  return served;
}

std::unique_ptr<client::HopmapClient> Connect(const std::string& address) {
  client::ConnectOptions options;
  options.address = address;
  absl::StatusOr<std::unique_ptr<client::HopmapClient>> c = client::HopmapClient::Connect(options);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *std::move(c) : nullptr;
}

// A 256-task stencil on a machine of the catalog, mapped by `algorithm` within
// `seconds`.
v1::MapRequest StencilRequest(const std::string& machine_name, const std::string& algorithm = "gge",
                              double seconds = 0.2) {
  GeneratorOptions generate;
  generate.kind = "stencil2d-5";
  generate.dims = {16, 16};
  absl::StatusOr<TaskGraph> graph = GenerateGraph(generate);
  v1::MapRequest request;
  request.set_machine_name(machine_name);
  TaskGraphToProto(*graph, request.mutable_graph());
  request.set_algorithm(algorithm);
  request.set_time_limit_seconds(seconds);
  return request;
}

v1::Machine LabMachine(const std::string& name, const std::string& spec) {
  v1::Machine m;
  m.set_name(name);
  m.set_spec(spec);
  return m;
}

class ScaleoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = hopmap::testing::TempPath(
        std::string("scaleout_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_EQ(std::system(("rm -rf " + dir_ + " && mkdir -p " + dir_).c_str()), 0);
    etcd_client_port_ = FreePort();
    etcd_peer_port_ = FreePort();
    ASSERT_TRUE(StartEtcd()) << ReadFile(dir_ + "/etcd.log");
    for (int i = 0; i < 3; ++i) {
      replicas_.push_back(std::make_unique<DaemonProcess>());
      metrics_ports_.push_back(FreePort());
      ASSERT_TRUE(replicas_[i]->Start({"--catalog", CatalogUrl(), "--metrics-listen",
                                       absl::StrCat("127.0.0.1:", metrics_ports_[i])},
                                      ReplicaLog(i)))
          << replicas_[i]->error() << "\n"
          << ReadFile(ReplicaLog(i));
    }
  }

  bool StartEtcd() {
    etcd_ = std::make_unique<ChildProcess>();
    const std::string client = absl::StrCat("http://127.0.0.1:", etcd_client_port_);
    const std::string peer = absl::StrCat("http://127.0.0.1:", etcd_peer_port_);
    return etcd_->Start(
        {HOPMAP_ETCD, "--name", "scaleout", "--data-dir", dir_ + "/etcd", "--listen-client-urls",
         client, "--advertise-client-urls", client, "--listen-peer-urls", peer,
         "--initial-advertise-peer-urls", peer, "--initial-cluster", "scaleout=" + peer},
        dir_ + "/etcd.log", etcd_client_port_);
  }

  // The value of an unlabelled metric on replica i's /metrics ("" if absent).
  std::string Metric(int i, const std::string& name) const {
    const RunResult r =
        RunShell(absl::StrCat("curl -sf http://127.0.0.1:", metrics_ports_[i], "/metrics"));
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      if (absl::StartsWith(line, name + " ")) return line.substr(name.size() + 1);
    }
    return "";
  }
  // Polls Metric(i, name) until it reads `value`; false after `timeout` seconds.
  bool WaitForMetric(int i, const std::string& name, const std::string& value, double timeout) {
    const Clock::time_point start = Clock::now();
    while (SecondsSince(start) < timeout) {
      if (Metric(i, name) == value) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  std::string CatalogUrl() const {
    return absl::StrCat("etcd://127.0.0.1:", etcd_client_port_, "/hopmap-test");
  }
  std::string ReplicaLog(int i) const { return absl::StrCat(dir_, "/replica", i, ".log"); }
  std::string AllReplicas() const {
    std::vector<std::string> addresses;
    for (const auto& r : replicas_) addresses.push_back(r->address());
    return absl::StrJoin(addresses, ",");
  }

  // Polls `address` until it serves machine `name` (or, with `present` false, no
  // longer does); returns the seconds it took, or -1 after `timeout` seconds.
  double WaitForMachine(const std::string& address, const std::string& name, bool present,
                        double timeout) {
    std::unique_ptr<client::HopmapClient> c = Connect(address);
    if (c == nullptr) return -1;
    const Clock::time_point start = Clock::now();
    while (SecondsSince(start) < timeout) {
      if (c->GetMachine(name, 2).ok() == present) return SecondsSince(start);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }

  std::string dir_;
  int etcd_client_port_ = 0;
  int etcd_peer_port_ = 0;
  std::unique_ptr<ChildProcess> etcd_;
  std::vector<std::unique_ptr<DaemonProcess>> replicas_;
  std::vector<int> metrics_ports_;  // each replica's --metrics-listen port
};

TEST_F(ScaleoutTest, AMachinePutThroughOneReplicaIsServedByTheOthers) {
  std::unique_ptr<client::HopmapClient> first = Connect(replicas_[0]->address());
  ASSERT_NE(first, nullptr);
  const Clock::time_point put = Clock::now();
  ASSERT_TRUE(first->PutMachine(LabMachine("shared-lab", "torus:4x4x4:cores=4"), 10).ok());
  const double seen = WaitForMachine(replicas_[2]->address(), "shared-lab", true, 5);
  ASSERT_GE(seen, 0) << "replica 3 never served the machine";
  EXPECT_LT(SecondsSince(put), 1.0) << "replica 3 served it after " << seen << " s";
  // Replica 3 maps on it, and a removal through replica 2 reaches replica 1.
  std::unique_ptr<client::HopmapClient> third = Connect(replicas_[2]->address());
  absl::StatusOr<MappingReport> mapped = third->Map(StencilRequest("shared-lab"), 30);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ(mapped->slot_of_task.size(), 256u);
  ASSERT_TRUE(Connect(replicas_[1]->address())->DeleteMachine("shared-lab", 10).ok());
  EXPECT_GE(WaitForMachine(replicas_[0]->address(), "shared-lab", false, 1.0), 0);
  // A replica started later reads what is there.
  ASSERT_TRUE(first->PutMachine(LabMachine("later-lab", "torus:2x2"), 10).ok());
  DaemonProcess late;
  ASSERT_TRUE(late.Start({"--catalog", CatalogUrl()}, dir_ + "/late.log")) << late.error();
  EXPECT_TRUE(Connect(late.address())->GetMachine("later-lab", 5).ok());
  // Built-in names cannot be taken over through the store either.
  absl::StatusOr<v1::Machine> builtin = first->PutMachine(LabMachine("bgp-8x8x8", "torus:2x2"), 10);
  EXPECT_FALSE(builtin.ok());
}

TEST_F(ScaleoutTest, RequestsSpreadOverReplicasAndAKilledReplicaCostsNoRequest) {
  constexpr int kClients = 16;
  constexpr int kRequests = 200;
  const std::string target = AllReplicas();
  std::atomic<int> next{0};
  std::atomic<int> done{0};
  std::atomic<int> failed{0};
  std::vector<std::string> failures(kRequests);
  // Annealing for 0.1 s: calls are in flight when the replica dies.
  const v1::MapRequest request = StencilRequest("bgp-8x8x8", "anneal", 0.1);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&] {
      std::unique_ptr<client::HopmapClient> client = Connect(target);
      if (client == nullptr) return;
      for (int i = next++; i < kRequests; i = next++) {
        absl::StatusOr<MappingReport> r = client->Map(request, 60);
        if (!r.ok()) {
          failures[i] = r.status().ToString();
          ++failed;
        }
        ++done;
      }
    });
  }
  // A third of the way through, replica 2 dies without a word.
  while (done < kRequests / 3) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const int served_before_kill = ServedMaps(ReplicaLog(1));
  replicas_[1]->Kill();
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(done.load(), kRequests);
  EXPECT_EQ(failed.load(), 0) << absl::StrJoin(failures, "\n");
  const int served[3] = {ServedMaps(ReplicaLog(0)), ServedMaps(ReplicaLog(1)),
                         ServedMaps(ReplicaLog(2))};
  for (int i = 0; i < 3; ++i) EXPECT_GT(served[i], 0) << "replica " << i + 1 << " served none";
  EXPECT_GT(served_before_kill, 0);
  // The survivors served the rest.
  EXPECT_GE(served[0] + served[1] + served[2], kRequests);
  std::printf("served: %d %d %d (replica 2 killed after %d)\n", served[0], served[1], served[2],
              served_before_kill);
}

TEST_F(ScaleoutTest, ReplicasKeepServingWhileEtcdIsDownAndCatchUp) {
  std::unique_ptr<client::HopmapClient> first = Connect(replicas_[0]->address());
  ASSERT_TRUE(first->PutMachine(LabMachine("before", "torus:4x4:cores=16"), 10).ok());
  ASSERT_GE(WaitForMachine(replicas_[2]->address(), "before", true, 5), 0);
  // The replicas' metrics say whether their watch of etcd is up.
  EXPECT_TRUE(WaitForMetric(0, "hopmap_etcd_watch_up", "1", 5))
      << Metric(0, "hopmap_etcd_watch_up");
  etcd_->Stop(SIGKILL);
  EXPECT_TRUE(WaitForMetric(0, "hopmap_etcd_watch_up", "0", 10))
      << Metric(0, "hopmap_etcd_watch_up");
  // Every replica still maps on what it had.
  for (const auto& replica : replicas_) {
    absl::StatusOr<MappingReport> r =
        Connect(replica->address())->Map(StencilRequest("before"), 30);
    EXPECT_TRUE(r.ok()) << r.status();
  }
  // A change cannot be stored meanwhile, and the error says where it failed.
  absl::StatusOr<v1::Machine> refused = first->PutMachine(LabMachine("during", "torus:2x2"), 20);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("the shared catalog (etcd"));
  // etcd comes back (same data): a change through replica 2 reaches every replica.
  ASSERT_TRUE(StartEtcd()) << ReadFile(dir_ + "/etcd.log");
  std::unique_ptr<client::HopmapClient> second = Connect(replicas_[1]->address());
  const Clock::time_point back = Clock::now();
  absl::Status stored = absl::UnknownError("not tried");
  while (SecondsSince(back) < 15 && !stored.ok()) {
    stored = second->PutMachine(LabMachine("after", "torus:2x2x2"), 5).status();
    if (!stored.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(stored.ok()) << stored;
  for (const auto& replica : replicas_) {
    EXPECT_GE(WaitForMachine(replica->address(), "after", true, 10), 0) << replica->address();
    EXPECT_GE(WaitForMachine(replica->address(), "before", true, 1), 0) << replica->address();
  }
  EXPECT_THAT(ReadFile(ReplicaLog(0)), HasSubstr("caught up at revision"));
  EXPECT_TRUE(WaitForMetric(0, "hopmap_etcd_watch_up", "1", 10))
      << Metric(0, "hopmap_etcd_watch_up");
}

// deploy/nginx/hopmapd.conf as shipped, with this test's addresses: calls through
// nginx reach every replica, and a dead replica is skipped.
TEST_F(ScaleoutTest, NginxInFrontOfTheReplicas) {
  std::string conf = ReadFile(HOPMAP_NGINX_CONF);
  ASSERT_THAT(conf, HasSubstr("server 127.0.0.1:50051;"));
  const int port = FreePort();
  conf = absl::StrReplaceAll(
      conf,
      {{"    server 127.0.0.1:50051;\n    server 127.0.0.1:50052;\n    server "
        "127.0.0.1:50053;\n",
        absl::StrCat("    server ", replicas_[0]->address(), ";\n    server ",
                     replicas_[1]->address(), ";\n    server ", replicas_[2]->address(), ";\n")},
       {"listen 127.0.0.1:50050 http2;", absl::StrCat("listen 127.0.0.1:", port, " http2;")},
       {"pid /run/hopmapd-nginx.pid;", absl::StrCat("pid ", dir_, "/nginx.pid;")},
       {"user www-data;", ""}});
  ASSERT_THAT(conf, HasSubstr(replicas_[2]->address()));
  {
    std::ofstream out(dir_ + "/nginx.conf");
    out << conf;
  }
  ChildProcess nginx;
  ASSERT_TRUE(nginx.Start({HOPMAP_NGINX, "-p", dir_, "-c", dir_ + "/nginx.conf", "-e",
                           dir_ + "/nginx-error.log", "-g", "daemon off;"},
                          dir_ + "/nginx.log", port))
      << ReadFile(dir_ + "/nginx.log");
  std::unique_ptr<client::HopmapClient> proxy = Connect(absl::StrCat("127.0.0.1:", port));
  ASSERT_NE(proxy, nullptr);
  const v1::MapRequest request = StencilRequest("bgp-8x8x8");
  for (int i = 0; i < 30; ++i) {
    absl::StatusOr<MappingReport> r = proxy->Map(request, 30);
    ASSERT_TRUE(r.ok()) << r.status() << "\n" << ReadFile(dir_ + "/nginx.log");
  }
  for (int i = 0; i < 3; ++i) EXPECT_GT(ServedMaps(ReplicaLog(i)), 0) << "replica " << i + 1;
  replicas_[0]->Kill();
  int failed = 0;
  for (int i = 0; i < 30; ++i) failed += !proxy->Map(request, 30).ok();
  EXPECT_EQ(failed, 0);
  nginx.Stop(SIGTERM);
}

}  // namespace
}  // namespace hopmap::testing

namespace hopmap::testing {
namespace {

// hopmapd refuses to start, with one line saying why, on a bad --catalog, with
// --state-dir beside it, and when etcd cannot be read.
TEST(ScaleoutStartTest, ABadCatalogStopsTheReplicaWithOneLine) {
  const std::string dir = ::testing::TempDir();
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--catalog", "etcd://127.0.0.1:2379"}, "no PREFIX"},
      {{"--catalog", "etcd://127.0.0.1:2379/h", "--state-dir", dir}, "excludes"},
      {{"--catalog", absl::StrCat("etcd://127.0.0.1:", FreePort(), "/h")},
       "cannot read the shared catalog from etcd 127.0.0.1:"},
  };
  for (const auto& c : cases) {
    const std::string log = dir + "/refused.log";
    DaemonProcess daemon;
    EXPECT_FALSE(daemon.Start(c.args, log)) << absl::StrJoin(c.args, " ");
    EXPECT_THAT(ReadFile(log), HasSubstr(c.message)) << absl::StrJoin(c.args, " ");
  }
}

}  // namespace
}  // namespace hopmap::testing
