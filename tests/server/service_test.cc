// MapperService on an in-process gRPC server (no sockets): results, every error
// path a request can take, tokens, the catalog RPCs, the cache, streaming,
// admission and cancellation.
#include "server/service.h"

#include <stdlib.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/graph/generators.h"
#include "core/solve/report.h"
#include "core/solve/solve_mapping.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "hopmap/v1/mapper.grpc.pb.h"
#include "proto/convert/convert.h"
#include "server/catalog.h"
#include "server/service_options.h"
#include "server/status_util.h"

namespace hopmap::server {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// Generous bound for anything that should happen "promptly" (no timing claims).
constexpr absl::Duration kPatience = absl::Seconds(30);

std::string MakeTempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "hopmap_service_XXXXXX").string();
  char* dir = mkdtemp(pattern.data());
  EXPECT_NE(dir, nullptr);
  return pattern;
}

// A ring of n tasks as CSR: task i talks to i-1 and i+1 (mod n), `bytes` each way.
v1::TaskGraph RingCsr(int n, int64_t bytes = 100) {
  v1::TaskGraph g;
  g.add_xadj(0);
  for (int i = 0; i < n; ++i) {
    const int a = (i + n - 1) % n;
    const int b = (i + 1) % n;
    g.add_adjncy(std::min(a, b));
    g.add_adjncy(std::max(a, b));
    g.add_adjwgt(bytes);
    g.add_adjwgt(bytes);
    g.add_xadj(g.adjncy_size());
  }
  return g;
}

v1::TaskGraph Stencil3d(int x, int y, int z) {
  GeneratorOptions options;
  options.kind = "stencil3d-7";
  options.dims = {x, y, z};
  options.wrap = true;
  absl::StatusOr<TaskGraph> graph = GenerateGraph(options);
  EXPECT_TRUE(graph.ok()) << graph.status();
  v1::TaskGraph proto;
  TaskGraphToProto(*graph, &proto);
  return proto;
}

// A small valid Map request: an 8-task ring on 4 nodes x 4 cores of bgp-8x8x8.
v1::MapRequest SmallRequest() {
  v1::MapRequest request;
  request.set_machine_name("bgp-8x8x8");
  request.mutable_allocation()->set_nodes("0-3");
  *request.mutable_graph() = RingCsr(8);
  request.set_algorithm("in-order");
  return request;
}

// A solve that runs until its time limit or its cancellation: axis-order tries
// 9! orders on an 8-dimensional torus.
v1::MapRequest SlowRequest() {
  v1::MapRequest request;
  request.mutable_machine()->set_spec("torus:3x3x3x3x3x3x3x3");
  request.mutable_machine()->set_cores_per_node(1);
  *request.mutable_graph() = RingCsr(6561);
  request.set_algorithm("axis-order");
  request.set_time_limit_seconds(250);
  request.set_threads(1);
  return request;
}

