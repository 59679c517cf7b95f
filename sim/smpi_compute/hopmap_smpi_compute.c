// hopmap's compute profile for programs built with SimGrid's SMPI compilers.
//
// Under smpirun every rank runs its real code, one rank after the other, and
// SMPI only charges simulated time for the computation if it times each compute
// burst on the host (smpi/simulate-computation:yes), which makes every run's
// time different. This wrapper, linked into the program, makes the computation
// part of the model and the same on every run (docs/apps.md):
//
//   HOPMAP_SMPI_COMPUTE=measure:DIR  times every burst between two MPI calls of a
//       rank on the host's CPU clock, charges it as simulated computation, and writes
//       the bursts of rank R to DIR/rank-R.bursts at MPI_Finalize (a profile), and
//       the code region of each burst to DIR/rank-R.sites (hopmap simulate --mpi
//       then writes DIR/sites.median: per region, the median burst over all ranks
//       and repeats; sim/compute_profile.cc);
//   HOPMAP_SMPI_COMPUTE=replay:DIR   charges, before the k-th MPI call of rank R,
//       the k-th burst of DIR/rank-R.bursts instead of the time the code took;
//   HOPMAP_SMPI_COMPUTE=replay-median:DIR   charges, before the k-th MPI call of rank
//       R, the median of the k-th burst's region (DIR/sites.median): one cost per
//       region, so the host's noise while measuring makes no rank slower than another;
//   unset or empty                   passes every call through (no computation is
//       charged when smpirun runs with smpi/simulate-computation:no).
//
// A rank whose calls outnumber its profile's (a wait that completes in another
// order can change how often a program polls) is charged nothing past the end;
// rank 0 reports the count. In both modes rank 0 prints, at MPI_Finalize, one line
//   hopmap-smpi-compute: ranks=N mpi_time_s=MEAN mpi_time_max_s=MAX compute_s=MEAN
//                        collective_s=MEAN calls=N unmatched=N   (one line)
// with the simulated time the ranks spent inside MPI calls and the part of it in
// collective calls (barriers, reductions, gathers, all-to-alls, communicator
// creation: traffic a mapped graph of point-to-point messages leaves out); hopmap
// simulate --mpi reads it. The wrapper keeps its state in globals, which SMPI
// privatizes per rank (smpi/privatization, on by default and needed by most programs).
//
// A burst is charged through smpi_execute_flops at the host's own speed, so a
// burst of s seconds takes s simulated seconds whatever smpi/host-speed says.
//
// A burst's region is the pair (call site that began it, call site that ends it),
// a call site being the return address of the MPI call as an offset into the object
// that made it (the same in every rank, whether SMPI privatizes ranks by loading a
// copy of the program each or not).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <mpi.h>
#include <simgrid/host.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// smpicc's helpers header turns clock_gettime into SMPI's simulated clock: the
// profile needs the host's.
#undef clock_gettime
#undef malloc
#undef realloc
#undef free
#undef exit

enum Mode { kOff = 0, kMeasure, kReplay, kReplayMedian };

static const char kMagic[8] = {'H', 'M', 'B', 'U', 'R', 'S', 'T', '1'};
static const char kSitesMagic[8] = {'H', 'M', 'S', 'I', 'T', 'E', 'S', '1'};
static const char kMedianMagic[8] = {'H', 'M', 'M', 'E', 'D', 'I', 'A', '1'};

// One region's cost in DIR/sites.median.
struct RegionCost {
  uint64_t region;
  double seconds;
};

static enum Mode mode = kOff;
static int world_rank = -1;
static char profile_dir[4096];
static double* bursts = NULL;  // seconds, one per MPI call
static int64_t burst_count = 0;
static int64_t burst_capacity = 0;
static uint64_t* regions = NULL;    // measure: the region of each burst
static uint64_t previous_site = 0;  // measure: where the current burst began
static int64_t call_index = 0;      // MPI calls made so far
static int64_t unmatched = 0;       // replayed calls past the profile's end
static double burst_start = -1;     // host clock at the end of the last call (measure)
static double mpi_enter = 0;        // simulated clock at the current call's entry
static double mpi_time = 0;         // simulated seconds inside MPI calls
static double collective_time = 0;  // the part of mpi_time inside collective calls
static int in_collective = 0;       // the outermost wrapped call is a collective
static double compute_time = 0;     // simulated seconds charged as computation
static int depth = 0;               // nested wrapped calls (a wrapper calling another)

