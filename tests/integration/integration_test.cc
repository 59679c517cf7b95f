// hopmapd end to end: a real daemon process on a free loopback port, real clients.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/lib/hopmap_client.h"
#include "core/graph/generators.h"
#include "core/io/graph_format.h"
#include "core/io/machine_spec.h"
#include "core/mappers/portfolio/registry.h"
#include "core/solve/report.h"
#include "core/solve/solve_mapping.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "hopmap/v1/mapper.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "proto/convert/convert.h"
#include "tests/client/cli_test_util.h"
#include "tests/integration/daemon_process.h"
#include "tests/integration/daemon_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::client::ConnectOptions;
using ::hopmap::client::HopmapClient;
using ::hopmap::testing::ConnectTo;
using ::hopmap::testing::DaemonProcess;
using ::hopmap::testing::Request;
using ::hopmap::testing::RunHopmap;
using ::hopmap::testing::Stencil;
using ::hopmap::testing::TempPath;
using ::hopmap::testing::WithoutTimes;
using ::testing::HasSubstr;

TEST(DaemonTest, ServesHealthAndTheSameMappingAsLocal) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("health.log"))) << daemon.error();
  auto client = ConnectTo(daemon);
  ASSERT_NE(client, nullptr);
  absl::StatusOr<bool> serving = client->Health();
  ASSERT_TRUE(serving.ok()) << serving.status();
  EXPECT_TRUE(*serving);

  const std::string graph = std::string(HOPMAP_DATA_DIR) + "/commgraphs/cnca_minife_1024.edgelist";
  for (const std::string& machine : {std::string("kraken --nodes 0-99,2000-2099"),
                                     std::string("bgp-8x8x8"), std::string("fattree-64x64")}) {
    // A budget the solve does not reach and capped searches: both runs end on the
    // same work, not on the clock (the default budget for 1024 tasks is 1 s).
    const std::string args = "map --machine " + machine + " --graph " + graph +
                             " --threads 2 --time-limit 120 --iterations 10";
    auto local = RunHopmap(args + " --local");
    auto remote = RunHopmap(args + " --server " + daemon.address() + " --quiet");
    ASSERT_EQ(local.exit_code, 0) << local.err;
    ASSERT_EQ(remote.exit_code, 0) << remote.err;
    EXPECT_EQ(WithoutTimes(nlohmann::json::parse(local.out)),
              WithoutTimes(nlohmann::json::parse(remote.out)))
        << machine;
  }
  // The other output formats too (capped the same way).
  auto local_rf = RunHopmap("map --local --machine bgp-8x8x8 --graph " + graph +
                            " --threads 2 --time-limit 120 --iterations 10 --format rankfile -q");
  auto remote_rf =
      RunHopmap("map --server " + daemon.address() + " --machine bgp-8x8x8 --graph " + graph +
                " --threads 2 --time-limit 120 --iterations 10 --format rankfile -q");
  EXPECT_EQ(local_rf.out, remote_rf.out);
  EXPECT_EQ(daemon.Signal(SIGTERM), 0);
}

// --keep-blocks crosses the wire (MapRequest.keep_blocks): the same blocks, the same
// torchrun file, and the daemon names the field it refuses.
TEST(DaemonTest, KeepsBlocksLikeLocal) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("blocks.log"))) << daemon.error();
  const std::string graph = std::string(HOPMAP_DATA_DIR) + "/commgraphs/cnca_minife_1024.edgelist";
  const std::string args = "map --machine fattree-64x64 --nodes 0-255 --cores 4 --graph " + graph +
                           " --threads 2 --time-limit 120 --iterations 10 --keep-blocks 4";
  auto local = RunHopmap(args + " --local");
  auto remote = RunHopmap(args + " --server " + daemon.address() + " --quiet");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  const nlohmann::json answer = nlohmann::json::parse(local.out);
  EXPECT_EQ(WithoutTimes(answer), WithoutTimes(nlohmann::json::parse(remote.out)));
  const std::vector<int> slots = answer["slot_of_task"].get<std::vector<int>>();
  ASSERT_EQ(slots.size(), 1024u);
  for (size_t t = 0; t < slots.size(); ++t) EXPECT_EQ(slots[t], slots[t - t % 4] + t % 4) << t;
  auto local_tr = RunHopmap(args + " --local --format torchrun -q");
  auto remote_tr = RunHopmap(args + " --server " + daemon.address() + " --format torchrun -q");
  ASSERT_EQ(local_tr.exit_code, 0) << local_tr.err;
  EXPECT_EQ(local_tr.out, remote_tr.out);
  auto refused = RunHopmap("map --server " + daemon.address() +
                           " --machine fattree-64x64 --nodes 0-255 --cores 4 --graph " + graph +
                           " --keep-blocks 3");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr("keep_blocks: blocks of 3 tasks must divide the 4 slots "
                                     "per node"));
  EXPECT_EQ(daemon.Signal(SIGTERM), 0);
}

