// `tierfs check` and `tierfs backup` through the real command and a mounted file
// system (docs/reliability.md, "Check and backup"): damage made by hand while
// unmounted is reported, repaired, and gone; repair is refused while mounted; a
// read-only check changes nothing; a backup of a mounted file system is a sound
// database, and restoring one as the documentation says works.
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kCheckRepaired = 1, kCheckUsage = 2, kCheckDamage = 4, kCheckError = 8;

class CheckTest : public TierfsFixture {
 protected:
  CommandResult Check(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"check"};
    all.insert(all.end(), args.begin(), args.end());
    return Tool("tierfs", all);
  }
  CommandResult Backup(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"backup"};
    all.insert(all.end(), args.begin(), args.end());
    return Tool("tierfs", all);
  }
  uint64_t InoOf(const std::string& relative) {
    struct stat st;
    EXPECT_EQ(lstat(Path(relative).c_str(), &st), 0) << relative;
    return st.st_ino;
  }
  // The object of inode `ino` on whichever volume holds it ("" if none).
  std::string ObjectOf(uint64_t ino) {
    char xx[8];
    std::snprintf(xx, sizeof xx, "%02x", static_cast<unsigned>(ino % 256));
    for (const std::string& v : {ssd_, hdd_}) {
      std::string path = v + "/.tierfs/objects/" + xx + "/" + std::to_string(ino) + ".1";
      if (fs::exists(path)) return path;
    }
    return "";
  }
  // Runs SQL on the unmounted file system's database with the SQLite C API.
  void Sql(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((ssd_ + "/.tierfs/meta.db").c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << error;
    sqlite3_free(error);
    sqlite3_close(db);
  }
  // Size and mtime (ns) of everything under the volumes.
  std::map<std::string, std::string> Snapshot() {
    std::map<std::string, std::string> out;
    for (const std::string& v : {ssd_, hdd_}) {
      for (const auto& e : fs::recursive_directory_iterator(v)) {
        // Not the file system's state: the daemon logs when it pleases (which
        // transport serves, once the kernel's INIT arrives after the mount).
        if (e.path().filename() == "tierfs.log") continue;
        struct stat st;
        if (lstat(e.path().c_str(), &st) != 0) continue;
        out[e.path().string()] =
            std::to_string(S_ISDIR(st.st_mode) ? 0 : st.st_size) + "@" +
            std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
      }
    }
    return out;
  }
  // kill -9 of the daemon this test mounted (its pid is in the daemon lock file).
  void KillDaemon() {
    std::ifstream lock(ssd_ + "/.tierfs/daemon.lock");
    pid_t pid = 0;
    lock >> pid;
    ASSERT_GT(pid, 1);
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    for (int i = 0; i < 300 && kill(pid, 0) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  static bool Has(const CommandResult& r, const std::string& text) {
    return r.output.find(text) != std::string::npos;
  }
};

TEST_F(CheckTest, AHealthyMountedFileSystemIsCleanAndNothingChanges) {
  ASSERT_EQ(mkdir(Path("d").c_str(), 0755), 0);
  WriteFile(Path("d/a"), RandomBytes(100000, 1));
  WriteFile(Path("b"), "bee");
  ASSERT_EQ(link(Path("b").c_str(), Path("d/b2").c_str()), 0);
  ASSERT_EQ(symlink("b", Path("l").c_str()), 0);
  WriteFile(Path("empty"), "");
  Remount();  // everything flushed; the new daemon has nothing to flush

  const auto before = Snapshot();
  CommandResult r = Check({mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "clean")) << r.output;
  EXPECT_TRUE(Has(r, "checked by its daemon")) << r.output;
  r = Check({ssd_});  // the metadata volume of a mounted file system: the daemon checks too
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = Check({"--json", mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "\"findings\": []")) << r.output;
  EXPECT_EQ(Snapshot(), before) << "a read-only check of a mounted file system changed a file";
}

TEST_F(CheckTest, RepairIsRefusedWhileMounted) {
  WriteFile(Path("f"), "data");
  for (const std::string& target : {ssd_, mnt_}) {
    CommandResult r = Check({"--repair", target});
    EXPECT_EQ(r.exit_code, kCheckError) << r.output;
    EXPECT_TRUE(Has(r, "mounted")) << r.output;
  }
  EXPECT_EQ(ReadFile(Path("f")), "data");
}

TEST_F(CheckTest, DamageIsReportedRepairedAndGoneAfterRemount) {
  const std::string a = RandomBytes(5000, 2), b = RandomBytes(70000, 3), c = "see", e = "eee";
  ASSERT_EQ(mkdir(Path("d").c_str(), 0755), 0);
  WriteFile(Path("a"), a);
  WriteFile(Path("d/b"), b);
  WriteFile(Path("c"), c);
  ASSERT_EQ(link(Path("c").c_str(), Path("d/c2").c_str()), 0);
  WriteFile(Path("e"), e);
  const uint64_t ino_a = InoOf("a"), ino_b = InoOf("d/b"), ino_c = InoOf("c"), ino_e = InoOf("e");
  Unmount();

  // Damage by hand: a missing object, bytes appended to an object, a stray object,
  // a wrong link count, a deleted directory entry.
  const std::string object_a = ObjectOf(ino_a), object_b = ObjectOf(ino_b);
  ASSERT_FALSE(object_a.empty());
  ASSERT_FALSE(object_b.empty());
  ASSERT_EQ(unlink(object_a.c_str()), 0);
  { std::ofstream(object_b, std::ios::app) << "bytes never acknowledged"; }
  const uint64_t stray = 90001;
  const std::string stray_dir = hdd_ + "/.tierfs/objects/" +
                                (std::string(1, "0123456789abcdef"[(stray % 256) / 16]) +
                                 "0123456789abcdef"[stray % 16]);
  fs::create_directories(stray_dir);
  WriteFile(stray_dir + "/90001.1", "an orphan's bytes");
  Sql("UPDATE inodes SET nlink = 7 WHERE ino = " + std::to_string(ino_c) +
      "; DELETE FROM dirents WHERE name = 'e';");

  CommandResult r = Check({ssd_});
  EXPECT_EQ(r.exit_code, kCheckDamage) << r.output;
  for (const char* line : {"damage missing: /a", "damage long: /d/b", "damage orphan: object",
                           "damage nlink: /c", "damage unnamed: inode", "damage sequence"}) {
    EXPECT_TRUE(Has(r, line)) << line << "\n" << r.output;
  }

  r = Check({"--repair", ssd_});
  EXPECT_EQ(r.exit_code, kCheckRepaired) << r.output;
  EXPECT_TRUE(Has(r, "DATA LOST")) << r.output;
  EXPECT_FALSE(Has(r, "-> not repaired")) << r.output;
  r = Check({ssd_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "clean")) << r.output;

  Mount();
  EXPECT_EQ(ReadFile(Path("d/b")), b);
  EXPECT_EQ(ReadFile(Path("a")), "");
  EXPECT_EQ(ReadFile(Path("c")), c);
  struct stat st;
  ASSERT_EQ(stat(Path("d/c2").c_str(), &st), 0);
  EXPECT_EQ(st.st_nlink, 2u);
  ASSERT_EQ(stat(Path("lost+found").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(ReadFile(Path("lost+found/#90001.1")), "an orphan's bytes");
  EXPECT_EQ(ReadFile(Path("lost+found/#" + std::to_string(ino_e))), e);
  r = Check({mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(CheckTest, AMissingLabelIsReportedAndNothingOnItIsTouched) {
  const std::string data = RandomBytes(20000, 4);
  WriteFile(Path("f"), data);
  Unmount();
  const std::string label = hdd_ + "/.tierfs/label";
  ASSERT_EQ(rename(label.c_str(), (label + ".away").c_str()), 0);
  const auto before = Snapshot();
  CommandResult r = Check({ssd_});
  EXPECT_EQ(r.exit_code, kCheckDamage) << r.output;
  EXPECT_TRUE(Has(r, "damage label: volume vol2")) << r.output;
  r = Check({"--repair", ssd_});
  EXPECT_EQ(r.exit_code, kCheckDamage) << r.output;
  EXPECT_TRUE(Has(r, "not repaired")) << r.output;
  // Nothing on the volume moved (the database changed only its WAL, if anything).
  auto after = Snapshot();
  for (const auto& [path, what] : before) {
    if (path.rfind(hdd_, 0) == 0) {
      EXPECT_EQ(after[path], what) << path;
    }
  }
  ASSERT_EQ(rename((label + ".away").c_str(), label.c_str()), 0);
  r = Check({ssd_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  Mount();
  EXPECT_EQ(ReadFile(Path("f")), data);
}

TEST_F(CheckTest, AnUnmountedCheckAfterACrashReadsTheWalAndChangesNothing) {
  WriteFileSynced(Path("one"), "1");
  WriteFileSynced(Path("two"), RandomBytes(30000, 5));
  ASSERT_EQ(mkdir(Path("dir").c_str(), 0755), 0);
  WriteFileSynced(Path("dir/three"), "3");
  FsyncDir(mnt_);  // committed to the WAL, as an application asking for it
  KillDaemon();
  Unmount();  // detaches the dead mount
  ASSERT_TRUE(fs::exists(ssd_ + "/.tierfs/meta.db-wal")) << "the crash should leave a WAL";

  const auto before = Snapshot();
  CommandResult r = Check({ssd_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "3 files")) << "the files committed in the WAL must be seen\n" << r.output;
  EXPECT_EQ(Snapshot(), before) << "a read-only check changed a file";
  EXPECT_FALSE(fs::exists(ssd_ + "/.tierfs/meta.db-shm"));

  Mount();
  EXPECT_EQ(ReadFile(Path("dir/three")), "3");
}

TEST_F(CheckTest, ARelocationCrashLeavesLeftoversNotDamage) {
  AssignPolicy(MoveEverythingPolicy("hdd", "ssd"));
  const std::string data = RandomBytes(200000, 9);
  WriteFile(Path("f"), data);
  Unmount();
  setenv("TIERFS_FAULTS", "point:relocate-after-copy@1=stop", 1);
  Mount();
  unsetenv("TIERFS_FAULTS");
  CommandResult r = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_NE(r.exit_code, 0) << "the daemon should have died: " << r.output;
  Unmount();  // waits for the dead daemon's lock, detaches the mount

  r = Check({ssd_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "leftover pending: object " + ssd_)) << r.output;
  r = Check({"--repair", ssd_});
  EXPECT_EQ(r.exit_code, kCheckRepaired) << r.output;
  r = Check({ssd_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "clean")) << r.output;
  Mount();
  EXPECT_EQ(ReadFile(Path("f")), data);
}

// An object shorter than its file is damage, logged by the mount after
// a crash and reported by the check; repair restores the missing range from a
// relocation's other object when one holds it.
TEST_F(CheckTest, AShortObjectIsRestoredFromTheRelocationsOtherObject) {
  AssignPolicy(MoveEverythingPolicy("hdd", "ssd"));
  const std::string data = RandomBytes(300000, 5);
  WriteFileSynced(Path("f"), data);
  const uint64_t ino = InoOf("f");
  Unmount();
  // Killed after the commit, before the source goes: both objects stay.
  setenv("TIERFS_FAULTS", "point:relocate-after-commit@1=stop", 1);
  Mount();
  unsetenv("TIERFS_FAULTS");
  CommandResult r = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_NE(r.exit_code, 0) << "the daemon should have died: " << r.output;
  Unmount();
  char xx[8];
  std::snprintf(xx, sizeof xx, "%02x", static_cast<unsigned>(ino % 256));
  const std::string name = std::string("/.tierfs/objects/") + xx + "/" + std::to_string(ino) + ".1";
  ASSERT_TRUE(fs::exists(hdd_ + name));
  ASSERT_EQ(truncate((ssd_ + name).c_str(), 200000), 0);  // the location lost its tail

  Mount();  // crash recovery: logs the short object, keeps the other one
  Unmount();
  const std::string log = ReadFile(ssd_ + "/.tierfs/tierfs.log");
  EXPECT_NE(log.find("/f (inode " + std::to_string(ino) + "): its object"), std::string::npos)
      << log;
  EXPECT_NE(log.find("100000 acknowledged bytes are missing"), std::string::npos) << log;
  ASSERT_TRUE(fs::exists(hdd_ + name)) << "crash recovery removed the only full copy";

  r = Check({ssd_});
  EXPECT_EQ(r.exit_code, kCheckDamage) << r.output;
  EXPECT_TRUE(Has(r, "damage short: /f")) << r.output;
  r = Check({"--repair", ssd_});
  EXPECT_EQ(r.exit_code, kCheckRepaired) << r.output;
  EXPECT_TRUE(Has(r, "restored the missing 100000 bytes from " + hdd_ + name)) << r.output;
  EXPECT_FALSE(Has(r, "DATA LOST")) << r.output;
  r = Check({ssd_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  Mount();
  EXPECT_EQ(Difference(ReadFile(Path("f")), data), "");
}

TEST_F(CheckTest, AShortObjectWithNoOtherCopyIsReportedAsDataLost) {
  const std::string data = RandomBytes(300000, 6);
  WriteFileSynced(Path("f"), data);
  const uint64_t ino = InoOf("f");
  Unmount();
  const std::string object = ObjectOf(ino);
  ASSERT_FALSE(object.empty());
  ASSERT_EQ(truncate(object.c_str(), 200000), 0);  // made by hand

  CommandResult r = Check({ssd_});
  EXPECT_EQ(r.exit_code, kCheckDamage) << r.output;
  EXPECT_TRUE(Has(r, "damage short: /f")) << r.output;
  EXPECT_TRUE(Has(r, "100000 bytes of acknowledged data missing")) << r.output;
  r = Check({"--repair", ssd_});
  EXPECT_EQ(r.exit_code, kCheckRepaired) << r.output;
  EXPECT_TRUE(Has(r, "cannot restore 100000 bytes")) << r.output;
  EXPECT_TRUE(Has(r, "DATA LOST")) << r.output;
  Mount();
  EXPECT_EQ(Difference(ReadFile(Path("f")), data.substr(0, 200000)), "");
}

TEST_F(CheckTest, BackupOfAMountedFileSystemIsASoundDatabase) {
  for (int i = 0; i < 50; ++i) WriteFile(Path("f" + std::to_string(i)), RandomBytes(100, i));
  const std::string dest = root_ + "/backup.db";
  CommandResult r = Backup({mnt_, dest});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, dest)) << r.output;
  EXPECT_TRUE(Has(r, " bytes, ")) << r.output;
  EXPECT_TRUE(Has(r, " s\n")) << r.output;

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(dest.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  std::string integrity;
  int64_t files = -1;
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr), SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW) {
    integrity += reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM dirents WHERE parent = 1", -1, &st,
                               nullptr),
            SQLITE_OK);
  if (sqlite3_step(st) == SQLITE_ROW) files = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  EXPECT_EQ(integrity, "ok");
  EXPECT_EQ(files, 50);

  // Without DEST: the second volume.
  r = Backup({mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(hdd_ + "/.tierfs/meta.db.backup"));
  // Refused: inside the mount, over the live database.
  r = Backup({mnt_, Path("inside.db")});
  EXPECT_EQ(r.exit_code, kCheckUsage) << r.output;
  EXPECT_FALSE(fs::exists(Path("inside.db")));
  r = Backup({mnt_, ssd_ + "/.tierfs/meta.db"});
  EXPECT_EQ(r.exit_code, kCheckUsage) << r.output;
  EXPECT_TRUE(Has(r, "live database")) << r.output;

  // The periodic backup: a cron entry that runs the same command.
  const std::string cron = root_ + "/cron";
  ASSERT_EQ(mkdir(cron.c_str(), 0755), 0);
  setenv("TIERFS_CRON_DIR", cron.c_str(), 1);
  r = Backup({"--cron", "@daily", mnt_});
  unsetenv("TIERFS_CRON_DIR");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::string entry = ReadFile(cron + "/tierfs-backup-testfs");
  EXPECT_NE(entry.find("@daily root '"), std::string::npos) << entry;
  EXPECT_NE(entry.find("' backup '" + mnt_ + "'"), std::string::npos) << entry;
}

TEST_F(CheckTest, RestoringABackupAsDocumented) {
  const std::string grow_before = RandomBytes(10000, 6), appended = RandomBytes(5000, 7);
  const std::string newer = RandomBytes(3000, 8);
  WriteFile(Path("keep"), "keep");
  WriteFile(Path("grow"), grow_before);
  WriteFile(Path("gone"), "deleted after the backup");
  const std::string backup = root_ + "/meta.db.backup";
  CommandResult r = Backup({mnt_, backup});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Life goes on after the backup.
  WriteFile(Path("newer"), newer);
  const uint64_t ino_newer = InoOf("newer");
  { std::ofstream(Path("grow"), std::ios::app) << appended; }
  ASSERT_EQ(unlink(Path("gone").c_str()), 0);
  Unmount();

  // docs/reliability.md: with the file system unmounted, move the database and its
  // -wal/-shm aside, copy the backup in its place, check, repair, mount.
  const std::string db = ssd_ + "/.tierfs/meta.db";
  for (const char* suffix : {"", "-wal", "-shm"}) {
    if (fs::exists(db + suffix)) fs::rename(db + suffix, db + suffix + ".broken");
  }
  fs::copy_file(backup, db);
  fs::permissions(db, fs::perms::owner_read | fs::perms::owner_write);
  r = Check({ssd_});
  EXPECT_EQ(r.exit_code, kCheckDamage) << r.output;
  r = Check({"--repair", "--trust-objects", ssd_});
  EXPECT_EQ(r.exit_code, kCheckRepaired) << r.output;
  r = Check({ssd_});
  EXPECT_EQ(r.exit_code, 0) << r.output;

  Mount();
  EXPECT_EQ(ReadFile(Path("keep")), "keep");
  EXPECT_EQ(ReadFile(Path("grow")), grow_before + appended);
  EXPECT_EQ(ReadFile(Path("gone")), "");  // its bytes were gone; the name came back
  EXPECT_EQ(ReadFile(Path("lost+found/#" + std::to_string(ino_newer) + ".1")), newer);
  WriteFile(Path("after"), "a new file gets a fresh inode");
  EXPECT_EQ(ReadFile(Path("after")), "a new file gets a fresh inode");
  EXPECT_NE(InoOf("after"), ino_newer);
  r = Check({mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

}  // namespace
}  // namespace tierfs::testing