// Waits (up to kPatience) for `done` to hold; false if it never did.
template <typename F>
bool Eventually(F done) {
  const absl::Time until = absl::Now() + kPatience;
  while (!done()) {
    if (absl::Now() > until) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return true;
}

// The service on an in-process server, with its log lines captured.
class Harness {
 public:
  explicit Harness(ServiceOptions options = {}) : state_dir_(MakeTempDir()) {
    absl::StatusOr<std::unique_ptr<MachineCatalog>> catalog = MachineCatalog::Open("", state_dir_);
    EXPECT_TRUE(catalog.ok()) << catalog.status();
    absl::StatusOr<std::unique_ptr<MapperService>> service =
        MapperService::Create(*std::move(catalog), options, [this](const std::string& line) {
          absl::MutexLock lock(&log_mu_);
          log_.push_back(line);
        });
    EXPECT_TRUE(service.ok()) << service.status();
    service_ = *std::move(service);
    grpc::ServerBuilder builder;
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    stub_ = v1::Mapper::NewStub(server_->InProcessChannel(grpc::ChannelArguments()));
  }
  ~Harness() {
    service_->CancelAll();
    server_->Shutdown();
    server_->Wait();
    std::error_code ignored;
    std::filesystem::remove_all(state_dir_, ignored);
  }

  v1::Mapper::Stub& stub() { return *stub_; }
  MapperService& service() { return *service_; }
  std::vector<std::string> log() {
    absl::MutexLock lock(&log_mu_);
    return log_;
  }

  grpc::Status Map(const v1::MapRequest& request, v1::MapReply* reply,
                   const std::string& token = "") {
    grpc::ClientContext context;
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
    return stub_->Map(&context, request, reply);
  }

 private:
  std::string state_dir_;
  absl::Mutex log_mu_;
  std::vector<std::string> log_;
  std::unique_ptr<MapperService> service_;  // outlives the server
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v1::Mapper::Stub> stub_;
};

#define EXPECT_CODE(status, code, substring)                                  \
  do {                                                                        \
    const grpc::Status& s_ = (status);                                        \
    EXPECT_EQ(s_.error_code(), grpc::StatusCode::code) << s_.error_message(); \
    EXPECT_THAT(s_.error_message(), HasSubstr(substring));                    \
  } while (0)

TEST(ServiceOptionsTest, DefaultsAreValidAndErrorsNameTheFlag) {
  ServiceOptions options;
  EXPECT_TRUE(options.Validate().ok());
  EXPECT_EQ(options.max_tasks, 2'000'000);
  EXPECT_EQ(options.max_edges, 50'000'000);
  EXPECT_EQ(options.max_message_bytes, 256 << 20);
  EXPECT_EQ(options.max_concurrent, 2);
  EXPECT_EQ(options.max_queued, 64);
  EXPECT_EQ(options.default_time_limit_seconds, 0.0);  // sized to the job
  EXPECT_EQ(options.max_time_limit_seconds, 300.0);
  EXPECT_EQ(options.cache_bytes, int64_t{1} << 30);

  ServiceOptions bad = options;
  bad.max_concurrent = 0;
  EXPECT_THAT(std::string(bad.Validate().message()), HasSubstr("--max-concurrent"));
  bad = options;
  bad.default_time_limit_seconds = 400;
  EXPECT_THAT(std::string(bad.Validate().message()), HasSubstr("--default-time-limit"));
  bad.default_time_limit_seconds = -1;
  EXPECT_THAT(std::string(bad.Validate().message()), HasSubstr("--default-time-limit"));
  bad = options;
  bad.max_time_limit_seconds = std::nan("");
  EXPECT_THAT(std::string(bad.Validate().message()), HasSubstr("--max-time-limit"));
  bad = options;
  bad.max_message_bytes = int64_t{4} << 30;  // gRPC takes an int
  EXPECT_THAT(std::string(bad.Validate().message()), HasSubstr("--max-message-bytes"));
  bad = options;
  bad.token = "has space";
  EXPECT_THAT(std::string(bad.Validate().message()), HasSubstr("--token"));
  EXPECT_FALSE(MapperService::Create(nullptr, options).ok());
}

TEST(StatusUtilTest, KeepsCodeAndMessage) {
  const grpc::Status s = ToGrpcStatus(absl::NotFoundError("machine 'x' is not in the catalog"));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(s.error_message(), "machine 'x' is not in the catalog");
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
  EXPECT_EQ(ToGrpcStatus(absl::ResourceExhaustedError("busy")).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(ToGrpcStatus(absl::UnauthenticatedError("t")).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_STREQ(GrpcCodeName(grpc::StatusCode::INVALID_ARGUMENT), "INVALID_ARGUMENT");
  const grpc::Status long_message =
      ToGrpcStatus(absl::InvalidArgumentError(std::string(100000, 'x')));
  EXPECT_EQ(long_message.error_message().size(), kMaxStatusMessageBytes + 15);
  EXPECT_THAT(long_message.error_message(), ::testing::EndsWith("... (truncated)"));
}

TEST(ServiceTest, HugeEchoedFieldsStillGiveTheirStatus) {
  Harness h;
  v1::MapRequest request = SmallRequest();
  request.set_algorithm(std::string(1 << 20, 'a'));
  v1::MapReply reply;
  EXPECT_CODE(h.Map(request, &reply), INVALID_ARGUMENT, "algorithm: unknown algorithm");
  request = SmallRequest();
  request.set_machine_name(std::string(1 << 20, 'm'));
  EXPECT_CODE(h.Map(request, &reply), NOT_FOUND, "is not in the catalog");
}

TEST(ServiceTest, MapEqualsSolveMappingCalledDirectly) {
  Harness h;
  v1::MapRequest request;
  request.set_machine_name("bgp-8x8x8");
  request.mutable_allocation()->set_nodes("0-127");
  *request.mutable_graph() = Stencil3d(8, 8, 8);
  request.set_algorithm("auto");
  request.set_seed(5);
  request.set_threads(1);
  request.set_time_limit_seconds(120);
  v1::MapReply reply;
  ASSERT_TRUE(h.Map(request, &reply).ok());

  absl::StatusOr<std::shared_ptr<const CatalogEntry>> entry =
      h.service().catalog().Get("bgp-8x8x8");
  ASSERT_TRUE(entry.ok());
  std::vector<NodeId> nodes(128);
  for (int i = 0; i < 128; ++i) nodes[i] = i;
  absl::StatusOr<Allocation> allocation = Allocation::Create((*entry)->model, nodes, 4);
  ASSERT_TRUE(allocation.ok());
  absl::StatusOr<TaskGraph> graph = TaskGraphFromProto(request.graph());
  ASSERT_TRUE(graph.ok());
  MapperOptions options;
  options.seed = 5;
  options.threads = 1;
  options.time_limit_seconds = 120;
  absl::StatusOr<MappingReport> direct = SolveMapping(*graph, *allocation, "auto", options);
  ASSERT_TRUE(direct.ok()) << direct.status();

  EXPECT_EQ(reply.tasks(), 512);
  EXPECT_EQ(reply.slots(), 512);
  EXPECT_THAT(reply.slot_of_task(), ElementsAreArray(direct->slot_of_task));
  EXPECT_THAT(reply.node_of_task(), ElementsAreArray(direct->node_of_task));
  EXPECT_EQ(reply.hop_bytes(), direct->hop_bytes);
  EXPECT_EQ(reply.algorithm(), direct->algorithm);
  EXPECT_EQ(reply.baseline_hop_bytes(), direct->baseline_hop_bytes);
  EXPECT_EQ(reply.lower_bound(), direct->lower_bound.value);
  EXPECT_EQ(reply.candidates_size(), static_cast<int>(direct->candidates.size()));
  EXPECT_GT(reply.candidates_size(), 1);
  EXPECT_FALSE(reply.request_id().empty());
  // The in-order placement of a 3D halo on a partial torus is not the best one.
  EXPECT_LE(reply.hop_bytes(), reply.baseline_hop_bytes());
}

// The objective travels from the request to the portfolio: with "dilation" the
// answer comes from the longest-edge refinement, whose figures the reply lists.
TEST(ServiceTest, DilationObjectiveEndsWithItsRefinement) {
  Harness h;
  v1::MapRequest request;
  request.set_machine_name("bgp-8x8x8");
  request.mutable_allocation()->set_nodes("0-15,100-115,300-315");
  *request.mutable_graph() = Stencil3d(8, 8, 3);
  request.set_objective("dilation");
  request.set_time_limit_seconds(1);
  v1::MapReply reply;
  ASSERT_TRUE(h.Map(request, &reply).ok());
  double after = -1;
  for (const v1::Candidate& c : reply.candidates()) {
    if (c.algorithm() != "dilation-refine") continue;
    for (const v1::Statistic& stat : c.stats()) {
      if (stat.name() == "max_dilation_after") after = stat.value();
    }
  }
  ASSERT_GE(after, 1) << "no dilation-refine candidate with its figures";
  EXPECT_LE(reply.max_dilation(), after);
}

TEST(ServiceTest, OneLogLinePerRequestWithIdAndStatus) {
  Harness h;
  v1::MapReply reply;
  ASSERT_TRUE(h.Map(SmallRequest(), &reply).ok());
  v1::MapRequest bad = SmallRequest();
  bad.set_machine_name("nope");
  v1::MapReply ignored;
  EXPECT_FALSE(h.Map(bad, &ignored).ok());
  const std::vector<std::string> log = h.log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_THAT(log[0], HasSubstr(absl::StrCat("request=", reply.request_id())));
  EXPECT_THAT(log[0], HasSubstr("method=Map"));
  EXPECT_THAT(log[0], HasSubstr("machine=bgp-8x8x8"));
  EXPECT_THAT(log[0], HasSubstr("tasks=8"));
  EXPECT_THAT(log[0], HasSubstr("algorithm=in-order"));
  EXPECT_THAT(log[0], HasSubstr(absl::StrCat("hop_bytes=", reply.hop_bytes())));
  EXPECT_THAT(log[0], HasSubstr("status=OK"));
  EXPECT_THAT(log[0], HasSubstr("peer="));
  EXPECT_THAT(log[1], HasSubstr("status=NOT_FOUND"));
  EXPECT_THAT(log[1], HasSubstr("nope"));
}

TEST(ServiceTest, ClientRequestIdIsKept) {
  Harness h;
  grpc::ClientContext context;
  context.AddMetadata("x-request-id", "job-42.step-1");
  v1::MapReply reply;
  ASSERT_TRUE(h.stub().Map(&context, SmallRequest(), &reply).ok());
  EXPECT_EQ(reply.request_id(), "job-42.step-1");
}

// Every bad request gets its code and a message naming the problem.
TEST(ServiceTest, BadMapRequests) {
  ServiceOptions options;
  options.max_tasks = 100;
  options.max_edges = 150;
  Harness h(options);
  struct Case {
    const char* name;
    std::function<void(v1::MapRequest&)> change;
    grpc::StatusCode code;
    std::vector<std::string> substrings;
  };
  const std::vector<Case> cases = {
      {"non-monotone xadj",
       [](v1::MapRequest& r) { r.mutable_graph()->set_xadj(2, 1); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"xadj[2]", "not monotone"}},
      {"neighbour out of range",
       [](v1::MapRequest& r) { r.mutable_graph()->set_adjncy(0, 99); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"adjncy[0] = 99", "out of range"}},
      {"negative CSR weight",
       [](v1::MapRequest& r) { r.mutable_graph()->set_adjwgt(3, -7); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"adjwgt[3] = -7"}},
      {"negative edge-list weight",
       [](v1::MapRequest& r) {
         v1::TaskGraph g;
         g.set_num_tasks(4);
         g.add_edge_u(0), g.add_edge_v(1), g.add_edge_bytes(10);
         g.add_edge_u(2), g.add_edge_v(3), g.add_edge_bytes(-5);
         *r.mutable_graph() = g;
       },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"graph.edge[1]", "negative weight -5"}},
      {"a CSR graph of zero tasks",
       [](v1::MapRequest& r) { *r.mutable_graph() = RingCsr(0); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"graph: the graph is empty: no tasks"}},
      {"no graph",
       [](v1::MapRequest& r) { r.clear_graph(); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"graph.num_tasks", "required"}},
      {"more tasks than slots",
       [](v1::MapRequest& r) { *r.mutable_graph() = RingCsr(20); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"20 tasks", "only 16 slots"}},
      {"unknown machine",
       [](v1::MapRequest& r) { r.set_machine_name("nope"); },
       grpc::StatusCode::NOT_FOUND,
       {"'nope'", "bgp-8x8x8", "kraken"}},
      {"node outside the machine",
       [](v1::MapRequest& r) {
         r.mutable_allocation()->clear_nodes();
         r.mutable_allocation()->add_node_ids(0);
         r.mutable_allocation()->add_node_ids(512);
       },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"allocation.node_ids[1]", "512", "outside"}},
      {"duplicate node",
       [](v1::MapRequest& r) {
         r.mutable_allocation()->clear_nodes();
         for (int id : {1, 2, 3, 1}) r.mutable_allocation()->add_node_ids(id);
       },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"node 1", "listed twice"}},
      {"more nodes listed than the machine has",
       [](v1::MapRequest& r) {
         r.mutable_allocation()->clear_nodes();
         for (int i = 0; i < 600; ++i) r.mutable_allocation()->add_node_ids(i % 512);
       },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"allocation.node_ids", "600", "only 512"}},
      {"too many tasks",
       [](v1::MapRequest& r) { *r.mutable_graph() = RingCsr(101); },
       grpc::StatusCode::RESOURCE_EXHAUSTED,
       {"tasks 101", "limit of 100", "--max-tasks"}},
      {"too many edges",
       [](v1::MapRequest& r) {
         v1::TaskGraph g;
         g.set_num_tasks(4);
         for (int i = 0; i < 151; ++i) g.add_edge_u(0), g.add_edge_v(1), g.add_edge_bytes(1);
         *r.mutable_graph() = g;
       },
       grpc::StatusCode::RESOURCE_EXHAUSTED,
       {"edges 151", "--max-edges"}},
      {"CSR and edge list",
       [](v1::MapRequest& r) {
         r.mutable_graph()->add_edge_u(0);
         r.mutable_graph()->add_edge_v(1);
         r.mutable_graph()->add_edge_bytes(5);
       },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"not both"}},
      {"unknown algorithm",
       [](v1::MapRequest& r) { r.set_algorithm("magic"); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"algorithm:", "'magic'", "axis-order"}},
      {"unknown objective",
       [](v1::MapRequest& r) { r.set_objective("speed"); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"objective:", "'speed'"}},
      {"unknown routing",
       [](v1::MapRequest& r) { r.set_routing("random"); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"routing:", "'random'"}},
      {"negative time limit",
       [](v1::MapRequest& r) { r.set_time_limit_seconds(-1); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"time_limit_seconds"}},
      {"NaN time limit",
       [](v1::MapRequest& r) { r.set_time_limit_seconds(std::nan("")); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"time_limit_seconds"}},
      {"negative threads",
       [](v1::MapRequest& r) { r.set_threads(-2); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"threads", "-2"}},
      {"negative cores",
       [](v1::MapRequest& r) { r.mutable_allocation()->set_cores_per_node(-1); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"allocation.cores_per_node"}},
      {"no machine",
       [](v1::MapRequest& r) { r.clear_machine_name(); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"machine_name", "required"}},
      {"inline machine without dims",
       [](v1::MapRequest& r) { r.mutable_machine()->mutable_torus(); },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"machine.torus.dims"}},
      {"inline machine too large",
       [](v1::MapRequest& r) { r.mutable_machine()->set_spec("torus:4096x4096"); },
       grpc::StatusCode::RESOURCE_EXHAUSTED,
       {"16777216", "--max-machine-nodes"}},
      {"hostname not in the machine",
       [](v1::MapRequest& r) {
         r.mutable_allocation()->clear_nodes();
         r.mutable_allocation()->add_hostnames("nid99999");
       },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"allocation.hostnames[0]", "nid99999"}},
      {"congestion without links",
       [](v1::MapRequest& r) {
         v1::DistanceMatrix* m = r.mutable_machine()->mutable_distance_matrix();
         m->set_num_nodes(2);
         for (int h : {0, 1, 1, 0}) m->add_hops(h);
         r.mutable_allocation()->clear_nodes();
         r.mutable_allocation()->set_cores_per_node(4);
         r.set_objective("congestion");
       },
       grpc::StatusCode::INVALID_ARGUMENT,
       {"congestion"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    v1::MapRequest request = SmallRequest();
    c.change(request);
    v1::MapReply reply;
    const grpc::Status status = h.Map(request, &reply);
    EXPECT_EQ(status.error_code(), c.code) << status.error_message();
    for (const std::string& s : c.substrings) EXPECT_THAT(status.error_message(), HasSubstr(s));
  }
  // The daemon still serves after all of them.
  v1::MapReply reply;
  EXPECT_TRUE(h.Map(SmallRequest(), &reply).ok());
}

