// Metadata::SwapCleanUnmount: the mark that tells a mount whether the previous
// one ended cleanly, so crash recovery (trimming objects to their recorded
// sizes, fs/core/file_system.cc) runs only after a crash.
#include "meta/info_table.h"
#include "meta/metadata.h"

namespace tierfs::meta {

Result<bool> Metadata::SwapCleanUnmount(bool clean) {
  auto lock = db_->Lock();
  Result<int64_t> before = GetInfoInt(db_.get(), kInfoCleanUnmount);
  TIERFS_RETURN_IF_ERROR(SetInfoInt(db_.get(), kInfoCleanUnmount, clean ? 1 : 0));
  return before.ok() && *before == 1;
}

}  // namespace tierfs::meta