TEST(DaemonTest, BadRequestsGetTheirCodeAndMessage) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({"--max-tasks", "5000"}, TempPath("bad.log"))) << daemon.error();
  auto client = ConnectTo(daemon);
  ASSERT_NE(client, nullptr);
  const TaskGraph graph = Stencil({8, 8});
  struct Case {
    std::string what;
    std::function<void(v1::MapRequest&)> edit;
    absl::StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"non-monotone xadj", [](v1::MapRequest& r) { r.mutable_graph()->set_xadj(3, 0); },
       absl::StatusCode::kInvalidArgument, "not monotone"},
      {"neighbour out of range", [](v1::MapRequest& r) { r.mutable_graph()->set_adjncy(0, 9999); },
       absl::StatusCode::kInvalidArgument, "out of range"},
      {"negative weight", [](v1::MapRequest& r) { r.mutable_graph()->set_adjwgt(0, -5); },
       absl::StatusCode::kInvalidArgument, "adjwgt[0]"},
      {"initial mapping of the wrong size",
       [](v1::MapRequest& r) { r.add_initial_slot_of_task(0); }, absl::StatusCode::kInvalidArgument,
       "initial mapping: has 1 entries"},
      {"more tasks than slots",
       [](v1::MapRequest& r) {
         r.mutable_allocation()->set_nodes("0-7");
         r.mutable_allocation()->set_cores_per_node(1);
       },
       absl::StatusCode::kInvalidArgument, "64 tasks but the allocation has only 8 slots"},
      {"unknown machine", [](v1::MapRequest& r) { r.set_machine_name("nosuch"); },
       absl::StatusCode::kNotFound, "nosuch"},
      {"node outside the machine",
       [](v1::MapRequest& r) { r.mutable_allocation()->set_nodes("0-99,600"); },
       absl::StatusCode::kInvalidArgument, "node 600 is outside"},
      {"duplicate node", [](v1::MapRequest& r) { r.mutable_allocation()->set_nodes("0-99,5"); },
       absl::StatusCode::kInvalidArgument, "listed twice"},
      {"too many tasks",
       [](v1::MapRequest& r) {
         TaskGraphToProto(Stencil({100, 100}), r.mutable_graph());
       },
       absl::StatusCode::kResourceExhausted, "--max-tasks"},
      {"unknown algorithm", [](v1::MapRequest& r) { r.set_algorithm("nope"); },
       absl::StatusCode::kInvalidArgument, "nope"},
  };
  for (const Case& c : cases) {
    v1::MapRequest request = Request("bgp-8x8x8", graph);
    c.edit(request);
    absl::StatusOr<MappingReport> r = client->Map(request);
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_EQ(r.status().code(), c.code) << c.what << ": " << r.status();
    EXPECT_THAT(r.status().message(), HasSubstr(c.message)) << c.what;
  }
  // The daemon is still there and serving.
  EXPECT_TRUE(client->Map(Request("bgp-8x8x8", graph)).ok());
  EXPECT_TRUE(daemon.Alive());
}

