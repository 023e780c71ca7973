# One image for both roles: `npm run api` or `npm run worker` (chosen by the compose service's command).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
USER node
EXPOSE 3000
CMD ["npm", "run", "api"]