TEST(ServiceTest, InlineMachineAndItsCache) {
  Harness h;
  v1::MapRequest request = SmallRequest();
  request.mutable_machine()->mutable_torus()->add_dims(4);
  request.mutable_machine()->mutable_torus()->add_dims(4);
  request.mutable_machine()->set_cores_per_node(2);
  request.mutable_allocation()->set_nodes("0-3");
  v1::MapReply first;
  ASSERT_TRUE(h.Map(request, &first).ok());
  EXPECT_FALSE(first.cache_hit());
  EXPECT_EQ(first.machine(), "torus:4x4:cores=2");
  EXPECT_EQ(first.slots(), 8);
  v1::MapReply second;
  ASSERT_TRUE(h.Map(request, &second).ok());
  EXPECT_TRUE(second.cache_hit());
  EXPECT_THAT(second.slot_of_task(), ElementsAreArray(first.slot_of_task()));
  // Another inline machine is another cache entry.
  request.mutable_machine()->mutable_torus()->set_dims(1, 5);
  v1::MapReply third;
  ASSERT_TRUE(h.Map(request, &third).ok());
  EXPECT_FALSE(third.cache_hit());
  EXPECT_EQ(third.machine(), "torus:4x5:cores=2");
}

TEST(ServiceTest, CacheHitOnARepeatedRequest) {
  Harness h;
  v1::MapReply first;
  ASSERT_TRUE(h.Map(SmallRequest(), &first).ok());
  EXPECT_FALSE(first.cache_hit());
  v1::MapReply second;
  ASSERT_TRUE(h.Map(SmallRequest(), &second).ok());
  EXPECT_TRUE(second.cache_hit());
  EXPECT_EQ(second.hop_bytes(), first.hop_bytes());
  EXPECT_NE(second.request_id(), first.request_id());
  // Another allocation of the same machine misses.
  v1::MapRequest other = SmallRequest();
  other.mutable_allocation()->set_nodes("8-11");
  v1::MapReply third;
  ASSERT_TRUE(h.Map(other, &third).ok());
  EXPECT_FALSE(third.cache_hit());
}

