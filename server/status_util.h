// The one conversion from absl::Status (used everywhere inside hopmap) to
// grpc::Status (only at the service edge).
#ifndef HOPMAP_SERVER_STATUS_UTIL_H_
#define HOPMAP_SERVER_STATUS_UTIL_H_

#include <cstddef>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace hopmap::server {

// Longest status message sent; longer ones are cut and marked "... (truncated)".
inline constexpr size_t kMaxStatusMessageBytes = 2048;

// Same code (the two enumerations share their numbering), same message (up to
// kMaxStatusMessageBytes). Codes gRPC does not know become UNKNOWN.
grpc::Status ToGrpcStatus(const absl::Status& status);

// The canonical name of a code, e.g. "INVALID_ARGUMENT" (for logs).
const char* GrpcCodeName(grpc::StatusCode code);

}  // namespace hopmap::server

#endif  // HOPMAP_SERVER_STATUS_UTIL_H_
