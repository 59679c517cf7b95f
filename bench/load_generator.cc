// load_generator: drives a running hopmapd with a mix of Map requests and reports
// what it did under the load. Two phases:
//   1. calibrate: a closed loop of --concurrency callers (one outstanding request
//      each, as many as the daemon's --max-concurrent) for --calibrate seconds; its
//      throughput is the sustainable rate R.
//   2. overload: an open loop (Poisson arrivals, seeded) at --overload x R for
//      --duration seconds, through gRPC's async API, so arrivals never wait for
//      answers.
// Every reply is checked (one distinct slot per task, inside the allocation). With
// --pid it samples the daemon's resident memory (VmRSS) once a second. It prints
// per-class latency percentiles, the status codes, and the RSS series summary, and
// exits 1 when a check fails: an answer that is wrong, a status other than OK and
// RESOURCE_EXHAUSTED, a daemon that died, or resident memory still growing in the
// last part of the run (see --rss-growth).
//
// bench/load.sh starts hopmapd and runs this; bench/README.md has the figures.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/graph/generators.h"
#include "grpcpp/grpcpp.h"
#include "hopmap/v1/mapper.grpc.pb.h"
#include "proto/convert/convert.h"

namespace hopmap {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string server;
  int pid = 0;
  int concurrency = 2;
  double calibrate_seconds = 30;
  double duration_seconds = 600;
  double overload = 2.0;
  double deadline_seconds = 60;
  uint64_t seed = 1;
  double rss_growth = 1.10;
  int max_in_flight = 20000;
};

// One size class of the mix: its requests (variants differ in allocation), its
// share of the arrivals, and what a correct answer looks like.
struct RequestClass {
  std::string name;
  double weight = 0;
  std::vector<v1::MapRequest> variants;
  int64_t slots = 0;  // of each variant's allocation
  int32_t tasks = 0;
};

v1::MapRequest MakeRequest(const std::string& machine, const TaskGraph& graph,
                           const std::string& nodes, double time_limit) {
  v1::MapRequest r;
  r.set_machine_name(machine);
  TaskGraphToProto(graph, r.mutable_graph());
  if (!nodes.empty()) r.mutable_allocation()->set_nodes(nodes);
  r.set_time_limit_seconds(time_limit);
  return r;
}

TaskGraph Generate(const std::string& kind, std::vector<int32_t> dims, int32_t tasks) {
  GeneratorOptions gen;
  gen.kind = kind;
  gen.dims = std::move(dims);
  gen.tasks = tasks;
  gen.wrap = kind.rfind("stencil", 0) == 0;
  absl::StatusOr<TaskGraph> g = GenerateGraph(gen);
  if (!g.ok()) {
    std::fprintf(stderr, "load_generator: %s\n", std::string(g.status().message()).c_str());
    std::exit(2);
  }
  return *std::move(g);
}

// The mix: mostly small jobs, a tail of large ones, on three built-in machines.
// Allocations vary so the daemon's allocation cache sees hits and misses.
std::vector<RequestClass> Mix() {
  std::vector<RequestClass> mix;
  {
    RequestClass c{"64 tasks, bgp-8x8x8 (default budget)", 0.50, {}, 64, 64};
    const TaskGraph g = Generate("stencil2d-5", {8, 8}, 0);
    for (int first : {0, 16, 32, 48}) {
      c.variants.push_back(MakeRequest("bgp-8x8x8", g, absl::StrCat(first, "-", first + 15), 0));
    }
    mix.push_back(std::move(c));
  }
  {
    RequestClass c{"1,024 tasks, kraken (0.2 s)", 0.30, {}, 86 * 12, 1024};
    const TaskGraph g = Generate("stencil3d-7", {16, 8, 8}, 0);
    for (int k = 0; k < 64; ++k) {
      const int first = k * 149;
      c.variants.push_back(MakeRequest("kraken", g, absl::StrCat(first, "-", first + 85), 0.2));
    }
    mix.push_back(std::move(c));
  }
  {
    RequestClass c{"8,192 tasks, fattree-64x64 (0.5 s)", 0.15, {}, 512 * 16, 8192};
    const TaskGraph g = Generate("random-geometric", {}, 8192);
    for (int k = 0; k < 8; ++k) {
      c.variants.push_back(
          MakeRequest("fattree-64x64", g, absl::StrCat(k * 512, "-", k * 512 + 511), 0.5));
    }
    mix.push_back(std::move(c));
  }
  {
    RequestClass c{"32,768 tasks, kraken (1 s)", 0.05, {}, 2731 * 12, 32768};
    const TaskGraph g = Generate("stencil3d-7", {32, 32, 32}, 0);
    for (int first : {0, 2731, 5462}) {
      c.variants.push_back(MakeRequest("kraken", g, absl::StrCat(first, "-", first + 2730), 1.0));
    }
    mix.push_back(std::move(c));
  }
  return mix;
}