TEST(ServiceTest, TokensGuardEveryCallAndAdminGuardsTheCatalog) {
  ServiceOptions options;
  options.token = "user-secret";
  options.admin_token = "admin-secret";
  Harness h(options);
  auto list = [&](const std::string& authorization) {
    grpc::ClientContext context;
    if (!authorization.empty()) context.AddMetadata("authorization", authorization);
    v1::ListMachinesReply reply;
    return h.stub().ListMachines(&context, v1::ListMachinesRequest(), &reply);
  };
  EXPECT_CODE(list(""), UNAUTHENTICATED, "authorization: Bearer");
  EXPECT_CODE(list("Bearer wrong"), UNAUTHENTICATED, "wrong token");
  EXPECT_CODE(list("user-secret"), UNAUTHENTICATED, "Bearer <token>");
  EXPECT_TRUE(list("Bearer user-secret").ok());
  EXPECT_TRUE(list("Bearer admin-secret").ok());

  v1::MapReply reply;
  EXPECT_CODE(h.Map(SmallRequest(), &reply), UNAUTHENTICATED, "token");
  EXPECT_CODE(h.Map(SmallRequest(), &reply, "nope"), UNAUTHENTICATED, "wrong token");
  EXPECT_TRUE(h.Map(SmallRequest(), &reply, "user-secret").ok());
  EXPECT_TRUE(h.Map(SmallRequest(), &reply, "admin-secret").ok());

  auto put = [&](const std::string& token) {
    grpc::ClientContext context;
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
    v1::PutMachineRequest request;
    request.mutable_machine()->set_name("lab");
    request.mutable_machine()->set_spec("torus:2x2");
    v1::Machine stored;
    return h.stub().PutMachine(&context, request, &stored);
  };
  EXPECT_CODE(put(""), UNAUTHENTICATED, "token");
  EXPECT_CODE(put("user-secret"), PERMISSION_DENIED, "catalog changes need the admin token");
  EXPECT_TRUE(put("admin-secret").ok());

  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer user-secret");
  v1::DeleteMachineRequest remove;
  remove.set_name("lab");
  v1::DeleteMachineReply removed;
  EXPECT_CODE(h.stub().DeleteMachine(&context, remove, &removed), PERMISSION_DENIED, "admin token");
}

