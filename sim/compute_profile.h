// The compute profile's files (sim/smpi_compute/hopmap_smpi_compute.c writes and
// reads them; docs/apps.md#the-computation): per rank, DIR/rank-R.bursts (the seconds
// of each compute burst) and DIR/rank-R.sites (each burst's code region); for the
// whole run, DIR/sites.median (one cost per region).
#ifndef HOPMAP_SIM_COMPUTE_PROFILE_H_
#define HOPMAP_SIM_COMPUTE_PROFILE_H_

#include <string>

#include "absl/status/status.h"

namespace hopmap::sim {

// After a measuring run of `ranks` ranks: writes DIR/sites.median, the median burst
// of each code region over every rank and repeat (the mean of the middle two for an
// even count), which HOPMAP_SMPI_COMPUTE=replay-median:DIR charges. An error names
// the file that is missing or malformed.
absl::Status WriteRegionMedians(const std::string& dir, int ranks);

}  // namespace hopmap::sim

#endif  // HOPMAP_SIM_COMPUTE_PROFILE_H_