TEST(DaemonTest, SixtyFourConcurrentClientsGetCorrectAnswers) {
  DaemonProcess daemon;
  ASSERT_TRUE(
      daemon.Start({"--max-concurrent", "2", "--max-queued", "128"}, TempPath("concurrent.log")))
      << daemon.error();
  // Different graphs per client; each answer is checked against a local solve.
  // The searches end on the iteration cap, well before the time limit, so the
  // answer is the same however loaded the machine is (with the default 1 s budget,
  // 64 clients two at a time beside other tests may cut a search short).
  constexpr int64_t kIterations = 200;
  constexpr double kTimeLimit = 30;
  std::vector<TaskGraph> graphs;
  std::vector<HopBytes> expected;
  auto machine = *ParseMachineSpec("bgp-8x8x8");
  auto allocation = *Allocation::WholeMachine(machine);
  for (int g = 0; g < 4; ++g) {
    graphs.push_back(Stencil({16 + 8 * g, 16}));
    MapperOptions options;
    options.threads = 2;
    options.iteration_limit = kIterations;
    options.time_limit_seconds = kTimeLimit;
    expected.push_back(SolveMapping(graphs.back(), allocation, "auto", options)->hop_bytes);
  }
  std::atomic<int> correct{0};
  std::vector<std::string> failures(64);
  std::vector<std::thread> threads;
  for (int c = 0; c < 64; ++c) {
    threads.emplace_back([&, c] {
      ConnectOptions options;
      options.address = daemon.address();
      options.connect_timeout_seconds = 30;
      auto client = HopmapClient::Connect(options);
      if (!client.ok()) {
        failures[c] = std::string(client.status().message());
        return;
      }
      v1::MapRequest request = Request("bgp-8x8x8", graphs[c % 4]);
      request.set_iteration_limit(kIterations);
      request.set_time_limit_seconds(kTimeLimit);
      absl::StatusOr<MappingReport> r = (*client)->Map(request);
      if (!r.ok()) {
        failures[c] = std::string(r.status().message());
      } else if (r->hop_bytes != expected[c % 4] ||
                 r->slot_of_task.size() != static_cast<size_t>(graphs[c % 4].num_tasks())) {
        failures[c] = absl::StrCat("hop-bytes ", r->hop_bytes, " != ", expected[c % 4]);
      } else {
        ++correct;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int c = 0; c < 64; ++c) EXPECT_EQ(failures[c], "") << "client " << c;
  EXPECT_EQ(correct.load(), 64);
}

TEST(DaemonTest, ACancelledCallFreesItsSolve) {
  DaemonProcess daemon;
  ASSERT_TRUE(
      daemon.Start({"--max-concurrent", "1", "--max-queued", "0", "--max-time-limit", "600"},
                   TempPath("cancel.log")))
      << daemon.error();
  // axis-order on an 8-dimensional torus has 9! = 362880 orders to score: it runs
  // until its time limit (10 minutes here) unless cancelled.
  GeneratorOptions ring;
  ring.kind = "ring";
  ring.tasks = 6561;
  const TaskGraph big = *GenerateGraph(ring);
  v1::MapRequest slow;
  slow.mutable_machine()->set_spec("torus:3x3x3x3x3x3x3x3");
  TaskGraphToProto(big, slow.mutable_graph());
  slow.set_algorithm("axis-order");
  slow.set_time_limit_seconds(600);

  auto channel = grpc::CreateChannel(daemon.address(), grpc::InsecureChannelCredentials());
  auto stub = v1::Mapper::NewStub(channel);
  auto client = ConnectTo(daemon);
  ASSERT_NE(client, nullptr);
  const v1::MapRequest quick = Request("bgp-8x8x8", Stencil({8, 8}));
  // Start the slow call and wait until it holds the only slot (a quick request is
  // then refused). A probe may win the slot first and get the slow call refused:
  // then start it again.
  std::unique_ptr<grpc::ClientContext> slow_context;
  grpc::Status slow_status;
  std::atomic<bool> slow_done{true};
  std::thread slow_call;
  bool busy = false;
  for (int i = 0; i < 300 && !busy; ++i) {
    if (slow_done.load()) {
      if (slow_call.joinable()) slow_call.join();
      slow_context = std::make_unique<grpc::ClientContext>();
      slow_done = false;
      slow_call = std::thread([&] {
        v1::MapReply reply;
        slow_status = stub->Map(slow_context.get(), slow, &reply);
        slow_done = true;
      });
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    absl::StatusOr<MappingReport> r = client->Map(quick);
    busy =
        !r.ok() && r.status().code() == absl::StatusCode::kResourceExhausted && !slow_done.load();
  }
  slow_context->TryCancel();
  slow_call.join();
  ASSERT_TRUE(busy) << "the slow solve never occupied the server: " << slow_status.error_message();
  EXPECT_EQ(slow_status.error_code(), grpc::StatusCode::CANCELLED);
  // The slot is free again well before the slow solve's 10-minute budget.
  bool served = false;
  for (int i = 0; i < 300 && !served; ++i) {
    served = client->Map(quick).ok();
    if (!served) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(served) << "the cancelled solve still holds the server after 30 s";
  EXPECT_EQ(daemon.Signal(SIGTERM), 0);
}

TEST(DaemonTest, StoredMachinesSurviveRestartAndKill9) {
  const std::string state = TempPath("state");
  v1::Machine machine;
  machine.set_name("lab-torus");
  machine.set_description("a 4x4x4 test torus");
  machine.set_cores_per_node(2);
  machine.mutable_torus()->add_dims(4);
  machine.mutable_torus()->add_dims(4);
  machine.mutable_torus()->add_dims(4);
  {
    DaemonProcess daemon;
    ASSERT_TRUE(
        daemon.Start({"--state-dir", state, "--admin-token", "secret"}, TempPath("state1.log")))
        << daemon.error();
    auto user = ConnectTo(daemon);
    EXPECT_EQ(user->PutMachine(machine).status().code(), absl::StatusCode::kPermissionDenied);
    auto admin = ConnectTo(daemon, "secret");
    ASSERT_TRUE(admin->PutMachine(machine).ok());
    daemon.Signal(SIGKILL);  // no chance to flush anything more
  }
  {
    DaemonProcess daemon;
    ASSERT_TRUE(daemon.Start({"--state-dir", state}, TempPath("state2.log"))) << daemon.error();
    auto client = ConnectTo(daemon);
    absl::StatusOr<v1::Machine> got = client->GetMachine("lab-torus");
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->description(), "a 4x4x4 test torus");
    absl::StatusOr<MappingReport> r = client->Map(Request("lab-torus", Stencil({8, 8})));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->slots, 128);
    ASSERT_TRUE(client->DeleteMachine("lab-torus").ok());
    EXPECT_EQ(daemon.Signal(SIGTERM), 0);
  }
  {
    DaemonProcess daemon;
    ASSERT_TRUE(daemon.Start({"--state-dir", state}, TempPath("state3.log"))) << daemon.error();
    auto client = ConnectTo(daemon);
    EXPECT_EQ(client->GetMachine("lab-torus").status().code(), absl::StatusCode::kNotFound);
  }
}

TEST(DaemonTest, SigtermExitsCleanlyAndBadFlagsFail) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("term.log"))) << daemon.error();
  const int status = daemon.Signal(SIGTERM);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  DaemonProcess bad;
  EXPECT_FALSE(bad.Start({"--max-concurrent", "0"}, TempPath("badflag.log")));
  EXPECT_THAT(::hopmap::testing::ReadFile(TempPath("badflag.log")), HasSubstr("--max-concurrent"));
}

