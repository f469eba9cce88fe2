// Metadata: the File Change Log (the fcl table) and LogFcl, which the other
// changes call inside their own transactions.
//
// seq is AUTOINCREMENT, so sequence numbers are strictly increasing and never
// reused, even after pruning. The FCL state is the fs_info key fcl_state; it is
// read at each append (a primary-key lookup) rather than cached, so a tool
// that flips it while the file system is unmounted is always obeyed.
#include "meta/fcl_log.h"

#include <algorithm>
#include <limits>

#include "meta/database.h"
#include "meta/info_table.h"
#include "meta/metadata.h"

namespace tierfs::meta {
namespace {

// Records read per lock hold in ReadFcl; the visitor runs between batches.
constexpr int64_t kReadFclBatch = 512;

}  // namespace

Status LogFcl(Database* db, int64_t now_ns, FclRecord* record) {
  record->seq = 0;
  META_ASSIGN_OR_RETURN(bool on, FclIsOn(db));
  if (!on) return Status::Ok();
  record->time_ns = now_ns;
  Statement st = db->Prepare(
      "INSERT INTO fcl(time_ns, event, ino, parent, name, detail) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  st.BindAll(record->time_ns, record->event, record->ino, record->parent, record->name,
             record->detail);
  TIERFS_RETURN_IF_ERROR(st.Run());
  record->seq = db->LastInsertRowId();
  return Status::Ok();
}

Status LogFcl(Database* db, int64_t now_ns, std::string_view event, uint64_t ino,
              uint64_t parent, std::string_view name, std::string_view detail) {
  FclRecord record;
  record.event = event;
  record.ino = ino;
  record.parent = parent;
  record.name = name;
  record.detail = detail;
  return LogFcl(db, now_ns, &record);
}

Result<uint64_t> Metadata::FclRecordCount() {
  auto lock = db_->Lock();
  Statement st = db_->Prepare("SELECT count(*) FROM fcl");
  META_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.Uint64(0) : 0;
}

Result<bool> Metadata::FclEnabled() {
  auto lock = db_->Lock();
  return FclIsOn(db_.get());
}

Status Metadata::SetFclEnabled(bool on) {
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  META_ASSIGN_OR_RETURN(bool was_on, FclIsOn(db));
  if (was_on == on) return Status::Ok();
  // The record of the change is written while the log is on: after turning it
  // on, before turning it off.
  if (on) TIERFS_RETURN_IF_ERROR(SetInfoText(db, kInfoFclState, "on"));
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "fcl", 0, 0, {}, on ? "on" : "off"));
  if (!on) TIERFS_RETURN_IF_ERROR(SetInfoText(db, kInfoFclState, "off"));
  return txn.Commit();
}

Status Metadata::AppendFcl(FclRecord* record) {
  auto [lock, now] = LockForChange();
  return LogFcl(db_.get(), now, record);
}

Status Metadata::AppendFclRecords(std::vector<FclRecord>* records) {
  for (size_t start = 0; start < records->size(); start += kFclBatch) {
    auto [lock, now] = LockForChange();
    META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_.get()));
    const size_t end = std::min(records->size(), start + kFclBatch);
    for (size_t i = start; i < end; ++i) {
      TIERFS_RETURN_IF_ERROR(LogFcl(db_.get(), now, &(*records)[i]));
    }
    TIERFS_RETURN_IF_ERROR(txn.Commit());
  }
  return Status::Ok();
}

Status Metadata::ReadFcl(int64_t from_seq, int64_t from_time_ns, size_t limit,
                         const std::function<void(const FclRecord&)>& visit) {
  size_t remaining = limit == 0 ? std::numeric_limits<size_t>::max() : limit;
  int64_t next_seq = from_seq;
  std::vector<FclRecord> batch;
  bool first_batch = true;
  while (remaining > 0) {
    batch.clear();
    {
      auto lock = db_->Lock();
      if (first_batch && from_time_ns > 0) {
        // Skip straight to the first record that is recent enough (through the
        // time index) instead of filtering the log from its start.
        Statement st =
            db_->Prepare("SELECT min(seq) FROM fcl INDEXED BY fcl_by_time WHERE time_ns >= ?1");
        st.BindAll(from_time_ns);
        META_ASSIGN_OR_RETURN(bool row, st.Step());
        if (!row || st.IsNull(0)) return Status::Ok();
        next_seq = std::max(next_seq, st.Int64(0));
      }
      first_batch = false;
      // "+time_ns" keeps the planner on the seq order instead of the time index.
      Statement st = db_->Prepare(
          "SELECT seq, time_ns, event, ino, parent, name, detail FROM fcl "
          "WHERE seq >= ?1 AND +time_ns >= ?2 ORDER BY seq LIMIT ?3");
      st.BindAll(next_seq, from_time_ns,
                 static_cast<int64_t>(std::min<size_t>(remaining, kReadFclBatch)));
      TIERFS_RETURN_IF_ERROR(st.AppendRows(&batch, [](const Statement& r) {
        FclRecord record;
        record.seq = r.Int64(0);
        record.time_ns = r.Int64(1);
        record.event = r.Text(2);
        record.ino = r.Uint64(3);
        record.parent = r.Uint64(4);
        record.name = r.Text(5);
        record.detail = r.Text(6);
        return record;
      }));
    }
    for (const FclRecord& record : batch) visit(record);
    remaining -= batch.size();
    if (batch.size() < static_cast<size_t>(kReadFclBatch)) break;
    next_seq = batch.back().seq + 1;
  }
  return Status::Ok();
}

Status Metadata::PruneFcl(int64_t keep_seconds, uint64_t max_records) {
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  if (keep_seconds > 0) {
    Statement st = db->Prepare("DELETE FROM fcl WHERE time_ns < ?1");
    st.BindAll(now - keep_seconds * kNanosPerSecond);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  if (max_records > 0) {
    // The newest record beyond the limit; it and everything older go.
    Statement st = db->Prepare("SELECT seq FROM fcl ORDER BY seq DESC LIMIT 1 OFFSET ?1");
    st.BindAll(max_records);
    META_ASSIGN_OR_RETURN(bool row, st.Step());
    if (row) {
      const int64_t last_dropped = st.Int64(0);
      Statement del = db->Prepare("DELETE FROM fcl WHERE seq <= ?1");
      del.BindAll(last_dropped);
      TIERFS_RETURN_IF_ERROR(del.Run());
    }
  }
  return txn.Commit();
}

}  // namespace tierfs::meta
