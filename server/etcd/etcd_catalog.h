// The shared catalog of several hopmapd replicas, kept in etcd (`hopmapd --catalog
// etcd://HOST:PORT/PREFIX`): stored machines are the keys PREFIX/machines/NAME, their
// values the machines' JSON. PutMachine and DeleteMachine on any replica write etcd;
// every replica watches the prefix and publishes what changed in its own
// MachineCatalog, so a machine put through one replica is served by all. When etcd is
// away, replicas keep serving what they have and catch up when it is back (they read
// the prefix again and watch from there).
#ifndef HOPMAP_SERVER_ETCD_ETCD_CATALOG_H_
#define HOPMAP_SERVER_ETCD_ETCD_CATALOG_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "etcd/kv.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "server/catalog.h"

namespace hopmap::server {

// etcd://HOST:PORT/PREFIX, split. PREFIX: one or more path segments of letters,
// digits, '-', '_' and '.'.
struct EtcdUrl {
  std::string address;  // HOST:PORT
  std::string prefix;   // "/PREFIX" (no trailing '/')
};
absl::StatusOr<EtcdUrl> ParseEtcdUrl(const std::string& url);

class EtcdCatalog final : public SharedStore {
 public:
  using Log = std::function<void(const std::string&)>;
  struct Options {
    double call_timeout_seconds = 5;      // a Range, Put or DeleteRange
    double initial_timeout_seconds = 10;  // Start's first read
    double max_backoff_seconds = 2;       // between reconnects
  };

  EtcdCatalog(EtcdUrl url, MachineCatalog* catalog, Log log, Options options);
  EtcdCatalog(EtcdUrl url, MachineCatalog* catalog, Log log)
      : EtcdCatalog(std::move(url), catalog, std::move(log), Options()) {}
  ~EtcdCatalog() override;  // stops the watcher

  // Reads every stored machine (Unavailable naming etcd when it cannot within
  // initial_timeout_seconds), makes `catalog` write through this store, and starts
  // the watcher thread.
  absl::Status Start();

  absl::StatusOr<int64_t> Write(const std::string& name, const std::string& json) override;
  absl::StatusOr<int64_t> Remove(const std::string& name) override;

  // "etcd 127.0.0.1:2379/hopmap", for logs and errors.
  [[nodiscard]] std::string Describe() const;
  // Whether the watch is established now (etcd confirmed it): false while the
  // watcher reconnects, when changes of other replicas are not seen.
  [[nodiscard]] bool watch_live() const { return watch_live_.load(); }

 private:
  // Reads the whole prefix into the catalog; returns the store's revision.
  absl::StatusOr<int64_t> ReadAll(double timeout_seconds);
  // Watches from `revision` + 1 until the stream ends (etcd went away, the watch was
  // compacted, or Stop); returns the last revision applied.
  int64_t WatchFrom(int64_t revision);
  void Run(int64_t revision);
  void Apply(const etcdserverpb::KeyValue& kv, bool deleted, int64_t revision);
  std::string KeyOf(const std::string& name) const;

  EtcdUrl url_;
  std::string key_prefix_;     // PREFIX/machines/: the keys of stored machines
  std::string key_range_end_;  // the end of etcd's range of those keys
  MachineCatalog* catalog_;
  Log log_;
  Options options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<etcdserverpb::KV::Stub> kv_;
  std::unique_ptr<etcdserverpb::Watch::Stub> watch_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> watch_live_{false};
  absl::Mutex mu_;
  // The calls in progress, for the destructor to cancel.
  grpc::ClientContext* watch_context_ ABSL_GUARDED_BY(mu_) = nullptr;
  grpc::ClientContext* read_context_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::thread watcher_;
};

}  // namespace hopmap::server

#endif  // HOPMAP_SERVER_ETCD_ETCD_CATALOG_H_
