# What `cmake --install` puts beside the binary and the libraries (docs/install.md), and the Debian package CPack
# makes from it (`cmake --workflow --preset deb`, or `cpack -G DEB` in any build directory).
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")

set(CPACK_PACKAGE_NAME modelkit)
set(CPACK_PACKAGE_VENDOR modelkit)
set(CPACK_PACKAGE_CONTACT "modelkit maintainers <modelkit@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Run and benchmark ONNX models and LLM genai bundles on ONNX Runtime")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)  # debug information stays in the build tree
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
# Depends from the Debian libraries the binaries link (dpkg-shlibdeps); ONNX Runtime and the simulated NPU are the
# package's own private libraries.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${MODELKIT_PRIVATE_LIBDIR})
include(CPack)
