// HopmapClient against the real MapperService, served in this process on
// 127.0.0.1 port 0 (TCP, so Connect is exercised) and on a Unix socket.
#include "client/lib/hopmap_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/graph/generators.h"
#include "core/io/machine_spec.h"
#include "core/solve/report.h"
#include "core/solve/report_json.h"
#include "core/solve/solve_mapping.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "gtest/gtest.h"
#include "proto/convert/convert.h"
#include "server/catalog.h"
#include "server/service.h"

namespace hopmap::client {
namespace {

using ::testing::HasSubstr;

std::string MakeTempDir() {
  std::string pattern = ::testing::TempDir() + "/hopmap_client_test_XXXXXX";
  char* dir = mkdtemp(pattern.data());
  EXPECT_NE(dir, nullptr);
  return pattern;
}

// A MapperService over a temp-dir catalog, on 127.0.0.1:0 and a Unix socket.
class TestServer {
 public:
  explicit TestServer(server::ServiceOptions options) {
    dir_ = MakeTempDir();
    absl::StatusOr<std::unique_ptr<server::MachineCatalog>> catalog =
        server::MachineCatalog::Open("", dir_ + "/state");
    EXPECT_TRUE(catalog.ok()) << catalog.status();
    absl::StatusOr<std::unique_ptr<server::MapperService>> service = server::MapperService::Create(
        *std::move(catalog), std::move(options), [](const std::string&) {});
    EXPECT_TRUE(service.ok()) << service.status();
    service_ = *std::move(service);
    grpc::EnableDefaultHealthCheckService(true);
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    unix_address_ = "unix:" + dir_ + "/hopmapd.sock";
    builder.AddListeningPort(unix_address_, grpc::InsecureServerCredentials());
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    EXPECT_NE(server_, nullptr);
    EXPECT_GT(port_, 0);
  }
  ~TestServer() {
    if (server_ != nullptr) server_->Shutdown();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  [[nodiscard]] std::string address() const { return absl::StrCat("127.0.0.1:", port_); }
  [[nodiscard]] const std::string& unix_address() const { return unix_address_; }
  [[nodiscard]] const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::string unix_address_;
  int port_ = 0;
  std::unique_ptr<server::MapperService> service_;
  std::unique_ptr<grpc::Server> server_;
};

server::ServiceOptions TestOptions() {
  server::ServiceOptions options;
  options.threads = 2;
  options.max_time_limit_seconds = 600;
  return options;
}

std::unique_ptr<HopmapClient> ConnectTo(const std::string& address, const std::string& token = "") {
  ConnectOptions options;
  options.address = address;
  options.token = token;
  absl::StatusOr<std::unique_ptr<HopmapClient>> client = HopmapClient::Connect(options);
  EXPECT_TRUE(client.ok()) << client.status();
  return client.ok() ? *std::move(client) : nullptr;
}

TaskGraph Stencil(int32_t x, int32_t y) {
  GeneratorOptions g;
  g.kind = "stencil2d-5";
  g.dims = {x, y};
  g.wrap = true;
  g.bytes = 1000;
  absl::StatusOr<TaskGraph> graph = GenerateGraph(g);
  EXPECT_TRUE(graph.ok()) << graph.status();
  return *std::move(graph);
}

// 64 tasks of an 8x8 stencil on 32 nodes x 2 cores of the Blue Gene/P partition.
v1::MapRequest StencilRequest(const TaskGraph& graph) {
  v1::MapRequest request;
  request.set_machine_name("bgp-8x8x8");
  request.mutable_allocation()->set_nodes("0-7,64-71,128-135,192-199");
  request.mutable_allocation()->set_cores_per_node(2);
  TaskGraphToProto(graph, request.mutable_graph());
  request.set_algorithm("auto");
  request.set_seed(7);
  request.set_threads(2);
  request.set_time_limit_seconds(300);  // generous: the solve ends on its own, not on time
  return request;
}

// The report as JSON without what depends on timing.
nlohmann::ordered_json Timeless(const MappingReport& report) {
  nlohmann::ordered_json j = ReportToJson(report);
  j.erase("solve_seconds");
  for (auto& c : j["candidates"]) c.erase("seconds");
  return j;
}

absl::StatusOr<MappingReport> SolveHere(const TaskGraph& graph) {
  absl::StatusOr<std::shared_ptr<Machine>> machine = ParseMachineSpec("bgp-8x8x8");
  if (!machine.ok()) return machine.status();
  absl::StatusOr<std::vector<NodeId>> nodes =
      ReadNodeSelection("0-7,64-71,128-135,192-199", **machine);
  if (!nodes.ok()) return nodes.status();
  absl::StatusOr<Allocation> allocation = Allocation::Create(*machine, *std::move(nodes), 2);
  if (!allocation.ok()) return allocation.status();
  MapperOptions options;
  options.seed = 7;
  options.threads = 2;
  options.time_limit_seconds = 300;
  return SolveMapping(graph, *allocation, "auto", options);
}

class HopmapClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new TestServer(TestOptions()); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  static TestServer* server_;
};
TestServer* HopmapClientTest::server_ = nullptr;

TEST_F(HopmapClientTest, MapEqualsTheSolveInProcess) {
  std::unique_ptr<HopmapClient> client = ConnectTo(server_->address());
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(client->address(), server_->address());
  const TaskGraph graph = Stencil(8, 8);
  absl::StatusOr<MappingReport> remote = client->Map(StencilRequest(graph));
  ASSERT_TRUE(remote.ok()) << remote.status();
  absl::StatusOr<MappingReport> local = SolveHere(graph);
  ASSERT_TRUE(local.ok()) << local.status();

  EXPECT_EQ(remote->tasks, 64);
  EXPECT_EQ(remote->slots, 64);
  EXPECT_EQ(remote->nodes, 32);
  ASSERT_EQ(remote->slot_of_task.size(), 64u);
  EXPECT_EQ(remote->slot_of_task, local->slot_of_task);
  EXPECT_EQ(remote->node_of_task, local->node_of_task);
  EXPECT_EQ(remote->hop_bytes, local->hop_bytes);
  EXPECT_EQ(remote->algorithm, local->algorithm);
  EXPECT_GT(remote->baseline_hop_bytes, 0);
  EXPECT_LE(remote->hop_bytes, remote->baseline_hop_bytes);
  EXPECT_GE(remote->candidates.size(), 2u);
  // Every field of the CLI's report but the timings.
  EXPECT_EQ(Timeless(*remote), Timeless(*local));

  absl::StatusOr<v1::MapReply> reply = client->MapProto(StencilRequest(graph));
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->hop_bytes(), local->hop_bytes);
  EXPECT_TRUE(reply->cache_hit());  // the same allocation as the first call
  EXPECT_FALSE(reply->request_id().empty());
}

TEST_F(HopmapClientTest, MapStreamReportsProgressAndTheSameResult) {
  std::unique_ptr<HopmapClient> client = ConnectTo(server_->address());
  ASSERT_NE(client, nullptr);
  const TaskGraph graph = Stencil(8, 8);
  std::vector<Progress> progress;
  absl::StatusOr<MappingReport> streamed =
      client->MapStream(StencilRequest(graph), [&](const Progress& p) { progress.push_back(p); });
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  absl::StatusOr<MappingReport> plain = client->Map(StencilRequest(graph));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(Timeless(*streamed), Timeless(*plain));

  ASSERT_GE(progress.size(), 1u);
  bool candidate_seen = false;
  for (const Progress& p : progress) {
    if (!p.candidate_finished.empty()) candidate_seen = true;
    // The best so far is never better than the final result.
    if (!p.best_algorithm.empty()) {
      EXPECT_GE(p.best_hop_bytes, streamed->hop_bytes);
    }
  }
  EXPECT_TRUE(candidate_seen);
  EXPECT_EQ(progress.back().best_hop_bytes, streamed->hop_bytes);

  // An empty callback is allowed.
  absl::StatusOr<MappingReport> quiet = client->MapStream(StencilRequest(graph), nullptr);
  ASSERT_TRUE(quiet.ok()) << quiet.status();
  EXPECT_EQ(quiet->slot_of_task, streamed->slot_of_task);
}

TEST_F(HopmapClientTest, EvaluateAndAnalyze) {
  std::unique_ptr<HopmapClient> client = ConnectTo(server_->address());
  ASSERT_NE(client, nullptr);
  const TaskGraph graph = Stencil(8, 8);
  absl::StatusOr<MappingReport> mapped = client->Map(StencilRequest(graph));
  ASSERT_TRUE(mapped.ok()) << mapped.status();

  v1::EvaluateRequest request;
  request.set_machine_name("bgp-8x8x8");
  *request.mutable_allocation() = StencilRequest(graph).allocation();
  TaskGraphToProto(graph, request.mutable_graph());
  request.mutable_slot_of_task()->Assign(mapped->slot_of_task.begin(), mapped->slot_of_task.end());
  request.set_busiest_links(3);
  absl::StatusOr<MappingReport> evaluated = client->Evaluate(request);
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(evaluated->algorithm, "given");
  EXPECT_EQ(evaluated->hop_bytes, mapped->hop_bytes);
  EXPECT_EQ(evaluated->busiest_links.size(), 3u);

  // The in-order mapping measures the baseline.
  request.clear_slot_of_task();
  for (int t = 0; t < 64; ++t) request.add_slot_of_task(t);
  evaluated = client->Evaluate(request);
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(evaluated->hop_bytes, mapped->baseline_hop_bytes);

  v1::AnalyzeRequest analyze;
  TaskGraphToProto(graph, analyze.mutable_graph());
  absl::StatusOr<v1::AnalyzeReply> stats = client->Analyze(analyze);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->tasks(), 64);
  EXPECT_EQ(stats->edges(), 128);  // 8x8 periodic 5-point stencil: 2 edges per task
  EXPECT_EQ(stats->total_bytes(), graph.total_bytes());
  EXPECT_EQ(stats->max_degree(), 4);
}

