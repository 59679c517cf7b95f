// hopmapd's service overhead: Map latency through a real gRPC server on loopback
// against the same solve called in-process, and throughput with concurrent clients.
//
// The ratio of medians (service / in-process) is the overhead the issue bounds
// (target under 1.2x). Absolute times vary with the machine's load; ratios are
// measured in one run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "core/graph/generators.h"
#include "core/io/machine_spec.h"
#include "core/solve/report.h"
#include "core/solve/solve_mapping.h"
#include "grpcpp/grpcpp.h"
#include "hopmap/v1/mapper.grpc.pb.h"
#include "proto/convert/convert.h"
#include "server/catalog.h"
#include "server/service.h"

namespace hopmap {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

struct Stats {
  double median = 0;
  double p99 = 0;
};

Stats Summarize(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  Stats s;
  s.median = times[times.size() / 2];
  s.p99 = times[std::min(times.size() - 1, static_cast<size_t>(times.size() * 0.99))];
  return s;
}

int Run(int requests, int clients, int per_client) {
  GeneratorOptions gen;
  gen.kind = "stencil2d-5";
  gen.dims = {32, 32};
  gen.wrap = true;
  gen.bytes = 65536;
  absl::StatusOr<TaskGraph> graph = GenerateGraph(gen);
  if (!graph.ok()) return 1;
  const std::string machine_name = "bgp-8x8x8";

  // In-process: the same solve on an allocation built once (the daemon caches it).
  absl::StatusOr<std::shared_ptr<Machine>> machine = ParseMachineSpec(machine_name);
  absl::StatusOr<Allocation> allocation = Allocation::WholeMachine(*machine);
  if (!allocation.ok()) return 1;
  // Searches end on counts, not the clock: every call, local or remote, sequential or
  // concurrent, must give the same answer (a solve the deadline cuts may not).
  constexpr int64_t kIterations = 20;
  MapperOptions options;
  options.iteration_limit = kIterations;
  options.time_limit_seconds = 60;
  std::vector<double> local_times;
  HopBytes local_hop_bytes = 0;
  for (int i = 0; i < requests; ++i) {
    const auto start = Clock::now();
    absl::StatusOr<MappingReport> r = SolveMapping(*graph, *allocation, "auto", options);
    local_times.push_back(Seconds(start));
    if (!r.ok()) return 1;
    local_hop_bytes = r->hop_bytes;
  }

  // The service: a real gRPC server on a loopback port.
  absl::StatusOr<std::unique_ptr<server::MachineCatalog>> catalog =
      server::MachineCatalog::Open("", "");
  if (!catalog.ok()) return 1;
  server::ServiceOptions service_options;
  service_options.max_concurrent = 2;
  service_options.max_queued = 256;
  absl::StatusOr<std::unique_ptr<server::MapperService>> service = server::MapperService::Create(
      *std::move(catalog), service_options, [](const std::string&) {});
  if (!service.ok()) {
    std::fprintf(stderr, "%s\n", std::string(service.status().message()).c_str());
    return 1;
  }
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(service->get());
  builder.SetMaxReceiveMessageSize(256 << 20);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) return 1;
  const std::string address = "127.0.0.1:" + std::to_string(port);
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = v1::Mapper::NewStub(channel);

  v1::MapRequest request;
  request.set_machine_name(machine_name);
  TaskGraphToProto(*graph, request.mutable_graph());
  request.set_algorithm("auto");
  request.set_iteration_limit(kIterations);
  request.set_time_limit_seconds(60);
  std::vector<double> service_times;
  HopBytes service_hop_bytes = 0;
  for (int i = 0; i < requests + 1; ++i) {
    grpc::ClientContext context;
    v1::MapReply reply;
    const auto start = Clock::now();
    grpc::Status status = stub->Map(&context, request, &reply);
    const double t = Seconds(start);
    if (!status.ok()) {
      std::fprintf(stderr, "Map: %s\n", status.error_message().c_str());
      return 1;
    }
    if (i > 0) service_times.push_back(t);  // the first call builds the cached allocation
    service_hop_bytes = reply.hop_bytes();
  }

  // The transport's floor: a call that does no work (ListMachines of the catalog).
  std::vector<double> floor_times;
  for (int i = 0; i < requests; ++i) {
    grpc::ClientContext context;
    v1::ListMachinesReply reply;
    const auto start = Clock::now();
    if (!stub->ListMachines(&context, v1::ListMachinesRequest(), &reply).ok()) return 1;
    floor_times.push_back(Seconds(start));
  }

  // Throughput: `clients` threads, each with its own channel, `per_client` calls.
  const auto wall_start = Clock::now();
  std::vector<std::thread> threads;
  std::vector<int> failures(clients, 0);
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      grpc::ChannelArguments args;
      args.SetInt("hopmap.bench.client", c);  // a separate connection per client
      auto ch = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
      auto s = v1::Mapper::NewStub(ch);
      for (int i = 0; i < per_client; ++i) {
        grpc::ClientContext context;
        v1::MapReply reply;
        if (!s->Map(&context, request, &reply).ok() || reply.hop_bytes() != service_hop_bytes) {
          ++failures[c];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const double wall = Seconds(wall_start);
  int failed = 0;
  for (int f : failures) failed += f;
  server->Shutdown();

  const Stats local = Summarize(local_times);
  const Stats remote = Summarize(service_times);
  std::printf("Map of a 1024-task 2D stencil (32x32 periodic) on %s, algorithm auto, %d calls\n",
              machine_name.c_str(), requests);
  std::printf("| path | median ms | p99 ms |\n|---|---|---|\n");
  std::printf("| in-process SolveMapping | %.2f | %.2f |\n", local.median * 1e3, local.p99 * 1e3);
  std::printf("| hopmapd over loopback gRPC | %.2f | %.2f |\n", remote.median * 1e3,
              remote.p99 * 1e3);
  std::printf("| ratio service / in-process | %.2f | %.2f |\n", remote.median / local.median,
              remote.p99 / local.p99);
  const Stats floor = Summarize(floor_times);
  std::printf("| transport floor: ListMachines | %.2f | %.2f |\n", floor.median * 1e3,
              floor.p99 * 1e3);
  std::printf("same hop-bytes both ways: %s (%lld)\n",
              local_hop_bytes == service_hop_bytes ? "yes" : "NO",
              static_cast<long long>(service_hop_bytes));
  std::printf("%d concurrent clients x %d calls: %.1f requests/s, %d failed (%.2f s)\n", clients,
              per_client, clients * per_client / wall, failed, wall);
  return failed == 0 && local_hop_bytes == service_hop_bytes ? 0 : 1;
}

}  // namespace
}  // namespace hopmap

int main(int argc, char** argv) {
  int requests = 200, clients = 32, per_client = 20;
  if ((argc > 1 && !absl::SimpleAtoi(argv[1], &requests)) ||
      (argc > 2 && !absl::SimpleAtoi(argv[2], &clients)) ||
      (argc > 3 && !absl::SimpleAtoi(argv[3], &per_client)) || requests < 1 || clients < 1 ||
      per_client < 1) {
    std::fprintf(stderr, "usage: service_latency [REQUESTS=200] [CLIENTS=32] [PER_CLIENT=20]\n");
    return 1;
  }
  return hopmap::Run(requests, clients, per_client);
}
