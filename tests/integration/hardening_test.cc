// hopmapd against hostile and unlucky conditions, on a real daemon process: TLS
// with a certificate made here, requests that lie about their sizes, kill -9 in the
// middle of PutMachine, a damaged state file at start, a client that dies mid-solve.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/lib/hopmap_client.h"
#include "gmock/gmock.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "hopmap/v1/mapper.grpc.pb.h"
#include "tests/client/cli_test_util.h"
#include "tests/integration/daemon_process.h"
#include "tests/integration/daemon_test_util.h"

namespace hopmap {
namespace {

namespace fs = std::filesystem;
using ::hopmap::client::ConnectOptions;
using ::hopmap::client::HopmapClient;
using ::hopmap::testing::ConnectTo;
using ::hopmap::testing::DaemonProcess;
using ::hopmap::testing::ReadFile;
using ::hopmap::testing::Request;
using ::hopmap::testing::RunHopmap;
using ::hopmap::testing::Stencil;
using ::hopmap::testing::TempPath;
using ::hopmap::testing::WriteFile;
using ::testing::AnyOf;
using ::testing::HasSubstr;

// Peak resident memory of a process in bytes (VmHWM), -1 if unknown.
int64_t PeakRssBytes(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    int64_t kb = 0;
    std::string digits;
    for (char c : line) {
      if (c >= '0' && c <= '9') digits.push_back(c);
    }
    if (absl::SimpleAtoi(digits, &kb)) return kb * 1024;
  }
  return -1;
}

// ---------------------------------------------------------------------------
// TLS

// A self-signed certificate for 127.0.0.1 and localhost, made by the openssl
// command (Debian's openssl package), valid for a day.
void MakeSelfSigned(const std::string& cert, const std::string& key, const std::string& cn) {
  const std::string command = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=" + cn +
                              " -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout " + key +
                              " -out " + cert + " 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

// A certificate that expired yesterday, with its key (the openssl command cannot
// make one: its -days must be positive).
void MakeExpired(const std::string& cert_path, const std::string& key_path) {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  ASSERT_NE(key, nullptr);
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), -2 * 86400);
  X509_gmtime_adj(X509_getm_notAfter(cert), -86400);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("expired"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  ASSERT_GT(X509_sign(cert, key, EVP_sha256()), 0);
  FILE* c = std::fopen(cert_path.c_str(), "w");
  FILE* k = std::fopen(key_path.c_str(), "w");
  ASSERT_TRUE(c != nullptr && k != nullptr);
  PEM_write_X509(c, cert);
  PEM_write_PrivateKey(k, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(c);
  std::fclose(k);
  X509_free(cert);
  EVP_PKEY_free(key);
}

absl::StatusOr<std::unique_ptr<HopmapClient>> ConnectTls(const std::string& address,
                                                         const std::string& ca,
                                                         const std::string& token,
                                                         double timeout = 30) {
  ConnectOptions options;
  options.address = address;
  options.tls_ca_file = ca;
  options.token = token;
  options.connect_timeout_seconds = timeout;
  return HopmapClient::Connect(options);
}

TEST(HardeningTest, TlsWithASelfSignedCertificate) {
  const std::string cert = TempPath("tls-cert.pem");
  const std::string key = TempPath("tls-key.pem");
  const std::string other_cert = TempPath("other-cert.pem");
  const std::string other_key = TempPath("other-key.pem");
  MakeSelfSigned(cert, key, "hopmap-test");
  MakeSelfSigned(other_cert, other_key, "someone-else");

  DaemonProcess daemon;
  ASSERT_TRUE(
      daemon.Start({"--tls-cert", cert, "--tls-key", key, "--token", "t0ken"}, TempPath("tls.log")))
      << daemon.error();
  EXPECT_THAT(ReadFile(TempPath("tls.log")), HasSubstr("TLS on TCP addresses: certificate CN="
                                                       "hopmap-test, valid until"));

  // Trusting the certificate, with the token: served.
  absl::StatusOr<std::unique_ptr<HopmapClient>> client =
      ConnectTls(daemon.address(), cert, "t0ken");
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<MappingReport> report = (*client)->Map(Request("bgp-8x8x8", Stencil({8, 8})));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->tasks, 64);
  // TLS does not replace the token.
  absl::StatusOr<std::unique_ptr<HopmapClient>> no_token = ConnectTls(daemon.address(), cert, "");
  ASSERT_TRUE(no_token.ok()) << no_token.status();
  EXPECT_EQ((*no_token)->Map(Request("bgp-8x8x8", Stencil({8, 8}))).status().code(),
            absl::StatusCode::kUnauthenticated);
  // Another CA's certificate, or plaintext: no connection.
  EXPECT_FALSE(ConnectTls(daemon.address(), other_cert, "t0ken", 3).ok());
  ConnectOptions plain;
  plain.address = daemon.address();
  plain.token = "t0ken";
  plain.connect_timeout_seconds = 3;
  EXPECT_FALSE(HopmapClient::Connect(plain).ok());

  // The CLI: --tls-ca (or HOPMAP_TLS_CA) talks TLS; without it, one line saying why.
  const std::string graph = TempPath("tls-halo.mtx");
  ASSERT_EQ(RunHopmap("gen stencil2d-5 --dims 8x8 -o " + graph).exit_code, 0);
  const std::string common =
      "map --server " + daemon.address() + " --machine bgp-8x8x8 --graph " + graph + " -q";
  const auto tls = RunHopmap(common + " --token t0ken --tls-ca " + cert + " --format perm");
  EXPECT_EQ(tls.exit_code, 0) << tls.err;
  EXPECT_FALSE(tls.out.empty());
  setenv("HOPMAP_TLS_CA", cert.c_str(), 1);
  setenv("HOPMAP_TOKEN", "t0ken", 1);
  const auto env = RunHopmap(common + " --format perm");
  unsetenv("HOPMAP_TLS_CA");
  unsetenv("HOPMAP_TOKEN");
  EXPECT_EQ(env.exit_code, 0) << env.err;
  const auto plaintext = RunHopmap(common + " --token t0ken");
  EXPECT_NE(plaintext.exit_code, 0);
  EXPECT_THAT(plaintext.err, HasSubstr(daemon.address()));
  EXPECT_THAT(plaintext.err,
              HasSubstr("if it serves TLS, give its CA certificate (hopmap --tls-ca)"));
  const auto wrong_ca = RunHopmap(common + " --token t0ken --tls-ca " + other_cert);
  EXPECT_NE(wrong_ca.exit_code, 0);
  EXPECT_THAT(wrong_ca.err, HasSubstr("cannot reach hopmapd at " + daemon.address()));

  // Bad certificate files stop the daemon at start with a line naming the file.
  const std::string garbage = TempPath("garbage.pem");
  WriteFile(garbage, "not a certificate\n");
  const std::string expired_cert = TempPath("expired-cert.pem");
  const std::string expired_key = TempPath("expired-key.pem");
  MakeExpired(expired_cert, expired_key);
  struct Bad {
    std::string cert, key, expected;
  };
  for (const Bad& bad : std::vector<Bad>{
           {garbage, key, "--tls-cert " + garbage + ": not a PEM certificate"},
           {cert, cert, "--tls-key " + cert + ": not a usable PEM private key"},
           {cert, other_key, "--tls-key " + other_key + ": does not match the certificate"},
           {cert, TempPath("missing.pem"),
            "--tls-key " + TempPath("missing.pem") + ": cannot read"},
           {expired_cert, expired_key, "--tls-cert " + expired_cert + ": expired on"},
       }) {
    SCOPED_TRACE(bad.expected);
    DaemonProcess refused;
    const std::string log = TempPath("tls-bad.log");
    EXPECT_FALSE(refused.Start({"--tls-cert", bad.cert, "--tls-key", bad.key}, log));
    EXPECT_THAT(ReadFile(log), HasSubstr(bad.expected));
  }
}

// ---------------------------------------------------------------------------
// Requests that lie about their sizes

grpc::Status CallMap(v1::Mapper::Stub& stub, const v1::MapRequest& request) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  v1::MapReply reply;
  return stub.Map(&context, request, &reply);
}