TEST_F(HopmapClientTest, ErrorsComeBackWithCodeAndMessage) {
  std::unique_ptr<HopmapClient> client = ConnectTo(server_->address());
  ASSERT_NE(client, nullptr);
  const TaskGraph graph = Stencil(8, 8);

  v1::MapRequest request = StencilRequest(graph);
  request.set_machine_name("nosuch");
  absl::StatusOr<MappingReport> report = client->Map(request);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kNotFound) << report.status();
  EXPECT_THAT(report.status().message(), HasSubstr("nosuch"));
  // The same through the stream.
  report = client->MapStream(request, nullptr);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kNotFound) << report.status();
  EXPECT_THAT(report.status().message(), HasSubstr("nosuch"));

  request = StencilRequest(graph);
  request.mutable_graph()->set_xadj(3, 1);  // xadj must not decrease
  report = client->Map(request);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument) << report.status();
  EXPECT_THAT(report.status().message(), HasSubstr("graph"));

  request = StencilRequest(graph);
  request.mutable_allocation()->set_nodes("0-9");  // 20 slots for 64 tasks
  report = client->Map(request);
  EXPECT_FALSE(report.ok());
  EXPECT_NE(report.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(report.status().message(), HasSubstr("64"));

  request = StencilRequest(graph);
  request.set_algorithm("nope");
  report = client->Map(request);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument) << report.status();
  EXPECT_THAT(report.status().message(), HasSubstr("nope"));

  absl::StatusOr<v1::Machine> machine = client->GetMachine("nosuch");
  EXPECT_EQ(machine.status().code(), absl::StatusCode::kNotFound) << machine.status();
  // Built-in machines cannot be removed.
  const absl::Status removed = client->DeleteMachine("kraken");
  EXPECT_EQ(removed.code(), absl::StatusCode::kFailedPrecondition) << removed;
}

