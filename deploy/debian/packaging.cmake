# The Debian package (bash deploy/package.sh): what `cmake --install` installs, laid
# out under /usr, plus the systemd unit, the hopmap user's maintainer scripts, the
# default config, the docs, copyright and changelog. CPack's DEB generator writes
# it; dpkg-shlibdeps computes Depends from the binaries.
set(HOPMAP_DEBIAN_DIR ${PROJECT_SOURCE_DIR}/deploy/debian)
set(HOPMAP_DOC_DIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/hopmap)
# A site that builds its own package names itself (-DHOPMAP_PACKAGE_MAINTAINER=...).
set(HOPMAP_PACKAGE_MAINTAINER "hopmap developers <hopmap@example.org>"
    CACHE STRING "The Maintainer of the Debian package (deploy/package.sh)")

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
set(CPACK_DEBIAN_PACKAGE_NAME hopmap)
set(CPACK_DEBIAN_FILE_NAME "hopmap_${PROJECT_VERSION}_amd64.deb")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${HOPMAP_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "topology-aware placement of parallel jobs' processes")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "hopmap places the processes of a parallel job on the nodes and cores a\n\
scheduler gave it, so that the bytes they exchange cross as few network hops\n\
as possible.\n\
.\n\
This package holds the hopmap command line, the hopmapd gRPC daemon (with a\n\
systemd unit and Prometheus metrics), libhopmap (the C API for runtimes) with\n\
its header and pkg-config file, libhopmap_mpi and libhopmap_mpi_mpich (record\n\
and reorder MPI jobs under Open MPI and under MPICH), and the Slurm prolog,\n\
epilog and hopmap-srun, and hopmap simulate's SimGrid worker and SMPI platform\n\
library.")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libhopmap.so.0 and the MPI libraries: a shlibs file for packages built against
# them, and the ldconfig trigger.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# The maintainer scripts create the hopmap user with adduser.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${HOPMAP_DEBIAN_DIR}/postinst ${HOPMAP_DEBIAN_DIR}/postrm ${HOPMAP_DEBIAN_DIR}/conffiles
    ${HOPMAP_DEBIAN_DIR}/triggers)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Everything installed, plus the package's own files (EXCLUDE_FROM_ALL above, so a
# plain `cmake --install` stays as it was), in one package.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_COMPONENTS_ALL Unspecified package)
include(CPack)
