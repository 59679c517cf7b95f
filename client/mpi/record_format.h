// The text of a recording (libhopmap_mpi, HOPMAP_RECORD): an edge list that
// `hopmap` reads, with a commented header and the collectives as comment lines.
// Pure: no MPI here, so the format is tested without a launcher.
#ifndef HOPMAP_CLIENT_MPI_RECORD_FORMAT_H_
#define HOPMAP_CLIENT_MPI_RECORD_FORMAT_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hopmap::mpi {

// Messages and bytes one rank sent to another (MPI_COMM_WORLD ranks).
struct PairTraffic {
  int32_t from = 0;
  int32_t to = 0;
  int64_t messages = 0;
  int64_t bytes = 0;
};

// One collective operation on one communicator, merged over its members: calls as
// the members counted them (the largest count), bytes summed over the members'
// contributions (docs/mpi.md says what each operation's contribution is).
struct CollectiveTraffic {
  int64_t calls = 0;
  int64_t bytes = 0;
};

// Keyed by (the communicator's world ranks as RankRanges, the operation's name).
using CollectiveTable = std::map<std::pair<std::string, std::string>, CollectiveTraffic>;

struct RecordHeader {
  int32_t ranks = 0;
  std::string date;     // ISO 8601, UTC
  std::string program;  // argv[0] of rank 0
  // The host (MPI_Get_processor_name) of every rank.
  std::vector<std::string> host_of_rank;
};

// "0-3,8,10-11": sorted ranks as ranges; "" for none.
std::string RankRanges(const std::vector<int32_t>& sorted_ranks);

// The whole file. `pairs` may come in any order and may repeat a pair (summed).
std::string FormatRecord(const RecordHeader& header, std::vector<PairTraffic> pairs,
                         const CollectiveTable& collectives);

// One line of a rank's collective counts as gathered at MPI_Finalize: "RANKS OP CALLS
// BYTES". ParseCollectiveLine returns false on a malformed line.
std::string CollectiveLine(const std::string& ranks, const std::string& op,
                           const CollectiveTraffic& traffic);
bool ParseCollectiveLine(const std::string& line, std::string* ranks, std::string* op,
                         CollectiveTraffic* traffic);

// Merges one member's line into the table (calls: the largest; bytes: summed).
void MergeCollective(CollectiveTable* table, const std::string& ranks, const std::string& op,
                     const CollectiveTraffic& traffic);

}  // namespace hopmap::mpi

#endif  // HOPMAP_CLIENT_MPI_RECORD_FORMAT_H_
