// NetworkModel <-> its wire form (proto/hopmap/sim/network_model.proto): what the
// runner writes to the SimGrid worker's stdin and to the SMPI platform file.
#ifndef HOPMAP_SIM_MODEL_CODEC_H_
#define HOPMAP_SIM_MODEL_CODEC_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/simulate/network_model.h"

namespace hopmap::sim {

std::string EncodeNetworkModel(const NetworkModel& model);
// Parses and checks the model: every host, link and route index in range, a route
// for every flow between two hosts, bandwidths above 0, latencies 0 or more.
// `source` names the input in errors.
absl::StatusOr<NetworkModel> DecodeNetworkModel(const std::string& bytes,
                                                const std::string& source);

}  // namespace hopmap::sim

#endif  // HOPMAP_SIM_MODEL_CODEC_H_