// "" when the reply is a valid mapping of the class's tasks onto its slots.
std::string CheckReply(const RequestClass& c, const v1::MapReply& reply) {
  if (reply.tasks() != c.tasks || reply.slot_of_task_size() != c.tasks) {
    return absl::StrCat("tasks ", reply.tasks(), ", slot_of_task has ", reply.slot_of_task_size(),
                        " entries, expected ", c.tasks);
  }
  if (reply.slots() != c.slots) return absl::StrCat("slots ", reply.slots(), " != ", c.slots);
  std::vector<bool> used(c.slots, false);
  for (int32_t slot : reply.slot_of_task()) {
    if (slot < 0 || slot >= c.slots) return absl::StrCat("slot ", slot, " outside the allocation");
    if (used[slot]) return absl::StrCat("slot ", slot, " given twice");
    used[slot] = true;
  }
  if (reply.hop_bytes() <= 0) return "hop_bytes <= 0";
  return "";
}

int64_t RssBytes(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) != 0) continue;
    std::string digits;
    for (char ch : line) {
      if (ch >= '0' && ch <= '9') digits.push_back(ch);
    }
    int64_t kb = 0;
    if (absl::SimpleAtoi(digits, &kb)) return kb * 1024;
  }
  return -1;
}

// Results of one phase, per class.
struct ClassResult {
  int64_t sent = 0;
  std::map<grpc::StatusCode, int64_t> codes;
  std::vector<double> ok_seconds;  // latencies of OK calls
  int64_t wrong = 0;
  std::string first_wrong;
  std::string first_other;  // the first status that was neither OK nor RESOURCE_EXHAUSTED
};

struct PhaseResult {
  std::string name;
  double seconds = 0;
  double offered_per_second = 0;  // arrivals (open loop)
  std::vector<ClassResult> classes;
};

// Picks the class of the next request from the mix weights.
size_t PickClass(const std::vector<RequestClass>& mix, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  double x = u(rng);
  for (size_t i = 0; i < mix.size(); ++i) {
    if (x < mix[i].weight) return i;
    x -= mix[i].weight;
  }
  return mix.size() - 1;
}

void Record(const RequestClass& c, ClassResult& r, const grpc::Status& status,
            const v1::MapReply& reply, double seconds) {
  r.codes[status.error_code()]++;
  if (status.ok()) {
    r.ok_seconds.push_back(seconds);
    const std::string why = CheckReply(c, reply);
    if (!why.empty()) {
      if (r.wrong++ == 0) r.first_wrong = why;
    }
  } else if (status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED && r.first_other.empty()) {
    r.first_other = absl::StrCat(status.error_code(), ": ", status.error_message());
  }
}

// Phase 1: `concurrency` callers, each with one request outstanding.
PhaseResult Calibrate(const Options& o, v1::Mapper::Stub& stub,
                      const std::vector<RequestClass>& mix) {
  PhaseResult result;
  result.name = "calibrate (closed loop)";
  result.classes.resize(mix.size());
  std::mutex mu;
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(o.calibrate_seconds));
  std::vector<std::thread> callers;
  for (int t = 0; t < o.concurrency; ++t) {
    callers.emplace_back([&, t] {
      std::mt19937_64 rng(o.seed * 1000003 + t);
      while (Clock::now() < end) {
        const size_t k = PickClass(mix, rng);
        const RequestClass& c = mix[k];
        const v1::MapRequest& request = c.variants[rng() % c.variants.size()];
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() +
                             std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                 std::chrono::duration<double>(o.deadline_seconds)));
        v1::MapReply reply;
        const auto sent = Clock::now();
        const grpc::Status status = stub.Map(&context, request, &reply);
        const double seconds = std::chrono::duration<double>(Clock::now() - sent).count();
        std::lock_guard<std::mutex> lock(mu);
        result.classes[k].sent++;
        Record(c, result.classes[k], status, reply, seconds);
      }
    });
  }
  for (std::thread& t : callers) t.join();
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

