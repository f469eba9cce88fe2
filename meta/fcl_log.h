// Appending to the File Change Log from inside another change's transaction.
//
// Internal to meta/. Every namespace change calls LogFcl inside its own
// Transaction, so the FCL row commits or rolls back with the change. The
// caller holds the Database lock.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/status.h"
#include "meta/database.h"
#include "meta/records.h"

namespace tierfs::meta {

// Appends `record` with time_ns = now_ns when fcl_state is "on" and sets
// record->seq; leaves seq at 0 and writes nothing when the FCL is off.
Status LogFcl(Database* db, int64_t now_ns, FclRecord* record);

// The same for a record given field by field.
Status LogFcl(Database* db, int64_t now_ns, std::string_view event, uint64_t ino,
              uint64_t parent, std::string_view name, std::string_view detail = {});

}  // namespace tierfs::meta
