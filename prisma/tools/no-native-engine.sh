#!/usr/bin/env bash
# Stand-in for Prisma's native schema engine, which cannot be downloaded on these machines.
echo "The native Prisma schema engine is not available offline. Use 'npm run db:migration:new -- <name>' to create migrations; the server applies them at start." >&2
exit 1
