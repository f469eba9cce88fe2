// ControlHandlers: the daemon's answers to control-channel requests
// (fs/control/control_protocol.md): ping, volumes, volume_add, volume_remove,
// volume_setclass, assign, unassign, get_policy, validate, scan, fsmap, fcl,
// status, flush, heat_bucket.
//
// Owned by the session next to the FileSystem it serves; Handle() is called on
// control-server threads and is thread-safe.
#pragma once


#include <nlohmann/json.hpp>

#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "fs/control/control_server.h"
#include "fs/core/file_system.h"
#include "fs/core/relocator.h"
#include "fs/tiering/online_promoter.h"
#include "fs/tiering/scan_service.h"
#include "fs/tiering/volume_admin.h"

namespace tierfs {

class ControlHandlers {
 public:
  explicit ControlHandlers(FileSystem& fs)
      : fs_(fs),
        relocator_(fs),
        scans_(fs, relocator_),
        volume_admin_(fs, relocator_),
        online_(fs, relocator_) {}

  // Starts online promotion (fs/tiering/online_promoter.h) once the file
  // system serves; Stop ends it before the file system stops serving.
  void StartOnlinePromotion() { online_.Start(); }
  void StopOnlinePromotion() { online_.Stop(); }

  // Dispatches on request["op"]; EINVAL for an unknown op or a malformed request
  // (including a member of the wrong type).
  Result<nlohmann::json> Handle(const nlohmann::json& request, const ControlPeer& peer,
                                ControlReply& reply);

 private:
  Result<nlohmann::json> Dispatch(const nlohmann::json& request, const ControlPeer& peer,
                                  ControlReply& reply);
  Result<nlohmann::json> Volumes();
  Result<nlohmann::json> Assign(const nlohmann::json& request, bool validate_only)
      EXCLUDES(admin_mu_);
  Result<nlohmann::json> Unassign();
  Result<nlohmann::json> GetPolicy();
  Result<nlohmann::json> Scan(const nlohmann::json& request, ControlReply& reply);
  Result<nlohmann::json> Fsmap(const nlohmann::json& request);
  Result<nlohmann::json> Fcl(const nlohmann::json& request);
  Result<nlohmann::json> ScanStatus(const nlohmann::json& request);
  Result<nlohmann::json> HeatBucket(const nlohmann::json& request) EXCLUDES(admin_mu_);
  Result<nlohmann::json> VolumeAdd(const nlohmann::json& request);
  Result<nlohmann::json> VolumeRemove(const nlohmann::json& request, ControlReply& reply);
  Result<nlohmann::json> VolumeSetClass(const nlohmann::json& request);

  FileSystem& fs_;
  // Serializes assign/validate and heat_bucket, so that the policy checked
  // against a bucket length is never assigned after the length changed.
  Mutex admin_mu_;
  Relocator relocator_;
  ScanService scans_;
  VolumeAdmin volume_admin_;
  OnlinePromoter online_;  // after relocator_, which it uses
};

}  // namespace tierfs
