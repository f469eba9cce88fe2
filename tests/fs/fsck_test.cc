// The consistency check library (fs/check/fsck.h) on a real database and real volume
// directories, without FUSE: each kind of damage made by hand, found, repaired,
// and found no more.
#include "fs/check/fsck.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fs/volume/fault_injecting_volume_io.h"
#include "fs/volume/volume_label.h"
#include "meta/metadata.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs {
namespace {

using meta::Inode;
using meta::kRootIno;

class FsckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ssd_ = dir_.path() + "/ssd";
    hdd_ = dir_.path() + "/hdd";
    ASSERT_EQ(mkdir(ssd_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir(hdd_.c_str(), 0755), 0);
    const meta::FsInfo info = meta::testing::TestFsInfo();
    ASSERT_TRUE(WriteVolumeLabel(ssd_, {info.uuid, info.name, 1, "vol1"}).ok());
    ASSERT_TRUE(WriteVolumeLabel(hdd_, {info.uuid, info.name, 2, "vol2"}).ok());
    db_path_ = MetadataDbPath(ssd_);
    ASSERT_TRUE(meta::Metadata::Format(db_path_, info, meta::testing::TwoVolumes(dir_.path()), 0,
                                       0, SystemClock::Get())
                    .ok());
    Open();
  }

  void Open() {
    meta_.reset();
    auto opened = meta::Metadata::Open(db_path_, meta::MetadataOptions{});
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    meta_ = std::move(opened).value();
  }

  std::string VolumeDir(uint32_t volume) const { return volume == 1 ? ssd_ : hdd_; }
  std::string Object(uint32_t volume, uint64_t ino, uint64_t generation = 1) const {
    return ObjectPathIn(VolumeDir(volume), ino, generation);
  }
  static void WriteAt(const std::string& path, const std::string& data) {
    mkdir(path.substr(0, path.rfind('/')).c_str(), 0700);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << data;
  }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static bool Exists(const std::string& path) {
    struct stat st;
    return lstat(path.c_str(), &st) == 0;
  }

  // A regular file with its object holding `data`.
  Inode File(uint64_t parent, const std::string& name, uint32_t volume, const std::string& data) {
    Inode proto;
    proto.mode = S_IFREG | 0644;
    proto.volume_id = volume;
    proto.size = data.size();
    auto made = meta_->Create(parent, name, proto);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    if (!made.ok()) return {};
    WriteAt(Object(volume, made->ino), data);
    return *made;
  }
  Inode Dir(uint64_t parent, const std::string& name) {
    Inode proto;
    proto.mode = S_IFDIR | 0755;
    auto made = meta_->Create(parent, name, proto);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return made.ok() ? *made : Inode{};
  }
  // Runs SQL on the closed database, then opens it again.
  void Sql(const std::string& sql) {
    meta_.reset();
    meta::testing::RawExec(db_path_, sql.c_str());
    Open();
  }

  CheckReport Check(bool repair = false, CheckOptions options = {}) {
    options.repair = repair;
    options.database_path = db_path_;
    auto report = CheckFileSystem(*meta_, options);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : CheckReport{};
  }
  static std::multiset<std::string> Kinds(const CheckReport& r) {
    std::multiset<std::string> kinds;
    for (const CheckFinding& f : r.findings) kinds.insert(f.kind);
    return kinds;
  }
  static std::string Dump(const CheckReport& r) { return r.ToJson().dump(1); }
  // Every file under the volumes: path -> (size, mtime ns, content hash).
  std::map<std::string, std::string> Tree() {
    std::map<std::string, std::string> out;
    Walk(dir_.path(), &out);
    return out;
  }
  static void Walk(const std::string& dir, std::map<std::string, std::string>* out) {
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return;
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      std::string path = dir + "/" + name;
      struct stat st;
      if (lstat(path.c_str(), &st) != 0) continue;
      const std::string hash =
          S_ISREG(st.st_mode) ? "#" + std::to_string(std::hash<std::string>{}(Read(path))) : "";
      (*out)[path] = std::to_string(st.st_size) + "@" + std::to_string(st.st_mtim.tv_sec) + "." +
                     std::to_string(st.st_mtim.tv_nsec) + hash;
      if (S_ISDIR(st.st_mode)) Walk(path, out);
    }
    closedir(d);
  }

  meta::testing::TempDir dir_;
  std::string ssd_, hdd_, db_path_;
  std::unique_ptr<meta::Metadata> meta_;
};