// The CPU time of the thread SMPI runs every rank in: it advances only while a rank
// computes (ranks take turns, and between two of a rank's MPI calls no other runs),
// and not while the host runs other processes, which a wall clock would count as
// this rank's computation on a shared machine.
static double HostSeconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static void Die(const char* what) {
  fprintf(stderr, "hopmap-smpi-compute: rank %d: %s\n", world_rank, what);
  fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, 1);
}

static void Charge(double seconds) {
  if (seconds <= 0) return;
  compute_time += seconds;
  smpi_execute_flops(seconds * sg_host_get_speed(sg_host_self()));
}

static void RankPath(char* path, size_t size, int rank, const char* suffix) {
  snprintf(path, size, "%s/rank-%d.%s", profile_dir, rank, suffix);
}

// Reads PATH: 8 bytes of MAGIC, a count, then count items of ITEM bytes (at least one
// allocated). Stops the run with a line naming the file if it is not that.
static void* ReadItems(const char* path, const char magic_expected[8], size_t item,
                       const char* what_it_is, int64_t* count) {
  char what[4400];
  FILE* in = fopen(path, "rb");
  if (in == NULL) {
    snprintf(what, sizeof what, "%s: %s (make the profile with measure:DIR first)", path,
             strerror(errno));
    Die(what);
  }
  char magic[8];
  *count = 0;
  if (fread(magic, 1, 8, in) != 8 || memcmp(magic, magic_expected, 8) != 0 ||
      fread(count, sizeof *count, 1, in) != 1 || *count < 0) {
    fclose(in);
    snprintf(what, sizeof what, "%s: not %s", path, what_it_is);
    Die(what);
  }
  void* items = malloc((size_t)(*count > 0 ? *count : 1) * item);
  if (items == NULL || fread(items, item, (size_t)*count, in) != (size_t)*count) {
    fclose(in);
    snprintf(what, sizeof what, "%s: shorter than its %lld items", path, (long long)*count);
    Die(what);
  }
  fclose(in);
  return items;
}

// Writes PATH through a temporary file, so a reader never sees half of it.
static void WriteItems(const char* path, const char magic[8], const void* items, size_t item,
                       int64_t count) {
  char temp[4300];
  snprintf(temp, sizeof temp, "%s.tmp", path);
  FILE* out = fopen(temp, "wb");
  int ok = out != NULL && fwrite(magic, 1, 8, out) == 8 &&
           fwrite(&count, sizeof count, 1, out) == 1 &&
           fwrite(items, item, (size_t)count, out) == (size_t)count;
  if (out != NULL && fclose(out) != 0) ok = 0;
  if (!ok || rename(temp, path) != 0) {
    char what[4400];
    snprintf(what, sizeof what, "%s: cannot write: %s", path, strerror(errno));
    Die(what);
  }
}

static void WriteProfile(void) {
  char path[4200];
  RankPath(path, sizeof path, world_rank, "bursts");
  WriteItems(path, kMagic, bursts, sizeof(double), burst_count);
  RankPath(path, sizeof path, world_rank, "sites");
  WriteItems(path, kSitesMagic, regions, sizeof(uint64_t), burst_count);
}

static void ReadProfile(void) {
  char path[4200];
  RankPath(path, sizeof path, world_rank, "bursts");
  bursts = (double*)ReadItems(path, kMagic, sizeof(double), "a burst profile", &burst_count);
}

// sites.median holds one cost per region, sorted by region.
static int CompareRegions(const void* a, const void* b) {
  const uint64_t x = ((const struct RegionCost*)a)->region;
  const uint64_t y = ((const struct RegionCost*)b)->region;
  return (x > y) - (x < y);
}

