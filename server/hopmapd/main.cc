// hopmapd: the hopmap daemon. Serves hopmap.v1.Mapper (plus gRPC health checking
// and reflection) on the --listen addresses until SIGTERM or SIGINT, then stops
// accepting, gives in-flight solves --grace seconds and cancels what is left.
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpc/support/log.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "server/catalog.h"
#include "server/etcd/etcd_catalog.h"
#include "server/hopmapd/tls_files.h"
#include "server/metrics/daemon_metrics.h"
#include "server/service.h"
#include "server/service_options.h"

namespace hopmap::server {
namespace {

struct DaemonFlags {
  std::vector<std::string> listen;
  std::string config;
  std::string state_dir;
  std::string catalog;         // etcd://HOST:PORT/PREFIX: the replicas' shared catalog
  std::string metrics_listen;  // HOST:PORT of the Prometheus /metrics endpoint
  std::string tls_cert;
  std::string tls_key;
  double grace_seconds = 10.0;
  // Permissions of unix: sockets, in octal: 600 (owner only) or 660 (and the
  // daemon's group, e.g. for a Slurm prolog running as another user).
  std::string unix_socket_mode = "600";
  ServiceOptions service;
};

void Say(const std::string& line) { LogToStderr(absl::StrCat("hopmapd: ", line)); }

// gRPC's own log lines: one line each, prefixed; while the listeners are being
// bound they are kept instead, so a bind failure becomes one line of ours.
absl::Mutex grpc_log_mu;
bool grpc_log_capturing ABSL_GUARDED_BY(grpc_log_mu) = false;
std::string grpc_log_captured ABSL_GUARDED_BY(grpc_log_mu);

void GrpcLog(gpr_log_func_args* args) {
  std::string message = args->message != nullptr ? args->message : "";
  for (char& c : message) {
    if (c == '\n') c = ' ';
  }
  {
    absl::MutexLock lock(&grpc_log_mu);
    if (grpc_log_capturing) {
      absl::StrAppend(&grpc_log_captured, message, "\n");
      return;
    }
  }
  Say(absl::StrCat("grpc ", gpr_log_severity_string(args->severity), ": ", message));
}

// The failed address and the system's reason from a captured gRPC error, e.g.
// "127.0.0.1:50051: Address already in use".
std::string BindFailure(const std::vector<std::string>& addresses) {
  absl::MutexLock lock(&grpc_log_mu);
  const std::string& text = grpc_log_captured;
  auto quoted_after = [&text](const std::string& key, char quote) -> std::string {
    const size_t begin = text.find(key);
    if (begin == std::string::npos) return "";
    const size_t end = text.find(quote, begin + key.size());
    if (end == std::string::npos) return "";
    return text.substr(begin + key.size(), end - begin - key.size());
  };
  std::string address = quoted_after("resolved for '", '\'');
  if (address.empty()) address = absl::StrJoin(addresses, ", ");
  std::string reason = quoted_after("os_error:\"", '"');
  if (reason.empty()) reason = "address in use, not permitted or not resolvable";
  return absl::StrCat(address, ": ", reason);
}

bool IsUnixAddress(const std::string& address) {
  return absl::StartsWith(address, "unix:") || absl::StartsWith(address, "unix-abstract:");
}

// Splits HOST:PORT (HOST may be [v6]); false when it is not of that form.
bool SplitHostPort(const std::string& address, std::string* host, int* port) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  *host = address.substr(0, colon);
  return absl::SimpleAtoi(address.substr(colon + 1), port) && *port >= 0 && *port <= 65535;
}

// The flags' values that no library checks; says what is wrong and returns false.
bool CheckFlags(const DaemonFlags& flags) {
  for (const std::string& address : flags.listen) {
    std::string host;
    int port = 0;
    if (!IsUnixAddress(address) && !SplitHostPort(address, &host, &port)) {
      Say(absl::StrCat("--listen: '", address, "' is not HOST:PORT or unix:PATH"));
      return false;
    }
  }
  if (!std::isfinite(flags.grace_seconds) || flags.grace_seconds < 0) {
    Say(absl::StrCat("--grace must be a number of seconds >= 0, got ", flags.grace_seconds));
    return false;
  }
  if (flags.unix_socket_mode != "600" && flags.unix_socket_mode != "660") {
    Say(absl::StrCat("--unix-socket-mode must be 600 (owner only) or 660 (owner and group), got '",
                     flags.unix_socket_mode, "'"));
    return false;
  }
  if (flags.tls_cert.empty() != flags.tls_key.empty()) {
    Say("--tls-cert and --tls-key go together: give both or neither");
    return false;
  }
  if (absl::Status s = flags.service.Validate(); !s.ok()) {
    Say(std::string(s.message()));
    return false;
  }
  return true;
}

// The credentials of the TCP addresses: TLS with --tls-cert and --tls-key, else
// plaintext; null (said why) when the files do not load.
std::shared_ptr<grpc::ServerCredentials> TcpCredentials(const DaemonFlags& flags) {
  if (flags.tls_cert.empty()) return grpc::InsecureServerCredentials();
  absl::StatusOr<TlsFiles> tls = LoadTlsFiles(flags.tls_cert, flags.tls_key);
  if (!tls.ok()) {
    Say(std::string(tls.status().message()));
    return nullptr;
  }
  Say(absl::StrCat("TLS on TCP addresses: certificate ", tls->subject, ", valid until ",
                   tls->not_after));
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({tls->private_key_pem, tls->cert_chain_pem});
  return grpc::SslServerCredentials(ssl);
}

// The machine catalog (with --config and --state-dir) and the service that owns it
// (MapperService::catalog()). Null (said why) when either fails.
std::unique_ptr<MapperService> CreateService(const DaemonFlags& flags) {
  absl::StatusOr<std::unique_ptr<MachineCatalog>> catalog =
      MachineCatalog::Open(flags.config, flags.state_dir);
  if (!catalog.ok()) {
    Say(std::string(catalog.status().message()));
    return nullptr;
  }
  // A damaged stored machine costs that machine, not the service: the rest of the
  // catalog is served and the file is kept aside for the operator.
  for (const std::string& line : (*catalog)->rejected()) {
    Say(absl::StrCat("stored machine not loaded: ", line));
  }
  absl::StatusOr<std::unique_ptr<MapperService>> service =
      MapperService::Create(*std::move(catalog), flags.service);
  if (!service.ok()) {
    Say(std::string(service.status().message()));
    return nullptr;
  }
  return *std::move(service);
}

// The shared catalog of --catalog, read once (a replica that cannot reach etcd does
// not start) and then watched into `catalog_view`. False (said why) when it cannot
// start; `shared` stays null without --catalog.
bool StartSharedCatalog(const DaemonFlags& flags, MachineCatalog* catalog_view,
                        std::unique_ptr<EtcdCatalog>& shared) {
  if (flags.catalog.empty()) return true;
  absl::StatusOr<EtcdUrl> url = ParseEtcdUrl(flags.catalog);
  if (!url.ok()) {
    Say(std::string(url.status().message()));
    return false;
  }
  shared = std::make_unique<EtcdCatalog>(*url, catalog_view, Say);
  if (absl::Status s = shared->Start(); !s.ok()) {
    Say(std::string(s.message()));
    return false;
  }
  Say(absl::StrCat("shared catalog: ", shared->Describe(), " (", catalog_view->List().size(),
                   " machines)"));
  return true;
}

// Prometheus metrics on --metrics-listen, observing the service's calls; `shown` is
// set to the address they are served on. False (said why) when they cannot start;
// `metrics` stays null without --metrics-listen.
bool StartMetrics(const DaemonFlags& flags, MapperService* service, MachineCatalog* catalog_view,
                  EtcdCatalog* shared, std::unique_ptr<DaemonMetrics>& metrics,
                  std::string& shown) {
  if (flags.metrics_listen.empty()) return true;
  std::string host;
  int port = 0;
  if (!SplitHostPort(flags.metrics_listen, &host, &port)) {
    Say(absl::StrCat("--metrics-listen: '", flags.metrics_listen, "' is not HOST:PORT"));
    return false;
  }
  DaemonMetrics::Sources sources;
  sources.service = service;
  sources.catalog = catalog_view;
  if (shared != nullptr) {
    EtcdCatalog* const watched = shared;
    sources.etcd_watch_live = [watched] { return watched->watch_live(); };
  }
  absl::StatusOr<std::unique_ptr<DaemonMetrics>> started =
      DaemonMetrics::Start(flags.metrics_listen, std::move(sources));
  if (!started.ok()) {
    Say(std::string(started.status().message()));
    return false;
  }
  metrics = *std::move(started);
  service->set_call_observer(metrics.get());
  shown = absl::StrCat(host, ":", metrics->port());
  return true;
}

// The gRPC server serving `service` on every --listen address; `ports` gets the port
// each is bound to. Null (said why) when it cannot listen.
std::unique_ptr<grpc::Server> StartServer(
    const DaemonFlags& flags, const std::shared_ptr<grpc::ServerCredentials>& tcp_credentials,
    MapperService* service, std::vector<int>& ports) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.SetMaxReceiveMessageSize(static_cast<int>(flags.service.max_message_bytes));
  builder.SetMaxSendMessageSize(static_cast<int>(flags.service.max_message_bytes));
  // A second daemon on a busy port must fail, not share it (gRPC sets SO_REUSEPORT).
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  ports.assign(flags.listen.size(), 0);
  for (size_t i = 0; i < flags.listen.size(); ++i) {
    // A Unix socket is guarded by its file permissions; TLS is for TCP.
    builder.AddListeningPort(
        flags.listen[i],
        IsUnixAddress(flags.listen[i]) ? grpc::InsecureServerCredentials() : tcp_credentials,
        &ports[i]);
  }
  builder.RegisterService(service);
  {
    absl::MutexLock lock(&grpc_log_mu);
    grpc_log_capturing = true;
  }
  // Unix sockets are created owner-only (srw-------) or, with --unix-socket-mode
  // 660, owner and group: the socket's permissions are its only guard. gRPC binds
  // with the process umask; it is set for the bind and restored after.
  const mode_t old_umask = umask(flags.unix_socket_mode == "660" ? 0117 : 0177);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  umask(old_umask);
  {
    absl::MutexLock lock(&grpc_log_mu);
    grpc_log_capturing = false;
  }
  if (server == nullptr) Say(absl::StrCat("cannot listen on ", BindFailure(flags.listen)));
  return server;
}