// Sends bytes that are not a valid MapRequest to Map.
grpc::Status CallMapWithRawBytes(const std::shared_ptr<grpc::Channel>& channel,
                                 const std::string& bytes) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer reply;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/hopmap.v1.Mapper/Map", grpc::StubOptions(), &request, &reply,
                 [&done](grpc::Status s) { done.set_value(std::move(s)); });
  return done.get_future().get();
}

std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

TEST(HardeningTest, LimitsHoldAgainstRequestsThatLieAboutTheirSizes) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({"--max-tasks", "100000", "--max-edges", "1000000",
                            "--max-machine-nodes", "100000", "--max-message-bytes", "4194304"},
                           TempPath("lies.log")))
      << daemon.error();
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(64 << 20);
  auto channel =
      grpc::CreateCustomChannel(daemon.address(), grpc::InsecureChannelCredentials(), args);
  auto stub = v1::Mapper::NewStub(channel);

  const v1::MapRequest base = Request("bgp-8x8x8", Stencil({8, 8}));
  struct Lie {
    std::string what;
    std::function<void(v1::MapRequest&)> edit;
    std::vector<grpc::StatusCode> codes;
    std::string expected;  // in the message
  };
  const auto invalid = std::vector<grpc::StatusCode>{grpc::StatusCode::INVALID_ARGUMENT};
  const auto too_big = std::vector<grpc::StatusCode>{grpc::StatusCode::RESOURCE_EXHAUSTED};
  const auto either = std::vector<grpc::StatusCode>{grpc::StatusCode::INVALID_ARGUMENT,
                                                    grpc::StatusCode::RESOURCE_EXHAUSTED};
  auto edge_list = [](v1::MapRequest& r, int32_t n) {
    r.mutable_graph()->Clear();
    r.mutable_graph()->set_num_tasks(n);
  };
  const std::vector<Lie> lies = {
      {"an edge list declaring 2^31-1 tasks",
       [&](v1::MapRequest& r) {
         edge_list(r, INT32_MAX);
         r.mutable_graph()->add_edge_u(0);
         r.mutable_graph()->add_edge_v(1);
         r.mutable_graph()->add_edge_bytes(8);
       },
       too_big, "--max-tasks"},
      {"an edge list naming task 2e9 of 10",
       [&](v1::MapRequest& r) {
         edge_list(r, 10);
         r.mutable_graph()->add_edge_u(1);
         r.mutable_graph()->add_edge_v(2'000'000'000);
         r.mutable_graph()->add_edge_bytes(8);
       },
       invalid, "graph.edge[0]: task 2000000000 out of range [0, 10)"},
      {"an edge list whose arrays disagree",
       [&](v1::MapRequest& r) {
         edge_list(r, 10);
         for (int i = 0; i < 3; ++i) r.mutable_graph()->add_edge_u(i);
         r.mutable_graph()->add_edge_v(1);
         r.mutable_graph()->add_edge_bytes(8);
       },
       invalid, "edge_v"},
      {"a CSR graph whose xadj claims 10^12 entries",
       [&](v1::MapRequest& r) {
         r.mutable_graph()->Clear();
         r.mutable_graph()->add_xadj(0);
         r.mutable_graph()->add_xadj(1'000'000'000'000);
         r.mutable_graph()->add_adjncy(0);
         r.mutable_graph()->add_adjwgt(1);
       },
       invalid, "xadj"},
      {"a CSR graph whose xadj goes backwards",
       [&](v1::MapRequest& r) { r.mutable_graph()->set_xadj(1, -5); }, invalid, "xadj"},
      {"an inline torus of 10^15 nodes",
       [&](v1::MapRequest& r) {
         auto* torus = r.mutable_machine()->mutable_torus();
         for (int i = 0; i < 3; ++i) torus->add_dims(100'000);
       },
       either, "machine"},
      {"an inline distance matrix of 10^6 nodes with 4 entries",
       [&](v1::MapRequest& r) {
         auto* m = r.mutable_machine()->mutable_distance_matrix();
         m->set_num_nodes(1'000'000);
         for (int i = 0; i < 4; ++i) m->add_hops(1);
       },
       either, "machine"},
      {"an allocation naming node 2e9",
       [&](v1::MapRequest& r) {
         r.mutable_allocation()->add_node_ids(0);
         r.mutable_allocation()->add_node_ids(2'000'000'000);
       },
       invalid, "node_ids"},
      {"an allocation range of 2e9 nodes",
       [&](v1::MapRequest& r) { r.mutable_allocation()->set_nodes("0-2000000000"); }, invalid,
       "nodes"},
      {"2^31-1 cores per node",
       [&](v1::MapRequest& r) { r.mutable_allocation()->set_cores_per_node(INT32_MAX); }, either,
       "cores per node"},
      {"a starting mapping of 200,000 entries for 64 tasks",
       [&](v1::MapRequest& r) {
         for (int i = 0; i < 200'000; ++i) r.add_initial_slot_of_task(i % 64);
       },
       either, "initial mapping: has 200000 entries"},
  };
  for (const Lie& lie : lies) {
    SCOPED_TRACE(lie.what);
    v1::MapRequest request = base;
    lie.edit(request);
    const grpc::Status status = CallMap(*stub, request);
    EXPECT_THAT(status.error_code(), ::testing::AnyOfArray(lie.codes)) << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr(lie.expected));
  }

  // Bigger than --max-message-bytes: refused by gRPC before it is parsed.
  v1::MapRequest huge = base;
  huge.mutable_graph()->set_self_bytes(1);
  huge.set_algorithm(std::string(5 << 20, 'x'));
  const grpc::Status over = CallMap(*stub, huge);
  EXPECT_EQ(over.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << over.error_message();

  // Bytes whose length prefixes lie: a packed xadj field (graph = 4, xadj = 1)
  // claiming 2^31 bytes in a 20-byte message, and a truncated varint.
  const std::string graph_claiming_2g = "\x22" + Varint(6) + "\x0a" + Varint(uint64_t{1} << 31);
  for (const std::string& bytes : {graph_claiming_2g, std::string("\x22\x05\x0a\x03\x00\x01", 6),
                                   std::string("\x48\xff", 2)}) {
    const grpc::Status s = CallMapWithRawBytes(channel, bytes);
    EXPECT_NE(s.error_code(), grpc::StatusCode::OK);
    EXPECT_NE(s.error_code(), grpc::StatusCode::UNAVAILABLE) << s.error_message();
  }

  // The daemon is alive, answers correctly, and none of it cost real memory.
  auto client = ConnectTo(daemon);
  ASSERT_NE(client, nullptr);
  absl::StatusOr<MappingReport> ok = client->Map(base);
  ASSERT_TRUE(ok.ok()) << ok.status();
  const int64_t rss = PeakRssBytes(daemon.pid());
  EXPECT_GT(rss, 0);
  EXPECT_LT(rss, int64_t{512} << 20) << "hopmapd's peak RSS";
}

// ---------------------------------------------------------------------------
// kill -9 during PutMachine

v1::Machine Version(int k) {
  v1::Machine m;
  m.set_name("lab");
  m.set_description(absl::StrCat("version ", k));
  m.set_cores_per_node(1 + k % 4);
  // A few hundred kB of machine text, so a kill often lands inside the write.
  std::string matrix;
  for (int i = 0; i < 64; ++i) {
    for (int j = 0; j < 64; ++j) absl::StrAppend(&matrix, i == j ? 0 : 1 + (i + j + k) % 5, " ");
    absl::StrAppend(&matrix, "# row ", i, " of version ", k, std::string(2000, ' '), "\n");
  }
  m.set_distance_matrix_file(matrix);
  return m;
}

TEST(HardeningTest, KillNineDuringPutMachineLeavesTheOldOrTheNewMachine) {
  const std::string state = TempPath("kill9-state");
  fs::remove_all(state);
  std::mt19937 rng(20261125);
  int acknowledged = -1;  // the last version a Put returned OK for
  int next = 0;
  int kills_during_put = 0;
  for (int round = 0; round < 100; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    DaemonProcess daemon;
    const std::string log = TempPath("kill9.log");
    ASSERT_TRUE(daemon.Start({"--state-dir", state}, log)) << daemon.error();
    EXPECT_THAT(ReadFile(log), ::testing::Not(HasSubstr("not loaded")));
    auto client = ConnectTo(daemon);
    ASSERT_NE(client, nullptr);
    // What survived the last kill: the version last acknowledged or the one in
    // flight, whole - never a mixture, never nothing once one was acknowledged.
    absl::StatusOr<v1::Machine> got = client->GetMachine("lab");
    if (acknowledged < 0 && !got.ok()) {
      EXPECT_EQ(got.status().code(), absl::StatusCode::kNotFound);
    } else {
      ASSERT_TRUE(got.ok()) << got.status();
      const int in_flight = next - 1;
      const std::string& d = got->description();
      ASSERT_THAT(
          d, AnyOf(absl::StrCat("version ", acknowledged), absl::StrCat("version ", in_flight)));
      const int k = d == absl::StrCat("version ", acknowledged) ? acknowledged : in_flight;
      const v1::Machine expected = Version(k);
      EXPECT_EQ(got->distance_matrix_file(), expected.distance_matrix_file());
      EXPECT_EQ(got->cores_per_node(), expected.cores_per_node());
      acknowledged = k;
    }
    for (const auto& entry : fs::directory_iterator(state + "/machines")) {
      EXPECT_EQ(entry.path().extension(), ".json") << entry.path();  // no .tmp left behind
    }
    // Put versions back to back; SIGKILL lands at a random moment among them.
    std::atomic<bool> killed{false};
    std::thread killer([&, delay_us = std::uniform_int_distribution<int>(0, 40'000)(rng)] {
      std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
      kill(daemon.pid(), SIGKILL);
      killed = true;
    });
    while (true) {
      const int k = next++;
      absl::StatusOr<v1::Machine> put = client->PutMachine(Version(k));
      if (!put.ok()) {
        ++kills_during_put;
        break;
      }
      acknowledged = k;
      if (killed.load()) {
        next = k + 1;  // nothing in flight when the kill landed between calls
        break;
      }
    }
    killer.join();
    EXPECT_NE(daemon.Signal(SIGKILL), -1);
  }
  // Most kills should land inside a Put (else the test proves little).
  EXPECT_GT(kills_during_put, 50);
  std::printf("kill -9 rounds: 100, inside a PutMachine: %d, versions put: %d\n", kills_during_put,
              next);
}

// ---------------------------------------------------------------------------
// A damaged state file at start

TEST(HardeningTest, ADamagedStateFileIsSetAsideAndTheRestIsServed) {
  const std::string state = TempPath("damaged-state");
  fs::remove_all(state);
  fs::create_directories(state + "/machines");
  WriteFile(state + "/machines/good.json",
            R"({"name": "good", "cores_per_node": 2, "torus": {"dims": [4, 4]}})");
  const std::string damaged = state + "/machines/damaged.json";
  WriteFile(damaged, std::string("{\"name\": \"damaged\", \"torus\": {\"di\0\0\0\0", 38));

  DaemonProcess daemon;
  const std::string log = TempPath("damaged.log");
  ASSERT_TRUE(daemon.Start({"--state-dir", state}, log)) << daemon.error();
  EXPECT_THAT(ReadFile(log), HasSubstr("stored machine not loaded: " + damaged + ": "));
  EXPECT_THAT(ReadFile(log), HasSubstr("moved to " + damaged + ".rejected"));
  EXPECT_TRUE(fs::exists(damaged + ".rejected"));
  auto client = ConnectTo(daemon);
  ASSERT_NE(client, nullptr);
  // The built-in catalog and the good stored machine are served.
  ASSERT_TRUE(client->Map(Request("bgp-8x8x8", Stencil({8, 8}))).ok());
  absl::StatusOr<MappingReport> good = client->Map(Request("good", Stencil({4, 8})));
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->slots, 32);
  // The damaged one says why it is missing.
  absl::StatusOr<v1::Machine> missing = client->GetMachine("damaged");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr(damaged + ".rejected"));
}

// ---------------------------------------------------------------------------
// A client that dies mid-solve

TEST(HardeningTest, AClientKilledMidSolveFreesItsSlot) {
  DaemonProcess daemon;
  const std::string log = TempPath("client-killed.log");
  ASSERT_TRUE(
      daemon.Start({"--max-concurrent", "1", "--max-queued", "0", "--max-time-limit", "600"}, log))
      << daemon.error();
  // axis-order on an 8-dimensional torus scores 9! orders: it runs to its limit.
  const std::string graph = TempPath("killed-ring.edgelist");
  ASSERT_EQ(RunHopmap("gen ring --tasks 6561 -o " + graph).exit_code, 0);
  const pid_t cli = fork();
  ASSERT_GE(cli, 0);
  if (cli == 0) {
    const std::string out = TempPath("killed-cli.out");
    execl(HOPMAP_CLI, HOPMAP_CLI, "map", "--server", daemon.address().c_str(), "--machine",
          "torus:3x3x3x3x3x3x3x3", "--graph", graph.c_str(), "--algorithm", "axis-order",
          "--time-limit", "600", "-q", "-o", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  auto client = ConnectTo(daemon);
  ASSERT_NE(client, nullptr);
  const v1::MapRequest quick = Request("bgp-8x8x8", Stencil({8, 8}));
  bool busy = false;
  for (int i = 0; i < 600 && !busy; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    busy = client->Map(quick).status().code() == absl::StatusCode::kResourceExhausted;
  }
  ASSERT_TRUE(busy) << "the CLI's solve never held the only slot";
  kill(cli, SIGKILL);
  int status = 0;
  waitpid(cli, &status, 0);
  // The connection is gone: the solve stops and the slot is free again within seconds.
  const auto killed_at = std::chrono::steady_clock::now();
  bool served = false;
  while (!served && std::chrono::steady_clock::now() - killed_at < std::chrono::seconds(20)) {
    served = client->Map(quick).ok();
    if (!served) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(served);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed_at).count();
  std::printf("slot free %.2f s after the client was killed\n", seconds);
  const std::string text = ReadFile(log);
  EXPECT_THAT(text, HasSubstr("algorithm=axis-order"));
  EXPECT_THAT(text, HasSubstr("status=CANCELLED"));
}

}  // namespace
}  // namespace hopmap
