// hopmapd's Prometheus metrics (hopmapd --metrics-listen ADDR serves them at
// /metrics): counters and histograms fed by every finished call, gauges read from
// the service at each scrape. docs/operations.md lists them with their meaning.
#ifndef HOPMAP_SERVER_METRICS_DAEMON_METRICS_H_
#define HOPMAP_SERVER_METRICS_DAEMON_METRICS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "server/call_observer.h"

namespace prometheus {
class Exposer;
class Registry;
}  // namespace prometheus

namespace hopmap::server {

class MachineCatalog;
class MapperService;

class DaemonMetrics final : public CallObserver {
 public:
  // What the gauges read at each scrape. `service` must outlive the metrics;
  // `etcd_watch_live` is null when the daemon has no shared catalog (the gauge is
  // then not exported).
  struct Sources {
    const MapperService* service = nullptr;
    const MachineCatalog* catalog = nullptr;
    std::function<bool()> etcd_watch_live;
  };

  // Serves /metrics on `address` (HOST:PORT; port 0 picks a free one).
  // InvalidArgument naming the address when it cannot listen there.
  static absl::StatusOr<std::unique_ptr<DaemonMetrics>> Start(const std::string& address,
                                                              Sources sources);
  ~DaemonMetrics() override;
  DaemonMetrics(const DaemonMetrics&) = delete;
  DaemonMetrics& operator=(const DaemonMetrics&) = delete;

  // The port it listens on (the real one when given port 0).
  [[nodiscard]] int port() const { return port_; }

  void OnCallFinished(const FinishedCall& call) override;

 private:
  class Families;
  class Gauges;
  DaemonMetrics() = default;

  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<Families> families_;
  std::shared_ptr<Gauges> gauges_;
  std::unique_ptr<prometheus::Exposer> exposer_;  // last: stops serving first
  int port_ = 0;
};

}  // namespace hopmap::server

#endif  // HOPMAP_SERVER_METRICS_DAEMON_METRICS_H_
