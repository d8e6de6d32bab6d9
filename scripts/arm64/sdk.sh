#!/usr/bin/env bash
# Write the Swift SDK (a SwiftPM artifact bundle, swift-sdk.json schema 4.0) that cross-builds
# for Debian arm64 with the Swift root's own compiler: swift build --swift-sdks-path
# /opt/loctrack-sdks --swift-sdk loctrack-arm64 (scripts/arm64/build.sh). It names
#   - the target: aarch64-unknown-linux-gnu
#   - the sysroot: the arm64 trixie root with the C libraries' -dev packages
#     (scripts/arm64/roots.sh), bind-mounted at /sysroot in the Swift root while building,
#     so that headers, libraries, crt files and glibc are trixie's arm64 ones
#   - the Swift modules and static runtime: Debian's arm64 swiftlang of the compiler's version
#     (/opt/swift-arm64, scripts/arm64/runtime.sh), which build.sh mounts at
#     /sysroot/usr/lib/swift and /sysroot/usr/lib/swift_static, where the driver also looks
#   - the linker: the swiftlang package's own ld.lld (GNU ld of the amd64 root links only
#     amd64)
#
#   SWIFT_ROOT  the amd64 root with swiftlang (the bundle is written into it)
set -euo pipefail

: "${SWIFT_ROOT:?}"
BUNDLE=$SWIFT_ROOT/opt/loctrack-sdks/loctrack-arm64.artifactbundle
RUNTIME=/sysroot/usr/lib
rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/loctrack-arm64"
cat >"$BUNDLE/info.json" <<JSON
{
  "schemaVersion": "1.0",
  "artifacts": {
    "loctrack-arm64": {
      "type": "swiftSDK",
      "version": "1",
      "variants": [{ "path": "loctrack-arm64" }]
    }
  }
}
JSON
cat >"$BUNDLE/loctrack-arm64/swift-sdk.json" <<JSON
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "/sysroot",
      "swiftResourcesPath": "$RUNTIME/swift",
      "swiftStaticResourcesPath": "$RUNTIME/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
JSON
cat >"$BUNDLE/loctrack-arm64/toolset.json" <<JSON
{
  "schemaVersion": "1.0",
  "rootPath": "/usr/libexec/swift/bin",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] },
  "linker": { "path": "ld.lld" }
}
JSON
echo "Swift SDK: $BUNDLE"