TEST(ServiceTest, AdminTokenAloneLeavesOrdinaryCallsOpen) {
  ServiceOptions options;
  options.admin_token = "admin-secret";
  Harness h(options);
  v1::MapReply reply;
  EXPECT_TRUE(h.Map(SmallRequest(), &reply).ok());
  grpc::ClientContext context;
  v1::PutMachineRequest request;
  request.mutable_machine()->set_name("lab");
  request.mutable_machine()->set_spec("torus:2x2");
  v1::Machine stored;
  EXPECT_CODE(h.stub().PutMachine(&context, request, &stored), PERMISSION_DENIED, "admin token");
}

TEST(ServiceTest, PutGetListDeleteMachine) {
  Harness h;
  v1::PutMachineRequest put;
  put.mutable_machine()->set_name("lab-torus");
  put.mutable_machine()->set_description("the lab's 4x4 torus");
  put.mutable_machine()->set_spec("torus:4x4");
  put.mutable_machine()->set_cores_per_node(2);
  {
    grpc::ClientContext context;
    v1::Machine stored;
    ASSERT_TRUE(h.stub().PutMachine(&context, put, &stored).ok());
    EXPECT_EQ(stored.name(), "lab-torus");
    EXPECT_EQ(stored.spec(), "torus:4x4");
  }
  {
    grpc::ClientContext context;
    v1::GetMachineRequest get;
    get.set_name("lab-torus");
    v1::Machine machine;
    ASSERT_TRUE(h.stub().GetMachine(&context, get, &machine).ok());
    EXPECT_EQ(machine.description(), "the lab's 4x4 torus");
    EXPECT_EQ(machine.cores_per_node(), 2);
  }
  {
    grpc::ClientContext context;
    v1::ListMachinesReply list;
    ASSERT_TRUE(h.stub().ListMachines(&context, v1::ListMachinesRequest(), &list).ok());
    bool found = false;
    bool builtin = false;
    for (const v1::MachineSummary& m : list.machines()) {
      if (m.name() == "lab-torus") {
        found = true;
        EXPECT_EQ(m.origin(), "stored");
        EXPECT_EQ(m.num_nodes(), 16);
        EXPECT_EQ(m.cores_per_node(), 2);
        EXPECT_EQ(m.spec(), "torus:4x4:cores=2");
        EXPECT_EQ(m.description(), "the lab's 4x4 torus");
      }
      if (m.name() == "kraken") {
        builtin = true;
        EXPECT_EQ(m.origin(), "builtin");
      }
    }
    EXPECT_TRUE(found);
    EXPECT_TRUE(builtin);
  }
  // Map by the new name: the cache misses, then hits, and misses again once the
  // machine is replaced (the old version's allocations are gone).
  v1::MapRequest request = SmallRequest();
  request.set_machine_name("lab-torus");
  request.mutable_allocation()->set_nodes("0-3");
  v1::MapReply reply;
  ASSERT_TRUE(h.Map(request, &reply).ok());
  EXPECT_FALSE(reply.cache_hit());
  EXPECT_EQ(reply.slots(), 8);
  ASSERT_TRUE(h.Map(request, &reply).ok());
  EXPECT_TRUE(reply.cache_hit());
  put.mutable_machine()->set_cores_per_node(4);
  {
    grpc::ClientContext context;
    v1::Machine stored;
    ASSERT_TRUE(h.stub().PutMachine(&context, put, &stored).ok());
  }
  ASSERT_TRUE(h.Map(request, &reply).ok());
  EXPECT_FALSE(reply.cache_hit());
  EXPECT_EQ(reply.slots(), 16);

  {
    grpc::ClientContext context;
    v1::DeleteMachineRequest remove;
    remove.set_name("lab-torus");
    v1::DeleteMachineReply removed;
    ASSERT_TRUE(h.stub().DeleteMachine(&context, remove, &removed).ok());
  }
  {
    grpc::ClientContext context;
    v1::GetMachineRequest get;
    get.set_name("lab-torus");
    v1::Machine machine;
    EXPECT_CODE(h.stub().GetMachine(&context, get, &machine), NOT_FOUND, "lab-torus");
  }
  EXPECT_CODE(h.Map(request, &reply), NOT_FOUND, "lab-torus");
}

