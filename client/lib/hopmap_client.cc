#include "client/lib/hopmap_client.h"

#include <arpa/inet.h>

#include <chrono>
#include <climits>
#include <fstream>
#include <future>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/wrappers.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "proto/convert/convert.h"

namespace hopmap::client {
namespace {

// grpc.health.v1: HealthCheckRequest {string service = 1;} and HealthCheckResponse
// {ServingStatus status = 1;} have the wire format of google.protobuf.StringValue and
// Int32Value (field 1, a string / a varint), so the well-known wrappers stand in for
// the health messages, whose generated code Debian does not ship.
constexpr char kHealthCheckMethod[] = "/grpc.health.v1.Health/Check";
constexpr int32_t kServing = 1;  // HealthCheckResponse.ServingStatus.SERVING

std::chrono::system_clock::time_point DeadlineAfter(double seconds) {
  return std::chrono::system_clock::now() +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(
             std::chrono::duration<double>(seconds));
}

std::string Seconds(double s) { return absl::StrFormat("%g", s); }

// One grpc.health.v1.Health/Check call (fail-fast: it fails at once on a broken channel).
grpc::Status CheckHealth(const std::shared_ptr<grpc::Channel>& channel,
                         grpc::ClientContext* context, const std::string& service,
                         int32_t* status) {
  grpc::TemplatedGenericStub<google::protobuf::StringValue, google::protobuf::Int32Value> stub(
      channel);
  google::protobuf::StringValue request;
  request.set_value(service);
  google::protobuf::Int32Value response;
  std::promise<grpc::Status> done;
  std::future<grpc::Status> result = done.get_future();
  stub.UnaryCall(context, kHealthCheckMethod, grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status s) { done.set_value(std::move(s)); });
  grpc::Status s = result.get();
  *status = response.value();
  return s;
}

// Waits for the channel to connect, up to `timeout_seconds`, but gives up at the
// first failed attempt (refused, no such socket, TLS handshake failed) as gRPC's
// own fail-fast calls do: a caller such as a Slurm prolog must learn that the
// daemon is down in milliseconds, not after the whole timeout. The timeout still
// bounds an attempt that hangs (a host that drops packets).
bool Connected(grpc::Channel& channel, double timeout_seconds) {
  const auto deadline = DeadlineAfter(timeout_seconds);
  grpc_connectivity_state state = channel.GetState(/*try_to_connect=*/true);
  while (state != GRPC_CHANNEL_READY) {
    if (state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_SHUTDOWN) return false;
    if (!channel.WaitForStateChange(state, deadline)) return false;  // timed out
    state = channel.GetState(/*try_to_connect=*/true);
  }
  return true;
}

// Every channel balances its calls over the addresses it resolves (several
// replicas: a list, or a DNS name with several records) and retries UNAVAILABLE
// (a replica that went away, even mid-call) on the others. The calls retried are
// the ones that change nothing; PutMachine and DeleteMachine are not retried.
constexpr char kServiceConfig[] = R"json({
  "loadBalancingConfig": [{"round_robin": {}}],
  "methodConfig": [{
    "name": [
      {"service": "hopmap.v1.Mapper", "method": "Map"},
      {"service": "hopmap.v1.Mapper", "method": "MapStream"},
      {"service": "hopmap.v1.Mapper", "method": "Evaluate"},
      {"service": "hopmap.v1.Mapper", "method": "Simulate"},
      {"service": "hopmap.v1.Mapper", "method": "Analyze"},
      {"service": "hopmap.v1.Mapper", "method": "ListMachines"},
      {"service": "hopmap.v1.Mapper", "method": "ListAlgorithms"},
      {"service": "hopmap.v1.Mapper", "method": "GetMachine"}
    ],
    "retryPolicy": {
      "maxAttempts": 5,
      "initialBackoff": "0.05s",
      "maxBackoff": "1s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE"]
    }
  }]
})json";

}  // namespace