TEST(DaemonTest, UnixSocketIsOwnerOnly) {
  // The socket's permissions are its only guard: nobody but the daemon's user
  // (and root) may connect, whatever the umask the daemon was started with.
  const std::string socket = TempPath("owner-only.sock");
  std::remove(socket.c_str());
  const mode_t old_umask = umask(0);  // the most permissive start
  DaemonProcess daemon;
  const bool started = daemon.Start({"--listen", "unix:" + socket}, TempPath("unix.log"));
  umask(old_umask);
  ASSERT_TRUE(started) << daemon.error();
  struct stat st;
  ASSERT_EQ(stat(socket.c_str(), &st), 0) << socket;
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u) << std::oct << (st.st_mode & 0777);
  auto client = ConnectTo(daemon);  // TCP still answers; the socket is the owner's
  ConnectOptions options;
  options.address = "unix:" + socket;
  options.connect_timeout_seconds = 30;
  absl::StatusOr<std::unique_ptr<HopmapClient>> over_socket = HopmapClient::Connect(options);
  ASSERT_TRUE(over_socket.ok()) << over_socket.status();
  absl::StatusOr<bool> serving = (*over_socket)->Health();
  ASSERT_TRUE(serving.ok()) << serving.status();
  EXPECT_TRUE(*serving);

  // 660 lets the daemon's group in too (a Slurm prolog's user); nothing else is taken.
  const std::string group_socket = TempPath("group.sock");
  std::remove(group_socket.c_str());
  DaemonProcess group_daemon;
  ASSERT_TRUE(group_daemon.Start({"--listen", "unix:" + group_socket, "--unix-socket-mode", "660"},
                                 TempPath("unix660.log")))
      << group_daemon.error();
  ASSERT_EQ(stat(group_socket.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0660u) << std::oct << (st.st_mode & 0777);
  DaemonProcess bad;
  EXPECT_FALSE(bad.Start({"--unix-socket-mode", "666"}, TempPath("unix666.log")));
  EXPECT_THAT(::hopmap::testing::ReadFile(TempPath("unix666.log")),
              HasSubstr("--unix-socket-mode must be 600"));
}

}  // namespace
}  // namespace hopmap