TEST_F(HopmapClientTest, PutListGetDelete) {
  std::unique_ptr<HopmapClient> client = ConnectTo(server_->address());
  ASSERT_NE(client, nullptr);
  v1::Machine lab;
  lab.set_name("lab-4x4");
  lab.set_description("a test torus");
  lab.set_spec("torus:4x4");
  lab.set_cores_per_node(2);
  absl::StatusOr<v1::Machine> stored = client->PutMachine(lab);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->name(), "lab-4x4");

  absl::StatusOr<std::vector<v1::MachineSummary>> list = client->ListMachines();
  ASSERT_TRUE(list.ok()) << list.status();
  const v1::MachineSummary* found = nullptr;
  bool kraken = false;
  for (const v1::MachineSummary& m : *list) {
    if (m.name() == "lab-4x4") found = &m;
    if (m.name() == "kraken") kraken = m.origin() == "builtin" && m.num_nodes() == 9600;
  }
  EXPECT_TRUE(kraken);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->origin(), "stored");
  EXPECT_EQ(found->num_nodes(), 16);
  EXPECT_EQ(found->cores_per_node(), 2);
  EXPECT_EQ(found->description(), "a test torus");

  absl::StatusOr<v1::Machine> got = client->GetMachine("lab-4x4");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->spec(), "torus:4x4");

  // A request can name it: 16 tasks on its 16 nodes x 2 cores.
  v1::MapRequest request;
  request.set_machine_name("lab-4x4");
  TaskGraphToProto(Stencil(4, 4), request.mutable_graph());
  request.set_algorithm("in-order");
  absl::StatusOr<MappingReport> report = client->Map(request);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->slots, 32);
  EXPECT_EQ(report->cores_per_node, 2);

  ASSERT_TRUE(client->DeleteMachine("lab-4x4").ok());
  EXPECT_EQ(client->GetMachine("lab-4x4").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(client->DeleteMachine("lab-4x4").code(), absl::StatusCode::kNotFound);
  list = client->ListMachines();
  ASSERT_TRUE(list.ok()) << list.status();
  for (const v1::MachineSummary& m : *list) EXPECT_NE(m.name(), "lab-4x4");
}

