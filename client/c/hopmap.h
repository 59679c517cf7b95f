/* hopmap.h: the C API of hopmapd for runtimes that remap while they run
 * (Charm++-style load balancers, MPI libraries). Plain C99; link with
 * `pkg-config --cflags --libs hopmap` (libhopmap.so).
 *
 *   hopmap_connect_options options;
 *   hopmap_connect_options_init(&options);
 *   options.address = "127.0.0.1:50051";
 *   hopmap_client* client = NULL;
 *   char* error = NULL;
 *   if (hopmap_connect(&options, &client, &error) != HOPMAP_OK) {
 *     fprintf(stderr, "%s\n", error);
 *     hopmap_free_string(error);
 *     return;
 *   }
 *   hopmap_map_request request;
 *   hopmap_map_request_init(&request);
 *   request.machine = "kraken";            // a catalog name, or a spec ("torus:8x8x8")
 *   request.num_objects = n;               // the graph as CSR, 0-based
 *   request.xadj = xadj; request.adjncy = adjncy; request.adjwgt = bytes;
 *   request.loads = loads;                 // optional: NULL means every load 1
 *   request.current_slot = where_now;      // optional
 *   request.max_migrations = n / 10;       // optional: -1 means no limit
 *   hopmap_map_result result;
 *   if (hopmap_map(client, &request, &result, &error) == HOPMAP_OK) {
 *     use(result.slot_of_object, result.num_objects);
 *     hopmap_map_result_free(&result);
 *   }
 *   hopmap_close(client);
 *
 * Every function returns a status (gRPC's codes) and, on failure, a message in
 * *error_message (malloc'd; free it with hopmap_free_string; may be NULL if the
 * caller passes NULL). No C++ type or exception crosses this interface. A client may
 * be used from several threads at once. Arrays given are only read during the call.
 */
#ifndef HOPMAP_CLIENT_C_HOPMAP_H_
#define HOPMAP_CLIENT_C_HOPMAP_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What libhopmap.so exports (everything else in it is hidden). */
#define HOPMAP_API __attribute__((visibility("default")))

/* gRPC's status codes, as hopmapd and the client return them. */
typedef enum {
  HOPMAP_OK = 0,
  HOPMAP_CANCELLED = 1,
  HOPMAP_UNKNOWN = 2,
  HOPMAP_INVALID_ARGUMENT = 3,
  HOPMAP_DEADLINE_EXCEEDED = 4,
  HOPMAP_NOT_FOUND = 5,
  HOPMAP_ALREADY_EXISTS = 6,
  HOPMAP_PERMISSION_DENIED = 7,
  HOPMAP_RESOURCE_EXHAUSTED = 8,
  HOPMAP_FAILED_PRECONDITION = 9,
  HOPMAP_ABORTED = 10,
  HOPMAP_OUT_OF_RANGE = 11,
  HOPMAP_UNIMPLEMENTED = 12,
  HOPMAP_INTERNAL = 13,
  HOPMAP_UNAVAILABLE = 14,
  HOPMAP_DATA_LOSS = 15,
  HOPMAP_UNAUTHENTICATED = 16
} hopmap_status;

/* "OK", "INVALID_ARGUMENT", ...; "UNKNOWN_STATUS" for a value out of range. */
HOPMAP_API const char* hopmap_status_name(hopmap_status status);
HOPMAP_API void hopmap_free_string(char* s);

typedef struct hopmap_client hopmap_client;

typedef struct {
  const char* address;     /* "HOST:PORT", "unix:PATH", or replicas: "IP:PORT,IP:PORT,..."
                            * or "dns:///NAME:PORT" (round-robin, UNAVAILABLE retried on
                            * another); required */
  const char* token;       /* sent as a bearer token; NULL or "": none */
  const char* tls_ca_file; /* PEM file of hopmapd's CA; NULL or "": plaintext */
  /* Wait at most this long for the connection (and not at all once an attempt
   * failed: refused, no such socket); <= 0: connect on the first call. */
  double connect_timeout_seconds;
} hopmap_connect_options;

/* address NULL, token NULL, tls_ca_file NULL, connect_timeout_seconds 5. */
HOPMAP_API void hopmap_connect_options_init(hopmap_connect_options* options);
/* On success *client is a new client (hopmap_close it). UNAVAILABLE ("cannot reach
 * hopmapd at ADDR: ...") when the daemon cannot be reached within the timeout. */
HOPMAP_API hopmap_status hopmap_connect(const hopmap_connect_options* options,
                                        hopmap_client** client, char** error_message);
HOPMAP_API void hopmap_close(hopmap_client* client);

