#include "meta/info_table.h"

namespace tierfs::meta {
namespace {

constexpr char kSelectInfo[] = "SELECT value FROM fs_info WHERE key = ?1";
constexpr char kUpsertInfo[] =
    "INSERT INTO fs_info(key, value) VALUES (?1, ?2) "
    "ON CONFLICT(key) DO UPDATE SET value = excluded.value";

Status MissingKey(std::string_view key) {
  return Status::NotFound("metadata database has no fs_info '" + std::string(key) + "'");
}

}  // namespace

Result<std::string> GetInfoText(Database* db, std::string_view key) {
  Statement st = db->Prepare(kSelectInfo);
  st.BindAll(key);
  META_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return MissingKey(key);
  return st.Text(0);
}

Result<int64_t> GetInfoInt(Database* db, std::string_view key) {
  Statement st = db->Prepare(kSelectInfo);
  st.BindAll(key);
  META_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return MissingKey(key);
  return st.Int64(0);
}

Status SetInfoText(Database* db, std::string_view key, std::string_view value) {
  db->ForgetCachedInfo();
  Statement st = db->Prepare(kUpsertInfo);
  st.BindAll(key, value);
  return st.Run();
}

Status SetInfoInt(Database* db, std::string_view key, int64_t value) {
  db->ForgetCachedInfo();
  Statement st = db->Prepare(kUpsertInfo);
  st.BindAll(key, value);
  return st.Run();
}

Result<bool> FclIsOn(Database* db) {
  if (std::optional<bool> cached = db->cached_fcl_on()) return *cached;
  Result<std::string> state = GetInfoText(db, kInfoFclState);
  if (!state.ok()) return state.status();
  const bool on = *state == "on";
  db->CacheFclOn(on);
  return on;
}

}  // namespace tierfs::meta
