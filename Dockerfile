# syntax=docker/dockerfile:1
# prherald container image. Build for both architectures (docs/operations.md#container-image):
#   docker buildx build --platform linux/amd64,linux/arm64 -t prherald:latest .
# test/docs/dockerfile.test.ts checks the promises below against the code's defaults.

# Build stage: compiles TypeScript and the native SQLite module (better-sqlite3 builds from source with
# node-gyp), then drops the dev dependencies so the runtime stage copies production ones only.
FROM node:20-bookworm-slim AS build
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
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund

# Runtime stage: the same base (so the native module's ABI matches), production dependencies and the
# compiled service only (dist/src and dist/machines; the demo and test helpers stay in the build stage).
FROM node:20-bookworm-slim AS runtime
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
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form, no shell wrapper: node is PID 1 and receives SIGTERM itself, so mailboxes drain before exit.
ENTRYPOINT ["node", "dist/src/cli/server.js"]
