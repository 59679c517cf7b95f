// The balanced problem's messages (hopmap.v1.Balance, BalanceReply) and core types.
#include "proto/convert/convert.h"

namespace hopmap {

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

BalanceInput BalanceInputFromProto(const v1::Balance& balance, const TaskGraph& graph,
                                   const Allocation& allocation) {
  BalanceInput input{
      graph, allocation, std::span<const double>(balance.loads().data(), balance.loads_size()),
      std::span<const SlotId>(balance.current_slot().data(), balance.current_slot_size()),
      std::span<const Bytes>(balance.state_bytes().data(), balance.state_bytes_size())};
  input.fixed = std::span<const bool>(balance.fixed().data(), balance.fixed_size());
  input.background_load =
      std::span<const double>(balance.background_load().data(), balance.background_load_size());
  return input;
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