TEST_F(HopmapClientTest, HealthIsServing) {
  std::unique_ptr<HopmapClient> client = ConnectTo(server_->address());
  ASSERT_NE(client, nullptr);
  absl::StatusOr<bool> serving = client->Health();
  ASSERT_TRUE(serving.ok()) << serving.status();
  EXPECT_TRUE(*serving);
  // An unknown service is an error (NOT_FOUND from gRPC's health service).
  absl::StatusOr<bool> unknown = client->Health("no.such.Service");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound) << unknown.status();
}

TEST_F(HopmapClientTest, UnixSocket) {
  std::unique_ptr<HopmapClient> client = ConnectTo(server_->unix_address());
  ASSERT_NE(client, nullptr);
  absl::StatusOr<v1::Machine> machine = client->GetMachine("bgp-8x8x8");
  ASSERT_TRUE(machine.ok()) << machine.status();
  absl::StatusOr<std::shared_ptr<Machine>> model = MachineFromProto(*machine);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->num_nodes(), 512);
}

TEST(HopmapClientTokenTest, TokensAreSentAndChecked) {
  server::ServiceOptions options = TestOptions();
  options.token = "user-secret";
  options.admin_token = "admin-secret";
  TestServer server(options);
  const TaskGraph graph = Stencil(8, 8);

  std::unique_ptr<HopmapClient> anonymous = ConnectTo(server.address());
  ASSERT_NE(anonymous, nullptr);
  absl::StatusOr<MappingReport> report = anonymous->Map(StencilRequest(graph));
  EXPECT_EQ(report.status().code(), absl::StatusCode::kUnauthenticated) << report.status();
  EXPECT_THAT(report.status().message(), HasSubstr("token"));
  EXPECT_EQ(anonymous->ListMachines().status().code(), absl::StatusCode::kUnauthenticated);

  std::unique_ptr<HopmapClient> wrong = ConnectTo(server.address(), "guess");
  ASSERT_NE(wrong, nullptr);
  EXPECT_EQ(wrong->Map(StencilRequest(graph)).status().code(), absl::StatusCode::kUnauthenticated);

  std::unique_ptr<HopmapClient> user = ConnectTo(server.address(), "user-secret");
  ASSERT_NE(user, nullptr);
  report = user->Map(StencilRequest(graph));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->tasks, 64);
  v1::Machine lab;
  lab.set_name("lab");
  lab.set_spec("mesh:4x4");
  EXPECT_EQ(user->PutMachine(lab).status().code(), absl::StatusCode::kPermissionDenied);

  std::unique_ptr<HopmapClient> admin = ConnectTo(server.address(), "admin-secret");
  ASSERT_NE(admin, nullptr);
  ASSERT_TRUE(admin->PutMachine(lab).ok());
  EXPECT_TRUE(admin->DeleteMachine("lab").ok());
}

