# The Debian packages (bash deploy/package.sh): what `cmake --install` installs, laid
# out under /usr, split in two as Debian policy asks:
#  - hopmap: the programs, the runtime libraries (libhopmap.so.0, libhopmap_mpi*.so.0,
#    the SMPI platform module), the systemd unit, the hopmap user's maintainer
#    scripts, the default config, the Slurm scripts and the docs (components
#    Unspecified and package);
#  - libhopmap-dev: hopmap.h, the unversioned .so links and hopmap.pc (component dev).
# Each has its copyright (DEP-5) and changelog in /usr/share/doc/PACKAGE. CPack's DEB
# generator writes them; dpkg-shlibdeps computes hopmap's Depends from the binaries.
set(HOPMAP_DEBIAN_DIR ${PROJECT_SOURCE_DIR}/deploy/debian)
set(HOPMAP_DOC_DIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/hopmap)
# A site that builds its own package names itself (-DHOPMAP_PACKAGE_MAINTAINER=...).
set(HOPMAP_PACKAGE_MAINTAINER "hopmap developers <hopmap@example.org>"
    CACHE STRING "The Maintainer of the Debian packages (deploy/package.sh)")

# The unit as the package installs it: hopmapd in /usr/bin, its docs in /usr/share.
file(READ ${PROJECT_SOURCE_DIR}/deploy/systemd/hopmapd.service HOPMAP_UNIT)
string(REPLACE "/usr/local/bin/hopmapd" "/usr/bin/hopmapd" HOPMAP_UNIT "${HOPMAP_UNIT}")
string(REPLACE "/usr/local/share/doc/hopmap" "/usr/share/doc/hopmap" HOPMAP_UNIT
       "${HOPMAP_UNIT}")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/debian/hopmapd.service "${HOPMAP_UNIT}")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/debian/hopmapd.service
        DESTINATION lib/systemd/system COMPONENT package EXCLUDE_FROM_ALL)
install(FILES ${HOPMAP_DEBIAN_DIR}/machines.json DESTINATION /etc/hopmap
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
        COMPONENT package EXCLUDE_FROM_ALL)

# Debian wants the changelog compressed with gzip -9n (no name, no time stamp).
configure_file(${HOPMAP_DEBIAN_DIR}/changelog.in ${CMAKE_CURRENT_BINARY_DIR}/debian/changelog
               @ONLY)
execute_process(COMMAND gzip -9n -c ${CMAKE_CURRENT_BINARY_DIR}/debian/changelog
                OUTPUT_FILE ${CMAKE_CURRENT_BINARY_DIR}/debian/changelog.gz)
install(FILES ${HOPMAP_DEBIAN_DIR}/copyright ${CMAKE_CURRENT_BINARY_DIR}/debian/changelog.gz
              ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${HOPMAP_DOC_DIR} COMPONENT package EXCLUDE_FROM_ALL)
install(FILES ${HOPMAP_DEBIAN_DIR}/copyright ${CMAKE_CURRENT_BINARY_DIR}/debian/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/libhopmap-dev COMPONENT dev
        EXCLUDE_FROM_ALL)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/slurm/README.md DESTINATION ${HOPMAP_DOC_DIR}
        RENAME slurm-README.md COMPONENT package EXCLUDE_FROM_ALL)
file(GLOB HOPMAP_DOCS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${HOPMAP_DOCS} DESTINATION ${HOPMAP_DOC_DIR} COMPONENT package EXCLUDE_FROM_ALL)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/img DESTINATION ${HOPMAP_DOC_DIR}
        COMPONENT package EXCLUDE_FROM_ALL)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hopmap)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${HOPMAP_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libhopmap.so.0 and the MPI libraries: a shlibs file for packages built against
# them, and the ldconfig trigger.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# Two packages: every component its group's package (EXCLUDE_FROM_ALL above, so a
# plain `cmake --install` stays as it was). The group hopmap (CPACK_DEBIAN_HOPMAP_*)
# is what install() rules without a component install, plus the package component;
# the component dev (CPACK_DEBIAN_DEV_*) is libhopmap-dev.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_COMPONENTS_ALL Unspecified package dev)
set(CPACK_COMPONENT_UNSPECIFIED_GROUP hopmap)
set(CPACK_COMPONENT_PACKAGE_GROUP hopmap)

set(CPACK_DEBIAN_HOPMAP_PACKAGE_NAME hopmap)
set(CPACK_DEBIAN_HOPMAP_FILE_NAME "hopmap_${PROJECT_VERSION}_amd64.deb")
set(CPACK_DEBIAN_HOPMAP_PACKAGE_SECTION science)
set(CPACK_DEBIAN_HOPMAP_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_HOPMAP_DESCRIPTION
    "topology-aware placement of parallel jobs' processes\n\
hopmap places the processes of a parallel job on the nodes and cores a\n\
scheduler gave it, so that the bytes they exchange cross as few network hops\n\
as possible.\n\
.\n\
This package holds the hopmap command line, the hopmapd gRPC daemon (with a\n\
systemd unit and Prometheus metrics), libhopmap (the C API for runtimes),\n\
libhopmap_mpi and libhopmap_mpi_mpich (record and reorder MPI jobs under Open\n\
MPI and under MPICH), the Slurm prolog, epilog and hopmap-srun, and hopmap\n\
simulate's SimGrid worker and SMPI platform library. The header and the\n\
pkg-config file are in libhopmap-dev.")
# The maintainer scripts create the hopmap user with adduser; dpkg-shlibdeps adds
# the libraries.
set(CPACK_DEBIAN_HOPMAP_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_HOPMAP_PACKAGE_CONTROL_EXTRA
    ${HOPMAP_DEBIAN_DIR}/postinst ${HOPMAP_DEBIAN_DIR}/postrm ${HOPMAP_DEBIAN_DIR}/conffiles
    ${HOPMAP_DEBIAN_DIR}/triggers)

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libhopmap-dev)
set(CPACK_DEBIAN_DEV_FILE_NAME "libhopmap-dev_${PROJECT_VERSION}_amd64.deb")
set(CPACK_DEBIAN_DEV_PACKAGE_SOURCE hopmap)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_DEV_DESCRIPTION
    "topology-aware placement of parallel jobs' processes (development files)\n\
hopmap places the processes of a parallel job on the nodes and cores a\n\
scheduler gave it, so that the bytes they exchange cross as few network hops\n\
as possible.\n\
.\n\
This package holds what a program built against libhopmap (the C API of\n\
hopmapd for runtimes) needs: the header hopmap.h, the pkg-config file\n\
hopmap.pc and the libhopmap.so link, with the libhopmap_mpi.so and\n\
libhopmap_mpi_mpich.so links for programs that link the MPI recorders.")
# The libraries it links are hopmap's, of this very version.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "hopmap (= ${PROJECT_VERSION})")
include(CPack)