TEST_F(FsckTest, AHealthyFileSystemIsClean) {
  Inode d = Dir(kRootIno, "d");
  Inode f = File(d.ino, "f", 2, "hello");
  ASSERT_TRUE(meta_->Link(f.ino, kRootIno, "f2").ok());
  File(kRootIno, "g", 1, std::string(70000, 'x'));
  Inode proto;
  proto.mode = S_IFREG | 0600;
  proto.volume_id = 2;
  ASSERT_TRUE(meta_->Create(kRootIno, "empty-without-object", proto).ok());
  CheckReport r = Check();
  EXPECT_TRUE(r.findings.empty()) << Dump(r);
  EXPECT_EQ(r.volumes, 2u);
  EXPECT_EQ(r.files, 3u);
  EXPECT_EQ(r.objects, 2u);
  EXPECT_EQ(r.UnrepairedDamage(), 0u);
}

TEST_F(FsckTest, EveryKindOfDamageIsFoundThenRepaired) {
  Inode d = Dir(kRootIno, "d");
  Inode missing = File(d.ino, "missing", 2, "lost bytes");
  Inode shrunk = File(d.ino, "short", 2, "0123456789");
  Inode grown = File(d.ino, "long", 1, "acknowledged");
  Inode unnamed = File(kRootIno, "unnamed", 2, "no name");
  Inode linked = File(kRootIno, "linked", 2, "two names");
  ASSERT_TRUE(meta_->Link(linked.ino, d.ino, "linked2").ok());
  Inode sym;
  sym.mode = S_IFLNK | 0777;
  sym.symlink = "d";
  auto symlink = meta_->Create(kRootIno, "sym", sym);
  ASSERT_TRUE(symlink.ok());
  // Damage, made by hand.
  ASSERT_EQ(unlink(Object(2, missing.ino).c_str()), 0);
  ASSERT_EQ(truncate(Object(2, shrunk.ino).c_str(), 4), 0);
  WriteAt(Object(1, grown.ino), "acknowledged+never acknowledged");
  WriteAt(Object(2, 999), "orphan: no inode");
  WriteAt(Object(2, symlink->ino), "orphan: inode is a symlink");
  WriteAt(Object(1, linked.ino), "orphan: its inode is on vol2");
  WriteAt(ObjectsDir(hdd_) + "/00/" + std::to_string(linked.ino) + ".1", "orphan: wrong dir");
  WriteAt(ObjectsDir(hdd_) + "/README", "stray");
  WriteAt(TmpDir(hdd_) + "/5.1.123.0", "tmp leftover");
  Sql("DELETE FROM dirents WHERE name = 'unnamed';"
      "UPDATE inodes SET nlink = 5 WHERE ino = " + std::to_string(linked.ino) + ";"
      "UPDATE inodes SET nlink = 9 WHERE ino = " + std::to_string(d.ino) + ";"
      "INSERT INTO dirents(parent, name, ino) VALUES (1, 'ghost', 4242);");
  ASSERT_TRUE(meta_->AddPendingObject({shrunk.ino, 1, 1}).ok());
  WriteAt(Object(1, shrunk.ino), "pending copy");
  ASSERT_TRUE(meta_->AddPendingObject({grown.ino, 1, 2}).ok());  // a row without its object

  CheckReport r = Check();
  EXPECT_EQ(Kinds(r), (std::multiset<std::string>{
                         "dirent", "long", "missing", "nlink", "nlink", "orphan", "orphan",
                         "orphan", "orphan", "pending", "pending", "sequence", "short", "stray",
                         "tmp", "unnamed"}))
      << Dump(r);
  EXPECT_EQ(r.Repaired(), 0u);
  EXPECT_GT(r.UnrepairedDamage(), 0u);

  CheckReport fixed = Check(/*repair=*/true);
  for (const CheckFinding& f : fixed.findings) {
    if (f.kind == "stray") {
      EXPECT_FALSE(f.repaired);
      continue;
    }
    EXPECT_TRUE(f.repaired) << f.kind << ": " << f.message << " -> " << f.repair;
    EXPECT_EQ(f.data_loss, f.kind == "missing" || f.kind == "short") << f.kind;
  }
  EXPECT_EQ(fixed.UnrepairedDamage(), 0u) << Dump(fixed);

  CheckReport again = Check();
  EXPECT_EQ(Kinds(again), (std::multiset<std::string>{"stray"})) << Dump(again);

  // What the repairs left.
  EXPECT_EQ(meta_->GetInode(missing.ino)->size, 0u);
  EXPECT_EQ(meta_->GetInode(shrunk.ino)->size, 4u);
  EXPECT_EQ(Read(Object(1, grown.ino)), "acknowledged");
  EXPECT_FALSE(Exists(Object(1, shrunk.ino)));  // the pending copy
  EXPECT_FALSE(Exists(TmpDir(hdd_) + "/5.1.123.0"));
  EXPECT_TRUE(meta_->ListPendingObjects()->empty());
  EXPECT_EQ(meta_->GetInode(linked.ino)->nlink, 2u);
  EXPECT_EQ(meta_->GetInode(d.ino)->nlink, 2u);
  EXPECT_EQ(meta_->Lookup(kRootIno, "ghost").status().code(), ENOENT);
  auto lf = meta_->LookupInode(kRootIno, "lost+found");
  ASSERT_TRUE(lf.ok());
  EXPECT_EQ(lf->mode, static_cast<uint32_t>(S_IFDIR | 0700));
  EXPECT_EQ(meta_->Lookup(lf->ino, "#" + std::to_string(unnamed.ino)).value(), unnamed.ino);
  // Each orphan is a new file whose object is the orphan, renamed.
  auto adopted = meta_->LookupInode(lf->ino, "#999.1");
  ASSERT_TRUE(adopted.ok());
  EXPECT_EQ(adopted->volume_id, 2u);
  EXPECT_EQ(adopted->size, std::string("orphan: no inode").size());
  EXPECT_EQ(Read(Object(2, adopted->ino)), "orphan: no inode");
  EXPECT_FALSE(Exists(Object(2, 999)));
  const std::string base = "#" + std::to_string(linked.ino) + ".1";
  auto first = meta_->LookupInode(lf->ino, base);
  auto second = meta_->LookupInode(lf->ino, base + "-2");
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(Read(Object(first->volume_id, first->ino)) + "|" +
                Read(Object(second->volume_id, second->ino)),
            first->volume_id == 1 ? "orphan: its inode is on vol2|orphan: wrong dir"
                                  : "orphan: wrong dir|orphan: its inode is on vol2");
  EXPECT_EQ(Read(Object(2, linked.ino)), "two names");  // the real one is untouched
}

