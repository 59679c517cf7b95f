// MapperService: hopmap.v1.Mapper over the core library (synchronous gRPC API).
// Resolves machines through the catalog, keeps allocations in the cache, bounds
// every request by ServiceOptions, admits solves through an AdmissionGate and stops
// a solve when its call is cancelled or its deadline passes.
#ifndef HOPMAP_SERVER_SERVICE_H_
#define HOPMAP_SERVER_SERVICE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hopmap/v1/mapper.grpc.pb.h"
#include "server/admission.h"
#include "server/allocation_cache.h"
#include "server/call_observer.h"
#include "server/catalog.h"
#include "server/service_options.h"

namespace hopmap::server {

// Receives the one log line of every request (without a trailing newline).
using LogSink = std::function<void(const std::string& line)>;
// Writes the line to stderr.
void LogToStderr(const std::string& line);

class MapperService final : public v1::Mapper::Service {
 public:
  // Validates `options`, then serves `catalog` with an allocation cache of
  // options.cache_bytes. `log` gets one line per request (null: stderr).
  static absl::StatusOr<std::unique_ptr<MapperService>> Create(
      std::unique_ptr<MachineCatalog> catalog, ServiceOptions options, LogSink log = nullptr);
  ~MapperService() override;
  MapperService(const MapperService&) = delete;
  MapperService& operator=(const MapperService&) = delete;

  grpc::Status Map(grpc::ServerContext* context, const v1::MapRequest* request,
                   v1::MapReply* reply) override;
  grpc::Status MapStream(grpc::ServerContext* context, const v1::MapRequest* request,
                         grpc::ServerWriter<v1::MapProgress>* writer) override;
  grpc::Status Simulate(grpc::ServerContext* context, const v1::SimulateRequest* request,
                        v1::SimulateReply* reply) override;
  grpc::Status Evaluate(grpc::ServerContext* context, const v1::EvaluateRequest* request,
                        v1::MapReply* reply) override;
  grpc::Status Analyze(grpc::ServerContext* context, const v1::AnalyzeRequest* request,
                       v1::AnalyzeReply* reply) override;
  grpc::Status ListMachines(grpc::ServerContext* context, const v1::ListMachinesRequest* request,
                            v1::ListMachinesReply* reply) override;
  grpc::Status ListAlgorithms(grpc::ServerContext* context,
                              const v1::ListAlgorithmsRequest* request,
                              v1::ListAlgorithmsReply* reply) override;
  grpc::Status GetMachine(grpc::ServerContext* context, const v1::GetMachineRequest* request,
                          v1::Machine* reply) override;
  grpc::Status PutMachine(grpc::ServerContext* context, const v1::PutMachineRequest* request,
                          v1::Machine* reply) override;
  grpc::Status DeleteMachine(grpc::ServerContext* context, const v1::DeleteMachineRequest* request,
                             v1::DeleteMachineReply* reply) override;

  // Stops every solve in flight (they return their best so far) and every call
  // waiting for admission, and every call that starts from now on: the end of
  // the shutdown grace period.
  void CancelAll();

  [[nodiscard]] const ServiceOptions& options() const { return options_; }
  [[nodiscard]] MachineCatalog& catalog() { return *catalog_; }
  // Tells `observer` (not owned; it must outlive the service) of every finished
  // call. Set before serving.
  void set_call_observer(CallObserver* observer) { observer_ = observer; }
  [[nodiscard]] AllocationCache& cache() { return cache_; }
  [[nodiscard]] const AdmissionGate& admission() const { return admission_; }
  // Calls being served right now (any method).
  [[nodiscard]] int64_t calls_in_flight() const;

 private:
  struct Call;  // one request being served
  class CallWatcher;
  class CallScope;
  struct ResolvedMachine;
  struct Problem;

  MapperService(std::unique_ptr<MachineCatalog> catalog, ServiceOptions options, LogSink log);

  absl::Status Authorize(const grpc::ServerContext& context, bool admin) const;
  absl::Status CheckGraphLimits(const v1::TaskGraph& graph, Call& call) const;
  absl::StatusOr<ResolvedMachine> ResolveMachine(bool has_inline, const v1::Machine& inline_machine,
                                                 const std::string& machine_name) const;
  absl::StatusOr<AllocationCache::Lookup> GetAllocation(const ResolvedMachine& machine,
                                                        const v1::AllocationSpec& spec);
  int SolveThreads(int requested) const;
  // A solve slot for `call` (admission control); marks the call rejected when the
  // gate refuses it at once.
  absl::StatusOr<AdmissionGate::Ticket> Admit(Call& call);

  template <typename Request>
  absl::StatusOr<Problem> PrepareProblem(Call& call, const Request& request);
  absl::Status DoMap(Call& call, const v1::MapRequest& request, v1::MapReply* reply,
                     const std::function<void(const v1::Progress&)>& on_progress);
  absl::Status DoEvaluate(Call& call, const v1::EvaluateRequest& request, v1::MapReply* reply);
  absl::Status DoSimulate(Call& call, const v1::SimulateRequest& request, v1::SimulateReply* reply);
  absl::Status DoAnalyze(Call& call, const v1::AnalyzeRequest& request, v1::AnalyzeReply* reply);
  absl::Status DoPutMachine(Call& call, const v1::PutMachineRequest& request, v1::Machine* reply);
  absl::Status DoDeleteMachine(Call& call, const v1::DeleteMachineRequest& request);

  std::string NextRequestId(const grpc::ServerContext& context);

  const ServiceOptions options_;
  const std::unique_ptr<MachineCatalog> catalog_;
  AllocationCache cache_;
  AdmissionGate admission_;
  LogSink log_;
  CallObserver* observer_ = nullptr;
  std::unique_ptr<CallWatcher> watcher_;
  const uint32_t id_prefix_;
  std::atomic<uint64_t> next_id_{1};
};

}  // namespace hopmap::server

#endif  // HOPMAP_SERVER_SERVICE_H_