// One call in flight in the open loop.
struct AsyncCall {
  size_t klass = 0;
  Clock::time_point sent;
  grpc::ClientContext context;
  v1::MapReply reply;
  grpc::Status status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::MapReply>> reader;
};

// Phase 2: Poisson arrivals at `rate` per second, answers read as they come.
PhaseResult Overload(const Options& o, v1::Mapper::Stub& stub, const std::vector<RequestClass>& mix,
                     double rate, int64_t* dropped) {
  PhaseResult result;
  result.name = absl::StrCat("overload (open loop, ", o.overload, "x)");
  result.classes.resize(mix.size());
  grpc::CompletionQueue cq;
  std::atomic<int64_t> in_flight{0};
  std::mutex mu;
  std::thread reader([&] {
    void* tag = nullptr;
    bool ok = false;
    while (cq.Next(&tag, &ok)) {
      std::unique_ptr<AsyncCall> call(static_cast<AsyncCall*>(tag));
      const double seconds = std::chrono::duration<double>(Clock::now() - call->sent).count();
      std::lock_guard<std::mutex> lock(mu);
      Record(mix[call->klass], result.classes[call->klass], call->status, call->reply, seconds);
      in_flight--;
    }
  });
  std::mt19937_64 rng(o.seed * 7919 + 17);
  std::exponential_distribution<double> gap(rate);
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(o.duration_seconds));
  auto next = start;
  int64_t arrivals = 0;
  while (next < end) {
    std::this_thread::sleep_until(next);
    const size_t k = PickClass(mix, rng);
    const RequestClass& c = mix[k];
    const v1::MapRequest& request = c.variants[rng() % c.variants.size()];
    next += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(gap(rng)));
    ++arrivals;
    if (in_flight.load() >= o.max_in_flight) {  // the client's own bound, not the daemon's
      ++*dropped;
      continue;
    }
    auto call = std::make_unique<AsyncCall>();
    call->klass = k;
    call->context.set_deadline(std::chrono::system_clock::now() +
                               std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                   std::chrono::duration<double>(o.deadline_seconds)));
    call->sent = Clock::now();
    call->reader = stub.PrepareAsyncMap(&call->context, request, &cq);
    call->reader->StartCall();
    AsyncCall* raw = call.release();
    raw->reader->Finish(&raw->reply, &raw->status, raw);
    in_flight++;
    std::lock_guard<std::mutex> lock(mu);
    result.classes[k].sent++;
  }
  // Answers of the last arrivals: wait for every one (each has a deadline).
  while (in_flight.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.offered_per_second = arrivals / o.duration_seconds;
  cq.Shutdown();
  reader.join();
  return result;
}

double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(std::ceil(p * v.size())) - 1);
  return v[i];
}

