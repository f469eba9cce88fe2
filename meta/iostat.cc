// Metadata: per-file I/O statistics in time buckets (the iostat table).
//
// A bucket covers [bucket_start, bucket_start + L) seconds, L being
// FsInfo::iostat_bucket_seconds (fs_info, set at Format; RestartIoStats
// changes it and deletes every bucket, since buckets of two lengths cannot mix). The daemon counts
// I/O in memory and adds it here on flush; AddIoStats upserts, so two flushes
// into the same bucket add up.
#include <limits>

#include "meta/database.h"
#include "meta/info_table.h"
#include "meta/metadata.h"

namespace tierfs::meta {
namespace {

// Buckets read per lock hold in ForEachIoBucket; the visitor runs between batches.
constexpr int64_t kBucketBatch = 1024;

}  // namespace

Status Metadata::AddIoStats(const std::vector<IoDelta>& deltas) {
  if (deltas.empty()) return Status::Ok();
  auto lock = db_->Lock();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(int64_t bucket_seconds, GetInfoInt(db, kInfoBucketSeconds));
  for (const IoDelta& delta : deltas) {
    if (delta.bucket_start_s % bucket_seconds != 0) {
      return Status::Invalid("iostat bucket start " + std::to_string(delta.bucket_start_s) +
                             " is not a multiple of " + std::to_string(bucket_seconds) + " s");
    }
  }
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  Statement st = db->Prepare(
      "INSERT INTO iostat(ino, bucket_start, rbytes, wbytes, rops, wops) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(ino, bucket_start) DO UPDATE SET "
      "rbytes = rbytes + excluded.rbytes, wbytes = wbytes + excluded.wbytes, "
      "rops = rops + excluded.rops, wops = wops + excluded.wops");
  for (const IoDelta& delta : deltas) {
    st.BindAll(delta.ino, delta.bucket_start_s, delta.rbytes, delta.wbytes, delta.rops,
               delta.wops);
    TIERFS_RETURN_IF_ERROR(st.Run());
    st.Reset();
  }
  return txn.Commit();
}

Status Metadata::ForEachIoBucket(int64_t since_s,
                                 const std::function<void(const IoBucket&)>& visit) {
  int64_t bucket_seconds;
  {
    auto lock = db_->Lock();
    META_ASSIGN_OR_RETURN(bucket_seconds, GetInfoInt(db_.get(), kInfoBucketSeconds));
  }
  // A bucket ends after since_s when bucket_start + L > since_s.
  const int64_t min_start_exclusive = since_s - bucket_seconds;
  uint64_t after_ino = 0;
  int64_t after_start = std::numeric_limits<int64_t>::min();
  std::vector<IoBucket> batch;
  for (;;) {
    batch.clear();
    int64_t rows = 0;
    bool jumped = false;
    {
      auto lock = db_->Lock();
      // Keyset pagination over the primary key (ino, bucket_start), so the
      // buckets come in inode order without a sort. A file's buckets come
      // oldest first: on meeting one that ended before the window, the next
      // query seeks straight to that file's first bucket in the window, so the
      // buckets the retention keeps from before it (up to --iostat_keep_days)
      // cost one seek per file instead of a row each.
      Statement st = db_->Prepare(
          "SELECT ino, bucket_start, rbytes, wbytes, rops, wops FROM iostat "
          "WHERE (ino, bucket_start) > (?1, ?2) ORDER BY ino, bucket_start LIMIT ?3");
      st.BindAll(after_ino, after_start, kBucketBatch);
      for (;;) {
        META_ASSIGN_OR_RETURN(bool row, st.Step());
        if (!row) break;
        ++rows;
        const uint64_t ino = st.Uint64(0);
        const int64_t start = st.Int64(1);
        if (start <= min_start_exclusive) {
          after_ino = ino;
          after_start = min_start_exclusive;
          jumped = true;
          break;
        }
        batch.push_back(IoBucket{ino, start, bucket_seconds, st.Uint64(2), st.Uint64(3),
                                 st.Uint64(4), st.Uint64(5)});
      }
    }
    for (const IoBucket& bucket : batch) visit(bucket);
    if (jumped) continue;
    if (rows < kBucketBatch) return Status::Ok();
    after_ino = batch.back().ino;
    after_start = batch.back().bucket_start_s;
  }
}

Status Metadata::PruneIoStats(int64_t before_s) {
  auto lock = db_->Lock();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(int64_t bucket_seconds, GetInfoInt(db, kInfoBucketSeconds));
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    // Ended: bucket_start + L <= before_s.
    Statement st = db->Prepare("DELETE FROM iostat WHERE bucket_start <= ?1");
    st.BindAll(before_s - bucket_seconds);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  {
    Statement st = db->Prepare(
        "DELETE FROM iostat WHERE NOT EXISTS (SELECT 1 FROM inodes WHERE ino = iostat.ino)");
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  return txn.Commit();
}

Status Metadata::RestartIoStats(int64_t bucket_seconds) {
  if (bucket_seconds < kMinIoBucketSeconds || bucket_seconds > kMaxIoBucketSeconds) {
    return Status::Invalid("iostat bucket must be 1 to 86400 s, got " +
                           std::to_string(bucket_seconds));
  }
  auto lock = db_->Lock();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    Statement st = db->Prepare("DELETE FROM iostat");
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  TIERFS_RETURN_IF_ERROR(SetInfoInt(db, kInfoBucketSeconds, bucket_seconds));
  return txn.Commit();
}

}  // namespace tierfs::meta