TEST(ServiceTest, BadCatalogRequests) {
  Harness h;
  auto put = [&](const v1::Machine& machine) {
    grpc::ClientContext context;
    v1::PutMachineRequest request;
    *request.mutable_machine() = machine;
    v1::Machine stored;
    return h.stub().PutMachine(&context, request, &stored);
  };
  v1::Machine machine;
  machine.set_spec("torus:2x2");
  EXPECT_CODE(put(machine), INVALID_ARGUMENT, "machine.name");
  machine.set_name("has space");
  EXPECT_CODE(put(machine), INVALID_ARGUMENT, "machine.name");
  machine.set_name("kraken");
  EXPECT_CODE(put(machine), FAILED_PRECONDITION, "built in");
  machine.set_name("huge");
  machine.set_spec("torus:8192x8192");
  EXPECT_CODE(put(machine), RESOURCE_EXHAUSTED, "--max-machine-nodes");
  machine.clear_spec();
  EXPECT_CODE(put(machine), INVALID_ARGUMENT, "no model");

  grpc::ClientContext context;
  v1::DeleteMachineRequest remove;
  remove.set_name("kraken");
  v1::DeleteMachineReply removed;
  EXPECT_CODE(h.stub().DeleteMachine(&context, remove, &removed), FAILED_PRECONDITION, "kraken");
  grpc::ClientContext context2;
  remove.set_name("never-stored");
  EXPECT_CODE(h.stub().DeleteMachine(&context2, remove, &removed), NOT_FOUND, "never-stored");
  grpc::ClientContext context3;
  v1::Machine got;
  EXPECT_CODE(h.stub().GetMachine(&context3, v1::GetMachineRequest(), &got), INVALID_ARGUMENT,
              "name");
}

TEST(ServiceTest, EvaluateMeasuresTheGivenMapping) {
  Harness h;
  v1::MapReply mapped;
  ASSERT_TRUE(h.Map(SmallRequest(), &mapped).ok());
  v1::EvaluateRequest request;
  request.set_machine_name("bgp-8x8x8");
  request.mutable_allocation()->set_nodes("0-3");
  *request.mutable_graph() = RingCsr(8);
  *request.mutable_slot_of_task() = mapped.slot_of_task();
  request.set_busiest_links(3);
  grpc::ClientContext context;
  v1::MapReply reply;
  ASSERT_TRUE(h.stub().Evaluate(&context, request, &reply).ok());
  EXPECT_EQ(reply.algorithm(), "given");
  EXPECT_EQ(reply.hop_bytes(), mapped.hop_bytes());
  EXPECT_TRUE(reply.cache_hit());
  EXPECT_GT(reply.busiest_links_size(), 0);
  EXPECT_LE(reply.busiest_links_size(), 3);

  // Two tasks on one slot; too few entries.
  request.set_slot_of_task(1, request.slot_of_task(0));
  grpc::ClientContext context2;
  EXPECT_CODE(h.stub().Evaluate(&context2, request, &reply), INVALID_ARGUMENT, "mapping: tasks");
  request.mutable_slot_of_task()->RemoveLast();
  grpc::ClientContext context3;
  EXPECT_CODE(h.stub().Evaluate(&context3, request, &reply), INVALID_ARGUMENT, "slot_of_task");
  request.set_busiest_links(-1);
  grpc::ClientContext context4;
  EXPECT_CODE(h.stub().Evaluate(&context4, request, &reply), INVALID_ARGUMENT, "busiest_links");
  // A graph of zero tasks (and so no mapping) is no job to measure.
  request.set_busiest_links(0);
  *request.mutable_graph() = RingCsr(0);
  request.clear_slot_of_task();
  grpc::ClientContext context5;
  EXPECT_CODE(h.stub().Evaluate(&context5, request, &reply), INVALID_ARGUMENT,
              "graph: the graph is empty: no tasks");
}