TEST_F(FsckTest, AReadOnlyCheckChangesNothing) {
  Inode f = File(kRootIno, "f", 2, "data");
  WriteAt(Object(2, f.ino), "data and more");
  WriteAt(Object(2, 777), "orphan");
  WriteAt(TmpDir(ssd_) + "/x", "tmp");
  meta_.reset();
  const auto before = Tree();
  {
    auto checked = meta::Metadata::OpenForCheck(db_path_);
    ASSERT_TRUE(checked.ok()) << checked.status().ToString();
    CheckOptions options;
    auto report = CheckFileSystem(**checked, options);
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(Kinds(*report), (std::multiset<std::string>{"long", "orphan", "sequence", "tmp"}));
  }
  EXPECT_EQ(Tree(), before);
  Open();
}

TEST_F(FsckTest, AVolumeWithABadLabelIsNeitherExaminedNorTouched) {
  Inode f = File(kRootIno, "f", 2, "on hdd");
  File(kRootIno, "g", 1, "on ssd");
  WriteAt(Object(2, 555), "orphan on hdd");
  ASSERT_EQ(rename(VolumeLabelPath(hdd_).c_str(), (hdd_ + "/label.away").c_str()), 0);
  ASSERT_EQ(unlink(Object(2, f.ino).c_str()), 0);  // as if the disk were not mounted
  CheckReport r = Check(/*repair=*/true);
  EXPECT_EQ(Kinds(r), (std::multiset<std::string>{"label"})) << Dump(r);
  EXPECT_FALSE(r.findings[0].repaired);
  EXPECT_EQ(r.volumes, 1u);
  EXPECT_EQ(meta_->GetInode(f.ino)->size, 6u);  // not zeroed
  EXPECT_TRUE(Exists(Object(2, 555)));
  EXPECT_TRUE(meta_->Lookup(kRootIno, "lost+found").status().code() == ENOENT);

  // A label of another file system is no better.
  ASSERT_TRUE(WriteVolumeLabel(hdd_, {"another-uuid", "other", 2, "vol2"}).ok());
  r = Check();
  EXPECT_EQ(Kinds(r), (std::multiset<std::string>{"label"})) << Dump(r);
  EXPECT_NE(r.findings[0].message.find("another file system"), std::string::npos);
}