namespace hopmap {
namespace {

// A runtime's remap: the daemon refines the mapping it is given, as --local does.
TEST(DaemonTest, RefinesTheGivenMappingLikeLocal) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("initial.log"))) << daemon.error();
  auto client = ConnectTo(daemon);
  ASSERT_NE(client, nullptr);
  const TaskGraph graph = Stencil({16, 16});
  auto allocation = *Allocation::WholeMachine(*ParseMachineSpec("bgp-8x8x8"));
  std::vector<SlotId> initial(graph.num_tasks());
  for (TaskId t = 0; t < graph.num_tasks(); ++t) initial[t] = (t * 37) % allocation.num_slots();
  MapperOptions options;
  options.threads = 2;
  SolveControl control;
  control.initial = &initial;
  absl::StatusOr<MappingReport> local =
      SolveMapping(graph, allocation, "refine", options, BuiltinMappers(), control);
  ASSERT_TRUE(local.ok()) << local.status();
  v1::MapRequest request = Request("bgp-8x8x8", graph, "refine");
  request.mutable_initial_slot_of_task()->Assign(initial.begin(), initial.end());
  absl::StatusOr<MappingReport> remote = client->Map(request);
  ASSERT_TRUE(remote.ok()) << remote.status();
  EXPECT_EQ(remote->slot_of_task, local->slot_of_task);
  EXPECT_EQ(remote->hop_bytes, local->hop_bytes);
  EXPECT_LT(remote->hop_bytes,
            EvaluateMapping(graph, allocation, initial, Routing::kDimensionOrder, 2)->hop_bytes);
}

// Issue 6: a 65,536-task Map through the daemon, by the CLI (the request as a user
// sends it, default message limits) and by MapStream (the progress the bar draws).
// The mapping must be valid and its hop-bytes what the report says, recomputed here.
TEST(DaemonTest, MapsSixtyFiveThousandTasks) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("large.log"))) << daemon.error();
  const TaskGraph graph = Stencil({32, 32, 64});
  ASSERT_EQ(graph.num_tasks(), 65536);
  const std::string machine = "torus:32x32x64:cores=1";
  const Allocation allocation = *Allocation::WholeMachine(*ParseMachineSpec(machine));
  const std::string graph_path = TempPath("large.edgelist");
  ASSERT_TRUE(WriteGraph(graph, graph_path, GraphFormat::kEdgeList).ok());

  // Every task on its own slot (one core per node) and the hop-bytes recomputed.
  auto expect_valid = [&](const std::vector<SlotId>& slots, HopBytes reported) {
    ASSERT_EQ(slots.size(), 65536u);
    std::vector<bool> used(allocation.num_slots(), false);
    for (SlotId s : slots) {
      ASSERT_GE(s, 0);
      ASSERT_LT(s, allocation.num_slots());
      ASSERT_FALSE(used[s]) << "slot " << s << " used twice";
      used[s] = true;
    }
    absl::StatusOr<MappingReport> recomputed =
        EvaluateMapping(graph, allocation, slots, Routing::kDimensionOrder, 2);
    ASSERT_TRUE(recomputed.ok()) << recomputed.status();
    EXPECT_EQ(recomputed->hop_bytes, reported);
    // Never above in-order (the identity on the whole torus).
    std::vector<SlotId> in_order(slots.size());
    for (size_t t = 0; t < in_order.size(); ++t) in_order[t] = static_cast<SlotId>(t);
    EXPECT_LE(reported,
              EvaluateMapping(graph, allocation, in_order, Routing::kDimensionOrder, 2)->hop_bytes);
  };

  auto cli = RunHopmap("map --server " + daemon.address() + " --machine " + machine + " --graph " +
                       graph_path + " --time-limit 2 --threads 2 --quiet");
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  const nlohmann::json report = nlohmann::json::parse(cli.out);
  EXPECT_EQ(report["tasks"], 65536);
  expect_valid(report["slot_of_task"].get<std::vector<SlotId>>(),
               report["hop_bytes"].get<HopBytes>());

  auto client = ConnectTo(daemon);
  ASSERT_NE(client, nullptr);
  v1::MapRequest request;
  request.mutable_machine()->set_spec(machine);
  TaskGraphToProto(graph, request.mutable_graph());
  request.set_time_limit_seconds(2);
  request.set_threads(2);
  std::vector<int64_t> bests;  // best hop-bytes of each progress message that has one
  absl::StatusOr<MappingReport> streamed = client->MapStream(request, [&bests](const Progress& p) {
    if (!p.best_algorithm.empty()) bests.push_back(p.best_hop_bytes);
  });
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  expect_valid(streamed->slot_of_task, streamed->hop_bytes);
  // What the progress bar shows: a best that only goes down, ending at or above the
  // answer.
  ASSERT_FALSE(bests.empty());
  for (size_t i = 1; i < bests.size(); ++i) EXPECT_LE(bests[i], bests[i - 1]) << i;
  EXPECT_GE(bests.back(), streamed->hop_bytes);
  std::remove(graph_path.c_str());
  EXPECT_EQ(daemon.Signal(SIGTERM), 0);
}

}  // namespace
}  // namespace hopmap