TEST(ServiceTest, AnalyzeGivesBasicStatistics) {
  Harness h;
  v1::AnalyzeRequest request;
  v1::TaskGraph* g = request.mutable_graph();
  g->set_num_tasks(4);
  // 0-1: 10 + 5, 1-2: 7, 2-3: 1, 0-3: 2, self traffic 9.
  const int u[] = {0, 1, 1, 2, 3, 2};
  const int v[] = {1, 0, 2, 3, 0, 2};
  const int64_t w[] = {10, 5, 7, 1, 2, 9};
  for (int i = 0; i < 6; ++i) g->add_edge_u(u[i]), g->add_edge_v(v[i]), g->add_edge_bytes(w[i]);
  grpc::ClientContext context;
  v1::AnalyzeReply reply;
  ASSERT_TRUE(h.stub().Analyze(&context, request, &reply).ok());
  EXPECT_EQ(reply.tasks(), 4);
  EXPECT_EQ(reply.edges(), 4);
  EXPECT_EQ(reply.total_bytes(), 25);
  EXPECT_EQ(reply.self_bytes(), 9);
  EXPECT_EQ(reply.max_degree(), 2);
  EXPECT_DOUBLE_EQ(reply.mean_degree(), 2.0);
  EXPECT_EQ(reply.max_edge_bytes(), 15);
  // The pattern is the analyzer's answer for the same graph.
  absl::StatusOr<TaskGraph> local = TaskGraphFromProto(request.graph());
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(reply.pattern(), AnalyzePattern(*local)->kind);

  request.mutable_graph()->set_edge_u(0, 7);
  grpc::ClientContext context2;
  EXPECT_CODE(h.stub().Analyze(&context2, request, &reply), INVALID_ARGUMENT, "graph.edge[0]");
  *request.mutable_graph() = RingCsr(0);
  grpc::ClientContext context3;
  EXPECT_CODE(h.stub().Analyze(&context3, request, &reply), INVALID_ARGUMENT,
              "graph: the graph is empty: no tasks");
}

TEST(ServiceTest, MapStreamSendsProgressThenExactlyOneResult) {
  Harness h;
  v1::MapRequest request;
  request.set_machine_name("bgp-8x8x8");
  request.mutable_allocation()->set_nodes("0-63");
  *request.mutable_graph() = Stencil3d(8, 8, 4);
  request.set_algorithm("auto");
  request.set_threads(1);
  request.set_time_limit_seconds(120);
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::MapProgress>> reader =
      h.stub().MapStream(&context, request);
  std::vector<v1::MapProgress> messages;
  v1::MapProgress message;
  while (reader->Read(&message)) messages.push_back(message);
  ASSERT_TRUE(reader->Finish().ok());

  ASSERT_GE(messages.size(), 2u);
  for (size_t i = 0; i + 1 < messages.size(); ++i) {
    ASSERT_TRUE(messages[i].has_progress()) << i;
    EXPECT_FALSE(messages[i].progress().candidate_finished().empty());
    EXPECT_GT(messages[i].progress().best_hop_bytes(), 0);
  }
  ASSERT_TRUE(messages.back().has_result());
  const v1::MapReply& result = messages.back().result();
  // The best so far never gets worse, and the last progress is the result's.
  for (size_t i = 1; i + 1 < messages.size(); ++i) {
    EXPECT_LE(messages[i].progress().best_hop_bytes(), messages[i - 1].progress().best_hop_bytes());
  }
  EXPECT_EQ(messages[messages.size() - 2].progress().best_hop_bytes(), result.hop_bytes());

  v1::MapReply unary;
  ASSERT_TRUE(h.Map(request, &unary).ok());
  EXPECT_THAT(result.slot_of_task(), ElementsAreArray(unary.slot_of_task()));
  EXPECT_EQ(result.hop_bytes(), unary.hop_bytes());

  // An error ends the stream with its status and no result.
  request.set_machine_name("nope");
  grpc::ClientContext context2;
  reader = h.stub().MapStream(&context2, request);
  int read = 0;
  while (reader->Read(&message)) ++read;
  EXPECT_EQ(read, 0);
  EXPECT_CODE(reader->Finish(), NOT_FOUND, "nope");
}