TEST_F(FsckTest, AMisplacedObjectIsFollowed) {
  Inode f = File(kRootIno, "f", 1, "moved after the backup");
  WriteAt(Object(2, f.ino), "moved after the backup");
  ASSERT_EQ(unlink(Object(1, f.ino).c_str()), 0);
  CheckReport r = Check();
  EXPECT_EQ(Kinds(r), (std::multiset<std::string>{"misplaced"})) << Dump(r);
  r = Check(/*repair=*/true);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_TRUE(r.findings[0].repaired);
  EXPECT_EQ(meta_->GetInode(f.ino)->volume_id, 2u);
  EXPECT_TRUE(Check().findings.empty());
}

TEST_F(FsckTest, AnInterruptedLostAndFoundMoveIsFinished) {
  WriteAt(Object(2, 900), "orphan bytes");
  // What a repair that stopped between its commit and its rename leaves behind.
  Inode lf = Dir(kRootIno, "lost+found");
  Inode proto;
  proto.mode = S_IFREG | 0600;
  proto.volume_id = 2;
  proto.size = 12;
  auto half = meta_->Create(lf.ino, "#900.1", proto);
  ASSERT_TRUE(half.ok());
  CheckReport r = Check();
  EXPECT_EQ(Kinds(r), (std::multiset<std::string>{"missing", "orphan", "sequence"})) << Dump(r);
  r = Check(/*repair=*/true);
  EXPECT_EQ(Kinds(r), (std::multiset<std::string>{"orphan", "sequence"})) << Dump(r);
  ASSERT_EQ(r.findings[1].kind, "orphan");
  EXPECT_NE(r.findings[1].repair.find("interrupted"), std::string::npos) << Dump(r);
  EXPECT_EQ(Read(Object(2, half->ino)), "orphan bytes");
  EXPECT_EQ(meta_->GetInode(half->ino)->size, 12u);
  EXPECT_EQ(meta_->Lookup(lf.ino, "#900.1-2").status().code(), ENOENT);
  EXPECT_TRUE(Check().findings.empty()) << Dump(Check());
}