absl::StatusOr<std::string> ChannelTarget(const std::string& address) {
  if (address.find(',') == std::string::npos) return address;
  // A list of replicas: gRPC's ipv4:/ipv6: targets take several IP:PORT entries.
  std::string family;
  std::vector<std::string> entries;
  for (absl::string_view entry : absl::StrSplit(address, ',')) {
    entry = absl::StripAsciiWhitespace(entry);
    std::string host;
    std::string port;
    if (!entry.empty() && entry.front() == '[') {
      const size_t close = entry.find("]:");
      if (close == absl::string_view::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat("address: '", entry, "' in the list is not [IPV6]:PORT"));
      }
      host = std::string(entry.substr(1, close - 1));
      port = std::string(entry.substr(close + 2));
    } else {
      const size_t colon = entry.rfind(':');
      if (colon == absl::string_view::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat("address: '", entry, "' in the list has no port (IP:PORT)"));
      }
      host = std::string(entry.substr(0, colon));
      port = std::string(entry.substr(colon + 1));
    }
    int port_number = 0;
    if (!absl::SimpleAtoi(port, &port_number) || port_number < 1 || port_number > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("address: '", entry, "' in the list has no port 1..65535"));
    }
    in6_addr v6;
    in_addr v4;
    const std::string this_family = inet_pton(AF_INET, host.c_str(), &v4) == 1    ? "ipv4"
                                    : inet_pton(AF_INET6, host.c_str(), &v6) == 1 ? "ipv6"
                                                                                  : "";
    if (this_family.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "address: '", entry,
          "' in the list is not an IP address; a list takes IP:PORT entries, for host names "
          "use dns:///NAME:PORT (every address the name resolves to is used)"));
    }
    if (!family.empty() && family != this_family) {
      return absl::InvalidArgumentError(
          "address: the list mixes IPv4 and IPv6 entries; give one family");
    }
    family = this_family;
    entries.push_back(this_family == "ipv6" ? absl::StrCat("[", host, "]:", port)
                                            : absl::StrCat(host, ":", port));
  }
  return absl::StrCat(family, ":", absl::StrJoin(entries, ","));
}

HopmapClient::HopmapClient(std::string address, std::string token,
                           std::shared_ptr<grpc::Channel> channel)
    : address_(std::move(address)),
      token_(std::move(token)),
      channel_(std::move(channel)),
      stub_(v1::Mapper::NewStub(channel_)) {}

HopmapClient::~HopmapClient() = default;

absl::StatusOr<std::unique_ptr<HopmapClient>> HopmapClient::Connect(const ConnectOptions& options) {
  if (options.address.empty()) {
    return absl::InvalidArgumentError("address: empty (HOST:PORT or unix:PATH)");
  }
  if (options.max_message_bytes <= 0 || options.max_message_bytes > INT_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_message_bytes: ", options.max_message_bytes, " is outside 1..", INT_MAX));
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (options.tls_ca_file.empty()) {
    credentials = grpc::InsecureChannelCredentials();
  } else {
    std::ifstream in(options.tls_ca_file, std::ios::binary);
    std::stringstream pem;
    pem << in.rdbuf();
    if (!in || pem.str().empty()) {
      return absl::NotFoundError(
          absl::StrCat("tls_ca_file ", options.tls_ca_file, ": cannot read the CA certificate"));
    }
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = pem.str();
    credentials = grpc::SslCredentials(ssl);
  }
  absl::StatusOr<std::string> target = ChannelTarget(options.address);
  if (!target.ok()) return target.status();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(static_cast<int>(options.max_message_bytes));
  args.SetMaxSendMessageSize(static_cast<int>(options.max_message_bytes));
  args.SetServiceConfigJSON(kServiceConfig);
  std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(*target, credentials, args);
  if (channel == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("address: cannot open a channel to '", options.address, "'"));
  }
  if (options.connect_timeout_seconds > 0 &&
      !Connected(*channel, options.connect_timeout_seconds)) {
    // Ask once more without waiting, to learn why (connection refused, no such
    // socket, TLS handshake failure, ...).
    grpc::ClientContext context;
    context.set_deadline(DeadlineAfter(1));
    int32_t serving = 0;
    const grpc::Status why = CheckHealth(channel, &context, "", &serving);
    std::string reason = "no connection";
    if (why.error_code() == grpc::StatusCode::UNAVAILABLE && !why.error_message().empty()) {
      absl::StrAppend(&reason, ": ", why.error_message());
    } else {
      absl::StrAppend(&reason, " within ", Seconds(options.connect_timeout_seconds), " s");
    }
    // A hopmapd serving TLS closes a plaintext connection without a word.
    if (options.tls_ca_file.empty() && absl::StrContains(why.error_message(), "Socket closed")) {
      absl::StrAppend(&reason, "; if it serves TLS, give its CA certificate (hopmap --tls-ca)");
    }
    return absl::UnavailableError(
        absl::StrCat("cannot reach hopmapd at ", options.address, ": ", reason));
  }
  return std::unique_ptr<HopmapClient>(
      new HopmapClient(options.address, options.token, std::move(channel)));
}

