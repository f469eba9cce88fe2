// Restoring a database backup on a file system with an object volume, exactly as
// docs/reliability.md "Restoring a backup" tells an administrator to: after the
// backup, files are created, deleted, written, renamed and relocated in every
// direction (local to local, local to the store, the store to local, the store
// to the store again after a write recalled the file); then the database is
// replaced by the backup and `tierfs check --repair --trust-objects` runs. No
// acknowledged byte may be lost, no object deleted that is the only copy of its
// bytes, and every case must end as the page says. Every wait is bounded; the
// fixture always unmounts.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "fs/volume/object_hash.h"
#include "fs/volume/object_location.h"
#include "fs/volume/volume_io.h"
#include "tests/store/object_volume_fixture.h"

namespace tierfs::testing {
namespace {

namespace fs = std::filesystem;

// `tierfs check` exit statuses (tierfs-check(8)).
constexpr int kCheckClean = 0, kCheckRepaired = 1, kCheckDamage = 4;

// One rule per class that names files by pattern, and a catch-all that creates
// on hdd and moves nothing.
std::string MovePolicy(const std::string& name,
                       const std::map<std::string, std::vector<std::string>>& to) {
  std::string xml = "<?xml version=\"1.0\"?>\n<PLACEMENT_POLICY Version=\"5.1\" Name=\"" + name +
                    "\">\n";
  for (const auto& [cls, patterns] : to) {
    xml += "  <RULE Flags=\"data\" Name=\"to_" + cls + "\"><SELECT>";
    for (const std::string& p : patterns) xml += "<PATTERN>" + p + "</PATTERN>";
    xml += "</SELECT>\n    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>\n"
           "    <RELOCATE><TO><DESTINATION><CLASS>" + cls +
           "</CLASS></DESTINATION></TO></RELOCATE></RULE>\n";
  }
  xml += "  <RULE Flags=\"data\" Name=\"rest\"><SELECT><PATTERN>*</PATTERN></SELECT>\n"
         "    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE></RULE>\n"
         "</PLACEMENT_POLICY>\n";
  return xml;
}

class StoreRestoreTest : public ObjectVolumeTest {
 protected:
  uint64_t InoOf(const std::string& relative) {
    struct stat st;
    EXPECT_EQ(stat(Path(relative).c_str(), &st), 0) << relative;
    return st.st_ino;
  }
  void Append(const std::string& relative, const std::string& data) {
    WriteFileSynced(Path(relative), ReadFile(Path(relative)) + data);
  }
  // The key of upload `version` of inode `ino` (generation 1) on the store.
  std::string KeyOf(uint64_t ino, uint64_t version) {
    Result<ObjectLocation> where = ParseObjectUrl(Url());
    EXPECT_TRUE(where.ok());
    return where.ok() ? ObjectKey(*where, ino, 1, version) : "";
  }
  // Puts `bytes` on the store as upload `version` of inode `ino`, with the hash
  // an upload records: what a crash, a failed delete or an old copy leaves.
  void PutUpload(uint64_t ino, uint64_t version, const std::string& bytes) {
    const std::string file = root_ + "/upload";
    WriteFile(file, bytes);
    int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    Result<uint64_t> hash = HashObject(VolumeIo::Posix(), fd, static_cast<off_t>(bytes.size()));
    ASSERT_TRUE(hash.ok());
    auto etag = s3_->PutObject(bucket_, KeyOf(ino, version), fd, 0, bytes.size(),
                               {{kObjectHashMetadata, Xxh3Hex(*hash)}});
    close(fd);
    ASSERT_TRUE(etag.ok()) << etag.status().message();
  }
};

TEST_F(StoreRestoreTest, RestoringABackupKeepsEveryByteThatMovedToOrFromTheStore) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  // Before the backup: every file on hdd, then some moved to the store.
  std::map<std::string, std::string> want;
  uint32_t seed = 100;
  for (const char* name : {"h2s", "s2h", "h2ssd", "s2s_written", "stay", "gone_local",
                           "gone_store", "renamed", "grow"}) {
    want[name] = RandomBytes(20000 + seed, seed);
    WriteFileSynced(Path(name), want[name]);
    ++seed;
  }
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(
      MovePolicy("before", {{"cloud", {"s2h", "s2s_written", "gone_store"}}})));
  ASSERT_NO_FATAL_FAILURE(Enforce());
  for (const char* name : {"s2h", "s2s_written", "gone_store"}) {
    ASSERT_EQ(ClassOf(name), "cloud") << name;
  }
  ASSERT_EQ(ClassOf("h2s"), "hdd");

