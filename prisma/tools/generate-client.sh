#!/usr/bin/env bash
# Generates the Prisma client into prisma/generated/client (git-ignored; run by postinstall).
# `prisma generate` needs no schema engine, but the CLI insists on locating one and would try to
# download it; pointing it at a stub keeps it offline. The stub explains itself if some other
# prisma command ever does try to run it.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PRISMA_SCHEMA_ENGINE_BINARY="$PWD/prisma/tools/no-native-engine.sh"
export CHECKPOINT_DISABLE=1 PRISMA_HIDE_UPDATE_MESSAGE=1 PRISMA_DISABLE_WARNINGS=1
exec node node_modules/prisma/build/index.js generate --schema prisma/schema.prisma "$@"
