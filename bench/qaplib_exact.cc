// QAPLIB: the exact mapper on the small instances (proven optimum vs the best-known
// value) and the Gilmore-Lawler bound on all 36 instances vs BKS.tsv.
// Usage: qaplib_exact [--budget SECONDS] [--max-n N] [--threads N]
//   budget: per-instance time limit of exact (default 60); max-n: largest n given to
//   exact (default 20, the mapper's limit).
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "core/io/line_reader.h"
#include "core/io/qaplib.h"
#include "core/mappers/local_search/exact.h"
#include "core/metrics/gilmore_lawler.h"
#include "core/metrics/lower_bound.h"
#include "core/metrics/qap.h"
#include "tbb/task_arena.h"

namespace hopmap {
namespace {

const std::string kQaplibDir = std::string(HOPMAP_DATA_DIR) + "/qaplib";

struct BksRow {
  std::string name;
  int32_t n = 0;
  int64_t best_known = 0;
  bool proven = false;
};

std::vector<BksRow> ReadBks() {
  std::vector<BksRow> rows;
  absl::StatusOr<std::string> text = ReadFileToString(kQaplibDir + "/BKS.tsv");
  if (!text.ok()) {
    std::fprintf(stderr, "%s\n", std::string(text.status().message()).c_str());
    std::exit(1);
  }
  bool header = true;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    if (line.empty()) continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    BksRow row;
    row.name = f[0];
    if (!absl::SimpleAtoi(f[1], &row.n) || !absl::SimpleAtoi(f[2], &row.best_known)) continue;
    row.proven = f[3] == "yes";
    rows.push_back(row);
  }
  return rows;
}

int Run(double budget, int32_t max_n, int threads) {
  const std::vector<BksRow> bks = ReadBks();
  tbb::task_arena arena(threads);
  std::printf("exact (Gilmore-Lawler branch and bound), budget %.0f s per instance, %d threads\n",
              budget, threads);
  std::printf("%-8s %4s %12s %12s %-7s %9s %12s %7s\n", "instance", "n", "BKS", "exact", "proven",
              "seconds", "GL", "GL/BKS");
  for (const BksRow& row : bks) {
    if (row.n > max_n) continue;
    absl::StatusOr<QapInstance> instance = ReadQaplib(kQaplibDir + "/" + row.name + ".dat");
    absl::StatusOr<QapProblem> problem = instance.ok()
                                             ? QapAsMappingProblem(*instance)
                                             : absl::StatusOr<QapProblem>(instance.status());
    if (!problem.ok()) {
      std::printf("%-8s error: %s\n", row.name.c_str(),
                  std::string(problem.status().message()).c_str());
      continue;
    }
    const std::optional<HopBytes> gl = GilmoreLawlerLowerBound(problem->graph, problem->allocation);
    MapperOptions options;
    options.time_limit_seconds = budget;
    options.threads = threads;
    const absl::Time start = absl::Now();
    const StopCondition stop(start + absl::Seconds(budget));
    const MapInput input{problem->graph, problem->allocation, options, stop};
    absl::StatusOr<MapOutput> out = arena.execute([&] { return ExactMapper().Map(input); });
    const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
    if (!out.ok()) {
      std::printf("%-8s error: %s\n", row.name.c_str(),
                  std::string(out.status().message()).c_str());
      continue;
    }
    const int64_t cost = QapCost(*instance, out->slot_of_task);
    std::printf(
        "%-8s %4d %12lld %12lld %-7s %9.2f %12lld %7.3f%s\n", row.name.c_str(), row.n,
        static_cast<long long>(row.best_known), static_cast<long long>(cost),
        out->variant == "proven" ? "yes" : "no", seconds, static_cast<long long>(gl.value_or(-1)),
        static_cast<double>(gl.value_or(0)) / static_cast<double>(row.best_known),
        cost < row.best_known
            ? "  BELOW BKS?!"
            : (cost > row.best_known && out->variant == "proven" ? "  PROVEN ABOVE BKS?!" : ""));
    std::fflush(stdout);
  }

  std::printf("\nGilmore-Lawler bound vs best known, all instances\n");
  std::printf("%-8s %4s %12s %-6s %12s %7s %12s %9s\n", "instance", "n", "BKS", "opt?", "GL",
              "GL/BKS", "degree", "GL secs");
  int violations = 0;
  for (const BksRow& row : bks) {
    absl::StatusOr<QapInstance> instance = ReadQaplib(kQaplibDir + "/" + row.name + ".dat");
    absl::StatusOr<QapProblem> problem = instance.ok()
                                             ? QapAsMappingProblem(*instance)
                                             : absl::StatusOr<QapProblem>(instance.status());
    if (!problem.ok()) {
      std::printf("%-8s error: %s\n", row.name.c_str(),
                  std::string(problem.status().message()).c_str());
      continue;
    }
    const absl::Time start = absl::Now();
    const std::optional<HopBytes> gl =
        arena.execute([&] { return GilmoreLawlerLowerBound(problem->graph, problem->allocation); });
    const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
    const LowerBound degree = DegreeLowerBound(problem->graph, problem->allocation);
    if (gl && *gl > row.best_known) ++violations;
    std::printf("%-8s %4d %12lld %-6s %12lld %7.3f %12lld %9.4f\n", row.name.c_str(), row.n,
                static_cast<long long>(row.best_known), row.proven ? "yes" : "no",
                static_cast<long long>(gl.value_or(-1)),
                static_cast<double>(gl.value_or(0)) / static_cast<double>(row.best_known),
                static_cast<long long>(degree.value), seconds);
  }
  std::printf("GL above BKS: %d instance(s)\n", violations);
  return violations == 0 ? 0 : 1;
}

}  // namespace
}  // namespace hopmap

int main(int argc, char** argv) {
  double budget = 60;
  int32_t max_n = hopmap::kExactMaxTasks;
  int threads = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    bool ok = false;
    if (flag == "--budget") ok = absl::SimpleAtod(argv[i + 1], &budget);
    if (flag == "--max-n") ok = absl::SimpleAtoi(argv[i + 1], &max_n);
    if (flag == "--threads") ok = absl::SimpleAtoi(argv[i + 1], &threads);
    if (!ok) {
      std::fprintf(stderr, "usage: qaplib_exact [--budget SECONDS] [--max-n N] [--threads N]\n");
      return 1;
    }
  }
  return hopmap::Run(budget, max_n, threads);
}