// replay-median: burst k becomes the median of its region.
static void ReadMedianProfile(void) {
  char path[4200];
  RankPath(path, sizeof path, world_rank, "sites");
  int64_t count = 0;
  uint64_t* rank_regions =
      (uint64_t*)ReadItems(path, kSitesMagic, sizeof(uint64_t), "a profile's sites", &count);
  char medians_path[4200];
  snprintf(medians_path, sizeof medians_path, "%s/sites.median", profile_dir);
  int64_t medians = 0;
  struct RegionCost* costs = (struct RegionCost*)ReadItems(
      medians_path, kMedianMagic, sizeof(struct RegionCost), "a profile's medians", &medians);
  bursts = (double*)malloc((size_t)(count > 0 ? count : 1) * sizeof(double));
  if (bursts == NULL) Die("out of memory for the profile");
  for (int64_t k = 0; k < count; ++k) {
    const struct RegionCost key = {rank_regions[k], 0};
    const struct RegionCost* found = (const struct RegionCost*)bsearch(
        &key, costs, (size_t)medians, sizeof *costs, CompareRegions);
    if (found == NULL) {
      char what[4400];
      snprintf(what, sizeof what,
               "%s: no cost for burst %lld of rank %d (its sites are from another measure run?)",
               medians_path, (long long)k, world_rank);
      Die(what);
    }
    bursts[k] = found->seconds;
  }
  free(rank_regions);
  free(costs);
  burst_count = count;
}

static void Setup(void) {
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  const char* spec = getenv("HOPMAP_SMPI_COMPUTE");
  if (spec == NULL || *spec == '\0') return;
  const char* dir = NULL;
  if (strncmp(spec, "measure:", 8) == 0) {
    mode = kMeasure;
    dir = spec + 8;
  } else if (strncmp(spec, "replay:", 7) == 0) {
    mode = kReplay;
    dir = spec + 7;
  } else if (strncmp(spec, "replay-median:", 14) == 0) {
    mode = kReplayMedian;
    dir = spec + 14;
  } else {
    Die("HOPMAP_SMPI_COMPUTE: expected measure:DIR, replay:DIR or replay-median:DIR");
  }
  if (*dir == '\0' || strlen(dir) >= sizeof profile_dir) Die("HOPMAP_SMPI_COMPUTE: no folder");
  snprintf(profile_dir, sizeof profile_dir, "%s", dir);
  if (mode == kReplay) ReadProfile();
  if (mode == kReplayMedian) ReadMedianProfile();
  burst_start = HostSeconds();
}

// A call site: the return address as an offset into the object it is in.
static uint64_t SiteOf(const void* return_address) {
  Dl_info info;
  if (dladdr(return_address, &info) != 0 && info.dli_fbase != NULL)
    return (uint64_t)((uintptr_t)return_address - (uintptr_t)info.dli_fbase);
  return (uint64_t)(uintptr_t)return_address;
}

