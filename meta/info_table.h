// The fs_info table: file-system-wide key/value facts (uuid, name, creation
// time, iostat bucket length, FCL state, schema version).
//
// Internal to meta/. Free functions over a Database; the caller holds the
// Database lock (and a Transaction when it writes along with other rows).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "meta/database.h"

namespace tierfs::meta {

// Keys of fs_info. Values are stored with their natural SQLite type.
inline constexpr char kInfoSchemaVersion[] = "schema_version";      // integer
inline constexpr char kInfoUuid[] = "uuid";                         // text
inline constexpr char kInfoName[] = "name";                         // text
inline constexpr char kInfoCreatedNs[] = "created_ns";              // integer, ns
inline constexpr char kInfoBucketSeconds[] = "iostat_bucket_seconds";  // integer, s
inline constexpr char kInfoFclState[] = "fcl_state";                // text: "on" | "off"
// 1 after a clean unmount (and at format), 0 while mounted: see
// Metadata::SwapCleanUnmount.
inline constexpr char kInfoCleanUnmount[] = "clean_unmount";        // integer
// 1 while (or after) a mount whose objects the kernel may write itself
// (passthrough opens), so crash recovery keeps bytes written past a file's
// recorded size: see Metadata::SwapPassthroughWrites. Absent: 0.
inline constexpr char kInfoPassthroughWrites[] = "passthrough_writes";  // integer
// The highest volume id ever given (fsvoladm remove keeps it, so ids are not reused).
inline constexpr char kInfoLastVolumeId[] = "last_volume_id";       // integer

// The value of `key`; ENOENT if absent (a damaged database).
Result<std::string> GetInfoText(Database* db, std::string_view key);
Result<int64_t> GetInfoInt(Database* db, std::string_view key);
// Inserts or replaces `key`.
Status SetInfoText(Database* db, std::string_view key, std::string_view value);
Status SetInfoInt(Database* db, std::string_view key, int64_t value);

// fcl_state == "on".
Result<bool> FclIsOn(Database* db);

}  // namespace tierfs::meta
