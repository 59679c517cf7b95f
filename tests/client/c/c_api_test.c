/* The C API (client/c/hopmap.h), compiled as C, against a real hopmapd that this
 * program starts (HOPMAPD, from CMake) on a free loopback port: a balanced Map of
 * a 16x16 stencil with a hot corner (hop-bytes recomputed here), a remap with a
 * migration limit, a bad load (INVALID_ARGUMENT naming it), a stopped daemon
 * (DEADLINE_EXCEEDED within the call's deadline) and an unreachable one
 * (UNAVAILABLE within the connect timeout). Exit 0 when every check holds. */
#define _POSIX_C_SOURCE 200809L
#include <hopmap.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures = 0;
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      ++failures;                                                              \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
    }                                                                          \
  } while (0)

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Starts hopmapd; writes its address ("127.0.0.1:PORT") to `address`. */
static pid_t start_daemon(char* address, size_t size) {
  int out[2];
  if (pipe(out) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    execl(HOPMAPD, HOPMAPD, "--listen", "127.0.0.1:0", "--threads", "2", (char*)NULL);
    _exit(127);
  }
  close(out[1]);
  FILE* lines = fdopen(out[0], "r");
  char line[512];
  const char* prefix = "hopmapd: listening on ";
  address[0] = '\0';
  while (fgets(line, sizeof line, lines) != NULL) {
    if (strncmp(line, prefix, strlen(prefix)) == 0) {
      const char* start = line + strlen(prefix);
      const size_t length = strcspn(start, "\r\n");
      if (length >= size) break;
      memcpy(address, start, length);
      address[length] = '\0';
      break;
    }
  }
  /* Keep reading nothing more; the pipe stays open so the daemon's writes succeed. */
  return address[0] != '\0' ? pid : -1;
}

/* A periodic 16x16 5-point stencil, 1024 bytes per edge, as CSR. */
enum { kSide = 16, kObjects = kSide * kSide };
static int64_t xadj[kObjects + 1];
static int32_t adjncy[4 * kObjects];
static int64_t adjwgt[4 * kObjects];
static void build_stencil(void) {
  int64_t e = 0;
  for (int t = 0; t < kObjects; ++t) {
    const int x = t % kSide, y = t / kSide;
    const int n[4] = {(x + 1) % kSide + y * kSide, (x + kSide - 1) % kSide + y * kSide,
                      x + ((y + 1) % kSide) * kSide, x + ((y + kSide - 1) % kSide) * kSide};
    xadj[t] = e;
    for (int k = 0; k < 4; ++k) {
      adjncy[e] = n[k];
      adjwgt[e] = 1024;
      ++e;
    }
  }
  xadj[kObjects] = e;
}

/* Hop-bytes on torus:4x4:cores=C, recomputed: node = slot / C, x = node % 4. */
static int64_t hop_bytes_on(const int32_t* slot, int cores) {
  int64_t total = 0;
  for (int u = 0; u < kObjects; ++u) {
    for (int64_t e = xadj[u]; e < xadj[u + 1]; ++e) {
      const int v = adjncy[e];
      if (v < u) continue;
      const int a = slot[u] / cores, b = slot[v] / cores;
      int dx = abs(a % 4 - b % 4), dy = abs(a / 4 - b / 4);
      if (4 - dx < dx) dx = 4 - dx;
      if (4 - dy < dy) dy = 4 - dy;
      total += adjwgt[e] * (dx + dy);
    }
  }
  return total;
}
static int64_t hop_bytes(const int32_t* slot) { return hop_bytes_on(slot, 2); }

