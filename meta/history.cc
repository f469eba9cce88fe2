// Metadata: the assigned policy (one row), relocation history and scan history.
//
// The two histories are capped (kKeepRelocations, kKeepScans rows): each insert
// drops the rows that fell off the end, so they never need a separate prune.
#include <string>
#include <string_view>

#include "meta/database.h"
#include "meta/fcl_log.h"
#include "meta/metadata.h"

namespace tierfs::meta {
namespace {

constexpr int64_t kKeepRelocations = 100000;
constexpr int64_t kKeepScans = 10000;

// LIMIT for a `limit` argument where 0 means all (-1 is no limit in SQLite).
int64_t SqlLimit(size_t limit) { return limit == 0 ? -1 : static_cast<int64_t>(limit); }

// Right after an insert into `table` (a capped history whose ids only grow):
// drops the rows older than the newest `keep`.
Status DropAllButNewest(Database* db, std::string_view table, int64_t keep) {
  Statement st = db->Prepare("DELETE FROM " + std::string(table) + " WHERE id <= ?1");
  st.BindAll(db->LastInsertRowId() - keep);
  return st.Run();
}

}  // namespace

Status Metadata::SetPolicy(const PolicyRecord& policy) {
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    Statement st = db->Prepare(
        "INSERT INTO policy(id, name, xml, assigned_ns) VALUES (1, ?1, ?2, ?3) "
        "ON CONFLICT(id) DO UPDATE SET name = excluded.name, xml = excluded.xml, "
        "assigned_ns = excluded.assigned_ns");
    st.BindAll(policy.name, policy.xml, policy.assigned_ns != 0 ? policy.assigned_ns : now);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "policy", 0, 0, {}, "assign=" + policy.name));
  return txn.Commit();
}

Result<std::optional<PolicyRecord>> Metadata::GetPolicy() {
  auto lock = db_->Lock();
  Statement st = db_->Prepare("SELECT name, xml, assigned_ns FROM policy WHERE id = 1");
  META_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<PolicyRecord>();
  return std::optional<PolicyRecord>(PolicyRecord{st.Text(0), st.Text(1), st.Int64(2)});
}

Status Metadata::ClearPolicy() {
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    Statement st = db->Prepare("DELETE FROM policy");
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  if (db->Changes() == 0) return Status::Ok();  // nothing was assigned
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "policy", 0, 0, {}, "unassign"));
  return txn.Commit();
}

Status Metadata::RecordRelocation(const RelocationRecord& record) {
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    Statement st = db->Prepare(
        "INSERT INTO relocations(time_ns, ino, from_volume, to_volume, bytes, seconds, outcome) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    st.BindAll(record.time_ns != 0 ? record.time_ns : now, record.ino, record.from_volume,
               record.to_volume, record.bytes, record.seconds, record.outcome);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  TIERFS_RETURN_IF_ERROR(DropAllButNewest(db, "relocations", kKeepRelocations));
  return txn.Commit();
}

Result<std::vector<RelocationRecord>> Metadata::RecentRelocations(size_t limit) {
  auto lock = db_->Lock();
  Statement st = db_->Prepare(
      "SELECT time_ns, ino, from_volume, to_volume, bytes, seconds, outcome FROM relocations "
      "ORDER BY id DESC LIMIT ?1");
  st.BindAll(SqlLimit(limit));
  std::vector<RelocationRecord> records;
  TIERFS_RETURN_IF_ERROR(st.AppendRows(&records, [](const Statement& r) {
    return RelocationRecord{r.Int64(0),  r.Uint64(1), static_cast<uint32_t>(r.Int64(2)),
                            static_cast<uint32_t>(r.Int64(3)), r.Uint64(4), r.Double(5),
                            r.Text(6)};
  }));
  return records;
}

Status Metadata::RecordScan(ScanRecord* record) {
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  if (record->started_ns == 0) record->started_ns = now;
  {
    Statement st = db->Prepare(
        "INSERT INTO scans(started_ns, seconds, kind, options, files_scanned, files_moved, "
        "bytes_moved, errors, files_deleted, failure) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, nullif(?10, ''))");
    st.BindAll(record->started_ns, record->seconds, record->kind, record->options,
               record->files_scanned, record->files_moved, record->bytes_moved, record->errors,
               record->files_deleted, record->failure);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  const int64_t id = db->LastInsertRowId();
  TIERFS_RETURN_IF_ERROR(DropAllButNewest(db, "scans", kKeepScans));
  TIERFS_RETURN_IF_ERROR(txn.Commit());
  record->id = id;
  return Status::Ok();
}

Result<std::vector<ScanRecord>> Metadata::RecentScans(size_t limit) {
  auto lock = db_->Lock();
  Statement st = db_->Prepare(
      "SELECT id, started_ns, seconds, kind, options, files_scanned, files_moved, bytes_moved, "
      "errors, files_deleted, coalesce(failure, '') FROM scans ORDER BY id DESC LIMIT ?1");
  st.BindAll(SqlLimit(limit));
  std::vector<ScanRecord> scans;
  TIERFS_RETURN_IF_ERROR(st.AppendRows(&scans, [](const Statement& r) {
    return ScanRecord{r.Int64(0),  r.Int64(1),  r.Double(2), r.Text(3),  r.Text(4), r.Uint64(5),
                      r.Uint64(6), r.Uint64(7), r.Uint64(8), r.Uint64(9), r.Text(10)};
  }));
  return scans;
}

}  // namespace tierfs::meta