// Tells stdout where the daemon listens (TCP addresses with the ports bound) and
// where its metrics are.
void AnnounceAddresses(const DaemonFlags& flags, const std::vector<int>& ports,
                       const DaemonMetrics* metrics, const std::string& metrics_shown) {
  for (size_t i = 0; i < flags.listen.size(); ++i) {
    std::string shown = flags.listen[i];
    std::string host;
    int port = 0;
    if (!IsUnixAddress(shown) && SplitHostPort(shown, &host, &port)) {
      shown = absl::StrCat(host, ":", ports[i]);
    }
    std::cout << "hopmapd: listening on " << shown << "\n";
  }
  if (metrics != nullptr)
    std::cout << "hopmapd: metrics on http://" << metrics_shown << "/metrics\n";
  std::cout.flush();
}

// Waits for a stop signal, then shuts the server down: the calls in flight get the
// grace period (--grace), and are cancelled when it ends or on a second signal.
void ServeUntilStopped(const DaemonFlags& flags, const sigset_t& stop_signals, grpc::Server& server,
                       MapperService& service) {
  int signal_number = 0;
  while (sigwait(&stop_signals, &signal_number) != 0) {
  }
  const auto grace = std::chrono::duration_cast<std::chrono::system_clock::duration>(
      std::chrono::duration<double>(flags.grace_seconds));
  const auto deadline = std::chrono::system_clock::now() + grace;
  Say(absl::StrCat(signal_number == SIGINT ? "SIGINT" : "SIGTERM", ": stopping; ",
                   service.calls_in_flight(), " calls in flight get ", flags.grace_seconds,
                   " s to finish"));

  // Cancels what is left when the grace period ends, or at once on a second signal.
  absl::Notification stopped;
  std::thread canceller([&] {
    while (!stopped.HasBeenNotified()) {
      const timespec tick{0, 50'000'000};
      const int again = sigtimedwait(&stop_signals, nullptr, &tick);
      if (again > 0 || std::chrono::system_clock::now() >= deadline) {
        if (!stopped.HasBeenNotified()) {
          Say(absl::StrCat(again > 0 ? "second signal" : "grace period over",
                           ": cancelling the calls in flight"));
        }
        service.CancelAll();
        stopped.WaitForNotification();
        return;
      }
    }
  });
  server.Shutdown(deadline);
  server.Wait();
  stopped.Notify();
  canceller.join();
}