TEST_F(FsckTest, NewInodesNeverReuseAnObjectsNumber) {
  File(kRootIno, "f", 2, "x");
  WriteAt(Object(2, 50), "a newer file's bytes");  // a database restored from a backup
  CheckReport r = Check();
  EXPECT_EQ(Kinds(r), (std::multiset<std::string>{"orphan", "sequence"})) << Dump(r);
  r = Check(/*repair=*/true);
  EXPECT_EQ(r.UnrepairedDamage(), 0u) << Dump(r);
  auto lf = meta_->LookupInode(kRootIno, "lost+found");
  ASSERT_TRUE(lf.ok());
  EXPECT_GT(lf->ino, 50u);
  Inode next = File(kRootIno, "next", 2, "new");
  EXPECT_GT(next.ino, 50u);
  EXPECT_TRUE(Check().findings.empty()) << Dump(Check());
}

TEST_F(FsckTest, TrustObjectsKeepsTheLongerObject) {
  Inode f = File(kRootIno, "f", 2, "short");
  WriteAt(Object(2, f.ino), "short, then appended after the backup");
  CheckOptions options;
  options.trust_objects = true;
  CheckReport r = Check(/*repair=*/true, options);
  ASSERT_EQ(Kinds(r), (std::multiset<std::string>{"long"}));
  EXPECT_EQ(meta_->GetInode(f.ino)->size, 37u);
  EXPECT_EQ(Read(Object(2, f.ino)), "short, then appended after the backup");
}

TEST_F(FsckTest, LiveModeTrustsTheDaemonsCurrentSizeAndLeavesRelocationsAlone) {
  Inode f = File(kRootIno, "f", 2, "flushed");
  const std::string now = "flushed, and written since (not yet flushed)";
  WriteAt(Object(2, f.ino), now);
  ASSERT_TRUE(meta_->AddPendingObject({f.ino, 1, 1}).ok());
  WriteAt(Object(1, f.ino), "a relocation's copy");
  WriteAt(TmpDir(hdd_) + "/9.1.1.0", "in flight");
  CheckOptions options;
  options.live = true;
  options.snapshot_dir = dir_.path();
  options.current_attr = [&](uint64_t ino) -> Result<Inode> {
    Result<Inode> row = meta_->GetInode(ino);
    if (row.ok() && ino == f.ino) row->size = now.size();  // the daemon's in-memory size
    return row;
  };
  std::set<std::string> phases;
  options.progress = [&](const std::string& phase, uint64_t, uint64_t) { phases.insert(phase); };
  CheckReport r = Check(false, options);
  EXPECT_TRUE(r.findings.empty()) << Dump(r);
  EXPECT_TRUE(r.live);
  EXPECT_EQ(phases, (std::set<std::string>{"database", "namespace", "objects"}));
  // The integrity check's copy is gone.
  std::map<std::string, std::string> tree = Tree();
  for (const auto& [path, _] : tree) EXPECT_EQ(path.find("tierfs-check-"), std::string::npos);
}

TEST_F(FsckTest, NoRepairOnADamagedDatabase) {
  Inode f = File(kRootIno, "f", 2, "data");
  ASSERT_EQ(unlink(Object(2, f.ino).c_str()), 0);
  Sql("PRAGMA writable_schema=ON;"
      "UPDATE sqlite_schema SET sql = 'CREATE INDEX dirents_by_ino ON dirents(parent)' "
      "WHERE name = 'dirents_by_ino';");
  CheckReport r = Check(/*repair=*/true);
  EXPECT_GE(Kinds(r).count("database"), 1u) << Dump(r);
  EXPECT_EQ(Kinds(r).count("missing"), 1u) << Dump(r);
  EXPECT_EQ(r.Repaired(), 0u);
  EXPECT_EQ(meta_->GetInode(f.ino)->size, 4u);
}

