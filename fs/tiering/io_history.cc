#include "fs/tiering/io_history.h"

#include <sys/stat.h>

#include <unordered_map>

#include "policy/file_record.h"

namespace tierfs {

using nlohmann::json;

Result<json> IoHistoryJson(FileSystem& fs, bool with_tags) {
  // What is counted in memory belongs to the history too.
  TIERFS_RETURN_IF_ERROR(fs.FlushAll());
  json out;
  out["bucket_seconds"] = fs.heat_bucket_seconds();
  out["now_s"] = fs.clock().NowSeconds();

  json volumes = json::array();
  for (const policy::VolumeState& v : fs.volumes().Space(/*fresh=*/true)) {
    volumes.push_back({{"id", v.id},
                       {"name", v.name},
                       {"classes", v.classes},
                       {"total_bytes", v.total_bytes},
                       {"free_bytes", v.free_bytes},
                       {"reserve_bytes", v.reserve_bytes},
                       {"accepts_data", v.accepts_data}});
  }
  out["volumes"] = std::move(volumes);

  json files = json::array();
  std::unordered_map<uint64_t, size_t> index;
  Status st = fs.metadata().WalkFiles(
      meta::kRootIno, "/", [&](const std::string& path, const meta::Inode& inode) {
        if (!S_ISREG(inode.mode) || inode.nlink == 0) return true;
        if (!index.emplace(inode.ino, files.size()).second) return true;
        json f = {{"ino", inode.ino},
                  {"path", path},
                  {"uid", inode.uid},
                  {"gid", inode.gid},
                  {"size", inode.size},
                  {"atime_s", inode.atime_ns / kNanosPerSecond},
                  {"mtime_s", inode.mtime_ns / kNanosPerSecond},
                  {"volume", inode.volume_id},
                  {"buckets", json::array()}};
        if (with_tags) {
          auto tags = fs.metadata().GetXattr(inode.ino, policy::kFileTagsXattr);
          f["tags"] = tags.ok() ? policy::ParseFileTags(*tags) : std::vector<std::string>{};
        }
        files.push_back(std::move(f));
        return true;
      });
  TIERFS_RETURN_IF_ERROR(st);

  // Every bucket kept, in (ino, start) order: [start_s, rbytes, wbytes, rops, wops].
  st = fs.metadata().ForEachIoBucket(0, [&](const meta::IoBucket& b) {
    auto it = index.find(b.ino);
    if (it == index.end()) return;  // deleted, or not a regular file
    files[it->second]["buckets"].push_back(
        json::array({b.bucket_start_s, b.rbytes, b.wbytes, b.rops, b.wops}));
  });
  TIERFS_RETURN_IF_ERROR(st);
  out["files"] = std::move(files);

  auto moves = fs.metadata().RecentRelocations(0);
  if (!moves.ok()) return moves.status();
  json relocations = json::array();
  for (const meta::RelocationRecord& r : *moves) {
    if (r.outcome != "moved") continue;
    relocations.push_back({{"ino", r.ino},
                           {"time_s", r.time_ns / kNanosPerSecond},
                           {"from_volume", r.from_volume},
                           {"to_volume", r.to_volume}});
  }
  out["relocations"] = std::move(relocations);
  return out;
}

}  // namespace tierfs