  const std::string backup = root_ + "/meta.db.backup";
  CommandResult r = Tool("tierfs", {"backup", mnt_, backup}, 120);
  ASSERT_EQ(r.exit_code, 0) << r.output;

  // Life goes on after the backup.
  const std::string appended_store = RandomBytes(7000, 201), appended = RandomBytes(5000, 202);
  ASSERT_NO_FATAL_FAILURE(Append("s2s_written", appended_store));  // recalled to hdd to write
  want["s2s_written"] += appended_store;
  ASSERT_NO_FATAL_FAILURE(Append("grow", appended));
  want["grow"] += appended;
  ASSERT_EQ(rename(Path("renamed").c_str(), Path("renamed_later").c_str()), 0);
  ASSERT_EQ(unlink(Path("gone_local").c_str()), 0);
  ASSERT_EQ(unlink(Path("gone_store").c_str()), 0);
  const std::string newer_local = RandomBytes(3000, 203), newer_store = RandomBytes(4000, 204);
  WriteFileSynced(Path("newer_local"), newer_local);
  WriteFileSynced(Path("newer_store"), newer_store);
  const uint64_t ino_newer_local = InoOf("newer_local"), ino_newer_store = InoOf("newer_store");
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(
      MovePolicy("after", {{"cloud", {"h2s", "s2s_written", "newer_store"}},
                           {"hdd", {"s2h"}},
                           {"ssd", {"h2ssd"}}})));
  ASSERT_NO_FATAL_FAILURE(Enforce());
  EXPECT_EQ(ClassOf("h2s"), "cloud");
  EXPECT_EQ(ClassOf("s2h"), "hdd");
  EXPECT_EQ(ClassOf("h2ssd"), "ssd");
  EXPECT_EQ(ClassOf("s2s_written"), "cloud");
  EXPECT_EQ(ClassOf("newer_store"), "cloud");
  const size_t keys_before = Keys().size();
  Unmount();
  ASSERT_TRUE(DaemonGone());

  // docs/reliability.md: the database and its -wal/-shm aside, the backup in place.
  const std::string db = ssd_ + "/.tierfs/meta.db";
  for (const char* suffix : {"", "-wal", "-shm"}) {
    if (fs::exists(db + suffix)) fs::rename(db + suffix, db + suffix + ".broken");
  }
  fs::copy_file(backup, db);
  fs::permissions(db, fs::perms::owner_read | fs::perms::owner_write);
  r = Tool("tierfs", {"check", ssd_}, 120);
  EXPECT_EQ(r.exit_code, kCheckDamage) << r.output;
  r = Tool("tierfs", {"check", "--repair", "--trust-objects", ssd_}, 120);
  EXPECT_EQ(r.exit_code, kCheckRepaired) << r.output;
  const std::string repair_output = r.output;
  // Nothing was deleted from the store; the only DATA LOST lines are the two files
  // deleted after the backup, whose bytes were gone before the repair.
  EXPECT_EQ(Keys().size(), keys_before) << repair_output;
  EXPECT_EQ(repair_output.find("deleted from the store"), std::string::npos) << repair_output;
  size_t lost = 0;
  for (size_t at = repair_output.find("DATA LOST"); at != std::string::npos;
       at = repair_output.find("DATA LOST", at + 1)) {
    const size_t line = repair_output.rfind('\n', at) + 1;
    const std::string text = repair_output.substr(line, repair_output.find('\n', at) - line);
    if (text.rfind("damage", 0) != 0) continue;  // the summary's warning
    ++lost;
    EXPECT_TRUE(text.find("/gone_local") != std::string::npos ||
                text.find("/gone_store") != std::string::npos)
        << text;
  }
  EXPECT_EQ(lost, 2u) << repair_output;
  for (const char* name : {"/h2s", "/s2h", "/h2ssd"}) {
    EXPECT_NE(repair_output.find(std::string("damage misplaced: ") + name + " "),
              std::string::npos)
        << name << "\n"
        << repair_output;
  }
  r = Tool("tierfs", {"check", ssd_}, 120);
  EXPECT_EQ(r.exit_code, kCheckClean) << r.output;

  Mount();
  for (const char* name : {"h2s", "s2h", "h2ssd", "s2s_written", "stay", "grow"}) {
    EXPECT_EQ(Difference(ReadFileDirect(Path(name)), want[name]), "") << name;
  }
  EXPECT_EQ(ClassOf("h2s"), "cloud");
  EXPECT_EQ(ClassOf("s2h"), "hdd");
  EXPECT_EQ(ClassOf("h2ssd"), "ssd");
  EXPECT_EQ(ClassOf("s2s_written"), "cloud");
  // The rename is lost: the file has its old name, with its bytes.
  EXPECT_EQ(Difference(ReadFile(Path("renamed")), want["renamed"]), "");
  // Deleted after the backup: the names come back empty.
  EXPECT_EQ(ReadFile(Path("gone_local")), "");
  EXPECT_EQ(ReadFile(Path("gone_store")), "");
  // Created after the backup: in /lost+found under their own inode numbers, one
  // on a local volume, one still on the store.
  const std::string lf_local = "lost+found/#" + std::to_string(ino_newer_local) + ".1";
  const std::string lf_store = "lost+found/#" + std::to_string(ino_newer_store) + ".1";
  EXPECT_EQ(Difference(ReadFileDirect(Path(lf_local)), newer_local), "");
  EXPECT_EQ(Difference(ReadFileDirect(Path(lf_store)), newer_store), "");
  EXPECT_EQ(ClassOf(lf_store), "cloud");
  // A new file gets a fresh inode, and the mounted file system checks clean.
  WriteFile(Path("after"), "a new file gets a fresh inode");
  EXPECT_GT(InoOf("after"), std::max(ino_newer_local, ino_newer_store));
  r = Tool("tierfs", {"check", mnt_}, 120);
  EXPECT_EQ(r.exit_code, kCheckClean) << r.output;
}

