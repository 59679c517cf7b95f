#include "server/status_util.h"

#include <string>
#include <utility>

#include "core/io/escape.h"

namespace hopmap::server {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const int code = static_cast<int>(status.code());
  const grpc::StatusCode grpc_code =
      (code > 0 && code <= static_cast<int>(grpc::StatusCode::UNAUTHENTICATED))
          ? static_cast<grpc::StatusCode>(code)
          : grpc::StatusCode::UNKNOWN;
  // The message travels in a trailer, which gRPC bounds (8 KiB by default): a
  // message echoing a huge request field must not cost the client its status.
  // Control characters escaped: a request's bytes echoed in a message must not break
  // the client's one-line error or the daemon's log line.
  std::string message = EscapeControlCharacters(status.message().substr(0, kMaxStatusMessageBytes));
  if (status.message().size() > kMaxStatusMessageBytes) message += "... (truncated)";
  return grpc::Status(grpc_code, std::move(message));
}

const char* GrpcCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN";
  }
}

}  // namespace hopmap::server
