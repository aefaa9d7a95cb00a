# The payreq image compose.yaml builds: Node 24, the production dependencies, and the server
# bundle and pay page that `npm run build` makes (dist/). `payreq serve` by default.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN npm ci --no-audit --no-fund && npm run build

FROM node:24-bookworm-slim
ENV NODE_ENV=production DATA_DIR=/home/node/payreq
WORKDIR /app
COPY . .
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 8080
CMD ["node", "dist/server/cli.js", "serve"]
