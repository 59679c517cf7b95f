// libFuzzer target: the daemon's request validation. The input is a serialized
// MapRequest (the wire format gRPC delivers); it goes through the real service
// class on an in-process gRPC server, as Map, Evaluate (with the same graph,
// machine and allocation) and Analyze (with the same graph). Every answer must be
// a reply or a status with a message, never a crash, a leak or a hang. Limits are
// small so that requests the service accepts solve in milliseconds.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "grpcpp/grpcpp.h"
#include "hopmap/v1/mapper.grpc.pb.h"
#include "server/catalog.h"
#include "server/service.h"

namespace {

struct Harness {
  std::unique_ptr<hopmap::server::MapperService> service;
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<hopmap::v1::Mapper::Stub> stub;
};

Harness& TheHarness() {
  static Harness* harness = [] {
    auto* h = new Harness();
    hopmap::server::ServiceOptions options;
    options.max_tasks = 4096;
    options.max_edges = 65536;
    options.max_machine_nodes = 65536;
    options.max_message_bytes = 1 << 20;
    options.max_time_limit_seconds = 0.01;
    options.threads = 1;
    options.max_concurrent = 1;
    options.cache_bytes = 64 << 20;
    absl::StatusOr<std::unique_ptr<hopmap::server::MachineCatalog>> catalog =
        hopmap::server::MachineCatalog::Open("", "");
    if (!catalog.ok()) std::abort();
    absl::StatusOr<std::unique_ptr<hopmap::server::MapperService>> service =
        hopmap::server::MapperService::Create(*std::move(catalog), options,
                                              [](const std::string&) {});
    if (!service.ok()) std::abort();
    h->service = *std::move(service);
    grpc::ServerBuilder builder;
    builder.RegisterService(h->service.get());
    h->server = builder.BuildAndStart();
    h->stub = hopmap::v1::Mapper::NewStub(h->server->InProcessChannel(grpc::ChannelArguments()));
    return h;
  }();
  return *harness;
}

// A failed call must say why.
void CheckStatus(const grpc::Status& status) {
  if (!status.ok() && status.error_message().empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hopmap::v1::MapRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  Harness& h = TheHarness();
  {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    hopmap::v1::MapReply reply;
    CheckStatus(h.stub->Map(&context, request, &reply));
  }
  {
    hopmap::v1::EvaluateRequest evaluate;
    *evaluate.mutable_graph() = request.graph();
    if (request.has_machine()) {
      *evaluate.mutable_machine() = request.machine();
    } else if (request.machine_ref_case() == hopmap::v1::MapRequest::kMachineName) {
      evaluate.set_machine_name(request.machine_name());
    }
    *evaluate.mutable_allocation() = request.allocation();
    *evaluate.mutable_slot_of_task() = request.initial_slot_of_task();
    evaluate.set_routing(request.routing());
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    hopmap::v1::MapReply reply;
    CheckStatus(h.stub->Evaluate(&context, evaluate, &reply));
  }
  {
    hopmap::v1::AnalyzeRequest analyze;
    *analyze.mutable_graph() = request.graph();
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    hopmap::v1::AnalyzeReply reply;
    CheckStatus(h.stub->Analyze(&context, analyze, &reply));
  }
  return 0;
}