static uint64_t Mix(uint64_t x) {  // splitmix64's finalizer
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// At the entry of a wrapped call made from RETURN_ADDRESS: the burst that ends here
// becomes simulated time.
static void Enter(const void* return_address, int collective) {
  if (depth++ > 0 || mode == kOff) return;
  in_collective = collective;
  if (mode == kMeasure) {
    const double burst = HostSeconds() - burst_start;
    if (burst_count == burst_capacity) {
      burst_capacity = burst_capacity > 0 ? 2 * burst_capacity : 4096;
      bursts = (double*)realloc(bursts, (size_t)burst_capacity * sizeof(double));
      regions = (uint64_t*)realloc(regions, (size_t)burst_capacity * sizeof(uint64_t));
      if (bursts == NULL || regions == NULL) Die("out of memory for the profile");
    }
    const uint64_t site = SiteOf(return_address);
    regions[burst_count] = Mix(Mix(previous_site) ^ site);
    previous_site = site;
    bursts[burst_count++] = burst;
    Charge(burst);
  } else if (call_index < burst_count) {
    Charge(bursts[call_index]);
  } else {
    ++unmatched;
  }
  ++call_index;
  mpi_enter = PMPI_Wtime();
}

static void Leave(void) {
  if (--depth > 0 || mode == kOff) return;
  const double inside = PMPI_Wtime() - mpi_enter;
  mpi_time += inside;
  if (in_collective) collective_time += inside;
  if (mode == kMeasure) burst_start = HostSeconds();
}

static void Report(void) {
  double mine[5] = {mpi_time, compute_time, (double)call_index, (double)unmatched, collective_time};
  double sums[5] = {0, 0, 0, 0, 0};
  double max_mpi = 0;
  int ranks = 1;
  PMPI_Comm_size(MPI_COMM_WORLD, &ranks);
  PMPI_Reduce(mine, sums, 5, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(&mpi_time, &max_mpi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (world_rank == 0) {
    printf(
        "hopmap-smpi-compute: ranks=%d mpi_time_s=%.9g mpi_time_max_s=%.9g compute_s=%.9g "
        "collective_s=%.9g calls=%.0f unmatched=%.0f\n",
        ranks, sums[0] / ranks, max_mpi, sums[1] / ranks, sums[4] / ranks, sums[2], sums[3]);
    fflush(stdout);
  }
}

int MPI_Init(int* argc, char*** argv) {
  const int result = PMPI_Init(argc, argv);
  if (result == MPI_SUCCESS) Setup();
  return result;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int result = PMPI_Init_thread(argc, argv, required, provided);
  if (result == MPI_SUCCESS) Setup();
  return result;
}

int MPI_Finalize(void) {
  if (mode != kOff) {
    Enter(__builtin_return_address(0), 0);
    Leave();
    if (mode == kMeasure) WriteProfile();
    Report();
  }
  return PMPI_Finalize();
}

// Every wrapped call: the burst before it, then the call, timed on the simulated clock.
#define HOPMAP_WRAP_KIND(name, params, args, collective) \
  int MPI_##name params {                                \
    Enter(__builtin_return_address(0), collective);      \
    const int result = PMPI_##name args;                 \
    Leave();                                             \
    return result;                                       \
  }
#define HOPMAP_WRAP(name, params, args) HOPMAP_WRAP_KIND(name, params, args, 0)
#define HOPMAP_WRAP_COLLECTIVE(name, params, args) HOPMAP_WRAP_KIND(name, params, args, 1)

// clang-format off
HOPMAP_WRAP(Send, (const void* buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm), (buf, count, type, dst, tag, comm))
HOPMAP_WRAP(Ssend, (const void* buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm), (buf, count, type, dst, tag, comm))
HOPMAP_WRAP(Rsend, (const void* buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm), (buf, count, type, dst, tag, comm))
HOPMAP_WRAP(Bsend, (const void* buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm), (buf, count, type, dst, tag, comm))
HOPMAP_WRAP(Isend, (const void* buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm, MPI_Request* req), (buf, count, type, dst, tag, comm, req))
HOPMAP_WRAP(Issend, (const void* buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm, MPI_Request* req), (buf, count, type, dst, tag, comm, req))
HOPMAP_WRAP(Irsend, (const void* buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm, MPI_Request* req), (buf, count, type, dst, tag, comm, req))
HOPMAP_WRAP(Ibsend, (const void* buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm, MPI_Request* req), (buf, count, type, dst, tag, comm, req))
HOPMAP_WRAP(Recv, (void* buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Status* status), (buf, count, type, src, tag, comm, status))
HOPMAP_WRAP(Irecv, (void* buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request* req), (buf, count, type, src, tag, comm, req))
HOPMAP_WRAP(Sendrecv, (const void* sbuf, int scount, MPI_Datatype stype, int dst, int stag, void* rbuf, int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status* status), (sbuf, scount, stype, dst, stag, rbuf, rcount, rtype, src, rtag, comm, status))
HOPMAP_WRAP(Sendrecv_replace, (void* buf, int count, MPI_Datatype type, int dst, int stag, int src, int rtag, MPI_Comm comm, MPI_Status* status), (buf, count, type, dst, stag, src, rtag, comm, status))
HOPMAP_WRAP(Probe, (int src, int tag, MPI_Comm comm, MPI_Status* status), (src, tag, comm, status))
HOPMAP_WRAP(Iprobe, (int src, int tag, MPI_Comm comm, int* flag, MPI_Status* status), (src, tag, comm, flag, status))
HOPMAP_WRAP(Wait, (MPI_Request* req, MPI_Status* status), (req, status))
HOPMAP_WRAP(Waitall, (int count, MPI_Request reqs[], MPI_Status statuses[]), (count, reqs, statuses))
HOPMAP_WRAP(Waitany, (int count, MPI_Request reqs[], int* index, MPI_Status* status), (count, reqs, index, status))
HOPMAP_WRAP(Waitsome, (int count, MPI_Request reqs[], int* outcount, int* indices, MPI_Status statuses[]), (count, reqs, outcount, indices, statuses))
HOPMAP_WRAP(Test, (MPI_Request* req, int* flag, MPI_Status* status), (req, flag, status))
HOPMAP_WRAP(Testall, (int count, MPI_Request* reqs, int* flag, MPI_Status* statuses), (count, reqs, flag, statuses))
HOPMAP_WRAP(Testany, (int count, MPI_Request reqs[], int* index, int* flag, MPI_Status* status), (count, reqs, index, flag, status))
HOPMAP_WRAP(Testsome, (int count, MPI_Request reqs[], int* outcount, int* indices, MPI_Status statuses[]), (count, reqs, outcount, indices, statuses))
HOPMAP_WRAP(Start, (MPI_Request* req), (req))
HOPMAP_WRAP(Startall, (int count, MPI_Request* reqs), (count, reqs))
HOPMAP_WRAP_COLLECTIVE(Barrier, (MPI_Comm comm), (comm))
HOPMAP_WRAP_COLLECTIVE(Bcast, (void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm), (buf, count, type, root, comm))
HOPMAP_WRAP_COLLECTIVE(Reduce, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm), (sbuf, rbuf, count, type, op, root, comm))
HOPMAP_WRAP_COLLECTIVE(Allreduce, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, count, type, op, comm))
HOPMAP_WRAP_COLLECTIVE(Scan, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, count, type, op, comm))
HOPMAP_WRAP_COLLECTIVE(Exscan, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, count, type, op, comm))
HOPMAP_WRAP_COLLECTIVE(Reduce_scatter, (const void* sbuf, void* rbuf, const int* rcounts, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, rcounts, type, op, comm))
HOPMAP_WRAP_COLLECTIVE(Reduce_scatter_block, (const void* sbuf, void* rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, rcount, type, op, comm))
HOPMAP_WRAP_COLLECTIVE(Gather, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm))
HOPMAP_WRAP_COLLECTIVE(Gatherv, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts, const int* displs, MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm))
HOPMAP_WRAP_COLLECTIVE(Scatter, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm))
HOPMAP_WRAP_COLLECTIVE(Scatterv, (const void* sbuf, const int* scounts, const int* displs, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm))
HOPMAP_WRAP_COLLECTIVE(Allgather, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm))
HOPMAP_WRAP_COLLECTIVE(Allgatherv, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts, const int* displs, MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm))
HOPMAP_WRAP_COLLECTIVE(Alltoall, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm))
HOPMAP_WRAP_COLLECTIVE(Alltoallv, (const void* sbuf, const int* scounts, const int* sdispls, MPI_Datatype stype, void* rbuf, const int* rcounts, const int* rdispls, MPI_Datatype rtype, MPI_Comm comm), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm))
// Calls that make a communicator talk to its ranks: SMPI may run other ranks inside
// them, and a burst that spanned one would count their work as this rank's.
HOPMAP_WRAP_COLLECTIVE(Comm_dup, (MPI_Comm comm, MPI_Comm* out), (comm, out))
HOPMAP_WRAP_COLLECTIVE(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm* out), (comm, color, key, out))
HOPMAP_WRAP_COLLECTIVE(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm* out), (comm, group, out))
HOPMAP_WRAP_COLLECTIVE(Cart_create, (MPI_Comm comm, int ndims, const int* dims, const int* periods, int reorder, MPI_Comm* out), (comm, ndims, dims, periods, reorder, out))
// clang-format on

