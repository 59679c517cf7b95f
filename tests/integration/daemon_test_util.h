// Helpers shared by the tests that talk to a real hopmapd process.
#ifndef HOPMAP_TESTS_INTEGRATION_DAEMON_TEST_UTIL_H_
#define HOPMAP_TESTS_INTEGRATION_DAEMON_TEST_UTIL_H_

#include <unistd.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "client/lib/hopmap_client.h"
#include "core/graph/generators.h"
#include "gtest/gtest.h"
#include "hopmap/v1/mapper.pb.h"
#include "nlohmann/json.hpp"
#include "proto/convert/convert.h"
#include "tests/integration/daemon_process.h"
#include "tests/temp_path.h"

namespace hopmap::testing {

inline std::unique_ptr<client::HopmapClient> ConnectTo(const DaemonProcess& daemon,
                                                       std::string token = "") {
  client::ConnectOptions options;
  options.address = daemon.address();
  options.token = std::move(token);
  options.connect_timeout_seconds = 30;
  absl::StatusOr<std::unique_ptr<client::HopmapClient>> client =
      client::HopmapClient::Connect(options);
  EXPECT_TRUE(client.ok()) << client.status();
  return client.ok() ? *std::move(client) : nullptr;
}

// A periodic 2D 5-point or 3D 7-point stencil.
inline TaskGraph Stencil(std::vector<int32_t> dims) {
  GeneratorOptions gen;
  gen.kind = dims.size() == 2 ? "stencil2d-5" : "stencil3d-7";
  gen.dims = std::move(dims);
  gen.wrap = true;
  return *GenerateGraph(gen);
}

inline v1::MapRequest Request(const std::string& machine, const TaskGraph& graph,
                              const std::string& algorithm = "auto") {
  v1::MapRequest request;
  request.set_machine_name(machine);
  TaskGraphToProto(graph, request.mutable_graph());
  request.set_algorithm(algorithm);
  request.set_threads(2);
  return request;
}

// A map report's JSON without the fields that measure time.
inline nlohmann::json WithoutTimes(nlohmann::json j) {
  j.erase("solve_seconds");
  for (auto& c : j["candidates"]) c.erase("seconds");
  return j;
}

}  // namespace hopmap::testing

#endif  // HOPMAP_TESTS_INTEGRATION_DAEMON_TEST_UTIL_H_
