# The packages: `cmake --build build --target package` (or `cpack --config build/CPackConfig.cmake`)
# writes build/stageload-studio_<version>_<arch>.deb and stageload-studio-<version>-Linux.tar.gz.
# The .deb's dependencies are computed from the binaries (dpkg-shlibdeps); only what the programs
# load at run time without linking it is named here. The version is the project's.
set(CPACK_PACKAGE_NAME stageload-studio)
set(CPACK_PACKAGE_VENDOR "The Stageload Studio developers")
set(CPACK_PACKAGE_CONTACT "The Stageload Studio developers <packages@stageload.studio>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Turn a picture of a character into a textured 3D mesh")
set(CPACK_PACKAGE_DESCRIPTION
  "Stageload Studio turns one picture of a game character into a textured, closed\n"
  "3D mesh for Blender, and runs heavy image-to-3D generators (Pixal3D, Hunyuan3D,\n"
  "TRELLIS) as guarded child processes: each model is loaded only while a stage\n"
  "needs it, memory and swap are charted live per stage, each stage's memory is\n"
  "forecast before a run, and a guard stops the run's whole process group before\n"
  "swap runs away.")
string(REPLACE ";" "" CPACK_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_PACKAGE_HOMEPAGE_URL ${STAGELOAD_HOMEPAGE})
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB TGZ)
set(CPACK_STRIP_FILES ON)
set(CPACK_SOURCE_IGNORE_FILES "/build[^/]*/" "/\\\\.git/")
set(CPACK_PACKAGE_FILE_NAME ${CPACK_PACKAGE_NAME}-${PROJECT_VERSION}-Linux)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION graphics)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Loaded by Qt at run time, so invisible to dpkg-shlibdeps: the X11 platform plugin.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
# `stageload install-weights` (npm, python3-onnx, python3-numpy); the 3D view's Mesa drivers.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "npm, python3-onnx, python3-numpy, libgl1-mesa-dri")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "blender")
# prerm: the weights `stageload install-weights --system` put in the package's folder go with it.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_SOURCE_DIR}/debian/prerm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

include(CPack)
