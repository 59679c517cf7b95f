// replica_throughput: a closed loop of --clients callers, each with its own channel
// to --server (one address, or a list of replicas: the client balances round-robin
// and retries UNAVAILABLE), sending the same 1,024-task Map (a 32x32 stencil on
// bgp-8x8x8, rec-bisect) for --duration seconds. Prints completed requests per
// second, p50/p99 latency and the failures. bench/replicas.sh runs it against 1, 2
// and 3 replicas.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "client/lib/hopmap_client.h"
#include "core/graph/generators.h"
#include "proto/convert/convert.h"

namespace hopmap {
namespace {

using Clock = std::chrono::steady_clock;

int Run(int argc, char** argv) {
  std::string server;
  int clients = 8;
  double duration = 20;
  CLI::App app{"Closed-loop Map throughput against hopmapd replicas"};
  app.add_option("--server", server, "ADDR, or IP:PORT,IP:PORT,... (replicas)")->required();
  app.add_option("--clients", clients, "Callers, each with one call outstanding")
      ->check(CLI::PositiveNumber);
  app.add_option("--duration", duration, "Seconds")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  GeneratorOptions generate;
  generate.kind = "stencil2d-5";
  generate.dims = {32, 32};
  absl::StatusOr<TaskGraph> graph = GenerateGraph(generate);
  if (!graph.ok()) return 1;
  v1::MapRequest request;
  request.set_machine_name("bgp-8x8x8");
  request.mutable_allocation()->set_nodes("0-255");
  TaskGraphToProto(*graph, request.mutable_graph());
  request.set_algorithm("rec-bisect");

  std::mutex mu;
  std::vector<double> latencies;
  std::vector<std::string> failures;
  std::atomic<bool> stop{false};
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&] {
      client::ConnectOptions options;
      options.address = server;
      absl::StatusOr<std::unique_ptr<client::HopmapClient>> connected =
          client::HopmapClient::Connect(options);
      if (!connected.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        failures.push_back(connected.status().ToString());
        return;
      }
      std::vector<double> mine;
      while (!stop) {
        const Clock::time_point t0 = Clock::now();
        absl::StatusOr<MappingReport> r = (*connected)->Map(request, 60);
        const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        if (!r.ok()) {
          std::lock_guard<std::mutex> lock(mu);
          failures.push_back(r.status().ToString());
          continue;
        }
        if (r->slot_of_task.size() != 1024) {
          std::lock_guard<std::mutex> lock(mu);
          failures.push_back("a reply without 1024 slots");
          continue;
        }
        mine.push_back(seconds);
      }
      std::lock_guard<std::mutex> lock(mu);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(duration));
  stop = true;
  for (std::thread& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::sort(latencies.begin(), latencies.end());
  auto percentile = [&](double p) {
    if (latencies.empty()) return 0.0;
    const size_t i = std::min(latencies.size() - 1, static_cast<size_t>(p * latencies.size()));
    return latencies[i];
  };
  std::printf("requests %zu in %.1f s: %.1f/s, p50 %.1f ms, p99 %.1f ms, failed %zu\n",
              latencies.size(), elapsed, latencies.size() / elapsed, 1000 * percentile(0.50),
              1000 * percentile(0.99), failures.size());
  for (size_t i = 0; i < std::min<size_t>(failures.size(), 5); ++i) {
    std::printf("  failure: %s\n", failures[i].c_str());
  }
  return failures.empty() ? 0 : 1;
}

}  // namespace
}  // namespace hopmap

int main(int argc, char** argv) { return hopmap::Run(argc, argv); }