int Run(DaemonFlags& flags, const sigset_t& stop_signals) {
  if (flags.listen.empty()) flags.listen.push_back("127.0.0.1:50051");
  if (!CheckFlags(flags)) return 1;
  const std::shared_ptr<grpc::ServerCredentials> tcp_credentials = TcpCredentials(flags);
  if (tcp_credentials == nullptr) return 1;
  std::unique_ptr<MapperService> service = CreateService(flags);
  if (service == nullptr) return 1;
  MachineCatalog* catalog_view = &service->catalog();
  // The shared catalog's watcher writes to the catalog the service owns, so it is
  // declared after the service: destroyed (the watcher stopped) first.
  std::unique_ptr<EtcdCatalog> shared;
  if (!StartSharedCatalog(flags, catalog_view, shared)) return 1;
  // Prometheus metrics: started before the gRPC listeners, so that a bad address
  // stops the daemon before it serves.
  std::unique_ptr<DaemonMetrics> metrics;
  std::string metrics_shown;
  if (!StartMetrics(flags, service.get(), catalog_view, shared.get(), metrics, metrics_shown)) {
    return 1;
  }
  std::vector<int> ports;
  std::unique_ptr<grpc::Server> server = StartServer(flags, tcp_credentials, service.get(), ports);
  if (server == nullptr) return 1;
  AnnounceAddresses(flags, ports, metrics.get(), metrics_shown);
  ServeUntilStopped(flags, stop_signals, *server, *service);
  Say("stopped");
  return 0;
}

}  // namespace
}  // namespace hopmap::server