// A port nobody listens on: bound, then closed.
int ClosedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  EXPECT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  close(fd);
  return ntohs(addr.sin_port);
}

TEST(HopmapClientConnectTest, ClosedPortIsUnavailableAndNamesTheAddress) {
  const std::string address = absl::StrCat("127.0.0.1:", ClosedPort());
  ConnectOptions options;
  options.address = address;
  // A refused connection ends the wait at once, whatever the timeout (a Slurm prolog
  // must learn in milliseconds that the daemon is down): with a day's timeout this
  // test would otherwise hit ctest's limit.
  options.connect_timeout_seconds = 86400;
  absl::StatusOr<std::unique_ptr<HopmapClient>> client = HopmapClient::Connect(options);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), absl::StatusCode::kUnavailable) << client.status();
  EXPECT_THAT(client.status().message(), HasSubstr("cannot reach hopmapd at " + address));
  EXPECT_THAT(client.status().message(), HasSubstr("Connection refused"));

  // Connecting lazily, the first call fails the same way.
  options.connect_timeout_seconds = 0;
  client = HopmapClient::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<std::vector<v1::MachineSummary>> list = (*client)->ListMachines(5);
  EXPECT_EQ(list.status().code(), absl::StatusCode::kUnavailable) << list.status();
  EXPECT_THAT(list.status().message(), HasSubstr("cannot reach hopmapd at " + address));
}

TEST(HopmapClientConnectTest, BadOptions) {
  ConnectOptions options;
  EXPECT_EQ(HopmapClient::Connect(options).status().code(), absl::StatusCode::kInvalidArgument);
  options.address = "127.0.0.1:1";
  options.max_message_bytes = 0;
  EXPECT_THAT(HopmapClient::Connect(options).status().message(), HasSubstr("max_message_bytes"));
  options.max_message_bytes = 1 << 20;
  options.tls_ca_file = "/nonexistent/ca.pem";
  absl::StatusOr<std::unique_ptr<HopmapClient>> client = HopmapClient::Connect(options);
  EXPECT_EQ(client.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(client.status().message(), HasSubstr("/nonexistent/ca.pem"));
}

}  // namespace
}  // namespace hopmap::client

namespace hopmap::client {
namespace {

TEST(ChannelTargetTest, ListsOfReplicasBecomeGrpcTargets) {
  EXPECT_EQ(*ChannelTarget("127.0.0.1:50051"), "127.0.0.1:50051");
  EXPECT_EQ(*ChannelTarget("unix:/run/hopmapd.sock"), "unix:/run/hopmapd.sock");
  EXPECT_EQ(*ChannelTarget("dns:///hopmapd.example.org:50051"), "dns:///hopmapd.example.org:50051");
  EXPECT_EQ(*ChannelTarget("10.0.0.1:50051, 10.0.0.2:50052,10.0.0.3:50053"),
            "ipv4:10.0.0.1:50051,10.0.0.2:50052,10.0.0.3:50053");
  EXPECT_EQ(*ChannelTarget("[::1]:50051,[fe80::2]:50051"), "ipv6:[::1]:50051,[fe80::2]:50051");
}

TEST(ChannelTargetTest, BadListsNameTheEntry) {
  const struct {
    std::string address, message;
  } cases[] = {
      {"10.0.0.1:50051,node7:50051", "'node7:50051' in the list is not an IP address"},
      {"10.0.0.1:50051,10.0.0.2", "'10.0.0.2' in the list has no port"},
      {"10.0.0.1:50051,10.0.0.2:99999", "has no port 1..65535"},
      {"10.0.0.1:50051,[::1]:50051", "mixes IPv4 and IPv6"},
      {"10.0.0.1:50051,[::1", "is not [IPV6]:PORT"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<std::string> target = ChannelTarget(c.address);
    ASSERT_FALSE(target.ok()) << c.address;
    EXPECT_THAT(std::string(target.status().message()), ::testing::HasSubstr(c.message))
        << c.address;
  }
  // Connect refuses it before opening anything.
  ConnectOptions options;
  options.address = "10.0.0.1:50051,node7:50051";
  EXPECT_TRUE(absl::IsInvalidArgument(HopmapClient::Connect(options).status()));
}

}  // namespace
}  // namespace hopmap::client