std::unique_ptr<grpc::ClientContext> HopmapClient::NewContext(double deadline_seconds) const {
  auto context = std::make_unique<grpc::ClientContext>();
  if (!token_.empty()) context->AddMetadata("authorization", absl::StrCat("Bearer ", token_));
  if (deadline_seconds > 0) context->set_deadline(DeadlineAfter(deadline_seconds));
  return context;
}

absl::Status HopmapClient::FromGrpc(const grpc::Status& status, double deadline_seconds) const {
  if (status.ok()) return absl::OkStatus();
  const auto code = static_cast<absl::StatusCode>(status.error_code());
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      // hopmapd answered, but its shared catalog (etcd) did not.
      if (absl::StartsWith(status.error_message(), "the shared catalog (")) {
        return absl::Status(code,
                            absl::StrCat("hopmapd at ", address_, ": ", status.error_message()));
      }
      return absl::Status(
          code, absl::StrCat("cannot reach hopmapd at ", address_, ": ", status.error_message()));
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      if (deadline_seconds > 0) {
        return absl::Status(
            code, absl::StrCat("no reply from hopmapd at ", address_, " within ",
                               Seconds(deadline_seconds), " s (", status.error_message(), ")"));
      }
      return absl::Status(code, status.error_message());
    default:
      return absl::Status(code, status.error_message());
  }
}

absl::StatusOr<v1::MapReply> HopmapClient::MapProto(const v1::MapRequest& request,
                                                    double deadline_seconds) {
  std::unique_ptr<grpc::ClientContext> context = NewContext(deadline_seconds);
  v1::MapReply reply;
  const grpc::Status status = stub_->Map(context.get(), request, &reply);
  if (!status.ok()) return FromGrpc(status, deadline_seconds);
  return reply;
}

absl::StatusOr<MappingReport> HopmapClient::Map(const v1::MapRequest& request,
                                                double deadline_seconds) {
  absl::StatusOr<v1::MapReply> reply = MapProto(request, deadline_seconds);
  if (!reply.ok()) return reply.status();
  return ReportFromProto(*reply);
}

absl::StatusOr<MappingReport> HopmapClient::MapStream(const v1::MapRequest& request,
                                                      const ProgressCallback& on_progress,
                                                      double deadline_seconds) {
  std::unique_ptr<grpc::ClientContext> context = NewContext(deadline_seconds);
  std::unique_ptr<grpc::ClientReader<v1::MapProgress>> reader =
      stub_->MapStream(context.get(), request);
  v1::MapProgress message;
  std::optional<v1::MapReply> result;
  int extra_results = 0;
  while (reader->Read(&message)) {
    if (message.has_progress()) {
      if (on_progress) on_progress(ProgressFromProto(message.progress()));
    } else if (message.has_result()) {
      if (result.has_value()) ++extra_results;
      result = std::move(*message.mutable_result());
    }
  }
  const grpc::Status status = reader->Finish();
  if (!status.ok()) return FromGrpc(status, deadline_seconds);
  if (!result.has_value()) {
    return absl::InternalError(
        absl::StrCat("hopmapd at ", address_, ": MapStream ended without a result"));
  }
  if (extra_results > 0) {
    return absl::InternalError(
        absl::StrCat("hopmapd at ", address_, ": MapStream sent ", extra_results + 1, " results"));
  }
  return ReportFromProto(*result);
}

