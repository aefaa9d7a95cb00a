import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` writes a new migration after a change to the tables in src/db/schema/
// (src/db/schema.ts exports them all).
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './src/db/migrations',
  casing: 'snake_case',
});