// Runs SlowRequest() on a thread; Cancel() stops it from the client side.
class SlowCall {
 public:
  explicit SlowCall(v1::Mapper::Stub& stub, v1::MapRequest request = SlowRequest())
      : thread_([this, &stub, request] { status_ = stub.Map(&context_, request, &reply_); }) {}
  ~SlowCall() {
    if (thread_.joinable()) {
      context_.TryCancel();
      thread_.join();
    }
  }
  void Cancel() { context_.TryCancel(); }
  const grpc::Status& Wait() {
    thread_.join();
    return status_;
  }
  const v1::MapReply& reply() const { return reply_; }

 private:
  grpc::ClientContext context_;
  grpc::Status status_;
  v1::MapReply reply_;
  std::thread thread_;  // last: starts after the members above exist
};

TEST(ServiceTest, BusyServerRefusesAndCancellationFreesTheSlot) {
  ServiceOptions options;
  options.max_concurrent = 1;
  options.max_queued = 0;
  Harness h(options);
  SlowCall slow(h.stub());
  ASSERT_TRUE(Eventually([&] { return h.service().admission().running() == 1; }));

  v1::MapReply reply;
  EXPECT_CODE(h.Map(SmallRequest(), &reply), RESOURCE_EXHAUSTED,
              "server busy: 1 solves running, 0 queued");
  // Catalog calls are not solves: they are served meanwhile.
  grpc::ClientContext context;
  v1::ListMachinesReply list;
  EXPECT_TRUE(h.stub().ListMachines(&context, v1::ListMachinesRequest(), &list).ok());

  slow.Cancel();
  EXPECT_EQ(slow.Wait().error_code(), grpc::StatusCode::CANCELLED);
  // The solve stops (its time limit is 250 s) and gives its slot back.
  ASSERT_TRUE(Eventually([&] { return h.service().admission().running() == 0; }));
  ASSERT_TRUE(Eventually([&] { return h.service().calls_in_flight() == 0; }));
  EXPECT_TRUE(h.Map(SmallRequest(), &reply).ok());
  bool logged = false;
  for (const std::string& line : h.log()) {
    if (absl::StrContains(line, "algorithm=axis-order") &&
        absl::StrContains(line, "status=CANCELLED")) {
      logged = true;
    }
  }
  EXPECT_TRUE(logged);
}

TEST(ServiceTest, QueuedCallWaitsAndCanBeCancelledWhileWaiting) {
  ServiceOptions options;
  options.max_concurrent = 1;
  options.max_queued = 1;
  Harness h(options);
  SlowCall running(h.stub());
  ASSERT_TRUE(Eventually([&] { return h.service().admission().running() == 1; }));
  SlowCall waiting(h.stub());
  ASSERT_TRUE(Eventually([&] { return h.service().admission().queued() == 1; }));

  v1::MapReply reply;
  EXPECT_CODE(h.Map(SmallRequest(), &reply), RESOURCE_EXHAUSTED,
              "server busy: 1 solves running, 1 queued");

  waiting.Cancel();
  const grpc::Status& status = waiting.Wait();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED) << status.error_message();
  ASSERT_TRUE(Eventually([&] { return h.service().admission().queued() == 0; }));
  EXPECT_EQ(h.service().admission().running(), 1);

  // A queued call runs once the slot frees.
  v1::MapRequest small = SmallRequest();
  SlowCall next(h.stub(), small);
  ASSERT_TRUE(Eventually([&] { return h.service().admission().queued() == 1; }));
  running.Cancel();
  EXPECT_EQ(running.Wait().error_code(), grpc::StatusCode::CANCELLED);
  const grpc::Status& next_status = next.Wait();
  EXPECT_TRUE(next_status.ok()) << next_status.error_message();
  EXPECT_EQ(next.reply().tasks(), 8);
}

TEST(ServiceTest, DeadlineCapsTheTimeLimit) {
  Harness h;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::MapReply reply;
  // The request asks for 250 s; the reply still comes before the deadline.
  const grpc::Status status = h.stub().Map(&context, SlowRequest(), &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.tasks(), 6561);
  EXPECT_LT(reply.solve_seconds(), 10.0);
  EXPECT_THAT(reply.algorithm(), HasSubstr("axis-order("));
}

TEST(ServiceTest, ABudgetOfZeroIsSizedToTheJob) {
  Harness h;
  {
    grpc::ClientContext context;
    v1::MapReply reply;
    v1::MapRequest request = SmallRequest();
    request.set_time_limit_seconds(0);
    const grpc::Status status = h.stub().Map(&context, request, &reply);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(reply.time_limit_seconds(), DefaultTimeLimitSeconds(reply.tasks()));
  }
  {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    v1::MapReply reply;
    v1::MapRequest request = SmallRequest();
    request.set_time_limit_seconds(7.5);  // the caller's budget wins
    const grpc::Status status = h.stub().Map(&context, request, &reply);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(reply.time_limit_seconds(), 7.5);
  }
}

TEST(ServiceTest, CancelAllStopsSolvesInFlight) {
  Harness h;
  SlowCall slow(h.stub());
  ASSERT_TRUE(Eventually([&] { return h.service().admission().running() == 1; }));
  h.service().CancelAll();
  // The solve returns its best so far to a client that is still there.
  const grpc::Status& status = slow.Wait();
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(slow.reply().tasks(), 6561);
  EXPECT_EQ(slow.reply().slot_of_task_size(), 6561);
}

}  // namespace
}  // namespace hopmap::server