// Prints the phase; returns the number of failed checks in it.
int Report(PhaseResult& phase, const std::vector<RequestClass>& mix) {
  std::printf("\n%s: %.1f s", phase.name.c_str(), phase.seconds);
  if (phase.offered_per_second > 0) std::printf(", offered %.2f req/s", phase.offered_per_second);
  std::printf("\n%-38s %7s %7s %9s %6s %9s %9s %9s %9s\n", "class", "sent", "ok", "exhausted",
              "other", "p50 ms", "p90 ms", "p99 ms", "max ms");
  int failures = 0;
  ClassResult all;
  for (size_t k = 0; k < mix.size(); ++k) {
    ClassResult& r = phase.classes[k];
    int64_t other = 0;
    for (const auto& [code, n] : r.codes) {
      if (code != grpc::StatusCode::OK && code != grpc::StatusCode::RESOURCE_EXHAUSTED) other += n;
    }
    std::printf("%-38s %7lld %7lld %9lld %6lld %9.1f %9.1f %9.1f %9.1f\n", mix[k].name.c_str(),
                static_cast<long long>(r.sent),
                static_cast<long long>(r.codes[grpc::StatusCode::OK]),
                static_cast<long long>(r.codes[grpc::StatusCode::RESOURCE_EXHAUSTED]),
                static_cast<long long>(other), 1e3 * Percentile(r.ok_seconds, 0.50),
                1e3 * Percentile(r.ok_seconds, 0.90), 1e3 * Percentile(r.ok_seconds, 0.99),
                1e3 * Percentile(r.ok_seconds, 1.0));
    if (r.wrong > 0) {
      std::printf("  CHECK FAILED: %lld wrong answers, first: %s\n",
                  static_cast<long long>(r.wrong), r.first_wrong.c_str());
      ++failures;
    }
    if (other > 0) {
      std::printf("  CHECK FAILED: %lld calls neither OK nor RESOURCE_EXHAUSTED, first: %s\n",
                  static_cast<long long>(other), r.first_other.c_str());
      ++failures;
    }
    all.sent += r.sent;
    for (const auto& [code, n] : r.codes) all.codes[code] += n;
    all.ok_seconds.insert(all.ok_seconds.end(), r.ok_seconds.begin(), r.ok_seconds.end());
  }
  std::printf("%-38s %7lld %7lld %9lld %6s %9.1f %9.1f %9.1f %9.1f\n", "all",
              static_cast<long long>(all.sent),
              static_cast<long long>(all.codes[grpc::StatusCode::OK]),
              static_cast<long long>(all.codes[grpc::StatusCode::RESOURCE_EXHAUSTED]), "",
              1e3 * Percentile(all.ok_seconds, 0.50), 1e3 * Percentile(all.ok_seconds, 0.90),
              1e3 * Percentile(all.ok_seconds, 0.99), 1e3 * Percentile(all.ok_seconds, 1.0));
  std::printf("served %.2f req/s\n", all.codes[grpc::StatusCode::OK] / phase.seconds);
  return failures;
}