int main(void) {
  build_stencil();
  char address[256];
  const pid_t daemon = start_daemon(address, sizeof address);
  if (daemon <= 0) {
    fprintf(stderr, "could not start %s\n", HOPMAPD);
    return 1;
  }
  hopmap_connect_options options;
  hopmap_connect_options_init(&options);
  options.address = address;
  hopmap_client* client = NULL;
  char* error = NULL;
  hopmap_status status = hopmap_connect(&options, &client, &error);
  CHECK(status == HOPMAP_OK, "%s: %s", hopmap_status_name(status), error ? error : "");
  hopmap_free_string(error);
  error = NULL;
  if (client == NULL) return 1;

  /* A balanced placement: hot corner 3x, 256 objects on 32 slots. */
  double loads[kObjects];
  for (int t = 0; t < kObjects; ++t) loads[t] = (t % kSide < 4 && t / kSide < 4) ? 3.0 : 1.0;
  hopmap_map_request request;
  hopmap_map_request_init(&request);
  request.machine = "torus:4x4:cores=2";
  request.num_objects = kObjects;
  request.xadj = xadj;
  request.adjncy = adjncy;
  request.adjwgt = adjwgt;
  request.loads = loads;
  request.imbalance = 0.05;
  request.deadline_seconds = 60;
  hopmap_map_result placed;
  status = hopmap_map(client, &request, &placed, &error);
  CHECK(status == HOPMAP_OK, "%s: %s", hopmap_status_name(status), error ? error : "");
  hopmap_free_string(error);
  error = NULL;
  if (status == HOPMAP_OK) {
    CHECK(placed.num_objects == kObjects, "%d objects", placed.num_objects);
    CHECK(placed.num_slots == 32, "%lld slots", (long long)placed.num_slots);
    CHECK(placed.balanced == 1, "not balanced: %s", placed.note);
    /* Whole loads, 288 on 32 slots: the cap is ceil(1.05 x 9) = 10. */
    CHECK(placed.max_load <= 10, "max %g avg %g", placed.max_load, placed.avg_load);
    CHECK(placed.hop_bytes == hop_bytes(placed.slot_of_object), "reported %lld, recomputed %lld",
          (long long)placed.hop_bytes, (long long)hop_bytes(placed.slot_of_object));
    double sum = 0;
    for (int64_t s = 0; s < placed.num_slots; ++s) sum += placed.load_of_slot[s];
    CHECK(sum > 255.9 + 32 && sum < 256.1 + 32, "total load %g", sum);
    CHECK(placed.num_moves == 0, "%d moves without a current placement", placed.num_moves);
    CHECK(strncmp(placed.algorithm, "auto(", 5) == 0, "algorithm %s", placed.algorithm);

    /* The hot corner moves: remap from the placement, at most 20 objects moved. */
    double shifted[kObjects];
    for (int t = 0; t < kObjects; ++t)
      shifted[t] = (t % kSide >= 12 && t / kSide >= 12) ? 3.0 : 1.0;
    request.loads = shifted;
    request.current_slot = placed.slot_of_object;
    request.max_migrations = 20;
    hopmap_map_result moved;
    status = hopmap_map(client, &request, &moved, &error);
    CHECK(status == HOPMAP_OK, "%s: %s", hopmap_status_name(status), error ? error : "");
    hopmap_free_string(error);
    error = NULL;
    if (status == HOPMAP_OK) {
      CHECK(moved.num_moves <= 20, "%d moves", moved.num_moves);
      int changed = 0;
      for (int t = 0; t < kObjects; ++t)
        changed += moved.slot_of_object[t] != placed.slot_of_object[t];
      CHECK(changed == moved.num_moves, "%d changed, %d moves listed", changed, moved.num_moves);
      for (int32_t i = 0; i < moved.num_moves; ++i) {
        const int32_t t = moved.move_object[i];
        CHECK(moved.move_from[i] == placed.slot_of_object[t] &&
                  moved.move_to[i] == moved.slot_of_object[t],
              "move %d of object %d", i, t);
      }
      CHECK(moved.baseline_hop_bytes == placed.hop_bytes, "baseline %lld",
            (long long)moved.baseline_hop_bytes);
      hopmap_map_result_free(&moved);
    }

    /* Non-migratable objects and background load (a Charm++ balancer's view):
     * every fifth object stays, slots 0-3 carry 4 units of other work. The loads
     * are whole numbers, 304 units on 32 slots: imbalance 0.15 caps a slot at
     * ceil(1.15 x 9.5) = 11, room enough with a fifth of the objects pinned. */
    unsigned char fixed[kObjects];
    for (int t = 0; t < kObjects; ++t) fixed[t] = t % 5 == 0;
    double background[32] = {0};
    for (int s = 0; s < 4; ++s) background[s] = 4.0;
    request.max_migrations = -1;
    request.imbalance = 0.15;
    request.fixed = fixed;
    request.background_load = background;
    request.num_background_loads = 32;
    hopmap_map_result pinned;
    status = hopmap_map(client, &request, &pinned, &error);
    CHECK(status == HOPMAP_OK, "%s: %s", hopmap_status_name(status), error ? error : "");
    hopmap_free_string(error);
    error = NULL;
    if (status == HOPMAP_OK) {
      for (int t = 0; t < kObjects; t += 5)
        CHECK(pinned.slot_of_object[t] == placed.slot_of_object[t], "fixed object %d moved", t);
      CHECK(pinned.balanced == 1, "not balanced: %s", pinned.note);
      double sum = 0;
      for (int64_t s = 0; s < pinned.num_slots; ++s) sum += pinned.load_of_slot[s];
      CHECK(sum > 255.9 + 32 + 16 && sum < 256.1 + 32 + 16, "total load %g with background", sum);
      CHECK(pinned.load_of_slot[0] >= 4.0, "slot 0 carries %g", pinned.load_of_slot[0]);
      hopmap_map_result_free(&pinned);
    }
    /* A background list of the wrong length is refused, naming the field. */
    request.num_background_loads = 31;
    status = hopmap_map(client, &request, &pinned, &error);
    CHECK(status == HOPMAP_INVALID_ARGUMENT && error &&
              strstr(error, "background load: 31 entries for 32 slots") != NULL,
          "%s: %s", hopmap_status_name(status), error ? error : "(null)");
    hopmap_free_string(error);
    error = NULL;
    request.imbalance = 0.05;
    request.fixed = NULL;
    request.background_load = NULL;
    request.num_background_loads = 0;
    request.current_slot = NULL;
    request.max_migrations = -1;
    request.loads = loads;
    hopmap_map_result_free(&placed);
  }

  /* One process per slot (MPI reorder): 256 processes on torus:4x4:cores=16. */
  hopmap_map_request processes;
  hopmap_map_request_init(&processes);
  processes.machine = "torus:4x4:cores=16";
  processes.num_objects = kObjects;
  processes.xadj = xadj;
  processes.adjncy = adjncy;
  processes.adjwgt = adjwgt;
  processes.deadline_seconds = 60;
  hopmap_map_result mapped;
  status = hopmap_map_processes(client, &processes, &mapped, &error);
  CHECK(status == HOPMAP_OK, "%s: %s", hopmap_status_name(status), error ? error : "");
  hopmap_free_string(error);
  error = NULL;
  if (status == HOPMAP_OK) {
    int used[kObjects] = {0};
    int distinct = 1;
    for (int t = 0; t < kObjects; ++t) {
      const int32_t s = mapped.slot_of_object[t];
      if (s < 0 || s >= kObjects || used[s]++) distinct = 0;
    }
    CHECK(distinct, "slots are not a permutation of 0..255");
    int32_t identity[kObjects];
    for (int t = 0; t < kObjects; ++t) identity[t] = t;
    CHECK(mapped.hop_bytes == hop_bytes_on(mapped.slot_of_object, 16),
          "reported %lld, recomputed %lld", (long long)mapped.hop_bytes,
          (long long)hop_bytes_on(mapped.slot_of_object, 16));
    CHECK(mapped.baseline_hop_bytes == hop_bytes_on(identity, 16), "baseline %lld, identity %lld",
          (long long)mapped.baseline_hop_bytes, (long long)hop_bytes_on(identity, 16));
    CHECK(mapped.hop_bytes <= mapped.baseline_hop_bytes, "%lld > identity %lld",
          (long long)mapped.hop_bytes, (long long)mapped.baseline_hop_bytes);
    CHECK(mapped.balanced == 1 && mapped.num_slots == 0 && mapped.num_moves == 0 &&
              mapped.note != NULL && mapped.note[0] == '\0',
          "balance fields of a process mapping");
    hopmap_map_result_free(&mapped);
  }
  /* A balancing field on a process mapping is refused, naming it. */
  processes.loads = loads;
  status = hopmap_map_processes(client, &processes, &mapped, &error);
  CHECK(status == HOPMAP_INVALID_ARGUMENT && error &&
            strstr(error, "hopmap_map_processes: request.loads is set") != NULL,
        "%s: %s", hopmap_status_name(status), error ? error : "(null)");
  hopmap_free_string(error);
  error = NULL;

  /* A negative load: INVALID_ARGUMENT naming the object. */
  loads[7] = -2;
  hopmap_map_result bad;
  status = hopmap_map(client, &request, &bad, &error);
  CHECK(status == HOPMAP_INVALID_ARGUMENT, "%s", hopmap_status_name(status));
  CHECK(error != NULL && strstr(error, "balance: loads: object 7 has load -2") != NULL,
        "message %s", error ? error : "(null)");
  CHECK(bad.slot_of_object == NULL, "result not zeroed");
  hopmap_free_string(error);
  error = NULL;
  loads[7] = 1;
  /* A NULL array the caller promised. */
  request.xadj = NULL;
  status = hopmap_map(client, &request, &bad, &error);
  CHECK(status == HOPMAP_INVALID_ARGUMENT && error && strstr(error, "xadj is NULL"), "%s",
        error ? error : "(null)");
  hopmap_free_string(error);
  error = NULL;
  request.xadj = xadj;
  /* A NaN imbalance is refused, not taken for the default. */
  request.imbalance = NAN;
  status = hopmap_map(client, &request, &bad, &error);
  CHECK(status == HOPMAP_INVALID_ARGUMENT && error && strstr(error, "imbalance is NaN"), "%s",
        error ? error : "(null)");
  hopmap_free_string(error);
  error = NULL;
  request.imbalance = 0.05;

  /* A daemon that does not answer (stopped): the call ends at its deadline. */
  kill(daemon, SIGSTOP);
  request.deadline_seconds = 1;
  double start = now_seconds();
  status = hopmap_map(client, &request, &bad, &error);
  double took = now_seconds() - start;
  CHECK(status == HOPMAP_DEADLINE_EXCEEDED, "%s: %s", hopmap_status_name(status),
        error ? error : "");
  CHECK(took < 3.0, "a 1 s deadline took %.2f s", took);
  hopmap_free_string(error);
  error = NULL;
  kill(daemon, SIGCONT);
  hopmap_close(client);

  /* Gone: connecting fails fast, within the timeout. */
  kill(daemon, SIGKILL);
  waitpid(daemon, NULL, 0);
  options.connect_timeout_seconds = 2;
  start = now_seconds();
  status = hopmap_connect(&options, &client, &error);
  took = now_seconds() - start;
  CHECK(status == HOPMAP_UNAVAILABLE, "%s", hopmap_status_name(status));
  CHECK(error != NULL && strstr(error, "cannot reach hopmapd") != NULL, "%s",
        error ? error : "(null)");
  CHECK(took < 2.5, "connect to a closed port took %.2f s", took);
  CHECK(client == NULL, "client set on failure");
  hopmap_free_string(error);
  error = NULL;
  /* Nobody answers at all (a non-routable address): the timeout holds. */
  options.address = "10.255.255.1:50051";
  options.connect_timeout_seconds = 1;
  start = now_seconds();
  status = hopmap_connect(&options, &client, &error);
  took = now_seconds() - start;
  CHECK(status == HOPMAP_UNAVAILABLE, "%s", hopmap_status_name(status));
  CHECK(took < 2.0, "a 1 s connect timeout took %.2f s", took);
  hopmap_free_string(error);

  CHECK(strcmp(hopmap_status_name(HOPMAP_UNAVAILABLE), "UNAVAILABLE") == 0, "name");
  if (failures == 0) printf("c_api_test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
