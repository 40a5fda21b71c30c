# syntax=docker/dockerfile:1
# prherald container image (docs/operations.md#container-image). Published images: ghcr.io, built by
# .github/workflows/ci.yml. To build both architectures yourself, push them (a local image store holds one):
#   docker buildx build --platform linux/amd64,linux/arm64 -t registry.example.com/prherald:0.1.0 --push .
# test/docs/dockerfile.test.ts checks the promises below against the code's defaults.

# Build stage: compiles TypeScript, then drops the dev and optional dependencies so the runtime stage
# copies production ones only. Nothing native is compiled: better-sqlite3 13 is a Node-API module whose
# package ships prebuilt binaries (prebuilds/linux-x64.node, linux-arm64.node, ...), so the image needs no
# python3, make or g++. npm would still infer a `node-gyp rebuild` from the binding.gyp it ships; package.json's
# allowScripts denies it, which the image's npm honours (11.16 or later; Node 26.10.0 bundles 11.19.1).
# Base: Node 26 LTS, the primary line (package.json's brought Node, docs/decisions.md), on Debian 13 "trixie"
# (the current stable Debian), pinned by the digest of its multi-platform index so a rebuild gets the same
# bytes; both stages use the same one. Move on when the first of these comes: Debian 14 "forky" is released
# (expected mid-2027, about two years after trixie; trixie's security support runs to about August 2028), or
# Node 26 reaches its end of life (2029-04-30, github.com/nodejs/Release). To move the digest (Dependabot
# proposes it weekly):
#   docker buildx imagetools inspect node:26-trixie-slim   # the "Digest:" line, then replace it twice here
# The digest below is node:26-trixie-slim as published on 2026-10-06, read from public pins of that tag (no
# registry is reachable where it was written); CI checks that it serves both platforms.
FROM node:26-trixie-slim@sha256:930557a230abacbc3f4fd9b8648abf8f4bee1e17cb72195dcdfb2f709bc85b33 AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY machines ./machines
COPY scripts ./scripts
COPY test/helpers ./test/helpers
COPY migrations ./migrations
# `npm ci` runs the `prepare` script, which is `npm run build` (tsc) and needs the dev dependencies. The prune
# also drops the optional ones: the Node the project brings for older machines (~210 MB; the base is Node 26
# already) and pg-cloudflare (pg loads it only inside Cloudflare Workers). Then better-sqlite3 keeps only the
# binary its own loader picks here: this stage runs on the image's platform (under QEMU for the other one), so
# that is the image's architecture and libc, named as Node names them (x64, where TARGETARCH says amd64).
# Its other prebuilds and the SQLite sources (deps/, src/) are ~25 MB the runtime never loads. A loader that
# finds no binary makes basename() throw and the build stop; the last line proves the kept one opens.
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --omit=optional --no-audit --no-fund \
 && cd node_modules/better-sqlite3 \
 && keep="$(node -p "require('node:path').basename(require('./lib/binding.js').getPrebuildPath())")" \
 && find prebuilds -type f ! -name "$keep" -delete \
 && rm -rf deps src binding.gyp \
 && cd /app \
 && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"

# Runtime stage: the same base (the architecture and libc the SQLite binary was chosen and proven on),
# production dependencies and the compiled service only (dist/src and dist/machines; the demo and test helpers stay in the build stage).
# MALLOC_ARENA_MAX: one glibc malloc arena, as prherald-server would otherwise set by starting itself again
# (src/memory/malloc-arenas.ts; docs/decisions.md): here it is set from the start, for every command.
FROM node:26-trixie-slim@sha256:930557a230abacbc3f4fd9b8648abf8f4bee1e17cb72195dcdfb2f709bc85b33 AS runtime
ENV NODE_ENV=production \
    PRHERALD_DATABASE_URL=file:/data/prherald.db \
    PRHERALD_CONFIG_FILE=/config/config.yaml \
    MALLOC_ARENA_MAX=1
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
