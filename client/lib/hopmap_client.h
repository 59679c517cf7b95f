// HopmapClient: the C++ client of hopmapd (the hopmap.v1.Mapper gRPC service).
//
// Link the CMake target hopmap_client. Every method returns absl::Status(Or): the
// daemon's gRPC status comes back with its code and message unchanged (NOT_FOUND for
// an unknown machine, INVALID_ARGUMENT naming the bad field, ...), except that
// UNAVAILABLE reads "cannot reach hopmapd at ADDR: ..." and a client-side deadline
// "no reply from hopmapd at ADDR within S s".
//
//   hopmap::client::ConnectOptions options;
//   options.address = "127.0.0.1:50051";          // or "unix:/run/hopmapd.sock"
//   options.token = getenv("HOPMAP_TOKEN");       // optional
//   absl::StatusOr<std::unique_ptr<hopmap::client::HopmapClient>> client =
//       hopmap::client::HopmapClient::Connect(options);
//   if (!client.ok()) return client.status();
//
//   // The request through the converters of proto/convert/convert.h:
//   hopmap::v1::MapRequest request;
//   hopmap::MachineRefToProto(hopmap::MachineRefFromText("kraken"), &request);
//   hopmap::AllocationSpecToProto({}, "nid[00100-00299]", 0, request.mutable_allocation());
//   hopmap::TaskGraphToProto(graph, request.mutable_graph());
//   hopmap::SolveRequestToProto(solve, &request);  // the algorithm, options, balance
//   absl::StatusOr<hopmap::MappingReport> report = (*client)->Map(request);
//   if (report.ok()) use(report->slot_of_task);
//
// A HopmapClient is thread-safe: several threads may call it at once (one channel).
#ifndef HOPMAP_CLIENT_LIB_HOPMAP_CLIENT_H_
#define HOPMAP_CLIENT_LIB_HOPMAP_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/solve/report.h"
#include "core/solve/simulate.h"
#include "hopmap/v1/mapper.grpc.pb.h"
#include "hopmap/v1/mapper.pb.h"

namespace hopmap::client {

struct ConnectOptions {
  // "HOST:PORT" (e.g. "127.0.0.1:50051", "[::1]:50051"), "unix:PATH", or several
  // replicas: "IP:PORT,IP:PORT,..." or "dns:///NAME:PORT" (calls are spread
  // round-robin and UNAVAILABLE is retried on another; see ChannelTarget).
  std::string address;
  // Sent as "authorization: Bearer TOKEN" on every call; empty: no token.
  std::string token;
  // PEM file of the CA that signed hopmapd's certificate; empty: no TLS.
  std::string tls_ca_file;
  // Connect waits at most this long for the connection, and not at all once an
  // attempt failed (refused, no such socket, TLS handshake failed); <= 0: do not
  // wait (connect lazily, on the first call).
  double connect_timeout_seconds = 5;
  // Largest message sent or received.
  int64_t max_message_bytes = int64_t{256} << 20;
};

// The gRPC target of an address: HOST:PORT, unix:PATH and gRPC URIs (dns:///NAME:PORT,
// ipv4:..., ...) as they are; a comma-separated list of replicas, IP:PORT each (one
// family; [IPV6]:PORT), becomes gRPC's ipv4:/ipv6: list. InvalidArgument naming the
// entry otherwise (a host name in a list: use dns:///NAME:PORT).
absl::StatusOr<std::string> ChannelTarget(const std::string& address);

class HopmapClient {
 public:
  // Opens a channel to options.address and, unless connect_timeout_seconds <= 0,
  // waits for it to connect. Errors: InvalidArgument for an empty address or a bad
  // max_message_bytes, NotFound for an unreadable tls_ca_file, Unavailable ("cannot
  // reach hopmapd at ADDR: ...") when the first attempt failed or no connection came
  // up in time.
  static absl::StatusOr<std::unique_ptr<HopmapClient>> Connect(const ConnectOptions& options);

  HopmapClient(const HopmapClient&) = delete;
  HopmapClient& operator=(const HopmapClient&) = delete;
  ~HopmapClient();

  // In every call, deadline_seconds <= 0 means no deadline. hopmapd caps a solve's
  // time budget by the call's deadline.

  // Computes a mapping (the daemon's report, ReportFromProto).
  absl::StatusOr<MappingReport> Map(const v1::MapRequest& request, double deadline_seconds = 0);
  // The same, with the reply's service fields (cache_hit, request_id).
  absl::StatusOr<v1::MapReply> MapProto(const v1::MapRequest& request, double deadline_seconds = 0);
  // Map through MapStream: on_progress (may be empty) is called on this thread for
  // every progress message (ProgressFromProto), before the result arrives.
  absl::StatusOr<MappingReport> MapStream(const v1::MapRequest& request,
                                          const ProgressCallback& on_progress,
                                          double deadline_seconds = 0);
  // Measures a given mapping.
  absl::StatusOr<SimulationReport> Simulate(const v1::SimulateRequest& request,
                                            double deadline_seconds = 0);
  absl::StatusOr<MappingReport> Evaluate(const v1::EvaluateRequest& request,
                                         double deadline_seconds = 0);
  // Basic statistics of a task graph.
  absl::StatusOr<v1::AnalyzeReply> Analyze(const v1::AnalyzeRequest& request,
                                           double deadline_seconds = 0);

  // The daemon's machine catalog, sorted as the daemon sends it.
  absl::StatusOr<std::vector<v1::MachineSummary>> ListMachines(double deadline_seconds = 0);
  absl::StatusOr<std::vector<v1::AlgorithmSummary>> ListAlgorithms(double deadline_seconds = 0);
  absl::StatusOr<v1::Machine> GetMachine(const std::string& name, double deadline_seconds = 0);
  // Adds or replaces a stored machine (the admin token when hopmapd has one);
  // returns the machine as stored.
  absl::StatusOr<v1::Machine> PutMachine(const v1::Machine& machine, double deadline_seconds = 0);
  absl::Status DeleteMachine(const std::string& name, double deadline_seconds = 0);

  // grpc.health.v1.Health/Check of `service` ("" = the whole server): true when
  // SERVING, false for NOT_SERVING and the other states; an error when the call fails.
  absl::StatusOr<bool> Health(const std::string& service = "", double deadline_seconds = 0);

  [[nodiscard]] const std::string& address() const { return address_; }

 private:
  HopmapClient(std::string address, std::string token, std::shared_ptr<grpc::Channel> channel);

  // A context with the token and the deadline.
  std::unique_ptr<grpc::ClientContext> NewContext(double deadline_seconds) const;
  // The one grpc -> absl conversion.
  absl::Status FromGrpc(const grpc::Status& status, double deadline_seconds) const;

  std::string address_;
  std::string token_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Mapper::Stub> stub_;
};

}  // namespace hopmap::client

#endif  // HOPMAP_CLIENT_LIB_HOPMAP_CLIENT_H_
