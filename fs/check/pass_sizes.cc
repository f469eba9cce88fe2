// Passes "short" and "long" (fs/check/fsck.h): an object whose length is not
// its file's size, and their repairs (a short object's range restored from a
// relocation's other copy when one holds it).
#include "fs/check/checker.h"

#include <fcntl.h>

#include <algorithm>
#include <vector>

#include "fs/volume/io_steps.h"
#include "fs/volume/range_copy.h"

namespace tierfs::fsck {

void Checker::CheckSizes() {
  std::vector<uint64_t> inos;
  for (const auto& [ino, file] : files_) {
    if (file.found && file.nlink > 0 && file.object_size != file.size) inos.push_back(ino);
  }
  std::sort(inos.begin(), inos.end());
  for (uint64_t ino : inos) {
    const FileEntry& file = files_[ino];
    if (!Good(file.volume_id)) continue;
    // Again, now: an open file's size may not be flushed yet (live), and a repair
    // above may have changed the file.
    Result<meta::Inode> now = Current(ino);
    if (!now.ok() || now->nlink == 0 || now->volume_id != file.volume_id ||
        now->generation != file.generation || now->store_version != file.store_version) {
      continue;
    }
    const std::string path = ObjectName(file.volume_id, ino, file.generation, file.store_version);
    Result<std::optional<uint64_t>> seen =
        ObjectSizeOn(file.volume_id, ino, file.generation, file.store_version);
    if (!seen.ok() || !*seen || **seen == now->size) continue;
    const std::optional<uint64_t> object_size = *seen;
    const uint64_t size = now->size;
    const bool on_store = Store(file.volume_id) != nullptr;
    if (*object_size > size) {
      CheckFinding& f =
          Add("long", FindingSeverity::kDamage,
              Describe(ino) + ": object " + path + " has " + Bytes(*object_size) +
                  ", the file " + Bytes(size) + " (" + Bytes(*object_size - size) +
                  (kernel_wrote_ ? " written by the kernel through passthrough opens)"
                                 : " never acknowledged)"));
      if (!can_repair_) continue;
      if (o_.trust_objects || kernel_wrote_) {
        Repaired(f, SetSize(ino, *object_size, kernel_wrote_ ? "long object, passthrough"
                                                             : "long object, trusted"),
                 "size set to " + Bytes(*object_size) + " (the object's length)");
      } else if (on_store) {
        f.repair = "not repaired: an object on a store is never rewritten; reads stop at "
                   "the file's size (--trust-objects takes the object's length)";
      } else {
        Repaired(f, TrimFile(*o_.io, path, size, /*durable=*/true),
                 "object trimmed to " + Bytes(size));
      }
    } else {
      const uint64_t missing = size - *object_size;
      CheckFinding& f = Add("short", FindingSeverity::kDamage,
                            Describe(ino) + ": object " + path + " has " + Bytes(*object_size) +
                                ", the file " + Bytes(size) + " (" + Bytes(missing) +
                                " of acknowledged data missing at its end)");
      if (!can_repair_) continue;
      std::optional<std::string> other;
      if (!on_store) other = OtherCopyCovering(ino, file, path, *object_size, size);
      if (other) {
        // A relocation's other object (its source, kept by crash recovery because
        // the location is short) that holds the same bytes as far as the location
        // goes: the missing range was never written after the location took over,
        // or the location would reach past it.
        Repaired(f, CopyTail(*other, path, *object_size, size),
                 "restored the missing " + Bytes(missing) + " from " + *other +
                     " (the relocation's other object)");
        continue;
      }
      Status st = SetSize(ino, *object_size, "short object");
      f.data_loss = st.ok();
      Repaired(f, st,
               "cannot restore " + Bytes(missing) + " (no other object of the file holds "
               "them); size set to " + Bytes(*object_size) + ": DATA LOST (" + Bytes(missing) +
                   " at the end of the file)");
    }
  }
}

std::optional<std::string> Checker::OtherCopyCovering(uint64_t ino, const FileEntry& file,
                                                    const std::string& location,
                                                    uint64_t short_size, uint64_t size) {
  for (const meta::Volume& v : volumes_) {
    if (v.id == file.volume_id || !Good(v.id) || Store(v.id) != nullptr) continue;
    const std::string other = ObjectPath(v.id, ino, file.generation);
    Result<std::optional<uint64_t>> other_size = ObjectSize(other);
    if (other_size.ok() && *other_size && **other_size >= size &&
        SamePrefix(location, other, short_size)) {
      return other;
    }
  }
  return std::nullopt;
}

bool Checker::SamePrefix(const std::string& a, const std::string& b, uint64_t n) {
  int fa = o_.io->Open(a, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
  int fb = o_.io->Open(b, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
  bool same = fa >= 0 && fb >= 0;
  std::vector<char> ba(1 << 20), bb(1 << 20);
  for (uint64_t at = 0; same && at < n;) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(ba.size(), n - at));
    const ssize_t ra = o_.io->Pread(fa, ba.data(), want, static_cast<off_t>(at));
    const ssize_t rb = o_.io->Pread(fb, bb.data(), want, static_cast<off_t>(at));
    same = ra > 0 && ra == rb && std::equal(ba.begin(), ba.begin() + ra, bb.begin());
    at += ra > 0 ? static_cast<uint64_t>(ra) : 0;
  }
  if (fa >= 0) o_.io->Close(fa);
  if (fb >= 0) o_.io->Close(fb);
  return same;
}

Status Checker::CopyTail(const std::string& source, const std::string& target, uint64_t from,
                       uint64_t to) {
  int in = o_.io->Open(source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
  if (in < 0) return Status::FromErrno("open " + source);
  int out = o_.io->Open(target, O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0);
  Status st = out < 0 ? Status::FromErrno("open " + target)
                      : CopyRange(*o_.io, in, out, static_cast<off_t>(from),
                                  static_cast<off_t>(to - from));
  if (st.ok() && o_.io->Fsync(out, false) != 0) st = Status::FromErrno("fsync " + target);
  o_.io->Close(in);
  if (out >= 0) o_.io->Close(out);
  return st;
}

}  // namespace tierfs::fsck
