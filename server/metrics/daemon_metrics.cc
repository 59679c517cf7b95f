#include "server/metrics/daemon_metrics.h"

#include <exception>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "prometheus/collectable.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "server/catalog.h"
#include "server/service.h"
#include "server/status_util.h"

namespace hopmap::server {

namespace {

// Latency: from a cached answer (~1 ms) to the largest budgets (minutes).
const prometheus::Histogram::BucketBoundaries kSecondsBuckets = {
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};
// Job sizes: powers of four from a node's worth of ranks to millions.
const prometheus::Histogram::BucketBoundaries kTasksBuckets = {
    16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304};
// Improvement over in-order (0.25 = 25% fewer hop-bytes); 0 holds answers no better.
const prometheus::Histogram::BucketBoundaries kImprovementBuckets = {0,   0.05, 0.1, 0.2, 0.3, 0.4,
                                                                     0.5, 0.6,  0.7, 0.8, 0.9, 1};

prometheus::MetricFamily Gauge(std::string name, std::string help, double value) {
  prometheus::MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = prometheus::MetricType::Gauge;
  prometheus::ClientMetric metric;
  metric.gauge.value = value;
  family.metric.push_back(std::move(metric));
  return family;
}

}  // namespace

// The counters and histograms, registered once.
class DaemonMetrics::Families {
 public:
  explicit Families(prometheus::Registry& registry)
      : rpcs(prometheus::BuildCounter()
                 .Name("hopmap_rpcs_total")
                 .Help("Finished calls, by method and gRPC status code")
                 .Register(registry)),
        rpc_seconds(prometheus::BuildHistogram()
                        .Name("hopmap_rpc_seconds")
                        .Help("Call latency in seconds, from arrival to status, by method")
                        .Register(registry)),
        solve_tasks(prometheus::BuildHistogram()
                        .Name("hopmap_solve_tasks")
                        .Help("Tasks of each answered Map and MapStream request (job sizes)")
                        .Register(registry)
                        .Add({}, kTasksBuckets)),
        improvement(prometheus::BuildHistogram()
                        .Name("hopmap_answer_improvement_ratio")
                        .Help("Each answer's hop-bytes improvement over the in-order placement "
                              "(0.25 = 25% fewer)")
                        .Register(registry)
                        .Add({}, kImprovementBuckets)),
        rejections(prometheus::BuildCounter()
                       .Name("hopmap_admission_rejections_total")
                       .Help("Calls refused at once because every solve slot and queue place "
                             "was taken (RESOURCE_EXHAUSTED: server busy)")
                       .Register(registry)
                       .Add({})),
        cache_hits(prometheus::BuildCounter()
                       .Name("hopmap_allocation_cache_hits_total")
                       .Help("Requests whose allocation was in the allocation cache")
                       .Register(registry)
                       .Add({})),
        cache_misses(prometheus::BuildCounter()
                         .Name("hopmap_allocation_cache_misses_total")
                         .Help("Requests whose allocation had to be built")
                         .Register(registry)
                         .Add({})) {}

  prometheus::Family<prometheus::Counter>& rpcs;
  prometheus::Family<prometheus::Histogram>& rpc_seconds;
  prometheus::Histogram& solve_tasks;
  prometheus::Histogram& improvement;
  prometheus::Counter& rejections;
  prometheus::Counter& cache_hits;
  prometheus::Counter& cache_misses;
};

// The gauges, read from the service when Prometheus scrapes.
class DaemonMetrics::Gauges final : public prometheus::Collectable {
 public:
  explicit Gauges(Sources sources) : sources_(std::move(sources)) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    const AdmissionGate& admission = sources_.service->admission();
    std::vector<prometheus::MetricFamily> families = {
        Gauge("hopmap_solves_in_flight", "Solves running now (Map, MapStream, Evaluate, Analyze)",
              admission.running()),
        Gauge("hopmap_solves_queued", "Calls waiting for a solve slot", admission.queued()),
        Gauge("hopmap_catalog_machines", "Machines in the catalog (built-in, config, stored)",
              static_cast<double>(sources_.catalog->List().size())),
        Gauge("hopmap_catalog_version",
              "Changes of the catalog since the daemon started (machines loaded, put, replaced "
              "or removed); a new value means the catalog changed",
              static_cast<double>(sources_.catalog->version())),
    };
    if (sources_.etcd_watch_live) {
      families.push_back(Gauge("hopmap_etcd_watch_up",
                               "1 while the watch of the shared catalog in etcd is established, "
                               "0 while it reconnects",
                               sources_.etcd_watch_live() ? 1 : 0));
    }
    return families;
  }

 private:
  Sources sources_;
};

absl::StatusOr<std::unique_ptr<DaemonMetrics>> DaemonMetrics::Start(const std::string& address,
                                                                    Sources sources) {
  std::unique_ptr<DaemonMetrics> metrics(new DaemonMetrics());
  metrics->registry_ = std::make_shared<prometheus::Registry>();
  metrics->families_ = std::make_unique<Families>(*metrics->registry_);
  metrics->gauges_ = std::make_shared<Gauges>(std::move(sources));
  try {
    metrics->exposer_ = std::make_unique<prometheus::Exposer>(address, /*num_threads=*/1);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("--metrics-listen: cannot listen on '", address, "': ", e.what()));
  }
  const std::vector<int> ports = metrics->exposer_->GetListeningPorts();
  if (ports.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--metrics-listen: cannot listen on '", address, "'"));
  }
  metrics->port_ = ports.front();
  metrics->exposer_->RegisterCollectable(metrics->registry_);
  metrics->exposer_->RegisterCollectable(metrics->gauges_);
  return metrics;
}

DaemonMetrics::~DaemonMetrics() = default;

void DaemonMetrics::OnCallFinished(const FinishedCall& call) {
  const std::string method(call.method);
  families_->rpcs.Add({{"method", method}, {"code", GrpcCodeName(call.code)}}).Increment();
  families_->rpc_seconds.Add({{"method", method}}, kSecondsBuckets).Observe(call.seconds);
  if (call.rejected) families_->rejections.Increment();
  if (call.cache_hit.has_value()) {
    (*call.cache_hit ? families_->cache_hits : families_->cache_misses).Increment();
  }
  // An answer: a mapping hopmapd computed (Evaluate measures the caller's).
  const bool answer =
      (method == "Map" || method == "MapStream") && call.code == grpc::StatusCode::OK;
  if (answer && call.tasks >= 0) families_->solve_tasks.Observe(static_cast<double>(call.tasks));
  if (answer && call.improvement.has_value()) families_->improvement.Observe(*call.improvement);
}

}  // namespace hopmap::server
