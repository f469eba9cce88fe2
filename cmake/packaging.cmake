# What `cmake --install` puts beside the programs (cli/CMakeLists.txt installs
# those, the mount helper and the bash completion), and the Debian package CPack
# makes of the same install (scripts/package.sh).

# Man pages: docs/man/NAME.SECTION -> share/man/manSECTION/.
file(GLOB TIERFS_MAN_PAGES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/man/*.[1-8])
foreach(page ${TIERFS_MAN_PAGES})
  string(REGEX REPLACE "^.*\\.([1-8])$" "\\1" section ${page})
  install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()

# The package installs under /usr: programs and mount.fuse.tierfs in /usr/sbin,
# which mount(8) finds as /sbin/mount.fuse.tierfs since Debian 12 merged /usr
# (so no /sbin link is made, see cmake/install_mount_helper_link.cmake).
# DESTDIR staging keeps CMAKE_INSTALL_PREFIX at /usr while CPack installs, so
# that comparison sees the real prefix, not the staging directory.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tierfs)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_SET_DESTDIR ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "storage-tiering FUSE file system with DST-style placement policies")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "tierfs spans several directories (volumes) on SSDs and HDDs, keeps the\n"
    "namespace in SQLite on the SSD tier and moves whole files between tiers by\n"
    "XML placement policies while applications keep their paths and open files.\n"
    "Programs: tierfs (the daemon, also mount -t fuse.tierfs), mkdstfs, fsppadm,\n"
    "fcladm, fsvoladm, fsmap.")
string(REPLACE ";" "" CPACK_DEBIAN_PACKAGE_DESCRIPTION "${CPACK_DEBIAN_PACKAGE_DESCRIPTION}")
set(TIERFS_PACKAGE_MAINTAINER "tierfs maintainers <tierfs@localhost>" CACHE STRING
    "Maintainer field of the Debian package")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${TIERFS_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # tierfs_<version>_<arch>.deb
# Depends: the shared libraries the programs link, computed by dpkg-shlibdeps
# from the staged binaries (so a library added to the build can never be
# missing from the package, as liburing2 once was), plus by hand what no library
# scan can see: fuse3, whose fusermount3 and mount.fuse3 mount.fuse.tierfs runs.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fuse3")
# libbpf1 for the passthrough I/O counter (fs/bpf/README.md), named by hand while
# no packaged program links it yet; once the daemon does, dpkg-shlibdeps finds it
# (with its version) and this line only repeats it.
if(TIERFS_BPF)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libbpf1 (>= 1:1.1.2)")
endif()
# `fsppadm schedule` writes systemd timers, or a crontab where systemd is not
# running.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cron")
include(CPack)
