// QAPLIB heuristic benchmark: the QAP mappers (grasp) on every QAPLIB instance with
// n <= 100 listed in BKS.tsv, with a per-instance time budget; prints the gap to the
// best-known value per instance and the mean gaps for n <= 50 and n <= 100.
//
//   qaplib_heuristics [--seconds=10] [--threads=2] [--seed=1] [--filter=tai]
//                     [--mappers=grasp] [--max-n=100]
//
// The cost printed is QAPLIB's own sum_{i,j} a_ij * b_{p(i)p(j)}, recomputed from
// the matrices, and checked against the mapping's hop-bytes.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "core/graph/task_graph.h"
#include "core/io/qaplib.h"
#include "core/mappers/mapper.h"
#include "core/mappers/portfolio/registry.h"
#include "core/metrics/hop_bytes.h"
#include "core/metrics/qap.h"
#include "core/topology/allocation.h"
#include "tbb/task_arena.h"

namespace hopmap {
namespace {

struct Row {
  std::string name;
  int32_t n;
  int64_t bks;
};

std::vector<Row> ReadBks(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<Row> rows;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    Row r;
    if (f.size() < 3 || !absl::SimpleAtoi(f[1], &r.n) || !absl::SimpleAtoi(f[2], &r.bks)) continue;
    r.name = f[0];
    rows.push_back(r);
  }
  return rows;
}

int Main(int argc, char** argv) {
  double seconds = 10;
  int threads = 2;
  uint64_t seed = 1;
  int32_t max_n = 100;
  std::string filter;
  std::vector<std::string> mappers = {"grasp"};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* flag) -> const char* {
      const std::string prefix = std::string(flag) + "=";
      return absl::StartsWith(arg, prefix) ? argv[i] + prefix.size() : nullptr;
    };
    if (const char* v = value("--seconds")) {
      seconds = std::atof(v);
    } else if (const char* v = value("--threads")) {
      threads = std::atoi(v);
    } else if (const char* v = value("--seed")) {
      seed = std::strtoull(v, nullptr, 10);
    } else if (const char* v = value("--max-n")) {
      max_n = std::atoi(v);
    } else if (const char* v = value("--filter")) {
      filter = v;
    } else if (const char* v = value("--mappers")) {
      mappers = absl::StrSplit(v, ',');
    } else {
      std::fprintf(stderr, "unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
  const std::string dir = std::string(HOPMAP_DATA_DIR) + "/qaplib/";
  std::vector<Row> rows = ReadBks(dir + "BKS.tsv");
  std::sort(rows.begin(), rows.end(),
            [](const Row& x, const Row& y) { return x.n != y.n ? x.n < y.n : x.name < y.name; });
  std::printf("# %.1f s per instance, %d threads, seed %llu\n", seconds, threads,
              static_cast<unsigned long long>(seed));
  std::printf("%-8s %-8s %4s %12s %12s %8s %7s  %s\n", "mapper", "instance", "n", "BKS", "cost",
              "gap%", "seconds", "variant");
  tbb::task_arena arena(threads);
  for (const std::string& name : mappers) {
    absl::StatusOr<std::unique_ptr<Mapper>> mapper = BuiltinMappers().Create(name);
    if (!mapper.ok()) {
      std::fprintf(stderr, "%s\n", std::string(mapper.status().message()).c_str());
      return 2;
    }
    double sum50 = 0, sum100 = 0;
    int count50 = 0, count100 = 0;
    for (const Row& row : rows) {
      if (row.n > max_n || (!filter.empty() && !absl::StrContains(row.name, filter))) continue;
      absl::StatusOr<QapInstance> q = ReadQaplib(dir + row.name + ".dat");
      absl::StatusOr<QapProblem> problem =
          q.ok() ? QapAsMappingProblem(*q) : absl::StatusOr<QapProblem>(q.status());
      if (!problem.ok()) {
        std::printf("%-8s %-8s: %s\n", name.c_str(), row.name.c_str(),
                    std::string(problem.status().message()).c_str());
        continue;
      }
      MapperOptions options;
      options.seed = seed;
      options.threads = threads;
      options.time_limit_seconds = seconds;
      absl::StatusOr<MapOutput> out;
      double elapsed = 0;
      HopBytes hop_bytes = 0;
      arena.execute([&] {
        const absl::Time start = absl::Now();
        const StopCondition stop(start + absl::Seconds(seconds));
        out = (*mapper)->Map({problem->graph, problem->allocation, options, stop});
        elapsed = absl::ToDoubleSeconds(absl::Now() - start);
        if (out.ok()) {
          hop_bytes = ComputeHopBytes(problem->graph, problem->allocation, out->slot_of_task);
        }
      });
      if (!out.ok()) {
        std::printf("%-8s %-8s: %s\n", name.c_str(), row.name.c_str(),
                    std::string(out.status().message()).c_str());
        continue;
      }
      const int64_t cost = QapCost(*q, out->slot_of_task);
      const double gap = 100.0 * static_cast<double>(cost - row.bks) / static_cast<double>(row.bks);
      std::printf("%-8s %-8s %4d %12lld %12lld %8.3f %7.2f  %s%s\n", name.c_str(), row.name.c_str(),
                  row.n, static_cast<long long>(row.bks), static_cast<long long>(cost), gap,
                  elapsed, out->variant.c_str(),
                  cost == hop_bytes ? "" : " [hop-bytes differ from the QAPLIB cost!]");
      std::fflush(stdout);
      if (row.n <= 50) {
        sum50 += gap;
        ++count50;
      }
      sum100 += gap;
      ++count100;
    }
    std::printf("%-8s mean gap n<=50: %.3f%% (%d instances); n<=%d: %.3f%% (%d instances)\n",
                name.c_str(), count50 ? sum50 / count50 : 0.0, count50, max_n,
                count100 ? sum100 / count100 : 0.0, count100);
  }
  return 0;
}

}  // namespace
}  // namespace hopmap

int main(int argc, char** argv) { return hopmap::Main(argc, argv); }
