# One image recipe for every restgate service. Build arguments:
#   SERVICE  the service's workspace folder: gateway, services/identity, services/articles, ...
#   PORT     the port the service listens on (also the default of the PORT variable at run time)
# e.g. docker build --build-arg SERVICE=services/identity --build-arg PORT=9001 .
# docker-compose.yml passes both. A generated service needs no Dockerfile of its own.
#
# Node 26 is the Active LTS line since 2026-10-28 (supported until 2029-04-30); its official images
# are built on Debian 13 (trixie).
#
# No `# syntax=` line: it would make BuildKit fetch its front end from a registry, and the built-in
# one already supports RUN --mount. NODE_IMAGE names another Node 26 image where no registry is in
# reach (the container test builds on a local stand-in); the official image stays the default.
ARG NODE_IMAGE=node:26-trixie-slim

FROM ${NODE_IMAGE} AS base
WORKDIR /app

# Only the manifests, so that the dependency layers below stay cached while sources change.
FROM base AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && find . -name node_modules -prune -o -type f \( -name package.json -o -name package-lock.json \) \
      -exec cp --parents {} /manifests/ \;

# Every dependency (dev included): the compiler and the type packages build the service.
FROM base AS deps
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund

# Compile the service and the workspaces it references (tsc -b follows the project references),
# then collect what runs: shared/dist and the service folder without sources, tests or build state.
FROM deps AS build
ARG SERVICE
ARG PORT
COPY . .
RUN if [ -z "${SERVICE}" ] || [ ! -f "${SERVICE}/src/start.ts" ]; then \
      echo "build arg SERVICE must be a service folder with src/start.ts, e.g. services/identity" >&2; exit 1; \
    fi \
 && if ! [ "${PORT}" -gt 0 ] 2>/dev/null; then \
      echo "build arg PORT must be the service's port, e.g. 9001" >&2; exit 1; \
    fi
RUN npx tsc -b "${SERVICE}" \
 && mkdir -p "/out/${SERVICE}" /out/shared \
 && cp -R shared/dist /out/shared/dist \
 && cp -R "${SERVICE}/." "/out/${SERVICE}/" \
 && rm -rf "/out/${SERVICE}/node_modules" "/out/${SERVICE}/src" "/out/${SERVICE}/test" \
      "/out/${SERVICE}"/tsconfig*.json "/out/${SERVICE}"/*.tsbuildinfo
# The gateway derives its policy table from the route specs of the services it routes to, read at
# start from services.json and each one's dist/api.js (which need only joi and @restgate/shared);
# the gateway (realtime) and a service marked `readsResources` in services.json (webhooks) read
# the resources' rules from their dist/resource.js. Each gets services.json and every routed
# service's dist.
RUN if [ "$(node -p "const r = require('./services.json'); r.gateway.dir === '${SERVICE}' || r.services.some((s) => s.dir === '${SERVICE}' && s.readsResources === true)")" = true ]; then \
      cp services.json /out/ \
      && node -p "require('./services.json').services.filter((s) => s.urlEnv).map((s) => s.dir).join('\n')" > /tmp/routed \
      && while read -r dir; do \
           npx tsc -b "${dir}" && mkdir -p "/out/${dir}" && cp -R "${dir}/dist" "/out/${dir}/dist" || exit 1; \
         done < /tmp/routed; \
    fi

# Production dependencies of this one service (and of @restgate/shared, which it links to).
FROM base AS prod-deps
ARG SERVICE
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --workspace "${SERVICE}" --no-audit --no-fund

FROM base AS runtime
ARG SERVICE
ARG PORT
ENV NODE_ENV=production \
    PORT=${PORT}
COPY --from=prod-deps /app/ ./
COPY --from=build /out/ ./
WORKDIR /app/${SERVICE}
EXPOSE ${PORT}
# The image's `node` user, by number so that a runtime can tell it is not root (runAsNonRoot).
# The files stay root-owned and read-only to the process.
USER 1000:1000
# Liveness only (GET /health); slim images have no curl, so node's own fetch asks.
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node itself receives SIGTERM (no shell, no npm in between). Compose adds an init
# (init: true) as PID 1, which forwards signals and reaps; node then stops gracefully on its own.
CMD ["node", "dist/start.js"]