int Run(const Options& o) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(256 << 20);
  args.SetMaxSendMessageSize(256 << 20);
  auto channel = grpc::CreateCustomChannel(o.server, grpc::InsecureChannelCredentials(), args);
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(30))) {
    std::fprintf(stderr, "load_generator: cannot connect to %s\n", o.server.c_str());
    return 1;
  }
  auto stub = v1::Mapper::NewStub(channel);
  std::vector<RequestClass> mix = Mix();

  // RSS sampler: one sample a second, with the phase it belongs to.
  struct Sample {
    double t;
    int64_t rss;
  };
  std::vector<Sample> samples;
  std::mutex samples_mu;
  std::atomic<bool> sampling{o.pid > 0};
  std::atomic<bool> daemon_gone{false};
  const auto t0 = Clock::now();
  std::thread sampler([&] {
    while (sampling.load()) {
      const int64_t rss = RssBytes(o.pid);
      if (rss < 0) daemon_gone = true;
      {
        std::lock_guard<std::mutex> lock(samples_mu);
        samples.push_back({std::chrono::duration<double>(Clock::now() - t0).count(), rss});
      }
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  });

  std::printf("hopmapd at %s, mix:", o.server.c_str());
  for (const RequestClass& c : mix) std::printf(" %.0f%% %s;", 100 * c.weight, c.name.c_str());
  std::printf("\n");
  PhaseResult calibrate = Calibrate(o, *stub, mix);
  int failures = Report(calibrate, mix);
  int64_t calibrated_ok = 0;
  for (ClassResult& r : calibrate.classes) calibrated_ok += r.codes[grpc::StatusCode::OK];
  const double sustainable = calibrated_ok / calibrate.seconds;
  if (calibrated_ok == 0) {
    std::printf("CHECK FAILED: nothing was served while calibrating\n");
    sampling = false;
    sampler.join();
    return 1;
  }
  const double overload_start = std::chrono::duration<double>(Clock::now() - t0).count();
  const double rate = o.overload * sustainable;
  std::printf("sustainable rate %.2f req/s; offering %.2f req/s for %.0f s\n", sustainable, rate,
              o.duration_seconds);
  std::fflush(stdout);
  int64_t dropped = 0;
  PhaseResult overload = Overload(o, *stub, mix, rate, &dropped);
  failures += Report(overload, mix);
  if (dropped > 0)
    std::printf("client-side drops (over --max-in-flight): %lld\n",
                static_cast<long long>(dropped));
  sampling = false;
  sampler.join();

  if (o.pid > 0) {
    // Memory: bounded means it stops growing. Compare the mean of the last fifth of
    // the overload phase with the mean of its second fifth (after warm-up: caches
    // and thread pools fill in the first).
    std::vector<double> second, last;
    int64_t peak = 0;
    int64_t at_overload_start = 0;
    const double span = o.duration_seconds;
    for (const Sample& s : samples) {
      if (s.rss < 0) continue;
      peak = std::max(peak, s.rss);
      const double x = (s.t - overload_start) / span;
      if (x < 0) at_overload_start = s.rss;
      if (x >= 0.2 && x < 0.4) second.push_back(s.rss / 1048576.0);
      if (x >= 0.8 && x <= 1.0) last.push_back(s.rss / 1048576.0);
    }
    auto mean = [](const std::vector<double>& v) {
      double sum = 0;
      for (double x : v) sum += x;
      return v.empty() ? NAN : sum / v.size();
    };
    std::printf(
        "\nhopmapd RSS: %.0f MB before the overload, peak %.0f MB, mean %.0f MB in the "
        "second fifth of the overload and %.0f MB in the last (ratio %.3f; limit %.2f)\n",
        at_overload_start / 1048576.0, peak / 1048576.0, mean(second), mean(last),
        mean(last) / mean(second), o.rss_growth);
    // The series, one mean per minute from the start of the overload (a leak
    // climbs to the end; fragmentation and caches level off).
    std::map<int, std::pair<double, int>> by_minute;
    for (const Sample& s : samples) {
      if (s.rss < 0 || s.t < overload_start) continue;
      auto& [sum, count] = by_minute[static_cast<int>((s.t - overload_start) / 60)];
      sum += s.rss / 1048576.0;
      ++count;
    }
    std::printf("hopmapd RSS by minute of the overload (MB):");
    for (const auto& [minute, mean_count] : by_minute) {
      std::printf(" %.0f", mean_count.first / mean_count.second);
    }
    std::printf("\n");
    if (daemon_gone.load()) {
      std::printf("CHECK FAILED: hopmapd (pid %d) exited during the run\n", o.pid);
      ++failures;
    } else if (!(mean(last) <= o.rss_growth * mean(second))) {
      std::printf("CHECK FAILED: resident memory still growing\n");
      ++failures;
    }
  }
  std::printf("\n%s\n", failures == 0 ? "all checks passed" : "CHECKS FAILED");
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace hopmap

int main(int argc, char** argv) {
  hopmap::Options o;
  CLI::App app{
      "load_generator: calibrates hopmapd's sustainable Map rate with a closed loop, then "
      "offers --overload times that rate in an open loop for --duration seconds; checks "
      "every answer, the status codes and (with --pid) the daemon's resident memory"};
  app.option_defaults()->always_capture_default();
  app.add_option("--server", o.server, "hopmapd address (HOST:PORT or unix:PATH)")->required();
  app.add_option("--pid", o.pid, "hopmapd's process id, to sample its RSS (0: no sampling)");
  app.add_option("--concurrency", o.concurrency,
                 "Callers in the closed loop (hopmapd's --max-concurrent)");
  app.add_option("--calibrate", o.calibrate_seconds, "Seconds of the closed loop");
  app.add_option("--duration", o.duration_seconds, "Seconds of the open loop");
  app.add_option("--overload", o.overload, "Offered rate as a multiple of the sustainable one");
  app.add_option("--deadline", o.deadline_seconds, "Deadline of each call, in seconds");
  app.add_option("--seed", o.seed, "Seed of the arrivals and the mix");
  app.add_option("--rss-growth", o.rss_growth,
                 "Fail when the mean RSS of the last fifth exceeds this times the second fifth's");
  app.add_option("--max-in-flight", o.max_in_flight, "Client-side cap on outstanding calls");
  CLI11_PARSE(app, argc, argv);
  if (o.concurrency < 1 || o.calibrate_seconds <= 0 || o.duration_seconds <= 0 || o.overload <= 0 ||
      o.deadline_seconds <= 0) {
    std::fprintf(stderr,
                 "load_generator: --concurrency, --calibrate, --duration, --overload "
                 "and --deadline must be positive\n");
    return 2;
  }
  return hopmap::Run(o);
}