TEST_F(FsckTest, ReportRoundTripsThroughJson) {
  WriteAt(Object(2, 31), "orphan");
  CheckReport r = Check();
  auto back = CheckReport::FromJson(r.ToJson());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->ToJson(), r.ToJson());
  EXPECT_EQ(CheckReport::FromJson(nlohmann::json::object()).status().code(), EINVAL);
  EXPECT_EQ(CheckReport::FromJson({{"findings", {{{"kind", 1}}}}}).status().code(), EINVAL);
}

// A volume that cannot be read (EIO from a directory listing or a stat, made
// through the seam) is an error finding, and nothing is repaired on what was not
// seen: not its files, and no file elsewhere as "missing" (its object may be there).
TEST_F(FsckTest, AnUnreadableVolumeIsAnErrorAndNothingIsRepairedOnIt) {
  Inode on_hdd = File(kRootIno, "on-hdd", 2, "hdd bytes");
  Inode lost = File(kRootIno, "lost", 1, "ssd bytes");
  ASSERT_EQ(unlink(Object(1, lost.ino).c_str()), 0);  // missing, or on the unreadable hdd?
  for (const std::string spec : {"readdir:/hdd/.tierfs/objects@1+=EIO",
                                 "readdir:/hdd/.tierfs/objects/@1+=EIO",
                                 "stat:/hdd/.tierfs/objects@1+=EIO"}) {
    SCOPED_TRACE(spec);
    auto faults = FaultInjectingVolumeIo::Create(spec, VolumeIo::Posix());
    ASSERT_TRUE(faults.ok()) << faults.status().ToString();
    const auto before = Tree();
    CheckOptions options;
    options.io = faults->get();
    CheckReport r = Check(/*repair=*/true, options);
    EXPECT_EQ(r.Errors(), 1u) << Dump(r);
    EXPECT_EQ(r.volumes, 1u) << Dump(r);
    bool named = false;
    for (const CheckFinding& f : r.findings) {
      EXPECT_FALSE(f.repaired) << Dump(r);
      if (f.severity != FindingSeverity::kError) continue;
      EXPECT_EQ(f.kind, "unreadable");
      named = f.message.find("vol2") != std::string::npos &&
              f.message.find("Input/output error") != std::string::npos;
    }
    EXPECT_TRUE(named) << Dump(r);
    EXPECT_EQ(Tree(), before) << "the volumes changed";
    auto row = meta_->GetInode(lost.ino);
    ASSERT_TRUE(row.ok());
    EXPECT_EQ(row->size, lost.size) << "a file whose object may be on the unreadable volume";
    EXPECT_TRUE(Exists(Object(2, on_hdd.ino)));
    // The report survives the daemon's JSON (a live check).
    auto again = CheckReport::FromJson(r.ToJson());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->Errors(), 1u);
  }
}

// One object that cannot be stat'ed: an error naming it; its file is neither
// "missing" nor trimmed.
TEST_F(FsckTest, AnObjectThatCannotBeStatedIsAnError) {
  Inode f = File(kRootIno, "f", 2, "0123456789");
  WriteAt(Object(2, f.ino), "0123456789 and more");  // long: a repair would trim it
  auto faults = FaultInjectingVolumeIo::Create(
      "stat:/" + std::to_string(f.ino) + ".1@1+=EIO", VolumeIo::Posix());
  ASSERT_TRUE(faults.ok());
  CheckOptions options;
  options.io = faults->get();
  CheckReport r = Check(/*repair=*/true, options);
  EXPECT_EQ(r.Errors(), 1u) << Dump(r);
  EXPECT_EQ(r.Repaired(), 0u) << Dump(r);
  EXPECT_NE(Dump(r).find(Object(2, f.ino)), std::string::npos) << Dump(r);
  EXPECT_EQ(Read(Object(2, f.ino)), "0123456789 and more");
}

}  // namespace
}  // namespace tierfs