int main(int argc, char** argv) {
  // The stop signals are blocked in every thread (threads inherit the mask) and
  // taken synchronously with sigwait, so no handler runs in signal context.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // A closed stdout or stderr pipe must not kill the daemon.
  signal(SIGPIPE, SIG_IGN);
  gpr_set_log_function(hopmap::server::GrpcLog);

  hopmap::server::DaemonFlags flags;
  hopmap::server::ServiceOptions& o = flags.service;
  CLI::App app{
      "hopmapd: the hopmap daemon. Maps the tasks of parallel jobs onto machine allocations "
      "over gRPC (hopmap.v1.Mapper, health checking, reflection). With no arguments it "
      "serves the built-in machine catalog on 127.0.0.1:50051. Tokens may also come from the "
      "environment (HOPMAP_TOKEN, HOPMAP_ADMIN_TOKEN) so they do not show in ps."};
  app.option_defaults()->always_capture_default();
  app.add_option("--listen", flags.listen,
                 "Address to serve on, repeatable: HOST:PORT (port 0 picks a free one) or "
                 "unix:PATH (default 127.0.0.1:50051)");
  app.add_option("--config", flags.config,
                 "A CatalogConfig in JSON: machines added to the built-in catalog");
  app.add_option("--state-dir", flags.state_dir,
                 "Directory where PutMachine stores machines so they survive restarts "
                 "(default: none, not persisted)");
  app.add_option("--catalog", flags.catalog,
                 "etcd://HOST:PORT/PREFIX: keep stored machines in etcd, shared by every "
                 "replica started with the same URL (each watches it); replaces --state-dir "
                 "(docs/operations.md)")
      ->excludes("--state-dir");
  app.add_option("--metrics-listen", flags.metrics_listen,
                 "HOST:PORT where Prometheus scrapes /metrics (port 0 picks a free one; "
                 "default: no metrics); docs/operations.md lists them");
  app.add_option("--threads", o.threads, "Threads per solve (0: all hardware threads)");
  app.add_option("--max-concurrent", o.max_concurrent, "Solves running at once");
  app.add_option("--max-queued", o.max_queued,
                 "Requests waiting for a solve slot; more get RESOURCE_EXHAUSTED");
  app.add_option("--max-tasks", o.max_tasks, "Most tasks in one request's graph");
  app.add_option("--max-edges", o.max_edges, "Most edges in one request's graph");
  app.add_option("--max-machine-nodes", o.max_machine_nodes,
                 "Most nodes of a machine sent inline or stored with PutMachine");
  app.add_option("--max-message-bytes", o.max_message_bytes,
                 "Largest request or reply message in bytes");
  app.add_option("--default-time-limit", o.default_time_limit_seconds,
                 "Seconds a solve may take when the request gives no limit; 0: sized to the "
                 "job (1 s per 8192 tasks, at least 1 s, at most 45 s)")
      ->capture_default_str();
  app.add_option("--max-time-limit", o.max_time_limit_seconds,
                 "Largest time limit a request may ask for, in seconds (larger is capped; the "
                 "call's deadline caps it too)");
  app.add_option("--cache-bytes", o.cache_bytes, "Memory budget of the allocation cache");
  app.add_option("--tls-cert", flags.tls_cert,
                 "PEM certificate chain: serve TCP addresses with TLS (needs --tls-key)");
  app.add_option("--tls-key", flags.tls_key, "PEM private key of --tls-cert");
  app.add_option("--token", o.token,
                 "Every call needs metadata 'authorization: Bearer T' (env HOPMAP_TOKEN)");
  app.add_option("--admin-token", o.admin_token,
                 "PutMachine/DeleteMachine need this token (env HOPMAP_ADMIN_TOKEN)");
  app.add_option("--unix-socket-mode", flags.unix_socket_mode,
                 "Permissions of unix: sockets: 600 (only the daemon's user may connect) or "
                 "660 (and its group)")
      ->capture_default_str();
  std::string log_format = "text";
  app.add_option("--log-format", log_format,
                 "text: one key=value line per request on stderr; json: one JSON object per "
                 "request (time, request, method, peer, machine, tasks, algorithm, status, "
                 "seconds, hop_bytes, improvement, error), for log shippers")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("--grace", flags.grace_seconds,
                 "Seconds in-flight solves get to finish after SIGTERM/SIGINT before they "
                 "are cancelled");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a bad flag exits 1, as every other startup error.
    return app.exit(e) == 0 ? 0 : 1;
  }
  o.log_json = log_format == "json";

  if (app.count("--token") == 0) {
    if (const char* token = std::getenv("HOPMAP_TOKEN"); token != nullptr) o.token = token;
  }
  if (app.count("--admin-token") == 0) {
    if (const char* token = std::getenv("HOPMAP_ADMIN_TOKEN"); token != nullptr) {
      o.admin_token = token;
    }
  }
  return hopmap::server::Run(flags, stop_signals);
}
