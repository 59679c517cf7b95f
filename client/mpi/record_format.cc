#include "client/mpi/record_format.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hopmap::mpi {

std::string RankRanges(const std::vector<int32_t>& sorted_ranks) {
  std::string out;
  size_t i = 0;
  while (i < sorted_ranks.size()) {
    size_t j = i;
    while (j + 1 < sorted_ranks.size() && sorted_ranks[j + 1] == sorted_ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    absl::StrAppend(&out, sorted_ranks[i]);
    if (j > i) absl::StrAppend(&out, "-", sorted_ranks[j]);
    i = j + 1;
  }
  return out;
}

std::string FormatRecord(const RecordHeader& header, std::vector<PairTraffic> pairs,
                         const CollectiveTable& collectives) {
  std::sort(pairs.begin(), pairs.end(), [](const PairTraffic& a, const PairTraffic& b) {
    return a.from != b.from ? a.from < b.from : a.to < b.to;
  });
  std::vector<PairTraffic> merged;
  for (const PairTraffic& p : pairs) {
    if (!merged.empty() && merged.back().from == p.from && merged.back().to == p.to) {
      merged.back().messages += p.messages;
      merged.back().bytes += p.bytes;
    } else {
      merged.push_back(p);
    }
  }
  int64_t messages = 0;
  int64_t bytes = 0;
  for (const PairTraffic& p : merged) {
    messages += p.messages;
    bytes += p.bytes;
  }
  int64_t collective_calls = 0;
  int64_t collective_bytes = 0;
  for (const auto& [key, traffic] : collectives) {
    collective_calls += traffic.calls;
    collective_bytes += traffic.bytes;
  }

  // Hosts in order of their first rank, each with its ranks.
  std::vector<std::string> hosts;
  std::map<std::string, std::vector<int32_t>> ranks_of_host;
  for (int32_t r = 0; r < static_cast<int32_t>(header.host_of_rank.size()); ++r) {
    const std::string& host = header.host_of_rank[r];
    std::vector<int32_t>& ranks = ranks_of_host[host];
    if (ranks.empty()) hosts.push_back(host);
    ranks.push_back(r);
  }

  std::string out;
  absl::StrAppend(
      &out, "# hopmap MPI recording (libhopmap_mpi): bytes each rank sent to each other\n",
      "# tasks: ", header.ranks, "\n", "# ranks: ", header.ranks, "\n", "# date: ", header.date,
      "\n", "# program: ", header.program, "\n", "# hosts: ", hosts.size(), "\n");
  for (const std::string& host : hosts) {
    absl::StrAppend(&out, "# host ", host, ": ranks ", RankRanges(ranks_of_host[host]), "\n");
  }
  absl::StrAppend(&out, "# point-to-point: ", messages, " messages, ", bytes,
                  " bytes (sends, including the neighbourhood collectives)\n",
                  "# collectives: ", collective_calls, " calls, ", collective_bytes,
                  " bytes (listed at the end; not in the graph)\n",
                  "# lines: FROM TO BYTES # msgs=MESSAGES (MPI_COMM_WORLD ranks)\n");
  for (const PairTraffic& p : merged) {
    absl::StrAppend(&out, p.from, " ", p.to, " ", p.bytes, " # msgs=", p.messages, "\n");
  }
  if (!collectives.empty()) {
    absl::StrAppend(&out, "# collective OP ranks=RANKS calls=CALLS bytes=BYTES\n");
    for (const auto& [key, traffic] : collectives) {
      absl::StrAppend(&out, "# collective ", key.second, " ranks=", key.first,
                      " calls=", traffic.calls, " bytes=", traffic.bytes, "\n");
    }
  }
  return out;
}

std::string CollectiveLine(const std::string& ranks, const std::string& op,
                           const CollectiveTraffic& traffic) {
  return absl::StrCat(ranks, " ", op, " ", traffic.calls, " ", traffic.bytes, "\n");
}

bool ParseCollectiveLine(const std::string& line, std::string* ranks, std::string* op,
                         CollectiveTraffic* traffic) {
  std::istringstream in(line);
  return static_cast<bool>(in >> *ranks >> *op >> traffic->calls >> traffic->bytes);
}

void MergeCollective(CollectiveTable* table, const std::string& ranks, const std::string& op,
                     const CollectiveTraffic& traffic) {
  CollectiveTraffic& merged = (*table)[{ranks, op}];
  merged.calls = std::max(merged.calls, traffic.calls);
  merged.bytes += traffic.bytes;
}

}  // namespace hopmap::mpi