// The repair never deletes a store's object that is the only copy of its bytes:
// an object of an inode that is elsewhere with other bytes, or of an inode that
// is not a regular file, is kept unless --delete-orphans asks; one identical to
// its file's object is deleted as a duplicate. Each deletion is named.
TEST_F(StoreRestoreTest, AStoreOrphanIsDeletedOnlyWhenItDuplicatesItsFileOrWhenAsked) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  const std::string same = RandomBytes(30000, 1), mine = RandomBytes(30000, 2);
  WriteFileSynced(Path("dup"), same);
  WriteFileSynced(Path("differs"), mine);
  ASSERT_EQ(mkdir(Path("dir").c_str(), 0755), 0);
  const uint64_t dup = InoOf("dup"), differs = InoOf("differs"), dir = InoOf("dir");
  Unmount();
  ASSERT_TRUE(DaemonGone());
  // Objects of these inodes on the store, as a crash or an old copy leaves them.
  ASSERT_NO_FATAL_FAILURE(PutUpload(dup, 1, same));
  ASSERT_NO_FATAL_FAILURE(PutUpload(differs, 1, RandomBytes(30000, 3)));
  ASSERT_NO_FATAL_FAILURE(PutUpload(dir, 1, RandomBytes(100, 4)));

  CommandResult r = Tool("tierfs", {"check", "--repair", ssd_}, 120);
  EXPECT_EQ(r.exit_code, kCheckDamage) << r.output;
  const std::string key_dup = KeyOf(dup, 1);
  EXPECT_NE(r.output.find("-> repaired: deleted: the file's object"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("not repaired: kept, because the file's object"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("not repaired: kept (nothing claims it"), std::string::npos)
      << r.output;
  std::vector<std::string> keys = Keys();
  EXPECT_EQ(keys.size(), 2u);
  for (const std::string& k : keys) EXPECT_NE(k, key_dup);

  r = Tool("tierfs", {"check", "--repair", "--delete-orphans", ssd_}, 120);
  EXPECT_EQ(r.exit_code, kCheckRepaired) << r.output;
  EXPECT_NE(r.output.find(KeyOf(differs, 1) + " (30000 bytes)"), std::string::npos)
      << r.output;
  size_t deleted = 0;
  for (size_t at = r.output.find("as --delete-orphans asks"); at != std::string::npos;
       at = r.output.find("as --delete-orphans asks", at + 1)) {
    ++deleted;
  }
  EXPECT_EQ(deleted, 2u) << r.output;
  EXPECT_TRUE(Keys().empty());
  r = Tool("tierfs", {"check", ssd_}, 120);
  EXPECT_EQ(r.exit_code, kCheckClean) << r.output;

  Mount();
  EXPECT_EQ(Difference(ReadFile(Path("dup")), same), "");
  EXPECT_EQ(Difference(ReadFile(Path("differs")), mine), "");
}

// Uploads of a file on the store that its row does not name: an earlier one
// (here the unversioned key of a file system made before uploads were
// numbered) holds bytes the file has since replaced and is deleted by the
// repair once the file's own upload is seen; a later one (the database is
// older than the store) may hold the newest bytes and is kept.
TEST_F(StoreRestoreTest, AnEarlierUploadLeftOnTheStoreGoesAndALaterOneStays) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  const std::string bytes = RandomBytes(30000, 7);
  WriteFileSynced(Path("f"), bytes);
  const uint64_t ino = InoOf("f");
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(MovePolicy("to_cloud", {{"cloud", {"f"}}})));
  ASSERT_NO_FATAL_FAILURE(Enforce());
  ASSERT_EQ(ClassOf("f"), "cloud");
  ASSERT_EQ(Keys(), std::vector<std::string>{KeyOf(ino, 1)});
  Unmount();
  ASSERT_TRUE(DaemonGone());
  ASSERT_NO_FATAL_FAILURE(PutUpload(ino, 0, RandomBytes(30000, 8)));
  ASSERT_NO_FATAL_FAILURE(PutUpload(ino, 5, RandomBytes(30000, 9)));

  CommandResult r = Tool("tierfs", {"check", ssd_}, 120);
  EXPECT_EQ(r.exit_code, kCheckDamage) << r.output;
  EXPECT_NE(r.output.find("superseded"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("upload 1, not 5"), std::string::npos) << r.output;
  EXPECT_EQ(Keys().size(), 3u) << "a check without --repair changes nothing";

  r = Tool("tierfs", {"check", "--repair", ssd_}, 120);
  EXPECT_EQ(r.exit_code, kCheckDamage) << r.output;
  EXPECT_NE(r.output.find(KeyOf(ino, 0) + " (30000 bytes): an earlier upload"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("not repaired: kept, because the file's object"), std::string::npos)
      << r.output;
  std::vector<std::string> keys = Keys();
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{KeyOf(ino, 1), KeyOf(ino, 5)}));

  Mount();
  EXPECT_EQ(Difference(ReadFileDirect(Path("f")), bytes), "");
}

}  // namespace
}  // namespace tierfs::testing
