// Passes "dirent", "unnamed" and "nlink" (fs/check/fsck.h): the namespace's
// own consistency, from two queries, and its repairs (entries removed, inodes
// linked into /lost+found, link counts set).
#include "fs/check/checker.h"

#include <sys/stat.h>

#include <map>

namespace tierfs::fsck {

Status Checker::CheckNamespace() {
  Result<std::vector<meta::DirentProblem>> dirents = meta_.DirentProblems();
  if (!dirents.ok()) return dirents.status();
  for (const meta::DirentProblem& p : *dirents) {
    std::string why;
    if (p.inode_missing) why = "names inode " + std::to_string(p.ino) + ", which does not exist";
    if (p.parent_missing) {
      why += std::string(why.empty() ? "" : "; ") + "its directory does not exist";
    } else if (p.parent_not_directory) {
      why += std::string(why.empty() ? "" : "; ") + "its parent is not a directory";
    }
    CheckFinding& f = Add("dirent", FindingSeverity::kDamage,
                          "entry '" + p.name + "' of " +
                              (p.parent_missing ? "inode " + std::to_string(p.parent)
                                                : Describe(p.parent)) +
                              " -> inode " + std::to_string(p.ino) + ": " + why);
    if (can_repair_) {
      Repaired(f, meta_.RepairRemoveDirent(p.parent, p.name),
               p.inode_missing ? "entry removed"
                               : "entry removed (its inode, if no other entry names it, "
                                 "goes to /lost+found)");
    }
  }
  Result<std::vector<meta::LinkCountProblem>> links = meta_.LinkCountProblems();
  if (!links.ok()) return links.status();
  std::map<uint64_t, size_t> nlink_findings;  // ino -> index in findings
  for (const meta::LinkCountProblem& p : *links) {
    const bool is_dir = S_ISDIR(p.mode);
    const bool is_root = p.ino == meta::kRootIno;
    if (!is_root && p.names == 0) {
      CheckFinding& f =
          Add("unnamed", FindingSeverity::kDamage,
              "inode " + std::to_string(p.ino) + " (" + TypeName(p.mode) + ", nlink " +
                  std::to_string(p.nlink) + ") has no name");
      if (can_repair_) Reconnect(p, f);
      continue;
    }
    if (is_dir && p.names != (is_root ? 0u : 1u)) {
      CheckFinding& f = Add("dirent", FindingSeverity::kDamage,
                            Describe(p.ino) + ": a directory named by " +
                                std::to_string(p.names) + " entries");
      if (o_.repair) f.repair = "not repaired: remove the extra entries by hand";
    }
    if (p.nlink == p.expected) continue;
    std::string expected =
        is_dir ? std::to_string(p.expected) + " (2 + " + std::to_string(p.subdirs) +
                     " subdirectories)"
               : std::to_string(p.expected) + " (the entries naming it)";
    Add("nlink", FindingSeverity::kDamage,
        Describe(p.ino) + ", " + TypeName(p.mode) + ": nlink " + std::to_string(p.nlink) +
            ", expected " + expected);
    nlink_findings[p.ino] = report_.findings.size() - 1;
  }
  if (!can_repair_) return Status::Ok();
  // Link counts once every entry is in place (removals, lost+found), from a fresh
  // count: also fixes the counts the reconnections changed.
  links = meta_.LinkCountProblems();
  if (!links.ok()) return links.status();
  for (const meta::LinkCountProblem& p : *links) {
    if (p.names == 0 && p.ino != meta::kRootIno) continue;  // could not be reconnected
    meta::InodeRepair fix;
    fix.ino = p.ino;
    fix.nlink = p.expected;
    Status st = meta_.RepairInode(fix);
    auto it = nlink_findings.find(p.ino);
    if (it != nlink_findings.end()) {
      Repaired(report_.findings[it->second], st,
               "nlink set to " + std::to_string(p.expected));
    } else if (!st.ok()) {
      Add("nlink", FindingSeverity::kDamage,
          Describe(p.ino) + ": nlink " + std::to_string(p.nlink) + ", expected " +
              std::to_string(p.expected) + " after the repairs; " + st.message());
    }
  }
  return Status::Ok();
}

void Checker::Reconnect(const meta::LinkCountProblem& p, CheckFinding& f) {
  Result<uint64_t> lf = LostFound();
  if (!lf.ok()) return Repaired(f, lf.status(), "");
  if (p.ino == *lf) return Repaired(f, Status::Invalid("lost+found itself"), "");
  Result<std::string> name = FreeName(*lf, "#" + std::to_string(p.ino));
  if (!name.ok()) return Repaired(f, name.status(), "");
  Repaired(f, meta_.RepairAddDirent(*lf, *name, p.ino), "linked as /lost+found/" + *name);
}

}  // namespace tierfs::fsck
