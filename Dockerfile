# syntax=docker/dockerfile:1
# prherald container image (docs/operations.md#container-image). Published images: ghcr.io, built by
# .github/workflows/ci.yml. To build both architectures yourself, push them (a local image store holds one):
#   docker buildx build --platform linux/amd64,linux/arm64 -t registry.example.com/prherald:0.1.0 --push .
# test/docs/dockerfile.test.ts checks the promises below against the code's defaults.

# Build stage: compiles TypeScript and the native SQLite module (better-sqlite3 builds from source with
# node-gyp), then drops the dev dependencies so the runtime stage copies production ones only.
# Base: Node 24 LTS on Debian 13 "trixie" (the current stable Debian; bookworm became oldstable in August
# 2025), pinned by the digest of its multi-platform index so a rebuild gets the same bytes; both stages use the
# same one. Move on when the first of these comes: Debian 14 "forky" is released (expected mid-2027, about two
# years after trixie; trixie's security support runs to about August 2028), or Node 24 reaches its end of life
# (2028-04-30, github.com/nodejs/Release). To move the digest (Dependabot proposes it weekly):
#   docker buildx imagetools inspect node:24-trixie-slim   # the "Digest:" line, then replace it twice here
# The digest below is node:24-trixie-slim as rebuilt in October 2026 (Node 24.21.0), read from public pins of
# that tag (no registry is reachable where it was written); CI checks that it serves both platforms.
FROM node:24-trixie-slim@sha256:173f125896c3b47ddf056734c7ea789d04595a6a08769a8f78e0df642781fb66 AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY machines ./machines
COPY scripts ./scripts
COPY test/helpers ./test/helpers
COPY migrations ./migrations
# `npm ci` runs the `prepare` script, which is `npm run build` (tsc) and needs the dev dependencies.
# Then better-sqlite3 keeps only its compiled addon: the SQLite sources (deps/, src/) and node-gyp's
# objects and static library (build/) are ~30 MB the runtime never loads. The last line proves it still opens.
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund \
 && cd node_modules/better-sqlite3 \
 && mv build/Release/better_sqlite3.node /tmp/better_sqlite3.node \
 && rm -rf build deps src binding.gyp \
 && mkdir -p build/Release \
 && mv /tmp/better_sqlite3.node build/Release/better_sqlite3.node \
 && cd /app \
 && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"

# Runtime stage: the same base (so the native module's ABI matches), production dependencies and the
# compiled service only (dist/src and dist/machines; the demo and test helpers stay in the build stage).
FROM node:24-trixie-slim@sha256:173f125896c3b47ddf056734c7ea789d04595a6a08769a8f78e0df642781fb66 AS runtime
ENV NODE_ENV=production \
    PRHERALD_DATABASE_URL=file:/data/prherald.db \
    PRHERALD_CONFIG_FILE=/config/config.yaml
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/machines ./dist/machines
COPY --from=build /app/migrations ./migrations
# /config is a directory (not a single file) because prherald-config validate writes config.lock beside config.yaml.
RUN mkdir -p /data /config && chown -R node:node /data /config
USER node
VOLUME ["/data"]
EXPOSE 8080
# Asks the address the server listens on, resolved as the server resolves it (PRHERALD_LISTEN, else
# server.listen, else :8080): `-e PRHERALD_LISTEN=:9000` moves both. EXPOSE only documents the default.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "dist/src/cli/healthcheck.js"]
# Exec form, no shell wrapper: node is PID 1 and receives SIGTERM itself, so mailboxes drain before exit.
ENTRYPOINT ["node", "dist/src/cli/server.js"]