// A program that reads the clock between two calls sees the computation so far.
double MPI_Wtime(void) {
  Enter(__builtin_return_address(0), 0);
  const double now = PMPI_Wtime();
  Leave();
  return now;
}

// Fortran: SMPI's mpi_*_ entry points call its internals, not the MPI_* above, so
// the calls a Fortran program makes are wrapped by their own names and passed on
// to SMPI's (every Fortran argument is a pointer; none of these takes a string).
typedef void (*FortranCall)(void*, void*, void*, void*, void*, void*, void*, void*, void*, void*,
                            void*, void*, void*);

static void* SmpiSymbol(const char* name) {
  void* symbol = dlsym(RTLD_NEXT, name);
  if (symbol == NULL) {
    fprintf(stderr, "hopmap-smpi-compute: SMPI has no %s\n", name);
    abort();
  }
  return symbol;
}

#define HOPMAP_WRAP_FORTRAN_KIND(name, collective)                                           \
  void name(void* a, void* b, void* c, void* d, void* e, void* f, void* g, void* h, void* i, \
            void* j, void* k, void* l, void* m) {                                            \
    static FortranCall smpi = NULL;                                                          \
    if (smpi == NULL) smpi = (FortranCall)SmpiSymbol(#name);                                 \
    Enter(__builtin_return_address(0), collective);                                          \
    smpi(a, b, c, d, e, f, g, h, i, j, k, l, m);                                             \
    Leave();                                                                                 \
  }
#define HOPMAP_WRAP_FORTRAN(name) HOPMAP_WRAP_FORTRAN_KIND(name, 0)
#define HOPMAP_WRAP_FORTRAN_COLLECTIVE(name) HOPMAP_WRAP_FORTRAN_KIND(name, 1)

HOPMAP_WRAP_FORTRAN(mpi_send_)
HOPMAP_WRAP_FORTRAN(mpi_ssend_)
HOPMAP_WRAP_FORTRAN(mpi_isend_)
HOPMAP_WRAP_FORTRAN(mpi_recv_)
HOPMAP_WRAP_FORTRAN(mpi_irecv_)
HOPMAP_WRAP_FORTRAN(mpi_sendrecv_)
HOPMAP_WRAP_FORTRAN(mpi_wait_)
HOPMAP_WRAP_FORTRAN(mpi_waitall_)
HOPMAP_WRAP_FORTRAN(mpi_waitany_)
HOPMAP_WRAP_FORTRAN(mpi_test_)
HOPMAP_WRAP_FORTRAN_COLLECTIVE(mpi_barrier_)
HOPMAP_WRAP_FORTRAN_COLLECTIVE(mpi_bcast_)
HOPMAP_WRAP_FORTRAN_COLLECTIVE(mpi_reduce_)
HOPMAP_WRAP_FORTRAN_COLLECTIVE(mpi_allreduce_)
HOPMAP_WRAP_FORTRAN_COLLECTIVE(mpi_gather_)
HOPMAP_WRAP_FORTRAN_COLLECTIVE(mpi_allgather_)
HOPMAP_WRAP_FORTRAN_COLLECTIVE(mpi_alltoall_)
HOPMAP_WRAP_FORTRAN_COLLECTIVE(mpi_comm_dup_)
HOPMAP_WRAP_FORTRAN_COLLECTIVE(mpi_comm_split_)
HOPMAP_WRAP_FORTRAN_COLLECTIVE(mpi_comm_create_)
HOPMAP_WRAP_FORTRAN_COLLECTIVE(mpi_cart_create_)

double mpi_wtime_(void) {
  Enter(__builtin_return_address(0), 0);
  const double now = PMPI_Wtime();
  Leave();
  return now;
}

void mpi_init_(int* ierr) {
  static void (*smpi)(int*) = NULL;
  if (smpi == NULL) smpi = (void (*)(int*))SmpiSymbol("mpi_init_");
  smpi(ierr);
  Setup();
}

void mpi_finalize_(int* ierr) {
  static void (*smpi)(int*) = NULL;
  if (smpi == NULL) smpi = (void (*)(int*))SmpiSymbol("mpi_finalize_");
  if (mode != kOff) {
    Enter(__builtin_return_address(0), 0);
    Leave();
    if (mode == kMeasure) WriteProfile();
    Report();
  }
  smpi(ierr);
}
