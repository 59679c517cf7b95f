// The balanced problem's messages (hopmap.v1.Balance, BalanceReply) and core types.
#include <algorithm>
#include <memory>

#include "proto/convert/convert.h"

namespace hopmap {

namespace {

BalanceOptions BalanceOptionsFromProto(const v1::Balance& balance) {
  BalanceOptions options;
  if (balance.has_imbalance()) options.imbalance = balance.imbalance();
  if (balance.has_max_migrations()) options.max_migrations = balance.max_migrations();
  if (balance.has_max_migration_bytes()) {
    options.max_migration_bytes = balance.max_migration_bytes();
  }
  options.migration_cost = balance.migration_cost();
  return options;
}

}  // namespace

BalanceRequest BalanceRequestFromProto(const v1::Balance& balance) {
  BalanceRequest request;
  request.loads.assign(balance.loads().begin(), balance.loads().end());
  request.current_slot.assign(balance.current_slot().begin(), balance.current_slot().end());
  request.state_bytes.assign(balance.state_bytes().begin(), balance.state_bytes().end());
  request.background_load.assign(balance.background_load().begin(),
                                 balance.background_load().end());
  request.num_fixed = static_cast<size_t>(balance.fixed_size());
  request.fixed = std::make_unique<bool[]>(request.num_fixed);
  std::copy(balance.fixed().begin(), balance.fixed().end(), request.fixed.get());
  request.options = BalanceOptionsFromProto(balance);
  return request;
}

void BalanceRequestToProto(const BalanceRequest& request, v1::Balance* out) {
  const BalanceOptions& options = request.options;
  out->mutable_loads()->Assign(request.loads.begin(), request.loads.end());
  out->set_imbalance(options.imbalance);
  out->mutable_current_slot()->Assign(request.current_slot.begin(), request.current_slot.end());
  out->mutable_state_bytes()->Assign(request.state_bytes.begin(), request.state_bytes.end());
  if (options.max_migrations >= 0) out->set_max_migrations(options.max_migrations);
  if (options.max_migration_bytes >= 0) out->set_max_migration_bytes(options.max_migration_bytes);
  out->set_migration_cost(options.migration_cost);
  out->mutable_fixed()->Assign(request.fixed.get(), request.fixed.get() + request.num_fixed);
  out->mutable_background_load()->Assign(request.background_load.begin(),
                                         request.background_load.end());
}

void BalanceReportToProto(const LoadBalanceReport& r, v1::BalanceReply* out) {
  out->set_imbalance(r.imbalance);
  out->set_total_load(r.total_load);
  out->set_avg_load(r.avg_load);
  out->set_max_load(r.max_load);
  out->set_requested_cap(r.requested_cap);
  out->set_load_cap(r.load_cap);
  out->set_balanced(r.balanced);
  out->set_note(r.note);
  out->mutable_load_of_slot()->Assign(r.load_of_slot.begin(), r.load_of_slot.end());
  out->set_has_current(r.has_current);
  out->mutable_moves()->Reserve(static_cast<int>(r.moves.size()));
  for (const ObjectMove& m : r.moves) {
    v1::ObjectMove* pm = out->add_moves();
    pm->set_object(m.task);
    pm->set_from_slot(m.from);
    pm->set_to_slot(m.to);
  }
  out->set_migrated_objects(r.migrated_objects);
  out->set_migrated_bytes(r.migrated_bytes);
  out->set_migration_cost(r.migration_cost);
  out->set_current_hop_bytes(r.current_hop_bytes);
  out->set_current_max_load(r.current_max_load);
}

LoadBalanceReport BalanceReportFromProto(const v1::BalanceReply& p) {
  LoadBalanceReport r;
  r.imbalance = p.imbalance();
  r.total_load = p.total_load();
  r.avg_load = p.avg_load();
  r.max_load = p.max_load();
  r.requested_cap = p.requested_cap();
  r.load_cap = p.load_cap();
  r.balanced = p.balanced();
  r.note = p.note();
  r.load_of_slot.assign(p.load_of_slot().begin(), p.load_of_slot().end());
  r.has_current = p.has_current();
  r.moves.reserve(p.moves_size());
  for (const v1::ObjectMove& m : p.moves())
    r.moves.push_back({m.object(), m.from_slot(), m.to_slot()});
  r.migrated_objects = p.migrated_objects();
  r.migrated_bytes = p.migrated_bytes();
  r.migration_cost = p.migration_cost();
  r.current_hop_bytes = p.current_hop_bytes();
  r.current_max_load = p.current_max_load();
  return r;
}

}  // namespace hopmap