absl::StatusOr<MappingReport> HopmapClient::Evaluate(const v1::EvaluateRequest& request,
                                                     double deadline_seconds) {
  std::unique_ptr<grpc::ClientContext> context = NewContext(deadline_seconds);
  v1::MapReply reply;
  const grpc::Status status = stub_->Evaluate(context.get(), request, &reply);
  if (!status.ok()) return FromGrpc(status, deadline_seconds);
  return ReportFromProto(reply);
}

absl::StatusOr<SimulationReport> HopmapClient::Simulate(const v1::SimulateRequest& request,
                                                        double deadline_seconds) {
  std::unique_ptr<grpc::ClientContext> context = NewContext(deadline_seconds);
  v1::SimulateReply reply;
  const grpc::Status status = stub_->Simulate(context.get(), request, &reply);
  if (!status.ok()) return FromGrpc(status, deadline_seconds);
  return SimulationReportFromProto(reply);
}

absl::StatusOr<v1::AnalyzeReply> HopmapClient::Analyze(const v1::AnalyzeRequest& request,
                                                       double deadline_seconds) {
  std::unique_ptr<grpc::ClientContext> context = NewContext(deadline_seconds);
  v1::AnalyzeReply reply;
  const grpc::Status status = stub_->Analyze(context.get(), request, &reply);
  if (!status.ok()) return FromGrpc(status, deadline_seconds);
  return reply;
}

absl::StatusOr<std::vector<v1::MachineSummary>> HopmapClient::ListMachines(
    double deadline_seconds) {
  std::unique_ptr<grpc::ClientContext> context = NewContext(deadline_seconds);
  v1::ListMachinesReply reply;
  const grpc::Status status = stub_->ListMachines(context.get(), v1::ListMachinesRequest(), &reply);
  if (!status.ok()) return FromGrpc(status, deadline_seconds);
  return std::vector<v1::MachineSummary>(reply.machines().begin(), reply.machines().end());
}

absl::StatusOr<std::vector<v1::AlgorithmSummary>> HopmapClient::ListAlgorithms(
    double deadline_seconds) {
  std::unique_ptr<grpc::ClientContext> context = NewContext(deadline_seconds);
  v1::ListAlgorithmsReply reply;
  const grpc::Status status =
      stub_->ListAlgorithms(context.get(), v1::ListAlgorithmsRequest(), &reply);
  if (!status.ok()) return FromGrpc(status, deadline_seconds);
  return std::vector<v1::AlgorithmSummary>(reply.algorithms().begin(), reply.algorithms().end());
}

absl::StatusOr<v1::Machine> HopmapClient::GetMachine(const std::string& name,
                                                     double deadline_seconds) {
  std::unique_ptr<grpc::ClientContext> context = NewContext(deadline_seconds);
  v1::GetMachineRequest request;
  request.set_name(name);
  v1::Machine reply;
  const grpc::Status status = stub_->GetMachine(context.get(), request, &reply);
  if (!status.ok()) return FromGrpc(status, deadline_seconds);
  return reply;
}

absl::StatusOr<v1::Machine> HopmapClient::PutMachine(const v1::Machine& machine,
                                                     double deadline_seconds) {
  std::unique_ptr<grpc::ClientContext> context = NewContext(deadline_seconds);
  v1::PutMachineRequest request;
  *request.mutable_machine() = machine;
  v1::Machine reply;
  const grpc::Status status = stub_->PutMachine(context.get(), request, &reply);
  if (!status.ok()) return FromGrpc(status, deadline_seconds);
  return reply;
}

absl::Status HopmapClient::DeleteMachine(const std::string& name, double deadline_seconds) {
  std::unique_ptr<grpc::ClientContext> context = NewContext(deadline_seconds);
  v1::DeleteMachineRequest request;
  request.set_name(name);
  v1::DeleteMachineReply reply;
  return FromGrpc(stub_->DeleteMachine(context.get(), request, &reply), deadline_seconds);
}

absl::StatusOr<bool> HopmapClient::Health(const std::string& service, double deadline_seconds) {
  std::unique_ptr<grpc::ClientContext> context = NewContext(deadline_seconds);
  int32_t serving = 0;
  const grpc::Status status = CheckHealth(channel_, context.get(), service, &serving);
  if (!status.ok()) return FromGrpc(status, deadline_seconds);
  return serving == kServing;
}

}  // namespace hopmap::client