typedef struct {
  /* The machine: a catalog name ("kraken"), or a spec with a ':' ("torus:8x8x8",
   * "torus:4x4x4:cores=2"); required. */
  const char* machine;
  /* The allocation: node_ids[0..num_nodes) in order, or `nodes` (ids, ranges, a
   * Slurm hostlist: "0-63", "nid[0012-0100]"); neither: the whole machine. */
  const int32_t* node_ids;
  int32_t num_nodes;
  const char* nodes;
  int32_t cores_per_node; /* 0: the machine's */

  /* The objects' communication graph, CSR, 0-based, both directions listed:
   * neighbours of object i are adjncy[xadj[i] .. xadj[i+1]), with bytes adjwgt[...]. */
  int32_t num_objects;
  const int64_t* xadj;   /* num_objects + 1 entries */
  const int32_t* adjncy; /* xadj[num_objects] entries */
  const int64_t* adjwgt; /* xadj[num_objects] entries; NULL: 1 byte each */

  /* Load balancing (all optional). */
  const double* loads;         /* num_objects entries; NULL: every load 1 */
  double imbalance;            /* load <= (1 + imbalance) x avg (rounded up to a whole load when
                                  every load is whole), 0..1000; < 0: 0.05; NaN: error */
  const int32_t* current_slot; /* num_objects entries; NULL: no current placement */
  const int64_t* state_bytes;  /* num_objects entries; NULL: 1 per object */
  int64_t max_migrations;      /* < 0: no limit */
  int64_t max_migration_bytes; /* < 0: no limit */
  double migration_cost;       /* hop-bytes per migrated byte of state; 0: free */
  /* num_objects entries, nonzero: the object stays on its current slot (needs
   * current_slot); NULL: every object may move. */
  const unsigned char* fixed;
  /* Load each slot carries besides the objects (a runtime's background work),
   * num_background_loads entries: one per slot of the allocation, or 0 and NULL. */
  const double* background_load;
  int64_t num_background_loads;

  const char* algorithm;     /* NULL: "auto" (hopmap algorithms lists the balancers) */
  double time_limit_seconds; /* 0: the daemon's default */
  double deadline_seconds;   /* the call's deadline; <= 0: none */
  uint64_t seed;             /* 0: 1 */
  int32_t threads;           /* 0: the daemon's choice */
} hopmap_map_request;

/* Zeroes everything, then imbalance -1 (0.05), max_migrations -1,
 * max_migration_bytes -1. */
HOPMAP_API void hopmap_map_request_init(hopmap_map_request* request);

typedef struct {
  int32_t num_objects;
  int32_t* slot_of_object; /* slot = allocation position x cores + core */
  int32_t* node_of_object; /* machine node ids */
  int64_t num_slots;
  double* load_of_slot; /* num_slots entries */
  int64_t hop_bytes;
  int64_t baseline_hop_bytes; /* the current placement's (a block distribution's without one) */
  int64_t lower_bound;
  double avg_load;
  double max_load;
  int balanced;      /* 1 when max_load <= the cap of request.imbalance */
  int32_t num_moves; /* objects whose slot changed against current_slot */
  int32_t* move_object;
  int32_t* move_from;
  int32_t* move_to;
  int64_t migrated_bytes;
  double solve_seconds;
  char* algorithm; /* the winner, e.g. "auto(migrate)" */
  char* note;      /* why not balanced; "" when balanced */
} hopmap_map_result;

/* Places the objects through hopmapd's balanced Map. On success fills *result
 * (hopmap_map_result_free it); on failure *result is zeroed. */
HOPMAP_API hopmap_status hopmap_map(hopmap_client* client, const hopmap_map_request* request,
                                    hopmap_map_result* result, char** error_message);
HOPMAP_API void hopmap_map_result_free(hopmap_map_result* result);

/* Places one process per slot through hopmapd's Map (a process mapping, no
 * balancing), as MPI's reorder needs: object i is process i, `algorithm` names a
 * mapper (NULL: "auto"; `hopmap algorithms` lists them) and there must be no more
 * objects than slots. The balancing fields must keep their defaults from
 * hopmap_map_request_init (loads, current_slot, state_bytes, fixed and background_load
 * NULL, imbalance < 0,
 * max_migrations and max_migration_bytes < 0, migration_cost 0), or
 * INVALID_ARGUMENT. In the result, baseline_hop_bytes is the identity's (object i
 * on slot i), num_slots and num_moves are 0, balanced is 1 and note is "". Free it
 * with hopmap_map_result_free. */
HOPMAP_API hopmap_status hopmap_map_processes(hopmap_client* client,
                                              const hopmap_map_request* request,
                                              hopmap_map_result* result, char** error_message);

#ifdef __cplusplus
}
#endif

#endif /* HOPMAP_CLIENT_C_HOPMAP_H_ */
