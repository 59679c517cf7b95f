/* balancer.c: the C API in a runtime's load-balancing step (docs/balance.md).
 *
 * 256 objects in a 16x16 halo exchange, heavier near one corner, placed on the
 * 32 slots of torus:4x4:cores=2 by hopmapd; then the loads move to the other
 * corner and the objects are remapped moving at most 100 of them.
 *
 *   cc -o balancer balancer.c $(pkg-config --cflags --libs hopmap)
 *   ./balancer [ADDRESS]      (default 127.0.0.1:50051)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hopmap.h"

enum { kSide = 16, kObjects = kSide * kSide };

/* The halo exchange as CSR: each object sends 1000 bytes to each grid neighbour. */
static void build_graph(int64_t* xadj, int32_t* adjncy, int64_t* adjwgt) {
  int64_t edges = 0;
  for (int32_t o = 0; o < kObjects; ++o) {
    const int x = o % kSide, y = o / kSide;
    const int nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
    xadj[o] = edges;
    for (int k = 0; k < 4; ++k) {
      if (nx[k] < 0 || nx[k] >= kSide || ny[k] < 0 || ny[k] >= kSide) continue;
      adjncy[edges] = ny[k] * kSide + nx[k];
      adjwgt[edges++] = 1000;
    }
  }
  xadj[kObjects] = edges;
}

/* Load 1 plus a bump of height 2 around (cx, cy), in grid units. */
static void set_loads(double* loads, double cx, double cy) {
  for (int32_t o = 0; o < kObjects; ++o) {
    const double dx = o % kSide - cx, dy = o / kSide - cy;
    loads[o] = 1 + 2 * exp(-(dx * dx + dy * dy) / 32.0);
  }
}

static int report(const char* step, hopmap_status status, const hopmap_map_result* r, char* error) {
  if (status != HOPMAP_OK) {
    fprintf(stderr, "balancer: %s: %s: %s\n", step, hopmap_status_name(status), error);
    hopmap_free_string(error);
    return 1;
  }
  printf("%s: hop-bytes %lld (before %lld), max/avg load %.3f, %s, %d moves\n", step,
         (long long)r->hop_bytes, (long long)r->baseline_hop_bytes, r->max_load / r->avg_load,
         r->balanced ? "balanced" : "NOT balanced", (int)r->num_moves);
  return 0;
}

int main(int argc, char** argv) {
  hopmap_connect_options options;
  hopmap_connect_options_init(&options);
  options.address = argc > 1 ? argv[1] : "127.0.0.1:50051";
  hopmap_client* client = NULL;
  char* error = NULL;
  if (hopmap_connect(&options, &client, &error) != HOPMAP_OK) {
    fprintf(stderr, "balancer: %s\n", error);
    hopmap_free_string(error);
    return 1;
  }
  static int64_t xadj[kObjects + 1], adjwgt[4 * kObjects];
  static int32_t adjncy[4 * kObjects], current[kObjects];
  static double loads[kObjects];
  build_graph(xadj, adjncy, adjwgt);

  hopmap_map_request request;
  hopmap_map_request_init(&request);
  request.machine = "torus:4x4:cores=2";
  request.num_objects = kObjects;
  request.xadj = xadj;
  request.adjncy = adjncy;
  request.adjwgt = adjwgt;
  request.loads = loads;
  request.seed = 1;
  request.time_limit_seconds = 1;

  /* The first placement: no current one. */
  set_loads(loads, 4, 4);
  hopmap_map_result result;
  int failed = report("place", hopmap_map(client, &request, &result, &error), &result, error);
  if (!failed) {
    for (int32_t o = 0; o < kObjects; ++o) current[o] = result.slot_of_object[o];
    hopmap_map_result_free(&result);
    /* The loads moved: remap from where the objects are, moving at most 40. */
    set_loads(loads, 11, 11);
    request.current_slot = current;
    request.max_migrations = 100;
    failed = report("remap", hopmap_map(client, &request, &result, &error), &result, error);
    if (!failed) hopmap_map_result_free(&result);
  }
  hopmap_close(client);
  return failed;
}
