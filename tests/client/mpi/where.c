/* Prints where each rank runs, for the rankfile loop test: "rank R host H cpus C..."
 * (MPI_Get_processor_name and the CPUs the process is bound to). */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, length = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char host[MPI_MAX_PROCESSOR_NAME + 1] = {0};
  MPI_Get_processor_name(host, &length);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  sched_getaffinity(0, sizeof(cpus), &cpus);
  char line[4096];
  int at = snprintf(line, sizeof(line), "rank %d host %s cpus", rank, host);
  for (int c = 0; c < CPU_SETSIZE && at < (int)sizeof(line) - 8; ++c) {
    if (CPU_ISSET(c, &cpus)) at += snprintf(line + at, sizeof(line) - at, " %d", c);
  }
  printf("%s\n", line);
  MPI_Finalize();
  return 0;
}
